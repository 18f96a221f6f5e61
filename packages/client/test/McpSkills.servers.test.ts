/**
 * Skills served by servers written by others, in both eras over stdio: the official SDK's `SkillsExtension`
 * and Effect's own `McpServer.skill` (`effect/ai`). Every page listed, nothing read before loading, each file
 * verified against the server's own digests, sizes and frontmatter, text and binary alike, and the folders read.
 */
import { McpClient, NodeMcpClient } from "@mcp-effect/client/node"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { createRequire } from "node:module"

const script = createRequire(import.meta.url).resolve("@mcp-effect/test-servers/skills")

const cases = [
  { impl: "official", era: "modern" },
  { impl: "official", era: "legacy" },
  { impl: "effect", era: "modern" },
  { impl: "effect", era: "legacy" }
] as const

describe("skills from servers written by others", () => {
  for (const { era, impl } of cases) {
    it.live(`${impl} server, ${era}`, () =>
      Effect.gen(function*() {
        const client = yield* McpClient.McpClient
        assert.strictEqual(yield* client.era, era)
        const skills = yield* client.listSkills()
        assert.deepStrictEqual(skills.map((s) => s.name).sort(), ["pdf-processing", "release-notes"])
        const pdf = skills.find((s) => s.name === "pdf-processing")
        if (pdf === undefined) return assert.fail("pdf-processing is not listed")
        assert.deepStrictEqual(pdf.frontmatter["metadata"], { owner: "docs-team", tags: "pdf, forms" })

        const got = yield* client.getSkill(pdf.uri)
        assert.deepStrictEqual(got, pdf)
        const loaded = yield* client.loadSkill(pdf)
        assert.include(loaded.instructions, "Read references/FORMS.md before filling a form.")
        const forms = yield* client.readSkillFile(pdf, "skill://pdf-processing/references/FORMS.md")
        assert.strictEqual(forms.text, "Form fields live in the AcroForm dictionary.\n")
        const icon = yield* client.readSkillFile(pdf, "skill://pdf-processing/assets/icon.bin")
        assert.deepStrictEqual([...icon.bytes], [0, 1, 2, 253, 254, 255])
        const notes = skills.find((s) => s.name === "release-notes")
        if (notes === undefined) return assert.fail("release-notes is not listed")
        // A quoted YAML scalar with a colon: the frontmatter still compares equal.
        assert.strictEqual((yield* client.loadSkill(notes)).skill.description, "Write release notes: one line per change")

        const root = yield* client.listSkillDirectory(pdf)
        assert.includeMembers(root.map((r) => r.uri), ["skill://pdf-processing/SKILL.md", "skill://pdf-processing/references"])
      }).pipe(
        Effect.provide(NodeMcpClient.layerStdio({
          command: process.execPath,
          args: [script, "--impl", impl, "--era", era],
          era,
          skills: true
        }))
      ), 60_000)
  }
})
