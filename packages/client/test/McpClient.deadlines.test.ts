import { McpClient, type McpTransport } from "@mcp-effect/client"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import { TestClock } from "effect/testing"
import { modernServer, ok, silent } from "./fixtures/memoryServer.js"

const withClient = <A, E>(
  transport: Layer.Layer<McpTransport.McpTransport>,
  f: (client: McpClient.Service) => Effect.Effect<A, E>,
  options: McpClient.ClientOptions = {}
) => Effect.flatMap(McpClient.McpClient, f).pipe(Effect.provide(McpClient.layer(options).pipe(Layer.provide(transport))))

const tools = { resultType: "complete", tools: [{ name: "echo", inputSchema: { type: "object" } }], ttlMs: 60_000 }

/** Let forked fibers run up to their next wait. */
const settle = Effect.repeat(Effect.yieldNow, { times: 20 })

describe("deadlines are each caller's own", () => {
  it.effect("a 1 s listTools joining a 60 s fetch already in flight times out at 1 s; the fetch goes on", () =>
    Effect.gen(function*() {
      const server = modernServer({ "tools/list": () => silent })
      yield* withClient(server.layer, (client) =>
        Effect.gen(function*() {
          yield* client.era
          const patient = yield* Effect.forkChild(client.listTools())
          yield* settle
          const hurried = yield* Effect.forkChild(client.listTools({ timeout: "1 second" }))
          yield* settle
          yield* TestClock.adjust("1 second")
          const error = yield* Fiber.join(hurried).pipe(Effect.flip)
          assert.deepInclude(error, { _tag: "McpTimeoutError", method: "tools/list", limit: "request", timeoutMillis: 1000 })
          // One request on the wire, still waited for by the first caller.
          assert.strictEqual(server.requests("tools/list").length, 1)
          assert.isUndefined(patient.pollUnsafe())
          yield* TestClock.adjust("59 seconds")
          const late = yield* Fiber.join(patient).pipe(Effect.flip)
          assert.deepInclude(late, { _tag: "McpTimeoutError", timeoutMillis: 60_000 })
        }))
    }))

  it.effect("interrupting the first of two callers sharing a fetch leaves the second its answer", () =>
    Effect.gen(function*() {
      const server = modernServer({
        "tools/list": () => Effect.andThen(Effect.sleep("10 seconds"), ok(tools))
      })
      yield* withClient(server.layer, (client) =>
        Effect.gen(function*() {
          yield* client.era
          const first = yield* Effect.forkChild(client.listTools())
          yield* settle
          const second = yield* Effect.forkChild(client.listTools())
          yield* settle
          yield* Fiber.interrupt(first)
          yield* TestClock.adjust("10 seconds")
          const listed = yield* Fiber.join(second)
          assert.deepStrictEqual(listed.map((tool) => tool.name), ["echo"])
          assert.strictEqual(server.requests("tools/list").length, 1)
          // The answer was stored: a third caller gets it without a request.
          yield* client.listTools()
          assert.strictEqual(server.requests("tools/list").length, 1)
        }))
    }))

  it.effect("when every caller of a shared fetch has gone, the fetch is cancelled", () =>
    Effect.gen(function*() {
      const server = modernServer({ "tools/list": () => silent })
      yield* withClient(server.layer, (client) =>
        Effect.gen(function*() {
          yield* client.era
          const first = yield* Effect.forkChild(client.listTools())
          const second = yield* Effect.forkChild(client.listTools())
          yield* settle
          yield* Fiber.interrupt(first)
          yield* Fiber.interrupt(second)
          yield* settle
          const cancelled = server.received.filter((m) => m["method"] === "notifications/cancelled")
          assert.strictEqual(cancelled.length, 1)
          // A later caller starts afresh.
          const third = yield* Effect.forkChild(client.listTools({ timeout: "1 second" }))
          yield* settle
          yield* TestClock.adjust("1 second")
          assert.deepInclude(yield* Fiber.join(third).pipe(Effect.flip), { _tag: "McpTimeoutError" })
          assert.strictEqual(server.requests("tools/list").length, 2)
        }))
    }))

  it.effect("an overall budget spans the rounds; progress resets the request timeout up to maxTotalTimeout", () =>
    Effect.gen(function*() {
      const server = modernServer({
        "tools/call": (params, { peer }) =>
          Effect.gen(function*() {
            const token = (params?.["_meta"] as { progressToken?: string } | undefined)?.progressToken
            for (let i = 1; i <= 5; i++) {
              yield* Effect.sleep("4 seconds")
              yield* peer.send({ jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: token, progress: i } })
            }
            return { silent: true } as const
          })
      })
      yield* withClient(server.layer, (client) =>
        Effect.gen(function*() {
          yield* client.era
          const call = yield* Effect.forkChild(client.callTool("slow", {}, { timeout: "5 seconds" }))
          yield* settle
          // Reports every 4 s keep a 5 s timeout alive past 5 s ...
          for (let i = 0; i < 3; i++) {
            yield* TestClock.adjust("4 seconds")
            yield* settle
          }
          assert.isUndefined(call.pollUnsafe())
          // ... until the hard limit.
          yield* TestClock.adjust("4 seconds")
          const error = yield* Fiber.join(call).pipe(Effect.flip)
          assert.deepInclude(error, { _tag: "McpTimeoutError", limit: "request", timeoutMillis: 15_000 })

          const overall = yield* Effect.forkChild(
            client.callTool("slow", {}, { timeout: "1 minute", overallTimeout: "3 seconds" })
          )
          yield* settle
          yield* TestClock.adjust("3 seconds")
          assert.deepInclude(yield* Fiber.join(overall).pipe(Effect.flip), { _tag: "McpTimeoutError", limit: "overall" })
        }), { resetTimeoutOnProgress: true, maxTotalTimeout: "15 seconds" })
    }))
})
