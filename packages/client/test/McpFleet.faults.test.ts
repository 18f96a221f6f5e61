/**
 * The fleet's token store and connection when Redis misbehaves, on a real `redis-server` of the test's own
 * (`fixtures/fleetRedis.ts`): paused with SIGSTOP (it accepts connections and commands, answers nothing until
 * SIGCONT) and restarted on the same port (its data lost: no persistence). Two stores on two connections
 * stand for two workers. Without a `redis-server` these tests are skipped, with a line saying so.
 */
import * as NodeRedis from "@effect/platform-node/NodeRedis"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as Redis from "effect/persistence/Redis"
import * as Scope from "effect/Scope"
import type { ChildProcess } from "node:child_process"
import { randomBytes } from "node:crypto"
import { afterAll, assert, beforeAll, describe, it } from "vitest"
import { startModernServer } from "./fixtures/fleetProcesses.js"
import * as McpAuth from "../src/McpAuth.js"
import * as McpFleet from "../src/McpFleet.js"
import { type FleetRedis, startFleetRedis } from "./fixtures/fleetRedis.js"
import { redisServerPath } from "./fixtures/redisServer.js"
import * as NodePromise from "../src/NodePromise.js"

const haveRedis = redisServerPath() !== undefined
if (!haveRedis) console.log("McpFleet fault tests skipped: no redis-server on this machine (.ci/run installs it)")

const KEY = randomBytes(32).toString("base64")

let redis: FleetRedis | undefined
beforeAll(async () => {
  if (haveRedis) redis = await startFleetRedis()
})
afterAll(async () => {
  await redis?.stop()
})

const server = (): FleetRedis => {
  if (redis === undefined) throw new Error("no redis")
  return redis
}

const after = (ms: number, f: () => unknown) => void setTimeout(() => void f(), ms)

/** One worker's token store on a connection of its own, in a scope the test closes. */
const worker = async (options: Partial<McpFleet.TokenStoreOptions> = {}) => {
  const scope = await Effect.runPromise(Scope.make())
  const layer = McpFleet.layerTokenStore({ subject: "user-1", key: KEY, prefix: "faults", timeout: 300, ...options }).pipe(
    Layer.provideMerge(NodeRedis.layer({ url: server().url }))
  )
  const context = await Effect.runPromise(Layer.buildWithScope(layer, scope))
  const run = <A, E>(effect: Effect.Effect<A, E, McpAuth.TokenStore | Redis.Redis>) =>
    Effect.runPromise(Effect.provide(effect, context))
  const store = Context.get(context, McpAuth.TokenStore)
  const exclusive = store.exclusive
  if (exclusive === undefined) throw new Error("the fleet store has no lock")
  return { run, store, exclusive, close: () => Effect.runPromise(Scope.close(scope, Exit.void)) }
}

const entry = (server: string, accessToken: string): McpAuth.StoredEntry => ({
  server,
  issuer: "https://as.example",
  tokens: { accessToken, tokenType: "bearer", refreshToken: `refresh-${accessToken}`, issuedAt: Date.now() }
})

/** Counts how many holders run at once. */
const overlap = () => {
  let running = 0
  let most = 0
  return {
    hold: <A, E, R>(effect: Effect.Effect<A, E, R>) =>
      Effect.acquireUseRelease(
        Effect.sync(() => {
          running++
          most = Math.max(most, running)
        }),
        () => effect,
        () => Effect.sync(() => void running--)
      ),
    most: () => most
  }
}

const lockKeys = (w: { readonly run: Awaited<ReturnType<typeof worker>>["run"] }) =>
  w.run(Effect.flatMap(Redis.Redis, (r) => r.send<Array<string>>("KEYS", "faults:lock:*")))

describe.skipIf(!haveRedis)("McpFleet token store: Redis paused or restarted", () => {
  it("a lock attempt given up while Redis was paused leaves no lock behind once it answers again", async () => {
    const w = await worker({ lockTtl: 8000 })
    try {
      server().pause()
      after(1200, () => server().resume())
      await Effect.runPromise(w.exclusive("https://mcp.example/late", Effect.void))
      await new Promise((r) => setTimeout(r, 1500))
      assert.deepStrictEqual(await lockKeys(w), [])
    } finally {
      server().resume()
      await w.close()
    }
  }, 15_000)

  it("two workers while Redis is paused: neither runs its refresh without the lock (they never overlap)", async () => {
    const [a, b] = [await worker({ lockTtl: 5000 }), await worker({ lockTtl: 5000 })]
    const counted = overlap()
    try {
      const target = "https://mcp.example/paused"
      server().pause()
      after(1500, () => server().resume())
      const held = counted.hold(Effect.sleep(100))
      await Promise.all([Effect.runPromise(a.exclusive(target, held)), Effect.runPromise(b.exclusive(target, held))])
      assert.strictEqual(counted.most(), 1)
    } finally {
      server().resume()
      await Promise.all([a.close(), b.close()])
    }
  }, 15_000)

  it("Redis paused past the lock's lifetime: the wait ends at lockTtl and the caller's `alone` runs instead of its effect", async () => {
    const w = await worker({ lockTtl: 800 })
    try {
      // Paused until the call is over: it ended at lockTtl, with Redis still gone (not when Redis came back).
      server().pause()
      const exclusive = w.store.exclusive
      assert.isDefined(exclusive)
      if (exclusive === undefined) return
      const ran = await Effect.runPromise(exclusive("https://mcp.example/alone", Effect.succeed("locked"), Effect.succeed("alone")))
      assert.strictEqual(ran, "alone")
    } finally {
      server().resume()
      await w.close()
    }
  }, 15_000)

  it("Redis restarted while a worker refreshes: the other waits for it and takes its new tokens", async () => {
    const [a, b] = [await worker({ lockTtl: 5000 }), await worker({ lockTtl: 5000 })]
    const counted = overlap()
    const target = "https://mcp.example/restart"
    try {
      // Both workers hold the same tokens (as after a sign-in shared through Redis).
      await Effect.runPromise(a.store.save(entry(target, "old")))
      assert.strictEqual((await Effect.runPromise(b.store.load(target)))[0]?.tokens?.accessToken, "old")
      // A refreshes: its token request takes 1.2 s, Redis is restarted (down 300 ms) in the middle.
      const refreshing = Effect.runPromise(
        a.exclusive(target, counted.hold(Effect.andThen(Effect.sleep(1200), a.store.save(entry(target, "new")))))
      )
      after(200, () => server().restart(300))
      await new Promise((r) => setTimeout(r, 700))
      // B's token is about to expire too: under the lock it reads what is stored.
      const seen = await Effect.runPromise(
        b.exclusive(target, counted.hold(Effect.map(b.store.load(target), (entries) => entries[0]?.tokens?.accessToken)))
      )
      await refreshing
      assert.strictEqual(counted.most(), 1)
      assert.strictEqual(seen, "new")
    } finally {
      await Promise.all([a.close(), b.close()])
    }
  }, 20_000)
})

/** `p`, or a failure after `ms` (a test that would hang fails instead). */
const within = <A>(ms: number, p: Promise<A>, what: string) => {
  let timer: ReturnType<typeof setTimeout> | undefined
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: not settled in ${ms} ms`)), ms)
  })
  return Promise.race([p, late]).finally(() => clearTimeout(timer))
}

describe.skipIf(!haveRedis)("McpFleet connection: Redis that does not answer", () => {
  it("layerRedis on a Redis that accepts connections but answers nothing fails with McpFleetError within its timeouts", async () => {
    server().pause()
    try {
      // Redis answers nothing until the layer failed: it failed at its own timeouts (the 8 s are a hang guard).
      const error = await within(
        8000,
        Effect.runPromise(
          Effect.flip(
            Layer.build(McpFleet.layerRedis({ url: server().url, subject: "u", key: KEY, connectTimeout: 1000, timeout: 500 }))
              .pipe(Effect.scoped)
          )
        ),
        "the layer"
      )
      assert.strictEqual(error._tag, "McpFleetError")
      assert.strictEqual(error.reason, "Redis")
    } finally {
      server().resume()
    }
  }, 15_000)

  for (const fault of ["paused", "down"] as const) {
    it(`closing the fleet's connection settles within 2 s while Redis is ${fault}, after calls that fell back`, async () => {
      const scope = await Effect.runPromise(Scope.make())
      const context = await Effect.runPromise(
        Layer.buildWithScope(McpFleet.layerRedis({ url: server().url, subject: "u", key: KEY, timeout: 300 }), scope)
      )
      const target = "https://mcp.example/close"
      const store = Context.get(context, McpAuth.TokenStore)
      let restarted: Promise<void> | undefined
      try {
        if (fault === "paused") server().pause()
        else restarted = server().restart(4000)
        await new Promise((r) => setTimeout(r, 300))
        await Effect.runPromise(store.save(entry(target, "t")))
        assert.strictEqual((await Effect.runPromise(store.load(target)))[0]?.tokens?.accessToken, "t")
        await new Promise((r) => setTimeout(r, 1500))
        let back = false
        void restarted?.then(() => void (back = true))
        // The close settled without Redis: paused, Redis stays so until the close is over; down, the close is
        // over before Redis is back (4 s after the fault). The 8 s are a hang guard.
        await within(8000, Effect.runPromise(Scope.close(scope, Exit.void)), "close")
        assert.isFalse(back, "the close waited for Redis to come back")
      } finally {
        server().resume()
        await restarted
      }
    }, 20_000)
  }
})

describe.skipIf(!haveRedis)("McpFleet logs while Redis is gone", () => {
  it("Redis gone for 2.5 s: one warning when it is lost, one when it is back (with counts), none per reconnect attempt, no stack trace", async () => {
    const lines: Array<{ readonly level: string; readonly text: string }> = []
    const logger = Logger.make((options) => {
      const message: unknown = options.message
      const parts: ReadonlyArray<unknown> = Array.isArray(message) ? message : [message]
      lines.push({ level: options.logLevel, text: parts.map((part) => (part instanceof Error ? part.stack : String(part))).join(" ") })
    })
    const scope = await Effect.runPromise(Scope.make())
    const context = await Effect.runPromise(
      Layer.buildWithScope(
        McpFleet.layerRedis({ url: server().url, subject: "u", key: KEY, prefix: "noise", timeout: 300 }).pipe(
          Layer.provide(Logger.layer([logger]))
        ),
        scope
      )
    )
    const store = Context.get(context, McpAuth.TokenStore)
    const target = "https://mcp.example/noise"
    const quiet = <A, E>(effect: Effect.Effect<A, E>) => Effect.runPromise(Effect.provide(effect, Logger.layer([logger])))
    try {
      await quiet(store.save(entry(target, "t")))
      const restarted = server().restart(2500)
      const until = Date.now() + 3500
      while (Date.now() < until) {
        await quiet(store.load(target))
        await new Promise((r) => setTimeout(r, 200))
      }
      await restarted
      await quiet(store.load(target))
      const warnings = lines.filter((line) => line.level === "Warn" || line.level === "Error")
      assert.strictEqual(warnings.length, 2, warnings.map((w) => w.text).join("\n"))
      assert.include(warnings[0]?.text, "Redis unavailable")
      assert.match(warnings[1]?.text ?? "", /Redis is back after \d+\.\d s \(\d+ round trips failed meanwhile\)/)
      for (const line of lines) assert.notInclude(line.text, "\n    at ")
    } finally {
      await Effect.runPromise(Scope.close(scope, Exit.void))
    }
  }, 20_000)
})


describe.skipIf(!haveRedis)("McpFleet.connectHttp: Redis that does not answer", () => {
  let mcp: { readonly url: string; readonly child: ChildProcess } | undefined
  beforeAll(async () => {
    if (haveRedis) mcp = await startModernServer()
  })
  afterAll(() => void mcp?.child.kill("SIGTERM"))

  it("connectHttp with Redis paused rejects with McpFleetError within connectTimeout + timeout (2 s + 1 s)", async () => {
    server().pause()
    try {
      // Redis answers nothing until connectHttp rejected: it rejected at its own timeouts (10 s: a hang guard).
      const error: unknown = await within(
        10_000,
        NodePromise.connectFleet({
          url: mcp?.url ?? "",
          fleet: { url: server().url, subject: "u", key: KEY, connectTimeout: "2 seconds", timeout: "1 second" }
        }).then(() => undefined, (e: unknown) => e),
        "connectHttp"
      )
      assert.instanceOf(error, McpFleet.McpFleetError)
    } finally {
      server().resume()
    }
  }, 20_000)

  for (const fault of ["paused", "down", "back"] as const) {
    const state = fault === "paused" ? "while it is paused" : fault === "down" ? "while it is still down" : "once it is back"
    it(`FleetClient.close() settles within 2 s after 3 s without Redis, ${state}, with Redis commands in flight`, async () => {
      const client = await NodePromise.connectFleet({ url: mcp?.url ?? "", fleet: { url: server().url, subject: "u", key: KEY } })
      assert.isTrue((await client.listTools()).some((tool) => tool.name === "echo"))
      const restarted = fault === "paused" ? undefined : server().restart(fault === "back" ? 3000 : 3500)
      if (fault === "paused") server().pause()
      try {
        await new Promise((r) => setTimeout(r, 300))
        // Fetched afresh: the fleet's cache asks Redis (no answer), then the server answers.
        assert.isTrue((await client.listTools({ refresh: true })).some((tool) => tool.name === "echo"))
        if (fault === "back") await restarted
        else await new Promise((r) => setTimeout(r, 2500))
        const started = Date.now()
        await within(8000, client.close(), "close")
        assert.isBelow(Date.now() - started, 2000)
      } finally {
        server().resume()
        await restarted
      }
    }, 20_000)
  }
})
