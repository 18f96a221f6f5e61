/**
 * The fleet's shared rate limit on a real `redis-server`: two clients, each on a Redis connection of its own
 * (as two workers), share one per-server limit; calls over it wait for their turn and then answer, even with a
 * request timeout far shorter than the wait (the wait is not part of the call's timeout).
 */
import * as NodeRedis from "@effect/platform-node/NodeRedis"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
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

describe.skipIf(!haveRedis)("McpFleet rate limit settings", () => {
  it("a window or a timeout that is not a duration is an McpFleetError (Options), not a thrown defect", async () => {
    // As they come from an untyped setting (a JSON file).
    const bad = JSON.parse(`{ "window": "a fortnight", "timeout": "soon" }`) as { window: Duration.Input; timeout: Duration.Input }
    const built = (settings: { readonly window?: Duration.Input; readonly timeout?: Duration.Input }) =>
      McpFleet.withRateLimit({ limit: 4, window: "1 second", key: "http://mcp.example/mcp", prefix: "rl-bad", ...settings })(
        server.layer()
      ).pipe(Layer.provide(NodeRedis.layer({ url: redis?.url ?? "" })), Layer.build, Effect.scoped, Effect.flip)
    const window = await Effect.runPromise(built({ window: bad.window }))
    assert.instanceOf(window, McpFleet.McpFleetError)
    assert.deepInclude(window, { reason: "Options", detail: "rateLimit.window is not a duration, got a fortnight" })
    const timeout = await Effect.runPromise(built({ timeout: bad.timeout }))
    assert.instanceOf(timeout, McpFleet.McpFleetError)
    assert.include(timeout.message, "rateLimit.timeout is not a duration, got soon")
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

/**
 * A busy machine, made on purpose: the event loop stalls for `stallMs` every `everyMs` (as a process on two
 * cores at load 8 does), so that a request reaches the server long after its turn was given. Returns the stop.
 */
const stallEventLoop = (stallMs: number, everyMs: number) => {
  const timer = setInterval(() => {
    const until = Date.now() + stallMs
    while (Date.now() < until) {
      // busy: nothing else runs in this process meanwhile
    }
  }, everyMs)
  return () => clearInterval(timer)
}

describe.skipIf(!haveRedis)("McpFleet shared rate limit: any sliding window", () => {
  it("4 workers, 5 calls a second: the server never sees more than 5 calls within any second, from the first call, on a busy event loop", async () => {
    const arrivals: Array<number> = []
    const counted = McpTestServer.make({
      era: "modern",
      tools: [McpTestServer.tool({ name: "ping", handler: () => Effect.sync(() => void arrivals.push(Date.now())).pipe(Effect.as("pong")) })]
    })
    const key = `http://mcp.example/sliding/${randomBytes(6).toString("hex")}`
    const worker = () =>
      McpFleet.withRateLimit({ limit: 5, window: "1 second", key, prefix: "rl-sliding" })(
        counted.layer({ requestTimeout: "10 seconds" })
      ).pipe(Layer.provide(NodeRedis.layer({ url: redis?.url ?? "" })))
    // Six lanes per worker, all asking from the start (no warm-up: the first calls count too), a fixed amount
    // of work (4 x 6 lanes x 1 call, then 6 more), so the test's length follows its work.
    const lane = (calls: number) =>
      Effect.gen(function*() {
        for (let i = 0; i < calls; i++) yield* McpClient.callTool("ping", {})
      })
    const run = (extra: boolean) =>
      Effect.all(Array.from({ length: 6 }, (_, i) => lane(extra && i < 2 ? 2 : 1)), { concurrency: "unbounded" })
        .pipe(Effect.provide(worker()))
    const stop = stallEventLoop(350, 900)
    try {
      await Effect.runPromise(Effect.all([run(true), run(true), run(true), run(false)], { concurrency: "unbounded" }))
    } finally {
      stop()
    }
    assert.strictEqual(arrivals.length, 30)
    // No margin: every request reached the server between its turn's start and end (Redis and this process
    // read the same clock), so the bound is exact.
    assert.isAtMost(busiestWindow(arrivals, 1000), 5)
  }, 120_000)

  it("a call that outlasts the window keeps its turn: with 1 a second, a 1.2 s call and a quick one never overlap at the server", async () => {
    const seen: Array<{ readonly name: string; readonly at: number }> = []
    // When the server finished the slow call: its turn ended later still (once its answer was back).
    const slowEnded: Array<number> = []
    const counted = McpTestServer.make({
      era: "modern",
      tools: [
        McpTestServer.tool({
          name: "slow",
          handler: () =>
            Effect.sync(() => void seen.push({ name: "slow", at: Date.now() })).pipe(
              Effect.andThen(Effect.sleep("1200 millis")),
              Effect.andThen(Effect.sync(() => void slowEnded.push(Date.now()))),
              Effect.as("done")
            )
        }),
        McpTestServer.tool({ name: "quick", handler: () => Effect.sync(() => void seen.push({ name: "quick", at: Date.now() })).pipe(Effect.as("done")) })
      ]
    })
    const layer = McpFleet.withRateLimit({ limit: 1, window: "1 second", key: `http://mcp.example/slow/${randomBytes(6).toString("hex")}`, prefix: "rl-slow" })(
      counted.layer({ requestTimeout: "10 seconds" })
    ).pipe(Layer.provide(NodeRedis.layer({ url: redis?.url ?? "" })))
    await Effect.runPromise(Effect.gen(function*() {
      const slow = yield* Effect.forkChild(McpClient.callTool("slow", {}))
      // The quick call asks only once the slow one is at the server: it must wait for the slow one's end + 1 s.
      while (seen.length === 0) yield* Effect.sleep("5 millis")
      yield* McpClient.callTool("quick", {})
      yield* Fiber.join(slow)
    }).pipe(Effect.provide(layer)))
    const quick = seen.find((s) => s.name === "quick")?.at ?? 0
    assert.deepStrictEqual(seen.map((s) => s.name), ["slow", "quick"])
    // No margin: the quick call's turn came a whole window after the slow one's end, which followed the server's.
    assert.isAtLeast(quick - (slowEnded[0] ?? Infinity), 1000)
  }, 60_000)
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
      // None waited for a turn (which would take the 5 s window each): no wait reported, and less than one window.
      assert.deepStrictEqual(waits, [])
      assert.isBelow(Date.now() - started, 5000)
    } finally {
      await client.close()
    }
  }, 20_000)

  it("a call that lists the tools first (through the gated cache) holds one turn for both: 1 a second, it answers at once", async () => {
    const waits: Array<number> = []
    const client = await NodePromise.connectFleet({
      url: lists?.url ?? "",
      fleet: {
        url: redis?.url ?? "",
        subject: "u",
        key: randomBytes(32).toString("base64"),
        prefix: "rl-nested",
        // A key of its own: the other tests' turns on this server are not this test's.
        rateLimit: { limit: 1, window: "1 second", prefix: `rl-nested-${randomBytes(4).toString("hex")}`, onWait: (ms) => void waits.push(ms) }
      }
    })
    try {
      // Unknown to the client, so its catalogue is fetched first, inside the call (a second turn would wait for
      // the first to end, which waits for it: 60 s).
      const called = await client.callTool("echo", { text: "nested" })
      assert.isFalse(called.isError === true, JSON.stringify(called))
      assert.deepStrictEqual(waits, [])
    } finally {
      await client.close()
    }
  }, 20_000)

  it("a call holding the turn never joins a listing in flight that waits for that turn (1 a second): both answer", async () => {
    const client = await NodePromise.connectFleet({
      url: lists?.url ?? "",
      fleet: {
        url: redis?.url ?? "",
        subject: "u",
        key: randomBytes(32).toString("base64"),
        prefix: "rl-join",
        rateLimit: { limit: 1, window: "1 second", prefix: `rl-join-${randomBytes(4).toString("hex")}` }
      }
    })
    try {
      // The call takes the one turn; the listing, asked just after, waits for it in the shared cache; the call
      // then needs the catalogue too. Joined to the waiting listing, it would wait for its own turn (60 s).
      const [called, listed] = await Promise.all([client.callTool("echo", { text: "joined" }), client.listTools()])
      assert.isFalse(called.isError === true, JSON.stringify(called))
      assert.isTrue(listed.some((tool) => tool.name === "echo"))
    } finally {
      await client.close()
    }
  }, 20_000)
})
