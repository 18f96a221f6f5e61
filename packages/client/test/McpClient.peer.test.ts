import { McpDiagnostic, McpTransport } from "@mcp-effect/client"
import { assert, describe, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import { TestClock } from "effect/testing"
import * as Peer from "../src/internal/transport/peer.js"

type Json = Record<string, unknown>

/** A peer over an in-memory connection whose server is `onMessage`; records notifications and diagnostics. */
const makePeer = (
  onMessage: (message: Json, server: McpTransport.MemoryPeer) => Effect.Effect<void>,
  onRequest: Peer.PeerOptions["onRequest"] = () => Effect.succeed({ ok: true })
) =>
  Effect.gen(function*() {
    const received: Array<Json> = []
    const notifications: Array<string> = []
    const diagnostics: Array<McpDiagnostic.McpDiagnostic> = []
    const transport = McpTransport.layerMemory({
      onMessage: (message, server) => Effect.andThen(Effect.sync(() => void received.push(message)), onMessage(message, server))
    })
    const service = yield* Effect.provide(McpTransport.McpTransport, transport)
    const connection = yield* service.connect
    const peer = yield* Peer.make({
      connection,
      onRequest,
      onNotification: (n) => Effect.sync(() => void notifications.push(n.method)),
      onDiagnostic: (d) => Effect.sync(() => void diagnostics.push(d)),
      replyContext: Effect.succeed({ era: "legacy" })
    })
    return { peer, received, notifications, diagnostics }
  })

const options = (timeout: Duration.Input = "60 seconds"): Peer.RequestOptions => ({ timeout: Duration.fromInputUnsafe(timeout), context: { era: "legacy" } })
const settle = Effect.repeat(Effect.yieldNow, { times: 20 })

describe("the peer (isolated)", () => {
  it.effect("a server request is served and answered; one the server cancels is interrupted and never answered", () =>
    Effect.gen(function*() {
      const interrupted: Array<string> = []
      const { notifications, peer, received } = yield* makePeer(
        (message, server) =>
          message["method"] === "go"
            ? Effect.gen(function*() {
              yield* server.send({ jsonrpc: "2.0", id: "quick", method: "roots/list" })
              yield* server.send({ jsonrpc: "2.0", id: "slow", method: "sampling/createMessage" })
              yield* server.send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: "slow" } })
              yield* server.send({ jsonrpc: "2.0", id: message["id"], result: {} })
            })
            : Effect.void,
        (method) =>
          method === "roots/list"
            ? Effect.succeed({ roots: [] })
            : Effect.onInterrupt(Effect.never, () => Effect.sync(() => void interrupted.push(method)))
      )
      yield* peer.request("go", undefined, options())
      yield* settle
      assert.deepStrictEqual(interrupted, ["sampling/createMessage"])
      assert.include(notifications, "notifications/cancelled")
      const answers = received.filter((m) => m["method"] === undefined)
      assert.deepStrictEqual(answers.map((m) => m["id"]), ["quick"])
      assert.deepStrictEqual(answers[0]?.["result"], { roots: [] })
    }))

  it.effect("answers are correlated by id, whatever their order", () =>
    Effect.gen(function*() {
      const { peer } = yield* makePeer((message, server) =>
        Effect.gen(function*() {
          const delay = (message["params"] as { delay: number }).delay
          yield* Effect.sleep(Duration.millis(delay))
          yield* server.send({ jsonrpc: "2.0", id: message["id"], result: { delay } })
        })
      )
      const fiber = yield* Effect.forkChild(
        Effect.forEach([30, 10, 20], (delay) => peer.request("echo", { delay }, options()), { concurrency: "unbounded" })
      )
      yield* settle
      yield* TestClock.adjust("30 millis")
      assert.deepStrictEqual(yield* Fiber.join(fiber), [{ delay: 30 }, { delay: 10 }, { delay: 20 }])
    }))

  it.effect("a request past its deadline fails with McpTimeoutError on the sweeper, and the server is told", () =>
    Effect.gen(function*() {
      const { peer, received } = yield* makePeer(() => Effect.void)
      const fiber = yield* Effect.forkChild(Effect.flip(peer.request("hang", undefined, options("2 seconds"))))
      yield* settle
      yield* TestClock.adjust("1999 millis")
      assert.isUndefined(fiber.pollUnsafe())
      yield* TestClock.adjust("1 millis")
      assert.deepInclude(yield* Fiber.join(fiber), { _tag: "McpTimeoutError", method: "hang", timeoutMillis: 2000 })
      yield* settle
      const cancelled = received.find((m) => m["method"] === "notifications/cancelled")
      assert.deepInclude(cancelled?.["params"] as object, { requestId: received[0]?.["id"] })
    }))

  it.effect("an interrupted request is forgotten and the server is told", () =>
    Effect.gen(function*() {
      const { diagnostics, peer, received } = yield* makePeer(() => Effect.void)
      const fiber = yield* Effect.forkChild(peer.request("slow", undefined, options()))
      yield* settle
      yield* Fiber.interrupt(fiber)
      yield* settle
      assert.strictEqual(received.filter((m) => m["method"] === "notifications/cancelled").length, 1)
      assert.deepStrictEqual(diagnostics, [])
    }))

  it.effect("a notification that comes before an answer is handled before its caller resumes", () =>
    Effect.gen(function*() {
      const { notifications, peer } = yield* makePeer((message, server) =>
        Effect.gen(function*() {
          yield* server.send({ jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: 1, progress: 1 } })
          yield* server.send({ jsonrpc: "2.0", id: message["id"], result: {} })
        })
      )
      yield* peer.request("work", undefined, options())
      assert.deepStrictEqual(notifications, ["notifications/progress"])
    }))

  it.effect("errors become McpProtocolError; bad frames and unmatched answers become diagnostics", () =>
    Effect.gen(function*() {
      const { diagnostics, peer } = yield* makePeer((message, server) =>
        Effect.gen(function*() {
          yield* server.send("not json")
          yield* server.send({ jsonrpc: "2.0", id: 999, result: {} })
          yield* server.send({ jsonrpc: "2.0", id: message["id"], error: { code: -32602, message: "bad", data: { x: 1 } } })
        })
      )
      const error = yield* Effect.flip(peer.request("call", undefined, options()))
      assert.deepInclude(error, {
        _tag: "McpProtocolError",
        method: "call",
        code: -32602,
        serverMessage: "bad",
        message: "call: bad (-32602)",
        data: { x: 1 }
      })
      yield* settle
      assert.deepStrictEqual(diagnostics.map((d) => d._tag), ["MalformedFrame", "UnmatchedResponse"])
    }))

  it.effect("the connection's end fails every request in flight with its reason; later requests fail at once", () =>
    Effect.gen(function*() {
      const { peer } = yield* makePeer((_, server) => server.die("crashed"))
      const error = yield* Effect.flip(peer.request("call", undefined, options()))
      assert.deepInclude(error, { _tag: "McpServerGoneError", reason: "crashed" })
      assert.isTrue(peer.hasEnded())
      assert.deepInclude(yield* Effect.flip(peer.request("again", undefined, options())), { _tag: "McpServerGoneError" })
    }))

  it.effect("server pings are answered by the peer itself", () =>
    Effect.gen(function*() {
      const { peer, received } = yield* makePeer((message, server) =>
        message["method"] === "call"
          ? Effect.gen(function*() {
            yield* server.send({ jsonrpc: "2.0", id: "ping-1", method: "ping" })
            yield* Effect.sleep("10 millis")
            yield* server.send({ jsonrpc: "2.0", id: message["id"], result: {} })
          })
          : Effect.void
      )
      const fiber = yield* Effect.forkChild(peer.request("call", undefined, options()))
      yield* settle
      yield* TestClock.adjust("10 millis")
      yield* Fiber.join(fiber)
      assert.deepInclude(received.find((m) => m["id"] === "ping-1") ?? {}, { result: {} })
    }))
})
