/**
 * Skills (SEP-2640) against hostile servers: a `SKILL.md` whose frontmatter is a YAML alias bomb, and entries
 * left out of a listing, each named by a diagnostic.
 */
import { McpClient, McpSkills, McpTestServer } from "@mcp-effect/client"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Stream from "effect/Stream"

/** Nine lists of nine aliases of the one before: 423 bytes that expand to 9^9 strings. */
const aliasBomb = (): string => {
  const lines = ["---", "name: bomb", "description: An alias bomb", `a: &a [${Array(9).fill(`"lol"`).join(",")}]`]
  const names = "abcdefghij"
  for (let i = 1; i < names.length; i++) {
    lines.push(`${names[i]}: &${names[i]} [${Array(9).fill(`*${names[i - 1]}`).join(",")}]`)
  }
  return `${lines.join("\n")}\n---\nBoom.\n`
}

/** The skill as a listing would give it: dynamic, so the kit does not parse the file to list it. */
const bombSkill: McpSkills.Skill = {
  uri: "skill://bomb/SKILL.md",
  name: "bomb",
  description: "An alias bomb",
  frontmatter: { name: "bomb", description: "An alias bomb" },
  resources: "dynamic"
}

describe("skills against a hostile server", () => {
  it.effect("a YAML alias bomb in SKILL.md's frontmatter is refused with McpSkillVerificationError, unexpanded", () =>
    Effect.gen(function*() {
      const server = McpTestServer.make({ skills: [{ name: "bomb", files: { "SKILL.md": aliasBomb() } }] })
      const error = yield* McpSkills.load(bombSkill).pipe(Effect.flip, Effect.provide(server.layer()))
      assert.strictEqual(error._tag, "McpSkillVerificationError")
      if (error._tag !== "McpSkillVerificationError") return
      assert.strictEqual(error.reason, "frontmatter")
      assert.strictEqual(error.uri, bombSkill.uri)
      assert.include(error.actual, "alias")
    }))

  it.effect("aliases of a scalar that expand past twice the frontmatter's size are refused too", () =>
    Effect.gen(function*() {
      const long = "x".repeat(200)
      const aliases = Array.from({ length: 40 }, (_, i) => `k${i}: *s`).join("\n")
      const markdown = `---\nname: bomb\ndescription: An alias bomb\ns: &s ${long}\n${aliases}\n---\n`
      const server = McpTestServer.make({ skills: [{ name: "bomb", files: { "SKILL.md": markdown } }] })
      const error = yield* McpSkills.load(bombSkill).pipe(Effect.flip, Effect.provide(server.layer()))
      assert.strictEqual(error._tag, "McpSkillVerificationError")
      if (error._tag !== "McpSkillVerificationError") return
      assert.strictEqual(error.reason, "frontmatter")
      assert.include(error.actual, "twice")
    }))

  it.effect("a frontmatter with a harmless anchor still loads when it matches the listing", () =>
    Effect.gen(function*() {
      const markdown = `---\nname: bomb\ndescription: &d An alias bomb\nsummary: *d\n---\nFine.\n`
      const server = McpTestServer.make({ skills: [{ name: "bomb", files: { "SKILL.md": markdown } }] })
      const skill = { ...bombSkill, frontmatter: { ...bombSkill.frontmatter, summary: "An alias bomb" } }
      const loaded = yield* McpSkills.load(skill).pipe(Effect.provide(server.layer()))
      assert.strictEqual(loaded.instructions, markdown)
    }))
})

describe("skills/list entries left out", () => {
  it.effect("each refused entry is an InvalidSkill diagnostic naming the skill (uri, name) and why", () =>
    Effect.gen(function*() {
      const escaping = (entry: Record<string, unknown>) => ({
        ...entry,
        resources: [
          ...(entry["resources"] as ReadonlyArray<unknown>),
          { uri: "skill://other/SKILL.md", digest: `sha256:${"1".repeat(64)}`, size: 1 }
        ]
      })
      const server = McpTestServer.make({
        skills: [
          { name: "escape", files: { "SKILL.md": "---\nname: escape\ndescription: Escapes\n---\n" }, entry: escaping },
          { name: "nameless", files: { "SKILL.md": "---\ndescription: No name\n---\n" } }
        ]
      })
      const result = yield* Effect.gen(function*() {
        const client = yield* McpClient.McpClient
        const diagnostics = yield* client.diagnostics.pipe(Stream.take(2), Stream.runCollect, Effect.forkChild)
        yield* Effect.yieldNow
        const listed = yield* client.listSkills()
        return { listed, diagnostics: yield* Fiber.join(diagnostics) }
      }).pipe(Effect.provide(server.layer()))
      assert.deepStrictEqual(result.listed, [])
      const refused = result.diagnostics.flatMap((d) => d._tag === "InvalidSkill" ? [d] : [])
      assert.deepStrictEqual(refused.map((d) => [d.name, d.uri]), [
        ["escape", "skill://escape/SKILL.md"],
        ["nameless", "skill://nameless/SKILL.md"]
      ])
      assert.include(refused[0]?.reason ?? "", "skill://other/SKILL.md is not inside the skill's directory")
      assert.include(refused[1]?.reason ?? "", "the frontmatter name must be \"nameless\"")
    }))
})
