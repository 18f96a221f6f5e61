/**
 * The `ui/*` bridge over an in-memory port, against a scripted server: the handshake (nothing sent before
 * `ui/notifications/initialized`), tool-input once, visibility and approval of an App's `tools/call`, foreign
 * and malformed messages, the limits (rate, pending requests, size), display modes, downloads, the teardown.
 */
import { McpApps, McpClient, McpTransport } from "@mcp-effect/client"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Queue from "effect/Queue"
import { TestClock } from "effect/testing"
import * as Tracer from "effect/Tracer"
import { modernServer, ok } from "./fixtures/memoryServer.js"
import type { JsonObject } from "./fixtures/memoryServer.js"

const tools = [
  { name: "show", inputSchema: { type: "object" }, _meta: { ui: { resourceUri: "ui://demo/app.html" } } },
  { name: "refresh", inputSchema: { type: "object" }, annotations: { readOnlyHint: true }, _meta: { ui: { visibility: ["app"] } } },
  { name: "secret", inputSchema: { type: "object" }, _meta: { ui: { visibility: ["model"] } } },
  { name: "write", inputSchema: { type: "object" }, _meta: { ui: { visibility: ["app"] } } }
]

const server = () =>
  modernServer({
    "tools/list": () => ok({ resultType: "complete", tools }),
    "tools/call": (params) => ok({ resultType: "complete", content: [{ type: "text", text: `called ${String(params?.["name"])}` }] })
  })

const clientLayer = (transport: Layer.Layer<McpTransport.McpTransport>) =>
  McpClient.layer({ apps: true }).pipe(Layer.provide(transport))

const INITIALIZE = {
  appInfo: { name: "test-app", version: "1.0.0" },
  appCapabilities: { availableDisplayModes: ["inline", "fullscreen"] },
  protocolVersion: "2026-01-26"
}

/** A bridge for `show`, its App end, and what the hooks saw. */
const setup = (options: Partial<McpApps.BridgeOptions> = {}) =>
  Effect.gen(function*() {
    const { app, port } = yield* McpApps.memoryPort
    const events: Array<McpApps.AppRequestEvent> = []
    const rejected: Array<McpApps.RejectedMessage> = []
    const bridge = yield* McpApps.makeBridge({
      tool: tools[0] as McpClient.Tool,
      instance: "app-under-test",
      onAppRequest: (event) => void events.push(event),
      onRejected: (message) => void rejected.push(message),
      ...options
    }).pipe(Effect.provideService(McpApps.AppPort, port))
    let id = 0
    const request = (method: string, params: JsonObject = {}) => {
      const sent = ++id
      app.post({ jsonrpc: "2.0", id: sent, method, params })
      return sent
    }
    const answer = Queue.take(app.received)
    const handshake = Effect.gen(function*() {
      request("ui/initialize", INITIALIZE)
      const initialized = yield* answer
      app.post({ jsonrpc: "2.0", method: "ui/notifications/initialized" })
      yield* bridge.initialized
      return initialized
    })
    /** Waits until the bridge took every arrival, and its fibers ran. */
    const drained = Effect.gen(function*() {
      while ((yield* Queue.size(port.incoming)) > 0) yield* Effect.yieldNow
      yield* settle
    })
    return { app, bridge, events, rejected, request, answer, handshake, drained }
  })

/** Lets the bridge's fibers run. */
const settle = Effect.gen(function*() {
  for (let i = 0; i < 50; i++) yield* Effect.yieldNow
})

describe("McpApps bridge", () => {
  it.effect("nothing is sent before initialized; tool-input goes once", () => {
    const fake = server()
    return Effect.gen(function*() {
      const { app, bridge, request, answer } = yield* setup()
      const input = yield* Effect.forkChild(bridge.sendToolInput({ city: "Paris" }))
      yield* settle
      assert.strictEqual(yield* Queue.size(app.received), 0)
      request("ui/initialize", INITIALIZE)
      const initialized = (yield* answer) as JsonObject
      const result = initialized["result"] as JsonObject
      assert.strictEqual(result["protocolVersion"], "2026-01-26")
      assert.deepStrictEqual(((result["hostContext"] as JsonObject)["toolInfo"] as JsonObject)["tool"], tools[0])
      yield* settle
      assert.strictEqual(yield* Queue.size(app.received), 0, "tool-input waits for initialized")
      app.post({ jsonrpc: "2.0", method: "ui/notifications/initialized" })
      yield* Fiber.join(input)
      assert.deepStrictEqual(yield* answer, { jsonrpc: "2.0", method: "ui/notifications/tool-input", params: { arguments: { city: "Paris" } } })
      const again = yield* Effect.flip(bridge.sendToolInput({ city: "Paris" }))
      assert.strictEqual(again.reason, "protocol")
      yield* bridge.sendToolInputPartial({ city: "Par" })
      assert.deepStrictEqual(yield* answer, { jsonrpc: "2.0", method: "ui/notifications/tool-input-partial", params: { arguments: { city: "Par" } } })
      yield* bridge.sendToolResult({ content: [{ type: "text", text: "sunny" }] })
      assert.strictEqual(((yield* answer) as JsonObject)["method"], "ui/notifications/tool-result")
      yield* bridge.sendToolCancelled("the user stopped it")
      assert.deepStrictEqual(yield* answer, { jsonrpc: "2.0", method: "ui/notifications/tool-cancelled", params: { reason: "the user stopped it" } })
      yield* bridge.setHostContext({ theme: "dark" })
      assert.deepStrictEqual(yield* answer, { jsonrpc: "2.0", method: "ui/notifications/host-context-changed", params: { theme: "dark" } })
    }).pipe(Effect.provide(clientLayer(fake.layer)))
  })

  it.effect("tools/call: refused with nothing sent unless the tool is visible to apps; approval for tools not read-only", () => {
    const fake = server()
    return Effect.gen(function*() {
      const asked: Array<string> = []
      const { events, request, answer, handshake } = yield* setup({
        approveToolCall: (call) => {
          asked.push(call.name)
          return Promise.resolve(false)
        }
      })
      yield* handshake
      request("tools/call", { name: "secret", arguments: {} })
      const secret = (yield* answer) as JsonObject
      assert.strictEqual((secret["error"] as JsonObject)["code"], -32000)
      request("tools/call", { name: "write", arguments: {} })
      const write = (yield* answer) as JsonObject
      assert.include((write["error"] as JsonObject)["message"], "not approved")
      assert.strictEqual(fake.requests("tools/call").length, 0, "nothing reached the server")
      request("tools/call", { name: "refresh", arguments: {} })
      const refresh = (yield* answer) as JsonObject
      assert.deepStrictEqual((refresh["result"] as JsonObject)["content"], [{ type: "text", text: "called refresh" }])
      assert.strictEqual(fake.requests("tools/call").length, 1)
      assert.deepStrictEqual(asked, ["write"], "a read-only tool is not asked about")
      assert.deepStrictEqual(
        events.map((event) => [event.instance, event.method, event.outcome]),
        [["app-under-test", "tools/call", "refused"], ["app-under-test", "tools/call", "refused"], ["app-under-test", "tools/call", "answered"]]
      )
    }).pipe(Effect.provide(clientLayer(fake.layer)))
  })

  it.effect("a message from another window and a malformed one are dropped and reported", () => {
    const fake = server()
    return Effect.gen(function*() {
      const { app, rejected, request, answer, handshake } = yield* setup()
      yield* handshake
      app.post({ jsonrpc: "2.0", id: 77, method: "tools/call", params: { name: "refresh" } }, { foreign: true })
      app.post({ jsonrpc: "2.0", id: 78, method: 42 })
      const malformed = (yield* answer) as JsonObject
      assert.strictEqual(malformed["id"], 78)
      assert.strictEqual((malformed["error"] as JsonObject)["code"], -32600)
      assert.deepStrictEqual(rejected.map((message) => message.reason), ["foreign", "malformed"])
      assert.strictEqual(fake.requests("tools/call").length, 0)

      // What structured clone carries but JSON cannot (a cycle, a BigInt) is dropped; the bridge goes on.
      const cyclic: Record<string, unknown> = { jsonrpc: "2.0", id: 90, method: "ping" }
      cyclic["self"] = cyclic
      app.post(cyclic)
      app.post({ jsonrpc: "2.0", id: 91, method: "ping", params: { n: 1n } })
      const cycleAnswer = (yield* answer) as JsonObject
      assert.strictEqual(cycleAnswer["id"], 90)
      assert.include((cycleAnswer["error"] as JsonObject)["message"], "message-size")
      assert.strictEqual(((yield* answer) as JsonObject)["id"], 91)
      request("ping")
      assert.deepStrictEqual(((yield* answer) as JsonObject)["result"], {})

      // Before the handshake: initialized is out of turn, a request is refused, and nothing reaches the server.
      const early = yield* setup()
      early.app.post({ jsonrpc: "2.0", method: "ui/notifications/initialized" })
      early.request("tools/call", { name: "refresh", arguments: {} })
      const refused = (yield* early.answer) as JsonObject
      assert.strictEqual((refused["error"] as JsonObject)["message"], "not initialized")
      assert.deepStrictEqual(early.rejected.map((message) => message.reason), ["unexpected", "unexpected"])
      assert.strictEqual(fake.requests("tools/call").length, 0)
    }).pipe(Effect.provide(clientLayer(fake.layer)))
  })

  it.effect("a flood past the rate is dropped and reported once a second; pending requests and size are bounded", () => {
    const fake = server()
    return Effect.gen(function*() {
      const { app, rejected, request, answer, handshake, drained } = yield* setup({
        limits: { maxMessagesPerSecond: 10, maxMessageBytes: 1000, maxPendingRequests: 1 },
        approveToolCall: () => new Promise<boolean>(() => {})
      })
      yield* handshake
      for (let i = 0; i < 500; i++) request("ping")
      yield* drained
      assert.strictEqual(yield* Queue.size(app.received), 8, "10 a second, two of them the handshake")
      assert.deepStrictEqual(rejected.map((message) => message.limit?.limit), ["rate"])
      yield* Queue.clear(app.received)
      yield* TestClock.adjust("1 second")
      request("tools/call", { name: "write" })
      request("tools/call", { name: "write" })
      const pending = (yield* answer) as JsonObject
      assert.include((pending["error"] as JsonObject)["message"], "pending")
      request("ping", { padding: "x".repeat(2000) })
      const large = (yield* answer) as JsonObject
      assert.include((large["error"] as JsonObject)["message"], "message-size")
      assert.deepStrictEqual(rejected.map((message) => message.limit?.limit), ["rate", "pending", "message-size"])
    }).pipe(Effect.provide(clientLayer(fake.layer)))
  })

  it.effect("a display mode is granted only when both sides declared it", () => {
    const fake = server()
    return Effect.gen(function*() {
      const inlineOnly = yield* setup()
      yield* inlineOnly.handshake
      inlineOnly.request("ui/request-display-mode", { mode: "fullscreen" })
      assert.deepStrictEqual(((yield* inlineOnly.answer) as JsonObject)["result"], { mode: "inline" })
      const both = yield* setup({ displayModes: ["inline", "fullscreen"] })
      yield* both.handshake
      both.request("ui/request-display-mode", { mode: "pip" })
      assert.deepStrictEqual(((yield* both.answer) as JsonObject)["result"], { mode: "inline" })
      both.request("ui/request-display-mode", { mode: "fullscreen" })
      assert.deepStrictEqual(((yield* both.answer) as JsonObject)["result"], { mode: "fullscreen" })
      // A hook may answer with an Effect, as the client's own hooks may.
      const asked = yield* setup({ displayModes: ["inline", "fullscreen"], onRequestDisplayMode: () => Effect.succeed(true) })
      yield* asked.handshake
      asked.request("ui/request-display-mode", { mode: "fullscreen" })
      assert.deepStrictEqual(((yield* asked.answer) as JsonObject)["result"], { mode: "fullscreen" })
      const declined = yield* setup({ displayModes: ["inline", "fullscreen"], onRequestDisplayMode: () => false })
      yield* declined.handshake
      declined.request("ui/request-display-mode", { mode: "fullscreen" })
      assert.deepStrictEqual(((yield* declined.answer) as JsonObject)["result"], { mode: "inline" })
    }).pipe(Effect.provide(clientLayer(fake.layer)))
  })

  it.effect("ui/download-file hands the hook a sanitized name; open-link only http(s)", () => {
    const fake = server()
    return Effect.gen(function*() {
      const files: Array<McpApps.DownloadFile> = []
      const links: Array<string> = []
      const { request, answer, handshake } = yield* setup({
        onDownloadFile: (file) => void files.push(file),
        onOpenLink: (link) => void links.push(link.url)
      })
      yield* handshake
      request("ui/download-file", {
        contents: [{ type: "resource", resource: { uri: "file:///tmp/../../etc/.passwd", mimeType: "text/plain", text: "x" } }]
      })
      assert.deepStrictEqual(((yield* answer) as JsonObject)["result"], {})
      assert.strictEqual(files[0]?.filename, "passwd")
      request("ui/open-link", { url: "javascript:alert(1)" })
      assert.strictEqual((((yield* answer) as JsonObject)["error"] as JsonObject)["code"], -32000)
      request("ui/open-link", { url: "https://example.com/a" })
      assert.deepStrictEqual(((yield* answer) as JsonObject)["result"], {})
      assert.deepStrictEqual(links, ["https://example.com/a"])
    }).pipe(Effect.provide(clientLayer(fake.layer)))
  })

  it.effect("teardown waits for the App's answer, bounded by teardownTimeout", () => {
    const fake = server()
    return Effect.gen(function*() {
      const silent = yield* setup({ teardownTimeout: "2 seconds" })
      yield* silent.handshake
      const waiting = yield* Effect.forkChild(silent.bridge.teardown)
      const teardown = (yield* silent.answer) as JsonObject
      assert.strictEqual(teardown["method"], "ui/resource-teardown")
      yield* settle
      assert.isUndefined(waiting.pollUnsafe(), "still waiting for the App")
      yield* TestClock.adjust("2 seconds")
      yield* Fiber.join(waiting)
      const closed = yield* Effect.flip(silent.bridge.sendToolResult({ content: [] }))
      assert.strictEqual(closed.reason, "closed")

      const answering = yield* setup()
      yield* answering.handshake
      const done = yield* Effect.forkChild(answering.bridge.teardown)
      const asked = (yield* answering.answer) as JsonObject
      answering.app.post({ jsonrpc: "2.0", id: asked["id"], result: {} })
      yield* Fiber.join(done)
    }).pipe(Effect.provide(clientLayer(fake.layer)))
  })
})

describe("the App's own tools", () => {
  it.effect("listed (at most 50, namespaced), called, bounded by 30 s and 10 MB; refused when the App declared none", () => {
    const fake = server()
    return Effect.gen(function*() {
      const { app, bridge, rejected, request, answer } = yield* setup()
      request("ui/initialize", { ...INITIALIZE, appCapabilities: { tools: {} } })
      yield* answer
      app.post({ jsonrpc: "2.0", method: "ui/notifications/initialized" })
      yield* bridge.initialized

      const listing = yield* Effect.forkChild(bridge.listAppTools)
      const asked = (yield* answer) as JsonObject
      assert.strictEqual(asked["method"], "tools/list")
      const tools = Array.from({ length: 60 }, (_, i) => ({ name: `move${i}`, inputSchema: { type: "object" } }))
      app.post({ jsonrpc: "2.0", id: asked["id"], result: { tools } })
      const listed = yield* Fiber.join(listing)
      assert.strictEqual(listed.length, 50)
      assert.strictEqual(listed[0]?.name, "app:move0")
      assert.strictEqual(rejected.at(-1)?.limit?.limit, "app-tools")

      const calling = yield* Effect.forkChild(bridge.callAppTool("app:move1", { x: 1 }))
      const call = (yield* answer) as JsonObject
      assert.deepStrictEqual(call["params"], { name: "move1", arguments: { x: 1 } })
      app.post({ jsonrpc: "2.0", id: call["id"], result: { content: [{ type: "text", text: "moved" }] } })
      assert.deepStrictEqual((yield* Fiber.join(calling)).content, [{ type: "text", text: "moved" }])

      const silent = yield* Effect.forkChild(Effect.flip(bridge.callAppTool("app:move2")))
      yield* answer
      yield* settle
      yield* TestClock.adjust("30 seconds")
      assert.include((yield* Fiber.join(silent)).message, "no answer to tools/call in 30s")

      const huge = yield* Effect.forkChild(Effect.flip(bridge.callAppTool("app:move3")))
      const hugeCall = (yield* answer) as JsonObject
      app.post({ jsonrpc: "2.0", id: hugeCall["id"], result: { content: [{ type: "text", text: "x".repeat(11 * 1024 * 1024) }] } })
      const tooLarge = yield* Fiber.join(huge)
      assert.strictEqual(tooLarge._tag, "McpAppsLimitError")

      const plain = yield* setup()
      yield* plain.handshake
      const refused = yield* Effect.flip(plain.bridge.listAppTools)
      assert.include(refused.message, "offers no tools")
    }).pipe(Effect.provide(clientLayer(fake.layer)))
  })
})

describe("tracing", () => {
  it.effect("each App request is a span naming the App instance, the method and the App's tool", () => {
    const fake = server()
    const spans: Array<{ readonly name: string; readonly attributes: Map<string, unknown> }> = []
    const tracer = Tracer.make({
      span: ({ annotations, kind, links, name, parent, startTime }) => {
        const attributes = new Map<string, unknown>()
        spans.push({ name, attributes })
        return {
          _tag: "Span",
          name,
          spanId: `span-${spans.length}`,
          traceId: "trace-1",
          parent,
          annotations,
          status: { _tag: "Started", startTime },
          attributes,
          links,
          sampled: true,
          kind,
          end: () => undefined,
          attribute: (key, value) => void attributes.set(key, value),
          event: () => undefined,
          addLinks: () => undefined
        }
      }
    })
    return Effect.gen(function*() {
      const { request, answer, handshake } = yield* setup()
      yield* handshake
      request("tools/call", { name: "refresh", arguments: {} })
      yield* answer
      const span = spans.find((candidate) => candidate.name === "McpApps.appRequest")
      assert.isDefined(span)
      assert.strictEqual(span?.attributes.get("mcp.app.instance"), "app-under-test")
      assert.strictEqual(span?.attributes.get("mcp.method.name"), "tools/call")
      assert.strictEqual(span?.attributes.get("mcp.app.tool"), "show")
    }).pipe(Effect.provide(clientLayer(fake.layer)), Effect.withTracer(tracer))
  })
})

describe("sampling", () => {
  it.effect("an App's sampling/createMessage goes through onSample, checked as the client's own; refused without it", () => {
    const fake = server()
    return Effect.gen(function*() {
      const asked: Array<unknown> = []
      const { request, answer, handshake } = yield* setup({
        onSample: (sample) => {
          asked.push(sample.params["maxTokens"])
          return { role: "assistant", content: { type: "text", text: "hello" }, model: "test-model" }
        }
      })
      const initialized = (yield* handshake) as JsonObject
      assert.deepStrictEqual(((initialized["result"] as JsonObject)["hostCapabilities"] as JsonObject)["sampling"], {})
      request("sampling/createMessage", { messages: [{ role: "user", content: { type: "text", text: "hi" } }], maxTokens: 10 })
      const sampled = (yield* answer) as JsonObject
      assert.strictEqual((sampled["result"] as JsonObject)["model"], "test-model")
      assert.deepStrictEqual(asked, [10])
      request("sampling/createMessage", { maxTokens: "lots" })
      const invalid = (yield* answer) as JsonObject
      assert.isDefined(invalid["error"], "params the client would refuse are refused here too")
      assert.deepStrictEqual(asked, [10])

      const without = yield* setup()
      const plain = (yield* without.handshake) as JsonObject
      assert.isUndefined(((plain["result"] as JsonObject)["hostCapabilities"] as JsonObject)["sampling"])
      without.request("sampling/createMessage", { messages: [], maxTokens: 10 })
      assert.isDefined(((yield* without.answer) as JsonObject)["error"])
    }).pipe(Effect.provide(clientLayer(fake.layer)))
  })
})
