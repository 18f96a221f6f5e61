/**
 * Skills for a model: a scripted model reads the catalogue in its system prompt, loads a skill with
 * `load_skill`, then reads one of its files with `read_skill_file`, through a `ToolRegistry` holding two
 * servers' skills under their prefixes; a tampered skill reaches the model only as an error.
 */
import { LlmBridge, LlmSkills, McpClient, McpTestServer, ToolRegistry } from "@mcp-effect/client"
import { assert, describe, it } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"

const skillMd = (name: string, body: string) => `---\nname: ${name}\ndescription: ${body}\n---\n\n# ${name}\n\n${body}. See references/FORMS.md.\n`
const FORMS = "Fields: name, date, signature.\n"

const docs = McpTestServer.make({
  name: "docs",
  skills: [{ name: "pdf-processing", files: { "SKILL.md": skillMd("pdf-processing", "Fill PDF forms"), "references/FORMS.md": FORMS } }]
})
const ops = McpTestServer.make({
  name: "ops",
  era: "legacy",
  skills: [{
    name: "pdf-processing",
    files: { "SKILL.md": skillMd("pdf-processing", "Sign PDF files"), "references/FORMS.md": "ops forms\n" },
    // A hostile listing: SKILL.md's digest is not the file's.
    entry: (entry) => ({
      ...entry,
      resources: (entry["resources"] as ReadonlyArray<Record<string, unknown>>).map((r) =>
        String(r["uri"]).endsWith("SKILL.md") ? { ...r, digest: `sha256:${"a".repeat(64)}` } : r
      )
    })
  }]
})

type Message =
  | { readonly role: "system" | "user" | "assistant"; readonly content: string; readonly tool_calls?: ReadonlyArray<LlmBridge.ToolCall> }
  | LlmBridge.ToolResult

/** The scripted model: what it does at each turn, from the transcript so far. */
const model = (transcript: ReadonlyArray<Message>): ReadonlyArray<LlmBridge.ToolCall> | string => {
  const results = transcript.filter((m): m is LlmBridge.ToolResult => m.role === "tool")
  const call = (id: string, name: string, args: object): LlmBridge.ToolCall => ({
    id,
    type: "function",
    function: { name, arguments: JSON.stringify(args) }
  })
  if (results.length === 0) {
    const system = transcript[0]?.content ?? ""
    // It picks the skill whose description matches the task.
    const line = system.split("\n").find((l) => l.includes("Fill PDF forms")) ?? ""
    const name = /^- (\S+):/.exec(line)?.[1] ?? "none"
    return [call("c1", "skills__load_skill", { name }), call("c2", "skills__load_skill", { name: "ops__pdf-processing" })]
  }
  if (results.length === 2) {
    const loaded = results[0]?.content ?? ""
    const path = /^- (\S+) \(\d+ bytes\)$/m.exec(loaded)?.[1] ?? "none"
    return [call("c3", "skills__read_skill_file", { name: "docs__pdf-processing", path })]
  }
  return `done: ${results.at(-1)?.content ?? ""}`
}

describe("LlmSkills", () => {
  it.effect("a scripted model loads a skill from the catalogue, then reads one of its files", () =>
    Effect.gen(function*() {
      const docsClient = yield* McpClient.McpClient
      const opsClient = yield* Layer.build(ops.layer()).pipe(Effect.map((context) => Context.get(context, McpClient.McpClient)))
      const library = LlmSkills.make([
        { prefix: "docs", provider: LlmSkills.clientProvider(docsClient) },
        { prefix: "ops", provider: LlmSkills.clientProvider(opsClient) }
      ])
      const registry = yield* ToolRegistry.make()
      yield* registry.register("skills", library.source)

      const system = yield* library.systemPrompt
      assert.include(system, "- docs__pdf-processing: Fill PDF forms")
      assert.include(system, "- ops__pdf-processing: Sign PDF files")
      const tools = (yield* registry.toolsForLlm()).map((t) => t.function.name)
      assert.deepStrictEqual(tools, ["skills__load_skill", "skills__read_skill_file"])
      // Listing and describing read no file.
      assert.strictEqual((yield* docs.requests("resources/read")).length, 0)

      const transcript: Array<Message> = [{ role: "system", content: system }, { role: "user", content: "Fill in this PDF form" }]
      let turn = model(transcript)
      while (typeof turn !== "string") {
        transcript.push({ role: "assistant", content: "", tool_calls: turn })
        transcript.push(...(yield* registry.executeToolCalls(turn)))
        turn = model(transcript)
      }
      const [loaded, tampered, read] = transcript.filter((m): m is LlmBridge.ToolResult => m.role === "tool")
      assert.isFalse(loaded?.is_error)
      assert.include(loaded?.content, "Fill PDF forms. See references/FORMS.md.")
      assert.include(loaded?.content, "- references/FORMS.md (")
      assert.isTrue(tampered?.is_error)
      assert.include(tampered?.content, "failed verification (digest)")
      assert.notInclude(tampered?.content, "Sign PDF files. See")
      assert.deepStrictEqual(read, { tool_call_id: "c3", role: "tool", content: FORMS, is_error: false })
      assert.strictEqual(turn, `done: ${FORMS}`)
      const reads = (yield* docs.requests("resources/read")).map((m) => (m["params"] as Record<string, unknown>)["uri"])
      assert.deepStrictEqual(reads, ["skill://pdf-processing/SKILL.md", "skill://pdf-processing/references/FORMS.md"])
    }).pipe(Effect.provide(docs.layer())))

  it.effect("withTools: one bridge with a server's tools and its skills; paths outside the skill are refused", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      const library = LlmSkills.fromClient(client)
      const bridge = LlmBridge.fromSource(LlmSkills.withTools(LlmBridge.clientSource(client), library))
      const names = (yield* bridge.toolsForLlm()).map((t) => t.function.name)
      assert.deepStrictEqual(names, ["echo", "load_skill", "read_skill_file"])
      const call = (id: string, name: string, args: object): LlmBridge.ToolCall => ({
        id,
        type: "function",
        function: { name, arguments: JSON.stringify(args) }
      })
      const results = yield* bridge.executeToolCalls([
        call("a", "read_skill_file", { name: "pdf-processing", path: "../other/SKILL.md" }),
        call("b", "load_skill", { name: "nope" }),
        call("c", "echo", { text: "hi" })
      ])
      assert.deepStrictEqual(results.map((r) => r.is_error), [true, true, false])
      assert.include(results[0]?.content, "is not a path inside the skill")
      assert.strictEqual((yield* withEcho.requests("resources/read")).length, 0)
    }).pipe(Effect.provide(withEcho.layer())))
})

const withEcho = McpTestServer.make({
  tools: [McpTestServer.tool({ name: "echo", handler: (args) => Effect.succeed(String(args["text"])) })],
  skills: [{ name: "pdf-processing", files: { "SKILL.md": skillMd("pdf-processing", "Fill PDF forms") } }]
})
