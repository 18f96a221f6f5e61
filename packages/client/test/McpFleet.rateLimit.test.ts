/**
 * The fleet's shared rate limit on a real `redis-server`: two clients, each on a Redis connection of its own
 * (as two workers), share one per-server limit; calls over it wait for their turn and then answer, even with a
 * request timeout far shorter than the wait (the wait is not part of the call's timeout).
 */
import * as NodeRedis from "@effect/platform-node/NodeRedis"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { ChildProcess } from "node:child_process"
import { randomBytes } from "node:crypto"
import { afterAll, assert, beforeAll, describe, it } from "vitest"
import { startModernServer } from "./fixtures/fleetProcesses.js"
import * as McpClient from "../src/McpClient.js"
import * as McpFleet from "../src/McpFleet.js"
import * as McpTestServer from "../src/McpTestServer.js"
import { type RedisServer, redisServerPath, startRedis } from "./fixtures/redisServer.js"
import * as NodePromise from "../src/NodePromise.js"

const haveRedis = redisServerPath() !== undefined
if (!haveRedis) console.log("McpFleet rate limit tests skipped: no redis-server on this machine (.ci/run installs it)")

let redis: RedisServer | undefined
beforeAll(async () => {
  if (haveRedis) redis = await startRedis()
})
afterAll(async () => {
  await redis?.stop()
})

const server = McpTestServer.make({
  era: "modern",
  tools: [McpTestServer.tool({ name: "ping", handler: () => Effect.succeed("pong") })]
})

describe.skipIf(!haveRedis)("McpFleet shared rate limit", () => {
  it("two workers share one limit: calls over it wait, then answer (the wait is not a timeout)", async () => {
    const waits: Array<number> = []
    const worker = McpFleet.withRateLimit({
      limit: 4,
      window: "1 second",
      key: "http://mcp.example/mcp",
      prefix: "rl",
      onWait: (ms) => void waits.push(ms)
    })(server.layer({ requestTimeout: "200 millis" })).pipe(Layer.provide(NodeRedis.layer({ url: redis?.url ?? "" })))
    const calls = (n: number) =>
      Effect.forEach(
        Array.from({ length: n }),
        () => Effect.map(McpClient.callTool("ping", {}), (result) => result.content[0]),
        { concurrency: "unbounded" }
      ).pipe(Effect.provide(worker))
    const started = Date.now()
    const [a, b] = await Effect.runPromise(Effect.all([calls(5), calls(5)], { concurrency: 2 }))
    const took = Date.now() - started
    assert.deepStrictEqual([...a, ...b].map((block) => block?.type === "text" ? block.text : ""), Array(10).fill("pong"))
    // 10 calls at 4 a second across both: at least two windows' wait, and some calls waited longer than
    // their 200 ms request timeout.
    assert.isAtLeast(took, 1000)
    assert.isAtLeast(waits.length, 6)
    assert.isAbove(Math.max(...waits), 200)
  })
})

/** The most calls that arrived within any `windowMs` (each arrival opening a window). */
const busiestWindow = (arrivals: ReadonlyArray<number>, windowMs: number) => {
  const sorted = [...arrivals].sort((a, b) => a - b)
  let most = 0
  for (let i = 0, j = 0; i < sorted.length; i++) {
    while ((sorted[i] ?? 0) - (sorted[j] ?? 0) >= windowMs) j++
    most = Math.max(most, i - j + 1)
  }
  return most
}

describe.skipIf(!haveRedis)("McpFleet shared rate limit: any sliding window", () => {
  it("4 workers, 5 calls a second: the server never sees more than 5 calls within any second (50 ms margin), steady state included", async () => {
    const arrivals: Array<number> = []
    const counted = McpTestServer.make({
      era: "modern",
      tools: [McpTestServer.tool({ name: "ping", handler: () => Effect.sync(() => void arrivals.push(Date.now())).pipe(Effect.as("pong")) })]
    })
    const worker = () =>
      McpFleet.withRateLimit({ limit: 5, window: "1 second", key: "http://mcp.example/sliding", prefix: "rl-sliding" })(
        counted.layer({ requestTimeout: "10 seconds" })
      ).pipe(Layer.provide(NodeRedis.layer({ url: redis?.url ?? "" })))
    const started = Effect.runSync(Deferred.make<number>())
    const run = (first: boolean) =>
      Effect.gen(function*() {
        // Connected first (the session's setup is no call): the turns are then what the server sees.
        yield* (yield* McpClient.McpClient).era
        // Uneven demand, as in life: one call, then 800 ms later everyone at once.
        if (first) yield* McpClient.callTool("ping", {})
        const until = (yield* Deferred.await(started)) + 2500
        // Two calls going in each worker: always more asked for than the limit gives (the steady state).
        yield* Effect.all([1, 2].map(() =>
          Effect.gen(function*() {
            while (Date.now() < until) yield* McpClient.callTool("ping", {})
          })
        ), { concurrency: 2 })
      }).pipe(Effect.provide(worker()))
    const running = Effect.runPromise(Effect.all([run(true), run(false), run(false), run(false)], { concurrency: "unbounded" }))
    while (arrivals.length === 0) await new Promise((r) => setTimeout(r, 5))
    await new Promise((r) => setTimeout(r, 800))
    Effect.runSync(Deferred.succeed(started, Date.now()))
    await running
    assert.isAtLeast(arrivals.length, 15)
    // The margin: a call reaches the server a few milliseconds after its turn, not always the same few.
    assert.isAtMost(busiestWindow(arrivals, 1000 - 50), 5)
  }, 20_000)
})


describe.skipIf(!haveRedis)("McpFleet shared rate limit and the fleet's cache", () => {
  let lists: { readonly url: string; readonly child: ChildProcess } | undefined
  beforeAll(async () => {
    if (haveRedis) lists = await startModernServer()
  })
  afterAll(() => void lists?.child.kill("SIGTERM"))

  it("a list served from the cache does not wait for a turn (1 call per 5 s: the first list takes it, 5 more answer at once)", async () => {
    const waits: Array<number> = []
    const client = await NodePromise.connectFleet({
      url: lists?.url ?? "",
      fleet: {
        url: redis?.url ?? "",
        subject: "u",
        key: randomBytes(32).toString("base64"),
        prefix: "rl-cache",
        rateLimit: { limit: 1, window: "5 seconds", onWait: (ms) => void waits.push(ms) }
      }
    })
    try {
      assert.isTrue((await client.listTools()).some((tool) => tool.name === "echo"))
      const started = Date.now()
      for (let i = 0; i < 5; i++) assert.isTrue((await client.listTools()).some((tool) => tool.name === "echo"))
      assert.isBelow(Date.now() - started, 1000)
      assert.deepStrictEqual(waits, [])
    } finally {
      await client.close()
    }
  }, 20_000)
})
