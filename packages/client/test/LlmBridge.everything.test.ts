/**
 * The bridge against @modelcontextprotocol/server-everything (a legacy-era server) over stdio, with real
 * processes and the real clock, including a scripted "model" loop (no network) and the Promise API.
 */
import { connectStdio, LlmBridge, McpPromise, McpClient, NodeMcpClient, ToolRegistry, Toolkit } from "@mcp-effect/client/node"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { call } from "./fixtures/llmServer.js"

const EVERYTHING = new URL("../../../node_modules/@modelcontextprotocol/server-everything/dist/index.js", import.meta.url)
  .pathname
const server = { command: process.execPath, args: [EVERYTHING, "stdio"] }
const everything = NodeMcpClient.layerStdio(server)

describe("against server-everything (stdio)", () => {
  it.live("toolsForLlm: model-ready declarations, strict where possible", () =>
    Effect.gen(function*() {
      const bridge = yield* LlmBridge.make()
      const tools = yield* bridge.toolsForLlm()
      const names = tools.map((t) => t.function.name)
      assert.includeMembers(names, ["echo", "get-sum", "get-annotated-message"])
      for (const tool of tools) {
        assert.strictEqual(tool.type, "function")
        assert.match(tool.function.name, /^[a-zA-Z0-9_-]{1,64}$/)
        assert.strictEqual(tool.function.parameters["type"], "object")
        assert.isFalse(JSON.stringify(tool.function.parameters).includes("$schema"))
      }
      const echo = tools.find((t) => t.function.name === "echo")
      assert.deepStrictEqual(echo?.function, {
        name: "echo",
        description: "Echoes back the input string",
        parameters: {
          type: "object",
          properties: { message: { type: "string", description: "Message to echo" } },
          required: ["message"]
        }
      })
      const strict = yield* bridge.describeTools({ strict: true })
      const sum = strict.find((t) => t.name === "get-sum")
      assert.strictEqual(sum?.strict, true)
      assert.strictEqual(sum?.declaration.function.parameters["additionalProperties"], false)
      assert.deepStrictEqual(
        yield* bridge.toolAnnotations("get-annotated-message"),
        Option.some({ readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false })
      )
    }).pipe(Effect.provide(everything)))

  it.live("executeToolCalls: results in call order, content rendered, failures as is_error", () =>
    Effect.gen(function*() {
      const results = yield* LlmBridge.executeToolCalls([
        call("c1", "echo", { message: "hello" }),
        call("c2", "get-sum", { a: 2, b: 3 }),
        call("c3", "get-sum", { b: 3, a: 2 }),
        call("c4", "get-tiny-image", {}),
        call("c5", "get-structured-content", { location: "Chicago" }),
        call("c6", "echo", {}),
        call("c7", "no-such-tool", {}),
        call("c8", "get-sum", "{a: 2")
      ])
      assert.deepStrictEqual(results.map((r) => r.tool_call_id), ["c1", "c2", "c3", "c4", "c5", "c6", "c7", "c8"])
      assert.deepStrictEqual(results.map((r) => r.is_error), [false, false, false, false, false, true, true, true])
      assert.strictEqual(results[0]?.content, "Echo: hello")
      assert.strictEqual(results[1]?.content, "The sum of 2 and 3 is 5.")
      assert.strictEqual(results[2]?.content, results[1]?.content)
      assert.match(results[3]?.content ?? "", /\[image: image\/png, [\d.]+ KB; not shown\]/)
      assert.isBelow(results[3]?.content.length ?? 0, 300)
      const weather: unknown = JSON.parse(results[4]?.content ?? "null")
      assert.hasAllKeys(weather, ["temperature", "conditions", "humidity"])
      assert.match(results[5]?.content ?? "", /expected string/)
      assert.match(results[6]?.content ?? "", /^Unknown tool "no-such-tool"\. Available tools: echo, /)
      assert.match(results[7]?.content ?? "", /not valid JSON/)
    }).pipe(Effect.provide(everything)))

  it.live("executeToolCalls after close: is_error results, no failure", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      const bridge = LlmBridge.fromClient(client)
      yield* bridge.toolsForLlm()
      yield* client.close
      const results = yield* bridge.executeToolCalls([call("c1", "echo", { message: "x" }), call("c2", "get-sum", { a: 1, b: 1 })])
      assert.deepStrictEqual(results.map((r) => [r.tool_call_id, r.is_error]), [["c1", true], ["c2", true]])
    }).pipe(Effect.provide(everything)))
})

// -----------------------------------------------------------------------------
// A scripted "model" loop
// -----------------------------------------------------------------------------

type Message =
  | { readonly role: "user" | "assistant"; readonly content: string; readonly tool_calls?: ReadonlyArray<LlmBridge.ToolCall> }
  | LlmBridge.ToolResult

interface ModelReply {
  readonly content: string
  readonly tool_calls: ReadonlyArray<LlmBridge.ToolCall>
}

/**
 * A model that knows one conversation: it asks for a sum, then multiplies the sum it reads back with a local
 * tool while echoing, then answers from what it read.
 */
const scriptedModel = (tools: ReadonlyArray<LlmBridge.FunctionTool>, messages: ReadonlyArray<Message>): ModelReply => {
  const offered = new Set(tools.map((t) => t.function.name))
  // A tool the model was not offered is a name it would not know: it asks for it anyway, and reads the error.
  const need = (name: string) => (offered.has(name) ? name : `unoffered:${name}`)
  const results = messages.filter((m): m is LlmBridge.ToolResult => m.role === "tool")
  const answer = (id: string) => results.find((r) => r.tool_call_id === id)?.content ?? ""
  const turn = messages.filter((m) => m.role === "assistant").length
  switch (turn) {
    case 0:
      return {
        content: "",
        tool_calls: [call("call_sum", need("everything__get-sum"), { a: 2, b: 3 })]
      }
    case 1: {
      const sum = Number(/is (\d+)/.exec(answer("call_sum"))?.[1])
      return {
        content: "",
        tool_calls: [
          call("call_mul", need("calc__multiply"), { a: sum, b: 4 }),
          call("call_echo", need("everything__echo"), { message: "done" })
        ]
      }
    }
    default:
      return { content: `(2+3)*4 = ${answer("call_mul")}; the server said "${answer("call_echo")}"`, tool_calls: [] }
  }
}

const calc = Toolkit.make(
  Toolkit.tool({
    name: "multiply",
    description: "Multiply two numbers",
    parameters: Schema.Struct({ a: Schema.Finite, b: Schema.Finite }),
    annotations: { readOnlyHint: true, idempotentHint: true },
    handler: ({ a, b }) => Effect.succeed(String(a * b))
  })
)

describe("a scripted model loop", () => {
  it.live("feeds the results back until the model answers (registry of a server and a toolkit)", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      const registry = yield* ToolRegistry.make()
      yield* registry.register("everything", LlmBridge.fromClient(client))
      yield* registry.register("calc", yield* Toolkit.source(calc))
      const tools = yield* registry.toolsForLlm({ strict: true })

      const messages: Array<Message> = [{ role: "user", content: "What is (2+3)*4? Then echo done." }]
      for (let round = 0; round < 5; round++) {
        const reply = scriptedModel(tools, messages)
        messages.push({ role: "assistant", content: reply.content, tool_calls: reply.tool_calls })
        if (reply.tool_calls.length === 0) break
        const results = yield* registry.executeToolCalls(reply.tool_calls)
        assert.deepStrictEqual(results.map((r) => r.tool_call_id), reply.tool_calls.map((c) => c.id))
        messages.push(...results)
      }
      const last = messages[messages.length - 1]
      assert.deepStrictEqual(last, {
        role: "assistant",
        content: "(2+3)*4 = 20; the server said \"Echo: done\"",
        tool_calls: []
      })
      assert.strictEqual(messages.filter((m) => m.role === "tool").length, 3)
      assert.isTrue(messages.every((m) => m.role !== "tool" || !m.is_error))
    }).pipe(Effect.provide(everything)))
})

// -----------------------------------------------------------------------------
// The Promise API
// -----------------------------------------------------------------------------

describe("the Promise bridge", () => {
  it("fromClient, toolkit and registry with async handlers; executeToolCalls resolves after close", async () => {
    const client = await connectStdio(server)
    const bridge = await McpPromise.fromClient(client)
    const local = await McpPromise.toolkit([
      McpPromise.tool({
        name: "shout",
        description: "Upper-case a text",
        parameters: Schema.Struct({ text: Schema.String }),
        annotations: { readOnlyHint: true, idempotentHint: true },
        handler: async ({ text }) => {
          await new Promise((resolve) => setTimeout(resolve, 5))
          if (text === "") throw new Error("nothing to shout")
          return text.toUpperCase()
        }
      })
    ])
    const registry = await McpPromise.registry()
    await registry.register("srv", client)
    await registry.register("local", local)
    try {
      const tools = await bridge.toolsForLlm()
      assert.include(tools.map((t) => t.function.name), "get-sum")
      assert.deepStrictEqual(await bridge.toolAnnotations("echo"), {
        readOnlyHint: true,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: false
      })
      const [sum] = await bridge.executeToolCalls([call("p1", "get-sum", { a: 40, b: 2 })])
      assert.strictEqual(sum?.content, "The sum of 40 and 2 is 42.")

      const names = (await registry.toolsForLlm()).map((t) => t.function.name)
      assert.includeMembers(names, ["srv__echo", "local__shout"])
      assert.strictEqual(names[names.length - 1], "local__shout")
      const results = await registry.executeToolCalls([
        call("r1", "local__shout", { text: "hi" }),
        call("r2", "srv__echo", { message: "yo" }),
        call("r3", "local__shout", { text: "" })
      ])
      assert.deepStrictEqual(results.map((r) => [r.tool_call_id, r.content, r.is_error]), [
        ["r1", "HI", false],
        ["r2", "Echo: yo", false],
        ["r3", "Tool \"shout\" failed: nothing to shout", true]
      ])
      const refused = await registry.register("srv", local).then(() => undefined, (error: unknown) => error)
      assert.instanceOf(refused, ToolRegistry.ToolRegistryError)
      const invalid = await McpPromise.toolkit([
        McpPromise.tool({ name: "x", parameters: Schema.String, handler: () => "x" })
      ]).then(() => undefined, (error: unknown) => error)
      assert.instanceOf(invalid, Toolkit.ToolkitError)
    } finally {
      await client.close()
    }
    const after = await bridge.executeToolCalls([call("p2", "echo", { message: "late" })])
    assert.deepStrictEqual(after.map((r) => [r.tool_call_id, r.is_error]), [["p2", true]])
  })
})
