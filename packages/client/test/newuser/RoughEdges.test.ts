/**
 * Rough edges a new user hit (issue 12, item 5) and `executeToolCalls` on careless input (issue 11, item 6).
 */
import {LlmBridge, McpPromise, McpClient, McpSchema, McpTestServer, Toolkit } from "@mcp-effect/client"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"

const server = McpTestServer.make({
  tools: [
    McpTestServer.tool({ name: "slow", handler: () => Effect.as(Effect.never, "never") }),
    McpTestServer.tool({
      name: "five",
      handler: () => Effect.succeed({ content: [{ type: "text", text: "5" }], structuredContent: { result: 5 } })
    }),
    McpTestServer.tool({
      name: "list",
      handler: () =>
        Effect.succeed({
          content: [{ type: "text", text: "{\"a\":1}" }, { type: "text", text: "{\"a\":2}" }],
          structuredContent: { result: [{ a: 1 }, { a: 2 }] }
        })
    }),
    McpTestServer.tool({
      name: "ask",
      handler: (_, ctx) =>
        Effect.gen(function*() {
          const answer = yield* ctx.elicit({ message: "Name?", requestedSchema: { type: "object", properties: { n: { type: "string" } } } })
          const sampled = yield* ctx.sample({ messages: [{ role: "user", content: { type: "text", text: "hi" } }], maxTokens: 7 })
          return JSON.stringify({ answer, sampled })
        })
    }),
    McpTestServer.tool({
      name: "ask-badly",
      handler: (_, ctx) => Effect.map(ctx.elicit({ message: 42 as unknown as string }), (answer) => JSON.stringify(answer))
    })
  ]
})

const textOf = (result: McpSchema.CallToolResult): string => {
  const block = result.content[0]
  // ContentBlock narrows on `type`: this line is the type-level test.
  return block?.type === "text" ? block.text : ""
}

describe("an AbortSignal abort rejects with the signal's reason", () => {
  it.live("with a reason: that reason; without: an AbortError; never an internal interruption", () =>
    Effect.promise(async () => {
      const client = await McpPromise.fromLayer(server.layer())
      try {
        const withReason = new AbortController()
        const first = client.callTool("slow", {}, { signal: withReason.signal }).then(() => "resolved", (e: unknown) => e)
        setTimeout(() => withReason.abort(new Error("user pressed stop")), 20)
        const reason = await first
        assert.instanceOf(reason, Error)
        assert.strictEqual((reason as Error).message, "user pressed stop")

        const bare = new AbortController()
        const second = client.listTools({ signal: bare.signal }).then(async () => {
          const call = client.callTool("slow", {}, { signal: bare.signal })
          bare.abort()
          return call
        }).then(() => "resolved", (e: unknown) => e)
        const aborted = await second
        assert.strictEqual((aborted as { name?: unknown }).name, "AbortError")

        const bridge = await McpPromise.toolkit([])
        const already = AbortSignal.abort("gone")
        const rejected = await bridge.executeToolCalls(
          [{ id: "1", type: "function", function: { name: "x", arguments: "{}" } }],
          { signal: already }
        ).then(() => "resolved", (e: unknown) => e)
        assert.strictEqual(rejected, "gone")
      } finally {
        await client.close()
      }
    }))
})

describe("ContentBlock", () => {
  it("narrows on type; an unknown block is kept as { type: \"unknown\", originalType, block }", () => {
    const decoded = Schema.decodeUnknownSync(McpSchema.CallToolResult)({
      content: [{ type: "text", text: "hello" }, { type: "x-chart", points: [1, 2] }]
    })
    assert.strictEqual(textOf(decoded), "hello")
    const other = decoded.content[1]
    assert.deepStrictEqual(other, { type: "unknown", originalType: "x-chart", block: { type: "x-chart", points: [1, 2] } })
    assert.deepStrictEqual(Schema.encodeSync(McpSchema.ContentBlock)(other ?? { type: "text", text: "" }), {
      type: "x-chart",
      points: [1, 2]
    })
  })
})

describe("wire schemas keep what they do not name, at every depth", () => {
  /** The decoded value is the wire value, key for key. */
  const same = (decoded: unknown, wire: unknown) => assert.deepStrictEqual(decoded, wire)

  it.effect("unknown keys survive decoding in nested structs, content blocks, capabilities and JSON-RPC frames", () =>
    Effect.gen(function*() {
      const tools = {
        tools: [{
          name: "t",
          inputSchema: { type: "object", "x-vendor": true },
          annotations: { readOnlyHint: true, "x-hint": 1 },
          icons: [{ src: "i.png", "x-icon": "dark" }],
          execution: { taskSupport: "optional" },
          futureField: [1]
        }],
        nextCursor: "c",
        "x-page": { n: 1 }
      }
      same(yield* McpSchema.decodeWire(McpSchema.ListToolsResult)(tools), tools)

      const result = {
        content: [
          { type: "text", text: "a", annotations: { audience: ["user"], "x-a": 1 }, "x-block": 2 },
          { type: "resource", resource: { uri: "u", text: "t", "x-res": 3 } },
          { type: "resource_link", uri: "u", name: "n", "x-link": 4 }
        ],
        structuredContent: { deep: { keep: true } },
        "x-result": 5
      }
      same(yield* McpSchema.decodeWire(McpSchema.CallToolResult)(result), result)

      const initialize = {
        protocolVersion: "2025-11-25",
        capabilities: { tools: { listChanged: true, "x-cap": 6 }, "x-top-cap": {} },
        serverInfo: { name: "s", version: "1", "x-info": 7 },
        "x-init": 8
      }
      same(yield* McpSchema.decodeWire(McpSchema.InitializeResult)(initialize), initialize)

      const frame = { jsonrpc: "2.0", id: 1, error: { code: -1, message: "m", "x-error": 9 }, "x-frame": 10 }
      same(yield* McpSchema.decodeWire(McpSchema.JsonRpcMessage)(frame), frame)

      const bad = yield* Effect.flip(McpSchema.decodeWire(McpSchema.ListToolsResult)({ tools: [{ name: 1 }] }))
      assert.include(bad.message, "[\"tools\"][0][\"name\"]")
    }))
})

describe("error messages", () => {
  it.effect("name the method and the JSON-RPC code; the server's own text stays in serverMessage", () =>
    Effect.gen(function*() {
      const error = yield* McpClient.McpClient.pipe(
        Effect.flatMap((client) => client.request("tools/frobnicate", {})),
        Effect.flip,
        Effect.provide(server.layer())
      )
      assert.strictEqual(error._tag, "McpProtocolError")
      assert.strictEqual(error.message, "tools/frobnicate: Method not found: tools/frobnicate (-32601)")
      if (error._tag === "McpProtocolError") assert.strictEqual(error.serverMessage, "Method not found: tools/frobnicate")
    }))
})

describe("executeToolCalls", () => {
  const withBridge = <A>(f: (bridge: LlmBridge.Bridge<unknown>) => Effect.Effect<A>) =>
    Effect.flatMap(McpClient.McpClient, (client) => f(LlmBridge.fromClient(client))).pipe(Effect.provide(server.layer()))

  it.effect("a call without an id never gets an id another call already has", () =>
    Effect.gen(function*() {
      const results = yield* withBridge((bridge) => bridge.executeToolCalls([
        { type: "function", function: { name: "five", arguments: "{}" } },
        { id: "call_0", type: "function", function: { name: "five", arguments: "{}" } },
        "garbage",
        { id: "call_2", type: "function", function: { name: "five" } }
      ]))
      const ids = results.map((r) => r.tool_call_id)
      assert.strictEqual(new Set(ids).size, 4)
      assert.deepStrictEqual(ids, ["call_0_1", "call_0", "call_2_1", "call_2"])
      assert.deepStrictEqual(results.map((r) => r.is_error), [true, false, true, false])
    }))

  it.effect("does not repeat structuredContent the text already carries (also as { result } and per item)", () =>
    Effect.gen(function*() {
      const [five, list] = yield* withBridge((bridge) => bridge.executeToolCalls([
        { id: "a", type: "function", function: { name: "five", arguments: "{}" } },
        { id: "b", type: "function", function: { name: "list", arguments: "{}" } }
      ]))
      assert.strictEqual(five?.content, "5")
      assert.strictEqual(list?.content, "{\"a\":1}\n{\"a\":2}")
    }))

  // Issue 11, item 6.
  const careless: ReadonlyArray<readonly [string, unknown, number]> = [
    ["undefined (a reply without tool calls)", undefined, 0],
    ["null", null, 0],
    ["a string", "[{\"id\":\"1\"}]", 1],
    ["an object whose getter throws", { get id(): string { throw new Error("boom") } }, 1],
    ["a list holding an object whose getter throws", [{ get function(): unknown { throw new Error("boom") } }], 1],
    ["a list whose length throws", new Proxy([], { get: (_, key) => { if (key === "length") throw new Error("no"); return undefined } }), 1]
  ]

  it.effect("issue 11 item 6: the Effect bridge never fails or throws on careless input", () =>
    Effect.gen(function*() {
      const bridge = yield* Toolkit.bridge(Toolkit.make())
      for (const [what, calls, count] of careless) {
        const results = yield* bridge.executeToolCalls(calls)
        assert.strictEqual(results.length, count, what)
        assert.isTrue(results.every((r) => r.is_error), what)
      }
    }))

  it.live("issue 11 item 6: the Promise bridge never throws and never rejects on careless input", () =>
    Effect.promise(async () => {
      const bridge = await McpPromise.toolkit([])
      for (const [what, calls, count] of careless) {
        let thrown: unknown
        let results: ReadonlyArray<LlmBridge.ToolResult> | undefined
        try {
          results = await bridge.executeToolCalls(calls)
        } catch (error) {
          thrown = error
        }
        assert.isUndefined(thrown, what)
        assert.strictEqual(results?.length, count, what)
      }
    }))
})

describe("input hooks get typed parameters", () => {
  it.effect("requestedSchema and message for onElicit, messages and maxTokens for onSample; untyped requests refused", () =>
    Effect.gen(function*() {
      const seen: Array<unknown> = []
      const layer = server.layer({
        onElicit: (request) => {
          const message: string = request.params.message
          seen.push(message, request.params.requestedSchema?.["type"])
          return { action: "accept", content: { n: "Ada" } }
        },
        onSample: (request) => {
          const maxTokens: number = request.params.maxTokens
          seen.push(maxTokens, request.params.messages[0]?.role)
          return { role: "assistant", content: { type: "text", text: "hello" }, model: "test" }
        }
      })
      const result = yield* McpClient.callTool("ask").pipe(Effect.provide(layer))
      assert.deepStrictEqual(seen, ["Name?", "object", 7, "user"])
      assert.include(textOf(result), "Ada")
      const bad = yield* McpClient.callTool("ask-badly").pipe(Effect.provide(layer))
      assert.deepStrictEqual(JSON.parse(textOf(bad)), { action: "decline" })
      assert.strictEqual(seen.length, 4)
    }))
})
