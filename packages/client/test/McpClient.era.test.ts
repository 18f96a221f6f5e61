import { McpClient, McpTransport } from "@mcp-effect/client"
import { assert, describe, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import { TestClock } from "effect/testing"
import {
  fail,
  LEGACY_INITIALIZE,
  legacyServer,
  makeServer,
  metaOf,
  MODERN_DISCOVER,
  modernServer,
  ok,
  paramsOf,
  silent
} from "./fixtures/memoryServer.js"

const clientOf = (transport: Layer.Layer<McpTransport.McpTransport>, options: McpClient.ClientOptions = {}) =>
  McpClient.layer({ clientName: "test-client", clientVersion: "9.9.9", ...options }).pipe(Layer.provide(transport))

const withClient = <A, E>(
  transport: Layer.Layer<McpTransport.McpTransport>,
  f: (client: McpClient.Service) => Effect.Effect<A, E>,
  options: McpClient.ClientOptions = {}
) => Effect.flatMap(McpClient.McpClient, f).pipe(Effect.provide(clientOf(transport, options)))

const tools = { tools: [{ name: "echo", inputSchema: { type: "object" } }] }

/**
 * Let forked fibers run up to their next wait. Effect 3's `TestClock.adjust` waited for them; Effect 4's does not,
 * so a test lets them reach their deadline before moving the clock.
 */
const settle = Effect.repeat(Effect.yieldNow, { times: 20 })

describe("era resolution", () => {
  it.effect("a DiscoverResult means modern, and every request carries the full envelope", () =>
    Effect.gen(function*() {
      const server = modernServer({ "tools/list": () => ok({ resultType: "complete", ...tools, ttlMs: 0 }) })
      const era = yield* withClient(server.layer, (client) =>
        Effect.gen(function*() {
          const era = yield* client.era
          assert.deepStrictEqual(yield* client.serverInfo, { name: "fake-modern", version: "1.0.0" })
          assert.strictEqual(yield* client.instructions, "fake modern")
          yield* client.listTools({ meta: { "com.example/trace": "t1" } })
          return era
        }))
      assert.strictEqual(era, "modern")
      const [discover] = server.requests("server/discover")
      const [list] = server.requests("tools/list")
      for (const message of [discover, list]) {
        const meta = metaOf(message)
        assert.strictEqual(meta["io.modelcontextprotocol/protocolVersion"], "2026-07-28")
        assert.deepStrictEqual(meta["io.modelcontextprotocol/clientInfo"], { name: "test-client", version: "9.9.9" })
        assert.deepStrictEqual(meta["io.modelcontextprotocol/clientCapabilities"], {})
      }
      assert.strictEqual(metaOf(list)["com.example/trace"], "t1")
      assert.strictEqual(server.requests("initialize").length, 0)
    }))

  it.effect("a method-not-found answer to the probe means legacy: initialize, then notifications/initialized", () =>
    Effect.gen(function*() {
      const server = legacyServer({ "tools/list": () => ok(tools) })
      const result = yield* withClient(server.layer, (client) =>
        Effect.all({ era: client.era, tools: client.listTools(), info: client.serverInfo }))
      assert.strictEqual(result.era, "legacy")
      assert.deepStrictEqual(result.info, { name: "fake-legacy", version: "1.0.0" })
      assert.deepStrictEqual(result.tools.map((t) => t.name), ["echo"])
      const methods = server.received.map((m) => m["method"])
      assert.deepStrictEqual(methods, ["server/discover", "initialize", "notifications/initialized", "tools/list"])
      const init = paramsOf(server.requests("initialize")[0])
      assert.strictEqual(init["protocolVersion"], "2025-11-25")
      assert.deepStrictEqual(init["clientInfo"], { name: "test-client", version: "9.9.9" })
      // Legacy requests carry no modern envelope, and ids are never reused within the session.
      assert.deepStrictEqual(metaOf(server.requests("tools/list")[0]), {})
      const ids = server.received.flatMap((m) => m["id"] === undefined ? [] : [m["id"]])
      assert.strictEqual(new Set(ids).size, ids.length)
    }))

  it.effect("a probe that gets no answer within probeTimeout falls back to legacy (TestClock)", () =>
    Effect.gen(function*() {
      const server = makeServer({ "server/discover": () => silent, "initialize": () => ok(LEGACY_INITIALIZE) })
      const fiber = yield* withClient(server.layer, (client) => client.era, { probeTimeout: "5 seconds" }).pipe(
        Effect.forkChild
      )
      yield* TestClock.adjust("4999 millis")
      assert.isUndefined(fiber.pollUnsafe())
      yield* TestClock.adjust("1 millis")
      assert.strictEqual(yield* Fiber.join(fiber), "legacy")
      // The late probe is cancelled on the wire; initialize uses a fresh id.
      const cancelled = server.received.find((m) => m["method"] === "notifications/cancelled")
      assert.strictEqual(paramsOf(cancelled)["requestId"], server.requests("server/discover")[0]?.["id"])
    }))

  it.effect("a reply that is not a DiscoverResult falls back to legacy", () =>
    Effect.gen(function*() {
      const server = makeServer({ "server/discover": () => ok({ foo: 1 }), "initialize": () => ok(LEGACY_INITIALIZE) })
      assert.strictEqual(yield* withClient(server.layer, (client) => client.era), "legacy")
    }))

  it.effect("-32022 naming a modern version we speak: probe again at it, never initialize", () =>
    Effect.gen(function*() {
      let calls = 0
      const server = makeServer({
        "server/discover": (params) => {
          calls++
          const version = McpMeta(params)
          return calls === 1
            ? fail(-32022, "Unsupported protocol version", { supported: ["2026-07-28"], requested: version })
            : ok(MODERN_DISCOVER)
        }
      })
      assert.strictEqual(yield* withClient(server.layer, (client) => client.era), "modern")
      assert.strictEqual(server.requests("server/discover").length, 2)
      assert.strictEqual(server.requests("initialize").length, 0)
    }))

  it.effect("-32022 naming only legacy versions: initialize at the newest of them", () =>
    Effect.gen(function*() {
      const server = makeServer({
        "server/discover": () => fail(-32022, "Unsupported", { supported: ["2025-06-18"], requested: "2026-07-28" }),
        "initialize": (params) => ok({ ...LEGACY_INITIALIZE, protocolVersion: params?.["protocolVersion"] })
      })
      const info = yield* withClient(server.layer, (client) => client.info)
      assert.strictEqual(info.era, "legacy")
      assert.strictEqual(info.protocolVersion, "2025-06-18")
    }))

  it.effect("initialize answering a version we do not speak is a clear error", () =>
    Effect.gen(function*() {
      const server = makeServer({ "initialize": () => ok({ ...LEGACY_INITIALIZE, protocolVersion: "1999-01-01" }) })
      const error = yield* withClient(server.layer, (client) => client.era).pipe(Effect.flip)
      assert.strictEqual(error._tag, "McpUnsupportedVersionError")
      assert.include(error.message, "1999-01-01")
    }))

  it.effect("concurrent first calls share one probe", () =>
    Effect.gen(function*() {
      const server = modernServer({ "tools/list": () => ok({ ...tools, ttlMs: 0 }) })
      yield* withClient(server.layer, (client) =>
        Effect.all([client.listTools(), client.listTools(), client.era, client.serverInfo], {
          concurrency: "unbounded"
        }))
      assert.strictEqual(server.requests("server/discover").length, 1)
    }))

  it.effect("a server that dies during the probe is raised as that failure, not read as legacy", () =>
    Effect.gen(function*() {
      const server = makeServer({
        "server/discover": (_, { peer }) => Effect.as(peer.die("exited"), { silent: true } as const),
        "initialize": () => ok(LEGACY_INITIALIZE)
      })
      const error = yield* withClient(server.layer, (client) => client.era, { restartOnProbeExit: false }).pipe(
        Effect.flip
      )
      assert.strictEqual(error._tag, "McpServerGoneError")
      assert.strictEqual(server.requests("initialize").length, 0)
    }))

  it.effect("a legacy server that exits on server/discover is restarted once and initialized", () =>
    Effect.gen(function*() {
      const server = makeServer({
        "server/discover": (_, { peer }) => Effect.as(peer.die("unknown method"), { silent: true } as const),
        "initialize": () => ok(LEGACY_INITIALIZE),
        "tools/list": () => ok(tools)
      })
      const result = yield* withClient(server.layer, (client) => Effect.all([client.era, client.listTools()]))
      assert.strictEqual(result[0], "legacy")
      assert.strictEqual(server.connections.count, 2)
      assert.strictEqual(server.requests("server/discover").length, 1)
    }))

  it.effect("era: legacy skips the probe; era: modern never falls back", () =>
    Effect.gen(function*() {
      const legacy = legacyServer()
      assert.strictEqual(yield* withClient(legacy.layer, (client) => client.era, { era: "legacy" }), "legacy")
      assert.strictEqual(legacy.requests("server/discover").length, 0)
      const modernOnly = legacyServer()
      const error = yield* withClient(modernOnly.layer, (client) => client.era, { era: "modern" }).pipe(Effect.flip)
      assert.strictEqual(error._tag, "McpProtocolError")
    }))
})

describe("requests", () => {
  it.effect("the request timeout fails with McpTimeoutError and cancels the request on the wire (TestClock)", () =>
    Effect.gen(function*() {
      const server = modernServer({ "tools/call": () => silent })
      const fiber = yield* withClient(server.layer, (client) =>
        client.era.pipe(
          Effect.andThen(client.callTool("echo", {}, { timeout: "2 seconds" })),
          Effect.flip
        )).pipe(Effect.forkChild)
      yield* settle
      yield* TestClock.adjust("2 seconds")
      const error = yield* Fiber.join(fiber)
      yield* settle
      assert.strictEqual(error._tag, "McpTimeoutError")
      assert.include(error.message, "tools/call")
      const cancelled = server.received.find((m) => m["method"] === "notifications/cancelled")
      assert.strictEqual(paramsOf(cancelled)["requestId"], server.requests("tools/call")[0]?.["id"])
    }))

  it.effect("interrupting a call cancels it on the wire and surfaces as interruption", () =>
    Effect.gen(function*() {
      const started = yield* Deferred.make<void>()
      const server = modernServer({ "tools/call": () => Effect.andThen(Deferred.succeed(started, undefined), silent) })
      yield* withClient(server.layer, (client) =>
        Effect.gen(function*() {
          const fiber = yield* Effect.forkChild(client.callTool("echo"))
          yield* Deferred.await(started)
          yield* Fiber.interrupt(fiber)
          const exit = yield* Fiber.await(fiber)
          assert.isTrue(Exit.hasInterrupts(exit))
        }))
      // The server handles each message on a fiber of its own: let it run.
      yield* settle
      const cancelled = server.received.filter((m) => m["method"] === "notifications/cancelled")
      assert.strictEqual(cancelled.length, 1)
    }))

  it.effect("initialize is never cancelled", () =>
    Effect.gen(function*() {
      const server = makeServer({ "initialize": () => silent })
      const fiber = yield* withClient(server.layer, (client) => client.era, { requestTimeout: "1 second" }).pipe(
        Effect.flip,
        Effect.forkChild
      )
      yield* settle
      yield* TestClock.adjust("1 second")
      const error = yield* Fiber.join(fiber)
      assert.strictEqual(error._tag, "McpTimeoutError")
      const cancelled = server.received.filter((m) => m["method"] === "notifications/cancelled")
      assert.deepStrictEqual(cancelled.map((m) => paramsOf(m)["requestId"]), [])
    }))

  it.effect("a JSON-RPC error is an McpProtocolError with the wire code, message and data", () =>
    Effect.gen(function*() {
      const server = modernServer({ "tools/call": () => fail(-32603, "tool exploded", { detail: "x" }) })
      const error = yield* withClient(server.layer, (client) => client.callTool("boom").pipe(Effect.flip))
      assert.strictEqual(error._tag, "McpProtocolError")
      if (error._tag === "McpProtocolError") {
        assert.strictEqual(error.code, -32603)
        assert.strictEqual(error.serverMessage, "tool exploded")
        assert.strictEqual(error.message, "tools/call: tool exploded (-32603)")
        assert.deepStrictEqual(error.data, { detail: "x" })
      }
    }))

  it.effect("garbage frames are diagnostics; the connection and other requests carry on", () =>
    Effect.gen(function*() {
      const server = modernServer({
        "tools/call": (params, { peer }) =>
          Effect.gen(function*() {
            yield* peer.send("this is not json")
            yield* peer.send({ hello: "world" })
            yield* peer.send({ jsonrpc: "2.0", id: 9999, result: {} })
            return { result: { content: [{ type: "text", text: String(paramsOf({ params })["name"]) }] } }
          })
      })
      const result = yield* withClient(server.layer, (client) =>
        Effect.gen(function*() {
          const seen = yield* client.diagnostics.pipe(Stream.take(3), Stream.runCollect, Effect.forkChild)
          yield* Effect.yieldNow
          const results = yield* Effect.all([client.callTool("a"), client.callTool("b")], { concurrency: 2 })
          const diagnostics = yield* Fiber.join(seen)
          return { results, diagnostics: diagnostics.map((d) => d._tag) }
        }))
      assert.deepStrictEqual(result.results.map((r) => r.content[0]), [{ type: "text", text: "a" }, {
        type: "text",
        text: "b"
      }])
      assert.includeMembers(result.diagnostics, ["MalformedFrame", "UnmatchedResponse"])
    }))

  it.effect("an unknown resultType is an invalid response; input_required on a list method too", () =>
    Effect.gen(function*() {
      const server = modernServer({
        "tools/call": () => ok({ resultType: "weird", content: [] }),
        "tools/list": () => ok({ resultType: "input_required", requestState: "x" })
      })
      const errors = yield* withClient(server.layer, (client) =>
        Effect.all([client.callTool("x").pipe(Effect.flip), client.listTools().pipe(Effect.flip)]))
      assert.deepStrictEqual(errors.map((e) => e._tag), ["McpInvalidResponseError", "McpInvalidResponseError"])
      assert.include(errors[0].message, "weird")
    }))

  it.effect("unknown fields are kept, not stripped", () =>
    Effect.gen(function*() {
      const server = modernServer({
        "tools/list": () =>
          ok({
            tools: [{
              name: "t",
              inputSchema: { type: "object", $defs: { a: { type: "string" } }, "x-custom": 1 },
              _meta: { "com.example/k": "v" },
              futureField: true
            }],
            ttlMs: 0
          })
      })
      const [tool] = yield* withClient(server.layer, (client) => client.listTools())
      assert.deepStrictEqual(tool, {
        name: "t",
        inputSchema: { type: "object", $defs: { a: { type: "string" } }, "x-custom": 1 },
        _meta: { "com.example/k": "v" },
        futureField: true
      } as unknown as typeof tool)
    }))

  it.effect("list methods follow nextCursor to the end; the empty string is a cursor", () =>
    Effect.gen(function*() {
      const pages: Record<string, unknown> = {
        start: { tools: [{ name: "a", inputSchema: {} }], nextCursor: "" },
        "": { tools: [{ name: "b", inputSchema: {} }], nextCursor: "c2" },
        c2: { tools: [{ name: "c", inputSchema: {} }] }
      }
      const server = modernServer({
        "tools/list": (params) => {
          const cursor = params?.["cursor"]
          return ok(pages[typeof cursor === "string" ? cursor : "start"])
        }
      })
      const names = yield* withClient(server.layer, (client) => client.listTools()).pipe(
        Effect.map((tools) => tools.map((t) => t.name))
      )
      assert.deepStrictEqual(names, ["a", "b", "c"])
    }))

  it.effect("a list that never ends stops at maxPages with a clear error", () =>
    Effect.gen(function*() {
      let n = 0
      const server = modernServer({ "tools/list": () => ok({ tools: [], nextCursor: `c${++n}` }) })
      const error = yield* withClient(server.layer, (client) => client.listTools().pipe(Effect.flip), { maxPages: 5 })
      assert.strictEqual(error._tag, "McpPaginationLimitError")
      assert.strictEqual(server.requests("tools/list").length, 5)
    }))

  it.effect("calls after close fail with McpClosedError", () =>
    Effect.gen(function*() {
      const server = modernServer()
      const error = yield* withClient(server.layer, (client) =>
        client.era.pipe(Effect.andThen(client.close), Effect.andThen(client.listTools()), Effect.flip))
      assert.strictEqual(error._tag, "McpClosedError")
    }))

  it.effect("a server that dies mid-call fails every call in flight; the next call restarts it", () =>
    Effect.gen(function*() {
      const server = modernServer({
        "tools/call": (params, { peer }) =>
          paramsOf({ params })["name"] === "die" ? Effect.as(peer.die("boom"), { silent: true } as const) : silent,
        "tools/list": () => ok({ tools: [], ttlMs: 0 })
      })
      yield* withClient(server.layer, (client) =>
        Effect.gen(function*() {
          yield* client.era
          const slow = yield* Effect.forkChild(client.callTool("slow"))
          yield* settle
          const died = yield* client.callTool("die").pipe(Effect.flip)
          assert.strictEqual(died._tag, "McpServerGoneError")
          const other = yield* Fiber.join(slow).pipe(Effect.flip)
          assert.strictEqual(other._tag, "McpServerGoneError")
          assert.deepStrictEqual(yield* client.listTools(), [])
        }))
      assert.strictEqual(server.connections.count, 2)
    }))
})

const McpMeta = (params: Record<string, unknown> | undefined) => {
  const meta = params?.["_meta"]
  return typeof meta === "object" && meta !== null && "io.modelcontextprotocol/protocolVersion" in meta
    ? String(meta["io.modelcontextprotocol/protocolVersion"])
    : undefined
}
