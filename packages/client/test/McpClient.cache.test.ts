import { McpClient, McpTransport, ResultCache } from "@mcp-effect/client"
import { assert, describe, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import { TestClock } from "effect/testing"
import { fail, legacyServer, metaOf, modernServer, ok, paramsOf } from "./fixtures/memoryServer.js"

const withClient = <A, E>(
  transport: Layer.Layer<McpTransport.McpTransport>,
  f: (client: McpClient.Service) => Effect.Effect<A, E>,
  options: McpClient.ClientOptions = {}
) => Effect.flatMap(McpClient.McpClient, f).pipe(Effect.provide(McpClient.layer(options).pipe(Layer.provide(transport))))

const toolsPage = (ttlMs?: number) => ({
  resultType: "complete",
  tools: [{ name: "echo", inputSchema: { type: "object" } }],
  ...(ttlMs === undefined ? {} : { ttlMs, cacheScope: "public" })
})

describe("ResultCache", () => {
  it.effect("ttlMs 60000: one request, refresh makes a second, expiry a third, list_changed evicts", () =>
    Effect.gen(function*() {
      const server = modernServer({
        "tools/list": () => ok(toolsPage(60_000)),
        "tools/call": (_, { peer }) =>
          Effect.as(peer.send({ jsonrpc: "2.0", method: "notifications/tools/list_changed" }), {
            result: { content: [] }
          })
      })
      const count = () => server.requests("tools/list").length
      yield* withClient(server.layer, (client) =>
        Effect.gen(function*() {
          yield* client.listTools()
          yield* client.listTools()
          assert.strictEqual(count(), 1)
          yield* client.listTools({ refresh: true })
          assert.strictEqual(count(), 2)
          yield* client.listTools()
          assert.strictEqual(count(), 2)
          yield* TestClock.adjust("61 seconds")
          yield* client.listTools()
          assert.strictEqual(count(), 3)
          yield* client.callTool("change")
          yield* client.listTools()
          assert.strictEqual(count(), 4)
        }))
    }))

  it.effect("fresh while now < receivedAt + ttlMs, stale exactly at it", () =>
    Effect.gen(function*() {
      const server = modernServer({ "tools/list": () => ok(toolsPage(1000)) })
      yield* withClient(server.layer, (client) =>
        Effect.gen(function*() {
          yield* client.listTools()
          yield* TestClock.adjust("999 millis")
          yield* client.listTools()
          assert.strictEqual(server.requests("tools/list").length, 1)
          yield* TestClock.adjust("1 millis")
          yield* client.listTools()
          assert.strictEqual(server.requests("tools/list").length, 2)
        }))
    }))

  it.effect("ttlMs 0, absent or negative is not reusable; legacy answers are never cached", () =>
    Effect.gen(function*() {
      for (const ttl of [0, undefined, -5]) {
        const server = modernServer({ "tools/list": () => ok(toolsPage(ttl)) })
        yield* withClient(server.layer, (client) => Effect.andThen(client.listTools(), client.listTools()))
        assert.strictEqual(server.requests("tools/list").length, 2)
      }
      const legacy = legacyServer({ "tools/list": () => ok(toolsPage(60_000)) })
      yield* withClient(legacy.layer, (client) => Effect.andThen(client.listTools(), client.listTools()))
      assert.strictEqual(legacy.requests("tools/list").length, 2)
    }))

  it.effect("concurrent identical fetches of a cold key share one request", () =>
    Effect.gen(function*() {
      const gate = yield* Deferred.make<void>()
      const server = modernServer({ "tools/list": () => Effect.andThen(Deferred.await(gate), ok(toolsPage(0))) })
      yield* withClient(server.layer, (client) =>
        Effect.gen(function*() {
          yield* client.era
          const fibers = yield* Effect.forEach([1, 2, 3], () => Effect.forkChild(client.listTools()))
          yield* Effect.yieldNow
          yield* Deferred.succeed(gate, undefined)
          yield* Fiber.joinAll(fibers)
        }))
      assert.strictEqual(server.requests("tools/list").length, 1)
    }))

  it.effect("pages are cached separately; resources/updated evicts that uri's read", () =>
    Effect.gen(function*() {
      const server = modernServer({
        "tools/list": (params) =>
          ok(params?.["cursor"] === undefined ? { ...toolsPage(60_000), nextCursor: "p2" } : toolsPage(1000)),
        "resources/read": (params) =>
          ok({ contents: [{ uri: params?.["uri"], text: "x" }], ttlMs: 60_000, cacheScope: "private" }),
        "tools/call": (_, { peer }) =>
          Effect.as(
            peer.send({ jsonrpc: "2.0", method: "notifications/resources/updated", params: { uri: "test://a" } }),
            { result: { content: [] } }
          )
      })
      yield* withClient(server.layer, (client) =>
        Effect.gen(function*() {
          yield* client.listTools()
          yield* TestClock.adjust("2 seconds")
          yield* client.listTools()
          // The first page is still fresh, the second expired.
          const cursors = server.requests("tools/list").map((m) => paramsOf(m)["cursor"])
          assert.deepStrictEqual(cursors, [undefined, "p2", "p2"])
          yield* Effect.all([client.readResource("test://a"), client.readResource("test://b")])
          yield* client.callTool("touch")
          yield* Effect.all([client.readResource("test://a"), client.readResource("test://b")])
          const reads = server.requests("resources/read").map((m) => paramsOf(m)["uri"])
          assert.deepStrictEqual(reads, ["test://a", "test://b", "test://a"])
        }))
    }))

  it.effect("a cursor that stops working drops the cached pages and starts over, once", () =>
    Effect.gen(function*() {
      let generation = 1
      const server = modernServer({
        "tools/list": (params) => {
          const cursor = params?.["cursor"]
          if (cursor === undefined) {
            return ok({ tools: [{ name: `a${generation}`, inputSchema: {} }], nextCursor: `g${generation}`, ttlMs: 60_000 })
          }
          return cursor === `g${generation}`
            ? ok({ tools: [{ name: `b${generation}`, inputSchema: {} }], ttlMs: 0 })
            : fail(-32602, "invalid cursor")
        }
      })
      const names = yield* withClient(server.layer, (client) =>
        Effect.gen(function*() {
          yield* client.listTools()
          generation = 2 // the server moved on: the cached first page's cursor is dead
          return (yield* client.listTools()).map((t) => t.name)
        }))
      assert.deepStrictEqual(names, ["a2", "b2"])
      const cursors = server.requests("tools/list").map((m) => paramsOf(m)["cursor"])
      assert.deepStrictEqual(cursors, [undefined, "g1", "g1", undefined, "g2"])
    }))

  it.effect("private entries are never shared across authorization contexts; public ones are", () =>
    Effect.gen(function*() {
      const cache = yield* ResultCache.make()
      let fetches = 0
      const fetch = (scope: "public" | "private") =>
        Effect.sync(() => ({ value: ++fetches, ttlMs: 1000, cacheScope: scope }))
      const key = (authContext: string, method: string) => ({ namespace: "srv", authContext, method, params: "" })
      yield* cache.get(key("alice", "private"), fetch("private"))
      assert.strictEqual(yield* cache.get(key("bob", "private"), fetch("private")), 2)
      yield* cache.get(key("alice", "public"), fetch("public"))
      assert.strictEqual(yield* cache.get(key("bob", "public"), fetch("public")), 3)
    }))
})

describe("progress", () => {
  it.effect("reports reach onProgress in order with a fresh token per call; stale and foreign ones are dropped", () =>
    Effect.gen(function*() {
      const reports: Array<McpClient.ProgressReport> = []
      let lateToken: unknown
      const server = modernServer({
        "tools/call": (params, { peer }) =>
          Effect.gen(function*() {
            const token = metaOf({ params })["progressToken"]
            lateToken = token
            for (const progress of [1, 2, 3]) {
              yield* peer.send({
                jsonrpc: "2.0",
                method: "notifications/progress",
                params: { progressToken: token, progress, total: 3, ...(progress === 2 ? { message: "half" } : {}) }
              })
            }
            yield* peer.send({
              jsonrpc: "2.0",
              method: "notifications/progress",
              params: { progressToken: "foreign", progress: 1 }
            })
            return { result: { content: [] } }
          })
      })
      const dropped = yield* withClient(server.layer, (client) =>
        Effect.gen(function*() {
          const diagnostics = yield* client.diagnostics.pipe(Stream.take(2), Stream.runCollect, Effect.forkChild)
          yield* Effect.yieldNow
          yield* client.callTool("long", {}, { toolCallId: "call_1" })
          const afterResult = reports.length
          // A late report for the finished call is dropped.
          yield* client.request("tools/call", { name: "noop" })
          assert.strictEqual(afterResult, 3)
          const tokens = server.requests("tools/call").map((m) => metaOf(m)["progressToken"])
          assert.notStrictEqual(tokens[0], tokens[1])
          assert.notStrictEqual(tokens[0], server.requests("tools/call")[0]?.["id"])
          return (yield* Fiber.join(diagnostics)).map((d) => d._tag)
        }), { onProgress: (report) => void reports.push(report) })
      assert.deepStrictEqual(reports.slice(0, 3), [
        { toolCallId: "call_1", progress: 1, total: 3 },
        { toolCallId: "call_1", progress: 2, total: 3, message: "half" },
        { toolCallId: "call_1", progress: 3, total: 3 }
      ])
      assert.deepStrictEqual(dropped, ["DroppedNotification", "DroppedNotification"])
      assert.isDefined(lateToken)
    }))

  it.effect("a failing onProgress hook never breaks the call", () =>
    Effect.gen(function*() {
      const server = modernServer({
        "tools/call": (params, { peer }) =>
          Effect.as(
            peer.send({
              jsonrpc: "2.0",
              method: "notifications/progress",
              params: { progressToken: metaOf({ params })["progressToken"], progress: 1 }
            }),
            { result: { content: [{ type: "text", text: "ok" }] } }
          )
      })
      const result = yield* withClient(server.layer, (client) => client.callTool("x"), {
        onProgress: () => {
          throw new Error("ui crashed")
        }
      })
      assert.strictEqual(result.content.length, 1)
    }))

  it.effect("progress resets the request timeout, up to maxTotalTimeout (TestClock)", () =>
    Effect.gen(function*() {
      const server = modernServer({
        "tools/call": (params, { peer }) =>
          Effect.gen(function*() {
            for (let i = 1; i <= 3; i++) {
              yield* Effect.sleep("800 millis")
              yield* peer.send({
                jsonrpc: "2.0",
                method: "notifications/progress",
                params: { progressToken: metaOf({ params })["progressToken"], progress: i }
              })
            }
            yield* Effect.sleep("800 millis")
            return { result: { content: [] } }
          })
      })
      const fiber = yield* withClient(server.layer, (client) => client.callTool("slow"), {
        requestTimeout: "1 second",
        resetTimeoutOnProgress: true
      }).pipe(Effect.delay("1 millis"), Effect.forkChild)
      // Started from the clock: this adjust runs the call until it waits (TestClock gives a forked fiber one
      // scheduler turn before it moves time); the call's own times are then as before, from 1 ms on.
      yield* TestClock.adjust("1 millis")
      for (let i = 0; i < 4; i++) yield* TestClock.adjust("800 millis")
      const result = yield* Fiber.join(fiber)
      assert.deepStrictEqual(result.content, [])
    }))
})

describe("logging", () => {
  it.effect("modern: logLevel goes in every request's _meta and onLog hears the messages", () =>
    Effect.gen(function*() {
      const logs: Array<McpClient.LogMessage> = []
      const server = modernServer({
        "tools/call": (params, { peer }) =>
          Effect.as(
            metaOf({ params })["io.modelcontextprotocol/logLevel"] === undefined
              ? Effect.void
              : peer.send({ jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: "hello" } }),
            { result: { content: [] } }
          )
      })
      yield* withClient(server.layer, (client) => client.callTool("log"), {
        logLevel: "info",
        onLog: (message) => void logs.push(message)
      })
      assert.deepStrictEqual(logs, [{ level: "info", data: "hello" }])
      assert.strictEqual(metaOf(server.requests("server/discover")[0])["io.modelcontextprotocol/logLevel"], "info")
    }))

  it.effect("legacy: logging/setLevel once after initialize when the server has logging", () =>
    Effect.gen(function*() {
      const server = legacyServer({ "logging/setLevel": () => ok({}), "tools/list": () => ok(toolsPage()) })
      yield* withClient(server.layer, (client) => Effect.andThen(client.listTools(), client.listTools()), {
        logLevel: "warning"
      })
      const methods = server.received.map((m) => m["method"])
      assert.deepStrictEqual(methods.slice(1, 4), ["initialize", "notifications/initialized", "logging/setLevel"])
      assert.deepStrictEqual(paramsOf(server.requests("logging/setLevel")[0]), { level: "warning" })
      assert.strictEqual(server.requests("logging/setLevel").length, 1)
    }))
})

describe("listen", () => {
  it.effect("modern: acknowledged first, routed by subscriptionId, cancelled on scope close", () =>
    Effect.gen(function*() {
      const server = modernServer({
        "subscriptions/listen": (params, { message, peer }) =>
          Effect.gen(function*() {
            const id = message["id"]
            const meta = { "io.modelcontextprotocol/subscriptionId": id }
            yield* peer.send({
              jsonrpc: "2.0",
              method: "notifications/subscriptions/acknowledged",
              params: { _meta: meta, notifications: { toolsListChanged: true } }
            })
            yield* peer.send({ jsonrpc: "2.0", method: "notifications/tools/list_changed", params: { _meta: meta } })
            yield* peer.send({
              jsonrpc: "2.0",
              method: "notifications/tools/list_changed",
              params: { _meta: { "io.modelcontextprotocol/subscriptionId": "someone-else" } }
            })
            assert.deepStrictEqual(paramsOf({ params })["notifications"], { toolsListChanged: true, resourceSubscriptions: ["x"] })
            return { silent: true } as const
          })
      })
      const got = yield* withClient(server.layer, (client) =>
        Effect.gen(function*() {
          const subscription = yield* client.listen({ toolsListChanged: true, resourceSubscriptions: ["x"] })
          const first = yield* subscription.notifications.pipe(Stream.take(1), Stream.runCollect)
          return { acknowledged: subscription.acknowledged, first }
        }).pipe(Effect.scoped))
      assert.deepStrictEqual(got.acknowledged, { toolsListChanged: true })
      assert.deepStrictEqual(got.first.map((n) => n.method), ["notifications/tools/list_changed"])
      // The in-memory server handles each message on a fiber of its own: let it see the cancellation.
      for (let i = 0; i < 100 && !server.received.some((m) => m["method"] === "notifications/cancelled"); i++) {
        yield* Effect.yieldNow
      }
      const cancelled = server.received.find((m) => m["method"] === "notifications/cancelled")
      assert.strictEqual(paramsOf(cancelled)["requestId"], server.requests("subscriptions/listen")[0]?.["id"])
    }))
})
