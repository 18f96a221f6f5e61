/**
 * Skills through `effect/ai`: a scripted language model reads the catalogue in its system prompt, loads the
 * skill it wants with `load_skill`, then reads one of the skill's files with `read_skill_file`, in
 * `generateText` rounds; a file that fails its check reaches the model only as a failed tool result.
 */
import { McpSkillsToolkit } from "@mcp-effect/ai"
import { LlmSkills, McpClient, type McpError, McpTestServer } from "@mcp-effect/client"
import { assert, describe, it } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import { LanguageModel, Prompt, Response } from "effect/ai"

const skillMd = (name: string, description: string) =>
  `---\nname: ${name}\ndescription: ${description}\n---\n\nUse references/FORMS.md for the field names.\n`
const FORMS = "Fields: name, date, signature.\n"

const server = (tamper: boolean) =>
  McpTestServer.make({
    skills: [{
      name: "pdf-processing",
      files: { "SKILL.md": skillMd("pdf-processing", "Fill PDF forms"), "references/FORMS.md": FORMS },
      ...(tamper
        ? {
          entry: (entry: Record<string, unknown>) => ({
            ...entry,
            resources: (entry["resources"] as ReadonlyArray<Record<string, unknown>>).map((r) =>
              String(r["uri"]).endsWith("FORMS.md") ? { ...r, size: Number(r["size"]) - 1 } : r
            )
          })
        }
        : {})
    }]
  })

const clientOf = (layer: Layer.Layer<McpClient.McpClient, McpError.McpClientError>) =>
  Effect.map(Layer.build(layer), Context.get(McpClient.McpClient))

/**
 * The scripted model: with no tool result yet it loads the skill its system prompt lists for PDF forms; after
 * the skill's instructions it reads the file they list; then it answers with the last result.
 */
const scriptedModel = (seen: Array<LanguageModel.ProviderOptions>) =>
  Layer.effect(
    LanguageModel.LanguageModel,
    LanguageModel.make({
      generateText: (options) =>
        Effect.sync((): Array<Response.PartEncoded> => {
          seen.push(options)
          const messages = options.prompt.content
          const results = messages.flatMap((m) => m.role === "tool" ? m.content : [])
            .flatMap((part) => part.type === "tool-result" ? [part] : [])
          const call = (id: string, name: string, params: object) =>
            Response.makePart("tool-call", { id, name, params, providerExecuted: false })
          if (results.length === 0) {
            const system = messages.flatMap((m) => m.role === "system" ? [m.content] : []).join("\n")
            const name = /^- (\S+): Fill PDF forms$/m.exec(system)?.[1] ?? "none"
            return [call("load", "docs__load_skill", { name })]
          }
          if (results.length === 1) {
            const path = /^- (\S+) \(\d+ bytes\)$/m.exec(String(results[0]?.result))?.[1] ?? "none"
            return [call("read", "docs__read_skill_file", { name: "pdf-processing", path })]
          }
          return [{ type: "text", text: String(results.at(-1)?.result) }]
        }),
      streamText: () => Stream.empty
    })
  )

const rounds = (skills: McpSkillsToolkit.SkillsToolkit, seen: Array<LanguageModel.ProviderOptions>) =>
  Effect.gen(function*() {
    let prompt = Prompt.concat(
      Prompt.make([{ role: "system", content: skills.systemPrompt }]),
      Prompt.make("Fill in this PDF form")
    )
    for (let turn = 0; turn < 4; turn++) {
      const response = yield* LanguageModel.generateText({ prompt, toolkit: skills.toolkit })
      if (response.toolCalls.length === 0) return { text: response.text, results: seen }
      prompt = Prompt.concat(prompt, Prompt.fromResponseParts(response.content))
    }
    return { text: "(no answer)", results: seen }
  }).pipe(Effect.provide(skills.layer), Effect.provide(scriptedModel(seen)))

describe("McpSkillsToolkit", () => {
  it.effect("a scripted model loads a skill from the catalogue and reads one of its files", () =>
    Effect.gen(function*() {
      const docs = server(false)
      const client = yield* clientOf(docs.layer())
      const skills = yield* McpSkillsToolkit.fromClient(client, { prefix: "docs__" })
      assert.include(skills.systemPrompt, "- pdf-processing: Fill PDF forms")
      assert.deepStrictEqual(skills.catalogue, [{ name: "pdf-processing", description: "Fill PDF forms" }])
      assert.deepStrictEqual(Object.keys(skills.tools), ["docs__load_skill", "docs__read_skill_file"])
      assert.strictEqual((yield* docs.requests("resources/read")).length, 0)

      const seen: Array<LanguageModel.ProviderOptions> = []
      const { text } = yield* rounds(skills, seen)
      assert.strictEqual(text, FORMS)
      assert.strictEqual(seen.length, 3)
      const uris = (yield* docs.requests("resources/read")).map((m) => (m["params"] as Record<string, unknown>)["uri"])
      assert.deepStrictEqual(uris, ["skill://pdf-processing/SKILL.md", "skill://pdf-processing/references/FORMS.md"])
    }))

  it.effect("a file that fails its check is a failed tool result, none of it shown", () =>
    Effect.gen(function*() {
      const client = yield* clientOf(server(true).layer())
      const skills = yield* McpSkillsToolkit.fromLibrary(
        LlmSkills.make([{ provider: LlmSkills.clientProvider(client) }]),
        { prefix: "docs__" }
      )
      const seen: Array<LanguageModel.ProviderOptions> = []
      const { text } = yield* rounds(skills, seen)
      assert.include(text, "failed verification (size)")
      assert.notInclude(text, "signature")
    }))
})
