/**
 * Against a real server built with the official SDK (`@modelcontextprotocol/server` 2.x), over stdio, in both
 * eras: the same server process speaks either, and `--era legacy` makes it a pre-2026 server.
 */
import { McpClient, NodeMcpClient } from "@mcp-effect/client/node"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import { createRequire } from "node:module"
import { textOf } from "../fixtures/util.js"

const script = createRequire(import.meta.url).resolve("@mcp-effect/test-servers/official")

const official = (era: "both" | "legacy", options: McpClient.ClientOptions = {}) =>
  NodeMcpClient.layerStdio({ command: process.execPath, args: [script, "--era", era], ...options })



const hooks: McpClient.ClientOptions = {
  onElicit: () => ({ action: "accept", content: { ok: true } }),
  onSample: ({ params }) => ({
    role: "assistant",
    content: { type: "text", text: `hi (max ${String(params["maxTokens"])})` },
    model: "fake-model"
  }),
  onListRoots: () => ({ roots: [{ uri: "file:///work/a", name: "a" }, { uri: "file:///work/b" }] })
}

const eras = [
  { server: "both", client: "auto", expected: "modern" },
  { server: "both", client: "legacy", expected: "legacy" },
  { server: "legacy", client: "auto", expected: "legacy" }
] as const

describe("official SDK server over stdio", () => {
  for (const { client: preference, expected, server } of eras) {
    describe(`server --era ${server}, client era ${preference}`, () => {
      it.live("settles the era and calls tools; hooks answer elicitation, sampling and roots", () =>
        Effect.gen(function*() {
          const client = yield* McpClient.McpClient
          const info = yield* client.info
          assert.strictEqual(info.era, expected)
          assert.strictEqual(info.serverInfo?.name, "official-demo")
          assert.strictEqual(yield* client.instructions, "Demo server built on the official MCP SDK")
          const tools = yield* client.listTools()
          assert.includeMembers(tools.map((t) => t.name), ["echo", "add", "confirm", "sample", "roots"])
          assert.strictEqual(textOf(yield* client.callTool("echo", { text: "hi" })), "hi")
          const sum = yield* client.callTool("add", { a: 2, b: 40 })
          assert.deepStrictEqual(sum.structuredContent, { sum: 42 })
          assert.strictEqual(textOf(yield* client.callTool("confirm", { question: "go?" })), "confirmed: true")
          assert.strictEqual(textOf(yield* client.callTool("sample", { prompt: "say hi" })), "model said: hi (max 100)")
          assert.strictEqual(textOf(yield* client.callTool("roots", {})), "file:///work/a, file:///work/b")
          const failed = yield* client.callTool("fail", {})
          assert.isTrue(failed.isError)
          const prompt = yield* client.getPrompt("greet", { name: "Ada" })
          assert.deepStrictEqual(prompt.messages, [{ role: "user", content: { type: "text", text: "Hello, Ada!" } }])
          const read = yield* client.readResource("demo://greeting")
          assert.deepStrictEqual(read.contents.map((c) => "text" in c ? c.text : ""), ["Hello from the official SDK"])
        }).pipe(Effect.provide(official(server, { ...hooks, era: preference }))))

      it.live("progress arrives in order, none after the result; a declined elicitation is the declined path", () =>
        Effect.gen(function*() {
          const reports: Array<McpClient.ProgressReport> = []
          const declined = yield* Effect.gen(function*() {
            const client = yield* McpClient.McpClient
            yield* client.callTool("slow", { ms: 150, steps: 3 }, { toolCallId: "call-7" })
            const count = reports.length
            yield* Effect.sleep("100 millis")
            assert.strictEqual(reports.length, count)
            return textOf(yield* client.callTool("confirm", { question: "go?" }))
          }).pipe(Effect.provide(official(server, {
            era: preference,
            onProgress: (report) => void reports.push(report),
            onElicit: () => ({ action: "decline" })
          })))
          assert.deepStrictEqual(reports, [1, 2, 3].map((i) => ({
            toolCallId: "call-7",
            progress: i,
            total: 3,
            message: `step ${i}`
          })))
          assert.strictEqual(declined, "declined")
        }))
    })
  }

  it.live("modern, no hook set: no elicitation capability is declared and the server refuses to ask", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      const error = yield* client.callTool("confirm", { question: "go?" }).pipe(Effect.flip)
      assert.strictEqual(error._tag, "McpProtocolError")
      if (error._tag === "McpProtocolError") assert.strictEqual(error.code, -32021)
    }).pipe(Effect.provide(official("both"))))

  it.live("legacy, no hook set: the tool's own refusal comes back as its result", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      const result = yield* client.callTool("confirm", { question: "go?" })
      assert.isTrue(result.isError)
    }).pipe(Effect.provide(official("legacy"))))

  it.live("modern: tools/list is cached for its ttlMs; refresh and list_changed (via listen) fetch again", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      const names = (tools: ReadonlyArray<{ readonly name: string }>) => tools.map((t) => t.name)
      const before = names(yield* client.listTools())
      assert.notInclude(before, "extra")
      yield* client.callTool("toggle_extra", {})
      // Cached (ttlMs 60000): the change is not seen without a refresh...
      assert.deepStrictEqual(names(yield* client.listTools()), before)
      assert.include(names(yield* client.listTools({ refresh: true })), "extra")
      // ...but a listen stream delivers list_changed, which evicts the cached list.
      yield* Effect.scoped(
        Effect.gen(function*() {
          const subscription = yield* client.listen({ toolsListChanged: true })
          assert.deepStrictEqual(subscription.acknowledged, { toolsListChanged: true })
          yield* client.callTool("toggle_extra", {})
          const changed = yield* subscription.notifications.pipe(Stream.runHead)
          assert.strictEqual(changed._tag === "Some" ? changed.value.method : "", "notifications/tools/list_changed")
        })
      )
      assert.notInclude(names(yield* client.listTools()), "extra")
    }).pipe(Effect.provide(official("both"))))

  it.live("modern: log messages come only with a logLevel, at or above it", () =>
    Effect.gen(function*() {
      const logs: Array<McpClient.LogMessage> = []
      yield* McpClient.callTool("log", { message: "hello" }).pipe(
        Effect.provide(official("both", { logLevel: "info", onLog: (m) => void logs.push(m) }))
      )
      assert.deepStrictEqual(logs.map((l) => [l.level, l.data]), [["info", "hello"]])
      const silent: Array<McpClient.LogMessage> = []
      yield* McpClient.callTool("log", { message: "hello" }).pipe(
        Effect.provide(official("both", { onLog: (m) => void silent.push(m) }))
      )
      assert.deepStrictEqual(silent, [])
    }))
})
