/**
 * The client's skills (SEP-2640): `skills/list` through the list walk (cached as far as `ttlMs` allows),
 * `skills/get`, `resources/directory/read`, and file reads checked against the listing before anything of them
 * is handed out.
 */
import * as Digest from "effect/crypto/Digest"
import * as Effect from "effect/Effect"
import * as Base64 from "effect/encoding/Base64"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import type { CallOptions, ListOptions, Service } from "../../McpClient.js"
import { McpDiagnostic } from "../../McpDiagnostic.js"
import { type McpClientError, McpPaginationLimitError } from "../../McpError.js"
import {
  CacheScope,
  type JsonObject,
  Meta,
  OpenStruct,
  type ReadResourceResult,
  Resource
} from "../../McpSchema.js"
import type { LoadedSkill, Skill, SkillFile, SkillsError } from "../../McpSkills.js"
import { McpSkillError, McpSkillVerificationError } from "../../McpSkillsError.js"
import * as Entry from "../skills/entry.js"
import type { Session } from "./connection.js"
import type { ClientContext } from "./context.js"
import { decodeAs } from "./decode.js"
import type { Pagination } from "./pagination.js"
import type { Requests } from "./request.js"

// The YAML parser is loaded when the first `SKILL.md` is read.
let frontmatterModule: Promise<typeof import("../skills/frontmatter.js")> | undefined
const loadFrontmatter = () => (frontmatterModule ??= import("../skills/frontmatter.js"))

const cacheFields = {
  ttlMs: Schema.optional(Schema.Number),
  cacheScope: Schema.optional(CacheScope),
  _meta: Meta
}

const ListSkillsResult = OpenStruct({
  ...cacheFields,
  nextCursor: Schema.optional(Schema.String),
  skills: Schema.Array(Schema.Unknown)
})

const GetSkillResult = OpenStruct({ ...cacheFields, skill: Schema.Unknown })

const DirectoryResult = OpenStruct({
  ...cacheFields,
  nextCursor: Schema.optional(Schema.String),
  resources: Schema.Array(Resource)
})

const decodeGet = decodeAs(GetSkillResult, "skills/get")
const decodeDirectory = decodeAs(DirectoryResult, "resources/directory/read")
const utf8 = new TextEncoder()
const utf8Strict = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true })

/** @internal */
export type SkillMethods = Pick<
  Service,
  "listSkills" | "getSkill" | "listSkillDirectory" | "readSkillFile" | "loadSkill"
>

const unsupported = (uri: string, what: string) =>
  new McpSkillError({ reason: "unsupported", uri, detail: `the server does not declare ${what}` })

/** @internal */
export const make = (
  context: ClientContext,
  requests: Requests,
  pagination: Pagination,
  session: Effect.Effect<Session, McpClientError>,
  readResource: (uri: string, options?: ListOptions) => Effect.Effect<ReadResourceResult, McpClientError>
): Effect.Effect<SkillMethods> =>
  Effect.gen(function*() {
    const digest = yield* Effect.provide(Digest.Digest, Digest.layerWebCrypto)
    const declared = Effect.map(session, (current) => Entry.declaration(current.info.capabilities))

    const listSkills = (options?: ListOptions): Effect.Effect<ReadonlyArray<Skill>, McpClientError> =>
      Effect.flatMap(declared, (declaration) => {
        if (declaration === undefined) return Effect.succeed([])
        return pagination.listAll("skills/list", ListSkillsResult, (page) => page.skills, options).pipe(
          Effect.flatMap((entries) => keepValid(context, entries))
        )
      })

    const getSkill = (uri: string, options?: CallOptions): Effect.Effect<Skill, SkillsError> =>
      Effect.gen(function*() {
        if ((yield* declared) === undefined) return yield* unsupported(uri, `the ${Entry.EXTENSION_ID} extension`)
        if (typeof uri !== "string" || !uri.endsWith(`/${Entry.SKILL_MD}`)) {
          return yield* new McpSkillError({ reason: "not-found", uri, detail: `not the URI of a ${Entry.SKILL_MD}` })
        }
        const current = yield* session
        const result = yield* pagination.cacheable(
          current,
          "skills/get",
          JSON.stringify(uri),
          requests.requestComplete(current, "skills/get", { uri }, options).pipe(
            Effect.flatMap(decodeGet),
            Effect.map((value) => ({ value, ttlMs: value.ttlMs, cacheScope: value.cacheScope }))
          ),
          options
        )
        const skill = Entry.decodeEntry(result.skill)
        if (typeof skill === "string") return yield* new McpSkillError({ reason: "invalid-entry", uri, detail: skill })
        if (skill.uri !== uri) {
          return yield* new McpSkillError({ reason: "invalid-entry", uri, detail: `the server answered with ${skill.uri}` })
        }
        return skill
      })

    const listSkillDirectory = (skill: Skill, directory?: string, options?: ListOptions) =>
      Effect.gen(function*() {
        const uri = directory ?? Entry.skillRoot(skill.uri)
        const declaration = yield* declared
        if (declaration?.["directoryRead"] !== true) {
          return yield* unsupported(uri, `directoryRead for the ${Entry.EXTENSION_ID} extension`)
        }
        if (!Entry.isSkillDirectory(skill.uri, uri)) {
          return yield* new McpSkillError({ reason: "outside-skill", uri, detail: `not a folder of ${skill.uri}` })
        }
        return yield* walkDirectory(context, requests, pagination, yield* session, uri, options)
      })

    const readSkillFile = (skill: Skill, uri: string, options?: ListOptions): Effect.Effect<SkillFile, SkillsError> =>
      Effect.gen(function*() {
        const listed = skill.resources === "dynamic" ? undefined : skill.resources.find((r) => r.uri === uri)
        const allowed = skill.resources === "dynamic" ? Entry.isInsideSkill(skill.uri, uri) : listed !== undefined
        if (!allowed) {
          return yield* new McpSkillError({
            reason: "outside-skill",
            uri,
            detail: skill.resources === "dynamic" ? `not inside the folder of ${skill.uri}` : `not listed by ${skill.uri}`
          })
        }
        if ((yield* declared) === undefined) return yield* unsupported(uri, `the ${Entry.EXTENSION_ID} extension`)
        const result = yield* readResource(uri, options)
        const fail = (reason: McpSkillVerificationError["reason"], expected: string, actual: string) =>
          new McpSkillVerificationError({ skill: skill.uri, uri, reason, expected, actual })
        const [content, ...others] = result.contents
        if (content === undefined || others.length > 0 || content.uri !== uri) {
          return yield* fail("contents", `one content of ${uri}`, describeContents(result))
        }
        const text = "text" in content && typeof content.text === "string" ? content.text : undefined
        const blob = "blob" in content && typeof content.blob === "string" ? content.blob : undefined
        const decoded = text !== undefined ? Result.succeed(utf8.encode(text)) : Base64.decode(blob ?? "")
        if (Result.isFailure(decoded)) return yield* fail("contents", "base64 bytes", "a blob that is not base64")
        const bytes = decoded.success
        if (listed !== undefined) {
          if (bytes.byteLength !== listed.size) return yield* fail("size", `${listed.size} bytes`, `${bytes.byteLength} bytes`)
          const actual = `sha256:${yield* digest.digestHex(Digest.sha256, bytes)}`
          if (actual !== listed.digest) return yield* fail("digest", listed.digest, actual)
        }
        const asText = text ?? textOf(bytes)
        if (uri === skill.uri) {
          const { parseFrontmatter } = yield* Effect.promise(loadFrontmatter)
          const frontmatter = parseFrontmatter(asText ?? "")
          if (typeof frontmatter === "string") return yield* fail("frontmatter", "YAML frontmatter", frontmatter)
          const differences = Entry.frontmatterDifferences(skill.frontmatter, frontmatter)
          // What differs is named; the file's own values are never handed out.
          if (differences.length > 0) {
            return yield* fail("frontmatter", JSON.stringify(pick(skill.frontmatter, differences)), `other ${differences.join(", ")}`)
          }
        }
        return {
          skill: skill.uri,
          uri,
          bytes,
          verified: listed !== undefined,
          ...(content.mimeType === undefined ? {} : { mimeType: content.mimeType }),
          ...(asText === undefined ? {} : { text: asText })
        }
      })

    const loadSkill = (skill: Skill, options?: ListOptions): Effect.Effect<LoadedSkill, SkillsError> =>
      Effect.map(readSkillFile(skill, skill.uri, options), (file) => ({
        skill,
        instructions: file.text ?? "",
        files: skill.resources === "dynamic" ? [] : skill.resources.filter((r) => r.uri !== skill.uri)
      }))

    return { listSkills, getSkill, listSkillDirectory, readSkillFile, loadSkill }
  })

/** The valid entries, the first of each URI; each invalid one is a diagnostic. */
const keepValid = (context: ClientContext, entries: ReadonlyArray<unknown>) =>
  Effect.gen(function*() {
    const skills = new Map<string, Skill>()
    for (const entry of entries) {
      const skill = Entry.decodeEntry(entry)
      if (typeof skill === "string") {
        yield* context.report(McpDiagnostic.InvalidSkill({ reason: skill, ...Entry.claimedIdentity(entry) }))
      } else if (!skills.has(skill.uri)) {
        skills.set(skill.uri, skill)
      }
    }
    return [...skills.values()]
  })

/** Every page of a directory (up to `maxPages`); each child must be a direct child of the directory. */
const walkDirectory = (
  context: ClientContext,
  requests: Requests,
  pagination: Pagination,
  current: Session,
  uri: string,
  options: ListOptions | undefined
) =>
  Effect.gen(function*() {
    const method = "resources/directory/read"
    const children = new Map<string, Resource>()
    let cursor: string | undefined = undefined
    let pages = 0
    do {
      if (pages >= context.maxPages) return yield* new McpPaginationLimitError({ method, pages: context.maxPages })
      const params: JsonObject = cursor === undefined ? { uri } : { uri, cursor }
      const page: typeof DirectoryResult.Type = yield* pagination.cacheable(
        current,
        method,
        JSON.stringify(params),
        requests.requestComplete(current, method, params, options).pipe(
          Effect.flatMap(decodeDirectory),
          Effect.map((value) => ({ value, ttlMs: value.ttlMs, cacheScope: value.cacheScope }))
        ),
        options
      )
      for (const child of page.resources) {
        if (!Entry.isDirectChild(uri, child.uri)) {
          return yield* new McpSkillError({ reason: "invalid-entry", uri, detail: `${child.uri} is not a child of it` })
        }
        if (!children.has(child.uri)) children.set(child.uri, child)
      }
      cursor = page.nextCursor
      pages++
    } while (cursor !== undefined)
    return [...children.values()]
  })

const textOf = (bytes: Uint8Array): string | undefined => {
  try {
    return utf8Strict.decode(bytes)
  } catch {
    return undefined
  }
}

const pick = (object: JsonObject, keys: ReadonlyArray<string>): JsonObject =>
  Object.fromEntries(keys.map((key) => [key, object[key] ?? null]))

const describeContents = (result: ReadResourceResult): string =>
  result.contents.length === 0
    ? "no contents"
    : result.contents.map((content) => content.uri).join(", ")
