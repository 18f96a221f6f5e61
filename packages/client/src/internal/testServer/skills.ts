/** Test server, skills (SEP-2640): `skills/list`, `skills/get`, the skills' files and folders. */
import * as Digest from "effect/crypto/Digest"
import * as Effect from "effect/Effect"
import * as Base64 from "effect/encoding/Base64"
import type { JsonObject } from "../../McpSchema.js"
import type { Definition, SkillDefinition } from "../../McpTestServer.js"
import { parseFrontmatter } from "../skills/frontmatter.js"
import { paramsOf, RpcFailure } from "./protocol.js"
import { complete, type ConnectionState } from "./state.js"

const SCHEME = "skill://"
const DIRECTORY = "inode/directory"
const utf8 = new TextEncoder()

const rootOf = (skill: SkillDefinition) => `${SCHEME}${skill.prefix === undefined ? "" : `${skill.prefix}/`}${skill.name}`

const bytesOf = (content: string | Uint8Array) => typeof content === "string" ? utf8.encode(content) : content

interface ServedFile {
  readonly uri: string
  readonly content: string | Uint8Array
}

const filesOf = (skill: SkillDefinition): ReadonlyArray<ServedFile> =>
  Object.entries(skill.files).map(([path, content]) => ({ uri: `${rootOf(skill)}/${path}`, content }))

const entryOf = (skill: SkillDefinition) =>
  Effect.gen(function*() {
    const digest = yield* Digest.Digest
    const skillMd = skill.files["SKILL.md"]
    const parsed = parseFrontmatter(typeof skillMd === "string" ? skillMd : "")
    const frontmatter = typeof parsed === "string" ? {} : parsed
    const resources: Array<JsonObject> = []
    for (const file of filesOf(skill)) {
      const bytes = bytesOf(file.content)
      resources.push({ uri: file.uri, digest: `sha256:${yield* digest.digestHex(Digest.sha256, bytes)}`, size: bytes.byteLength })
    }
    const entry: JsonObject = {
      uri: `${rootOf(skill)}/SKILL.md`,
      frontmatter,
      resources: skill.dynamic === true ? "dynamic" : resources
    }
    return skill.entry === undefined ? entry : skill.entry(entry)
  }).pipe(Effect.provide(Digest.layerWebCrypto))

const cacheFields = (conn: ConnectionState): JsonObject =>
  conn.era === "modern" && conn.definition.skillsTtlMs !== undefined
    ? { ttlMs: conn.definition.skillsTtlMs, cacheScope: "public" }
    : {}

const listSkills = (conn: ConnectionState, params: JsonObject) =>
  Effect.gen(function*() {
    const skills = conn.definition.skills ?? []
    const size = conn.definition.skillsPageSize ?? Math.max(skills.length, 1)
    const start = typeof params["cursor"] === "string" ? Number(params["cursor"]) : 0
    if (!Number.isSafeInteger(start) || start < 0 || start > skills.length) {
      return yield* Effect.fail(new RpcFailure(-32602, "Invalid cursor"))
    }
    const page: Array<JsonObject> = []
    for (const skill of skills.slice(start, start + size)) page.push(yield* entryOf(skill))
    const next = start + size < skills.length ? { nextCursor: String(start + size) } : {}
    return complete(conn, { ...cacheFields(conn), skills: page, ...next })
  })

const getSkill = (conn: ConnectionState, params: JsonObject) =>
  Effect.gen(function*() {
    const skill = (conn.definition.skills ?? []).find((s) => `${rootOf(s)}/SKILL.md` === params["uri"])
    if (skill === undefined) return yield* Effect.fail(new RpcFailure(-32602, `Unknown skill: ${String(params["uri"])}`))
    return complete(conn, { ...cacheFields(conn), skill: yield* entryOf(skill) })
  })

/** The served file of that URI, if a skill has one. */
const findFile = (definition: Definition, uri: unknown): ServedFile | undefined =>
  (definition.skills ?? []).flatMap(filesOf).find((file) => file.uri === uri)

/** `resources/read` of a skill's file (text, or bytes as a blob); `undefined` when no skill has it. @internal */
export const readSkillFile = (conn: ConnectionState, uri: unknown): JsonObject | undefined => {
  const file = findFile(conn.definition, uri)
  if (file === undefined) return undefined
  const mimeType = file.uri.endsWith(".md")
    ? "text/markdown"
    : typeof file.content === "string"
    ? "text/plain"
    : "application/octet-stream"
  const content = typeof file.content === "string"
    ? { uri: file.uri, mimeType, text: file.content }
    : { uri: file.uri, mimeType, blob: Base64.encode(file.content) }
  return complete(conn, { contents: [content] })
}

/** The direct children of a folder of some skill (files and folders). */
const readDirectory = (conn: ConnectionState, params: JsonObject) =>
  Effect.gen(function*() {
    const uri = params["uri"]
    if (typeof uri !== "string") return yield* Effect.fail(new RpcFailure(-32602, "uri is required"))
    const children = new Map<string, JsonObject>()
    for (const file of (conn.definition.skills ?? []).flatMap(filesOf)) {
      if (!file.uri.startsWith(`${uri}/`)) continue
      const [name = "", ...rest] = file.uri.slice(uri.length + 1).split("/")
      const child = `${uri}/${name}`
      children.set(
        child,
        rest.length === 0
          ? { uri: child, name, size: bytesOf(file.content).byteLength }
          : { uri: child, name, mimeType: DIRECTORY }
      )
    }
    if (children.size === 0) return yield* Effect.fail(new RpcFailure(-32602, `Not a directory: ${uri}`))
    return complete(conn, { ...cacheFields(conn), resources: [...children.values()] })
  })

/** The skills methods, when the server serves skills; `undefined` for any other method. @internal */
export const skillsRoute = (
  conn: ConnectionState,
  method: string,
  message: JsonObject
): Effect.Effect<JsonObject, RpcFailure> | undefined => {
  if (conn.definition.skills === undefined) return undefined
  const params = paramsOf(message)
  switch (method) {
    case "skills/list":
      return listSkills(conn, params)
    case "skills/get":
      return getSkill(conn, params)
    case "resources/directory/read":
      return conn.definition.skillsDirectoryRead === true ? readDirectory(conn, params) : undefined
    case "resources/read": {
      const read = readSkillFile(conn, params["uri"])
      return read === undefined ? undefined : Effect.succeed(read)
    }
    default:
      return undefined
  }
}
