import { McpClient, McpTransport } from "@mcp-effect/client"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import { TestClock } from "effect/testing"

/** A hand-written fake server that answers `initialize` and `tools/list` and ignores everything else. */
const ignoresDiscover = (received: Array<string>, options?: McpTransport.MemoryOptions) =>
  McpTransport.layerMemory({
    onMessage: (message, peer) =>
      Effect.gen(function*() {
        const method = message["method"]
        if (typeof method === "string") received.push(method)
        if (method === "initialize") {
          yield* peer.send({
            jsonrpc: "2.0",
            id: message["id"],
            result: { protocolVersion: "2025-11-25", capabilities: { tools: {} }, serverInfo: { name: "fake", version: "1" } }
          })
        }
        if (method === "tools/list") yield* peer.send({ jsonrpc: "2.0", id: message["id"], result: { tools: [] } })
      })
  }, options)

const listTools = (transport: Layer.Layer<McpTransport.McpTransport>, options: McpClient.ClientOptions = {}) =>
  McpClient.listTools().pipe(Effect.provide(McpClient.layer({ clientName: "t", ...options }).pipe(Layer.provide(transport))))

describe("the in-memory transport's probe watchdog", () => {
  it.effect("under TestClock, a fake server that ignores server/discover fails the call loudly instead of hanging", () =>
    Effect.gen(function*() {
      const received: Array<string> = []
      // The test never moves the TestClock: without the watchdog this would wait for ever.
      const error = yield* listTools(ignoresDiscover(received, { probeWatchdog: "150 millis" })).pipe(Effect.flip)
      assert.strictEqual(error._tag, "McpProbeStalledError")
      if (error._tag !== "McpProbeStalledError") return
      assert.strictEqual(error.probeTimeoutMillis, 5000)
      assert.isAtLeast(error.realMillis, 150)
      assert.include(error.message, "never answered server/discover")
      assert.include(error.message, "Under TestClock the probe timeout (5000 ms) cannot fire")
      assert.include(error.message, "-32601")
      assert.include(error.message, "McpTestServer")
      // Loud, not a silent fallback: the client never went on to initialize.
      assert.deepStrictEqual(received.filter((method) => method !== "notifications/cancelled"), ["server/discover"])
    }))

  it.effect("moving the TestClock past the probe timeout still falls back to legacy (the watchdog stays out)", () =>
    Effect.gen(function*() {
      const received: Array<string> = []
      const fiber = yield* Effect.forkChild(listTools(ignoresDiscover(received, { probeWatchdog: "10 seconds" })))
      yield* TestClock.adjust("5 seconds")
      const tools = yield* Fiber.join(fiber)
      assert.deepStrictEqual(tools, [])
      assert.includeMembers(received, ["server/discover", "initialize", "tools/list"])
    }))

  it.live("under the live clock the watchdog never fires: the probe timeout does, and legacy follows", () =>
    Effect.gen(function*() {
      const received: Array<string> = []
      const tools = yield* listTools(ignoresDiscover(received, { probeWatchdog: "20 millis" }), {
        probeTimeout: "200 millis"
      })
      assert.deepStrictEqual(tools, [])
      assert.includeMembers(received, ["server/discover", "initialize", "tools/list"])
    }))
})
