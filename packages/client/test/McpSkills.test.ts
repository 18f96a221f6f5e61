/**
 * Skills (SEP-2640) in the client, against the scripted test server in both eras: listing every page without
 * reading a file, loading and reading files checked against digest, size and frontmatter, refusing URIs outside
 * a skill, the extension's gates, the cache, and the Promise API.
 */
import { McpClient, McpPromise, McpSkills, McpTestServer } from "@mcp-effect/client"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Stream from "effect/Stream"

const SKILL_MD = `---
name: pdf-processing
description: Extract, fill, and assemble PDF documents
metadata:
  author: acme
  tags: [pdf, forms]
---

# PDF processing

Read references/FORMS.md before filling a form.
`
const FORMS = "Form fields are listed in the AcroForm dictionary.\n"
const LOGO = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 255, 1, 2])

const pdf: McpTestServer.SkillDefinition = {
  name: "pdf-processing",
  files: { "SKILL.md": SKILL_MD, "references/FORMS.md": FORMS, "assets/logo.png": LOGO }
}
const other = (name: string): McpTestServer.SkillDefinition => ({
  name,
  prefix: "acme",
  files: { "SKILL.md": `---\nname: ${name}\ndescription: The ${name} skill\n---\nDo ${name}.\n` }
})

const PDF_URI = "skill://pdf-processing/SKILL.md"
const FORMS_URI = "skill://pdf-processing/references/FORMS.md"

/** Replace one listed file's field. */
const tamper = (uri: string, field: "digest" | "size") => (entry: Record<string, unknown>) => ({
  ...entry,
  resources: (entry["resources"] as ReadonlyArray<Record<string, unknown>>).map((r) =>
    r["uri"] !== uri
      ? r
      : field === "size"
      ? { ...r, size: Number(r["size"]) + 1 }
      : { ...r, digest: `sha256:${"0".repeat(64)}` }
  )
})

const withClient = <A, E>(
  server: McpTestServer.TestServer,
  body: Effect.Effect<A, E, McpClient.McpClient>,
  options?: McpClient.ClientOptions
) => Effect.provide(body, server.layer(options))

const client = Effect.asVoid(McpSkills.list())

for (const era of ["modern", "legacy"] as const) {
  describe(`skills (${era})`, () => {
    it.effect("lists every page and reads no file", () =>
      Effect.gen(function*() {
        const server = McpTestServer.make({ era, skills: [pdf, other("alpha"), other("beta")], skillsPageSize: 1 })
        const skills = yield* withClient(server, McpSkills.list())
        assert.deepStrictEqual(skills.map((s) => s.name), ["pdf-processing", "alpha", "beta"])
        assert.strictEqual(skills[1]?.uri, "skill://acme/alpha/SKILL.md")
        assert.strictEqual((yield* server.requests("skills/list")).length, 3)
        assert.strictEqual((yield* server.requests("resources/read")).length, 0)
      }))

    it.effect("loads a skill and reads its text and binary files, verified", () =>
      Effect.gen(function*() {
        const server = McpTestServer.make({ era, skills: [pdf] })
        const [skill] = yield* withClient(server, McpSkills.list())
        assert.isDefined(skill)
        if (skill === undefined) return
        const loaded = yield* withClient(server, McpSkills.load(skill))
        assert.strictEqual(loaded.instructions, SKILL_MD)
        assert.deepStrictEqual(loaded.files.map((f) => McpSkills.relativePath(skill, f.uri)).sort(), [
          "assets/logo.png",
          "references/FORMS.md"
        ])
        assert.deepStrictEqual((yield* server.requests("resources/read")).map((m) => paramsUri(m)), [PDF_URI])
        const forms = yield* withClient(server, McpSkills.readFile(skill, FORMS_URI))
        assert.strictEqual(forms.text, FORMS)
        assert.isTrue(forms.verified)
        const logo = yield* withClient(server, McpSkills.readFile(skill, "skill://pdf-processing/assets/logo.png"))
        assert.deepStrictEqual([...logo.bytes], [...LOGO])
      }))

    it.effect("a digest mismatch fails naming the file, and hands out nothing", () =>
      Effect.gen(function*() {
        const server = McpTestServer.make({ era, skills: [{ ...pdf, entry: tamper(FORMS_URI, "digest") }] })
        const error = yield* withClient(
          server,
          McpSkills.list().pipe(Effect.flatMap(([s]) => s === undefined ? Effect.die("no skill") : McpSkills.readFile(s, FORMS_URI))),
          undefined
        ).pipe(Effect.flip)
        assert.strictEqual(error._tag, "McpSkillVerificationError")
        if (error._tag !== "McpSkillVerificationError") return
        assert.strictEqual(error.reason, "digest")
        assert.strictEqual(error.uri, FORMS_URI)
        assert.strictEqual(error.expected, `sha256:${"0".repeat(64)}`)
        assert.include(error.message, FORMS_URI)
      }))

    it.effect("a size mismatch fails even where the digest matches", () =>
      Effect.gen(function*() {
        const server = McpTestServer.make({ era, skills: [{ ...pdf, entry: tamper(PDF_URI, "size") }] })
        const error = yield* withClient(
          server,
          McpSkills.list().pipe(Effect.flatMap(([s]) => s === undefined ? Effect.die("no skill") : McpSkills.load(s)))
        ).pipe(Effect.flip)
        assert.strictEqual(error._tag, "McpSkillVerificationError")
        if (error._tag !== "McpSkillVerificationError") return
        assert.strictEqual(error.reason, "size")
        assert.strictEqual(error.uri, PDF_URI)
        assert.strictEqual(error.expected, `${new TextEncoder().encode(SKILL_MD).byteLength + 1} bytes`)
      }))

    it.effect("a frontmatter that differs from the listed one (deeply) fails the load", () =>
      Effect.gen(function*() {
        const server = McpTestServer.make({
          era,
          skills: [{
            ...pdf,
            entry: (entry) => ({
              ...entry,
              frontmatter: { ...(entry["frontmatter"] as object), metadata: { author: "acme", tags: ["pdf"] } }
            })
          }]
        })
        const error = yield* withClient(
          server,
          McpSkills.list().pipe(Effect.flatMap(([s]) => s === undefined ? Effect.die("no skill") : McpSkills.load(s)))
        ).pipe(Effect.flip)
        assert.strictEqual(error._tag, "McpSkillVerificationError")
        if (error._tag !== "McpSkillVerificationError") return
        assert.strictEqual(error.reason, "frontmatter")
        assert.strictEqual(error.expected, JSON.stringify({ metadata: { author: "acme", tags: ["pdf"] } }))
        // The differing field is named; the file's own value is not handed out.
        assert.strictEqual(error.actual, "other metadata")
        assert.notInclude(error.message, "forms")
      }))

    it.effect("never requests a file outside the manifest or the skill's folder", () =>
      Effect.gen(function*() {
        const server = McpTestServer.make({ era, skills: [pdf, { ...other("loose"), dynamic: true }] })
        const [skill, loose] = yield* withClient(server, McpSkills.list())
        if (skill === undefined || loose === undefined) return assert.fail("two skills expected")
        const outside = [
          "skill://pdf-processing/secrets.txt",
          "skill://pdf-processing/../alpha/SKILL.md",
          "file:///etc/passwd"
        ]
        for (const uri of outside) {
          const error = yield* withClient(server, McpSkills.readFile(skill, uri)).pipe(Effect.flip)
          assert.strictEqual(error._tag, "McpSkillError")
        }
        for (const uri of ["skill://acme/other/SKILL.md", "skill://acme/loose/%2e%2e/x", "skill://acme/loose/a/../../x"]) {
          const error = yield* withClient(server, McpSkills.readFile(loose, uri)).pipe(Effect.flip)
          assert.strictEqual(error._tag, "McpSkillError")
        }
        assert.strictEqual((yield* server.requests("resources/read")).length, 0)
        const dynamic = yield* withClient(server, McpSkills.load(loose))
        assert.strictEqual(dynamic.instructions, "---\nname: loose\ndescription: The loose skill\n---\nDo loose.\n")
      }))

    it.effect("gets a skill by URI and lists its folders (directoryRead)", () =>
      Effect.gen(function*() {
        const server = McpTestServer.make({ era, skills: [pdf], skillsDirectoryRead: true })
        const result = yield* withClient(
          server,
          Effect.gen(function*() {
            const client = yield* McpClientTag
            const skill = yield* client.getSkill(PDF_URI)
            const root = yield* client.listSkillDirectory(skill)
            const references = yield* client.listSkillDirectory(skill, "skill://pdf-processing/references")
            const outside = yield* client.listSkillDirectory(skill, "skill://acme").pipe(Effect.flip)
            const unknown = yield* client.getSkill("skill://nope/SKILL.md").pipe(Effect.flip)
            return { skill, root, references, outside, unknown }
          })
        )
        assert.strictEqual(result.skill.name, "pdf-processing")
        assert.deepStrictEqual(result.root.map((r) => [r.uri, r.mimeType]).sort(), [
          ["skill://pdf-processing/SKILL.md", undefined],
          ["skill://pdf-processing/assets", "inode/directory"],
          ["skill://pdf-processing/references", "inode/directory"]
        ])
        assert.deepStrictEqual(result.references.map((r) => r.uri), [FORMS_URI])
        assert.strictEqual(result.outside._tag, "McpSkillError")
        assert.strictEqual(result.unknown._tag, "McpProtocolError")
      }))

    it.effect("a server without the extension is never asked", () =>
      Effect.gen(function*() {
        const server = McpTestServer.make({ era, tools: [] })
        const result = yield* withClient(
          server,
          Effect.gen(function*() {
            const client = yield* McpClientTag
            return { listed: yield* client.listSkills(), got: yield* client.getSkill(PDF_URI).pipe(Effect.flip) }
          })
        )
        assert.deepStrictEqual(result.listed, [])
        assert.strictEqual(result.got._tag, "McpSkillError")
        assert.strictEqual((yield* server.requests("skills/list")).length, 0)
        assert.strictEqual((yield* server.requests("skills/get")).length, 0)
      }))

    it.effect("leaves out entries that break the rules", () =>
      Effect.gen(function*() {
        const server = McpTestServer.make({
          era,
          skills: [
            pdf,
            { ...other("alpha"), entry: (entry) => ({ ...entry, frontmatter: { name: "beta", description: "x" } }) },
            { ...other("gamma"), entry: (entry) => ({ ...entry, resources: [] }) }
          ]
        })
        const skills = yield* withClient(server, McpSkills.list())
        assert.deepStrictEqual(skills.map((s) => s.name), ["pdf-processing"])
      }))

    it.effect("a listing is bounded by maxPages; an entry listing a file outside its folder is left out", () =>
      Effect.gen(function*() {
        const paged = McpTestServer.make({ era, skills: [pdf, other("alpha"), other("beta")], skillsPageSize: 1 })
        const error = yield* withClient(paged, McpSkills.list(), { maxPages: 2 }).pipe(Effect.flip)
        assert.strictEqual(error._tag, "McpPaginationLimitError")
        const escaping = McpTestServer.make({
          era,
          skills: [pdf, {
            ...other("alpha"),
            entry: (entry) => ({
              ...entry,
              resources: [
                ...(entry["resources"] as ReadonlyArray<unknown>),
                { uri: "skill://pdf-processing/SKILL.md", digest: `sha256:${"1".repeat(64)}`, size: 1 }
              ]
            })
          }]
        })
        const result = yield* withClient(
          escaping,
          Effect.gen(function*() {
            const client = yield* McpClientTag
            const diagnostics = yield* client.diagnostics.pipe(Stream.take(1), Stream.runCollect, Effect.forkChild)
            yield* Effect.yieldNow
            const listed = yield* client.listSkills()
            return { listed, diagnostics: yield* Fiber.join(diagnostics) }
          })
        )
        assert.deepStrictEqual(result.listed.map((s) => s.name), ["pdf-processing"])
        assert.strictEqual(result.diagnostics[0]?._tag, "InvalidSkill")
        assert.include(
          result.diagnostics[0]?._tag === "InvalidSkill" ? result.diagnostics[0].reason : "",
          "skill://pdf-processing/SKILL.md is not inside the skill's directory"
        )
      }))

    it.effect("declares the extension only when asked to", () =>
      Effect.gen(function*() {
        const server = McpTestServer.make({ era, skills: [pdf] })
        yield* withClient(server, client, { skills: true })
        const declared = (yield* server.received).map(capabilitiesOf).filter((c) => c !== undefined)
        assert.isAbove(declared.length, 0)
        for (const capabilities of declared) {
          assert.deepStrictEqual(capabilities["extensions"]?.[McpSkills.EXTENSION_ID], {})
        }
        const plain = McpTestServer.make({ era, skills: [pdf] })
        yield* withClient(plain, client)
        for (const capabilities of (yield* plain.received).map(capabilitiesOf)) {
          assert.isUndefined(capabilities?.["extensions"]?.[McpSkills.EXTENSION_ID])
        }
      }))
  })
}

describe("skills cache and Promise API", () => {
  it.effect("modern lists are cached for their ttlMs; legacy ones never", () =>
    Effect.gen(function*() {
      for (const era of ["modern", "legacy"] as const) {
        const server = McpTestServer.make({ era, skills: [pdf], skillsTtlMs: 60_000 })
        yield* withClient(server, Effect.andThen(McpSkills.list(), McpSkills.list()))
        assert.strictEqual((yield* server.requests("skills/list")).length, era === "modern" ? 1 : 2, era)
      }
    }))

  it.effect("notifications/resources/list_changed (how servers announce a changed catalogue) evicts cached skills", () =>
    Effect.gen(function*() {
      const server = McpTestServer.make({ skills: [pdf], skillsTtlMs: 60_000, skillsDirectoryRead: true })
      yield* withClient(
        server,
        Effect.gen(function*() {
          const client = yield* McpClientTag
          const subscription = yield* client.listen({ resourcesListChanged: true })
          const [skill] = yield* client.listSkills()
          if (skill === undefined) return assert.fail("no skill")
          yield* client.getSkill(PDF_URI)
          yield* client.listSkillDirectory(skill)
          yield* server.notify("notifications/resources/list_changed", {})
          // The subscriber sees the notification after the client evicted what it cached.
          yield* subscription.notifications.pipe(Stream.take(1), Stream.runDrain)
          yield* client.listSkills()
          yield* client.getSkill(PDF_URI)
          yield* client.listSkillDirectory(skill)
        }).pipe(Effect.scoped)
      )
      for (const method of ["skills/list", "skills/get", "resources/directory/read"]) {
        assert.strictEqual((yield* server.requests(method)).length, 2, method)
      }
    }))

  it("the Promise client lists, loads and rejects a tampered file", async () => {
    const server = McpTestServer.make({ skills: [{ ...pdf, entry: tamper(FORMS_URI, "digest") }] })
    const promise = await McpPromise.fromLayer(server.layer())
    try {
      const [skill] = await promise.listSkills()
      assert.isDefined(skill)
      if (skill === undefined) return
      assert.strictEqual((await promise.loadSkill(skill)).instructions, SKILL_MD)
      const rejected = await promise.readSkillFile(skill, FORMS_URI).then(() => undefined, (e: unknown) => e)
      assert.instanceOf(rejected, McpSkills.McpSkillVerificationError)
    } finally {
      await promise.close()
    }
  })
})

const McpClientTag = McpClient.McpClient

const paramsUri = (message: Record<string, unknown>): unknown => (message["params"] as Record<string, unknown>)["uri"]

type Caps = { readonly extensions?: Record<string, unknown> } & Record<string, unknown>
const capabilitiesOf = (message: Record<string, unknown>): Caps | undefined => {
  const params = message["params"] as Record<string, unknown> | undefined
  if (message["method"] === "initialize") return params?.["capabilities"] as Caps
  const meta = params?.["_meta"] as Record<string, unknown> | undefined
  return meta?.["io.modelcontextprotocol/clientCapabilities"] as Caps | undefined
}
