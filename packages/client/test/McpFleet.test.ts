/**
 * The fleet on a real `redis-server` (started here on a free loopback port, stopped at the end; `.ci/run`
 * installs Debian's when missing). Without one, only these tests are skipped, with a line saying so.
 *
 * - the token store: sealed at rest, bound to its key and place, a corrupted value discarded, Redis down or
 *   hung answered from local memory within the deadline, a crashed holder's lock bounding the wait;
 * - the fleet: worker processes (each its own Node, bundled with esbuild) sharing one Redis and one
 *   oidc-provider whose access tokens live 2 s and whose refresh tokens rotate and are single-use: every
 *   call answers, the user signs in once, no refresh is refused, and a worker killed while it holds the
 *   refresh lock (its refresh held at the token endpoint) leaves the others carrying on. The workers also
 *   list the tools of a modern server (60 s private cache hints): fetched once by the first process, served
 *   to every worker from the fleet's cache.
 *   `MCP_FLEET_SECONDS` sets the run's length (default 15).
 */
import * as NodeRedis from "@effect/platform-node/NodeRedis"
import { followAuthorization, type OAuthProtected, startOAuthProtected } from "@mcp-effect/test-servers/oauth-protected"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Redis from "effect/persistence/Redis"
import type { ChildProcess } from "node:child_process"
import { randomBytes } from "node:crypto"
import { afterAll, assert, beforeAll, describe, it } from "vitest"
import { startModernServer, startWorker } from "./fixtures/fleetProcesses.js"
import * as McpAuth from "../src/McpAuth.js"
import * as McpFleet from "../src/McpFleet.js"
import { textOf } from "./fixtures/util.js"
import { bundleWorker } from "./fixtures/bundleWorker.js"
import { type RedisServer, redisServerPath, startRedis } from "./fixtures/redisServer.js"
import * as NodePromise from "../src/NodePromise.js"

const haveRedis = redisServerPath() !== undefined
if (!haveRedis) console.log("McpFleet tests skipped: no redis-server on this machine (.ci/run installs it)")

const KEY = randomBytes(32).toString("base64")
const REDIRECT = "http://127.0.0.1:8977/callback"

let redis: RedisServer | undefined
beforeAll(async () => {
  if (haveRedis) redis = await startRedis()
})
afterAll(async () => {
  await redis?.stop()
})

const redisUrl = () => {
  if (redis === undefined) throw new Error("no redis")
  return redis.url
}

/** Run an effect with a `Redis` connection and the fleet's token store. */
const withStore = <A, E>(
  effect: Effect.Effect<A, E, McpAuth.TokenStore | Redis.Redis>,
  options: Partial<McpFleet.TokenStoreOptions> = {}
) =>
  Effect.runPromise(
    effect.pipe(
      Effect.provide(
        McpFleet.layerTokenStore({ subject: "user-1", key: KEY, prefix: "t", timeout: 300, ...options }).pipe(
          Layer.provideMerge(NodeRedis.layer({ url: redisUrl() }))
        )
      )
    )
  )

const entry = (server: string, accessToken: string): McpAuth.StoredEntry => ({
  server,
  issuer: "https://as.example",
  tokens: { accessToken, tokenType: "bearer", refreshToken: `refresh-${accessToken}`, issuedAt: Date.now() }
})

const rawValues = (server: string) =>
  Effect.gen(function*() {
    const redis = yield* Redis.Redis
    const keys = yield* redis.send<Array<string>>("KEYS", "t:tokens:*")
    const values: Array<string> = []
    for (const key of keys) {
      const reply = yield* redis.send<unknown>("HGETALL", key)
      values.push(...(Array.isArray(reply) ? reply.map(String) : Object.values(reply as object).map(String)))
    }
    return values.join("\n") + server.slice(0, 0)
  })

describe.skipIf(!haveRedis)("McpFleet token store on Redis", () => {
  it("keeps tokens sealed at rest: Redis holds no token or URL in clear; another key or subject reads nothing", async () => {
    const server = "https://mcp.example/a"
    const raw = await withStore(Effect.gen(function*() {
      const store = yield* McpAuth.TokenStore
      yield* store.save(entry(server, "secret-access-1"))
      const loaded = yield* store.load(server)
      assert.strictEqual(loaded[0]?.tokens?.accessToken, "secret-access-1")
      return yield* rawValues(server)
    }))
    assert.notInclude(raw, "secret-access-1")
    assert.notInclude(raw, "refresh-secret")
    assert.notInclude(raw, "mcp.example")
    const otherSubject = await withStore(
      Effect.flatMap(McpAuth.TokenStore, (store) => store.load(server)),
      { subject: "user-2" }
    )
    assert.deepStrictEqual(otherSubject, [])
    const otherKey = await withStore(
      Effect.flatMap(McpAuth.TokenStore, (store) => store.load(server)),
      { key: randomBytes(32) }
    )
    assert.deepStrictEqual(otherKey, [])
  })

  it("discards a corrupted entry (it counts as absent and is deleted)", async () => {
    const server = "https://mcp.example/corrupt"
    const left = await withStore(Effect.gen(function*() {
      const store = yield* McpAuth.TokenStore
      const redis = yield* Redis.Redis
      yield* store.save(entry(server, "token-c"))
      const keys = yield* redis.send<Array<string>>("KEYS", "t:tokens:*")
      for (const key of keys) {
        const fields = yield* redis.send<Array<string>>("HKEYS", key)
        for (const field of fields) yield* redis.send("HSET", key, field, "bm90IGEgc2VhbGVkIHZhbHVlIGF0IGFsbA==")
      }
      assert.deepStrictEqual(yield* store.load(server), [])
      return yield* rawValues(server)
    }))
    assert.strictEqual(left, "")
  })

  it("Redis hung: a load or save answers from this process's memory within the deadline, with a warning", async () => {
    const server = "https://mcp.example/hung"
    await withStore(Effect.gen(function*() {
      const store = yield* McpAuth.TokenStore
      yield* store.save(entry(server, "token-h"))
      redis?.pause()
      // Redis stays hung until both answered: they answered from memory at their deadline, not from Redis.
      const loaded = yield* Effect.ensuring(
        Effect.andThen(store.save(entry(server, "token-h2")), store.load(server)),
        Effect.sync(() => redis?.resume())
      )
      assert.strictEqual(loaded[0]?.tokens?.accessToken, "token-h2")
    }))
  })

  it("a lock left by a crashed holder bounds the wait: the next holder runs after its expiry", async () => {
    const server = "https://mcp.example/lock"
    await withStore(
      Effect.gen(function*() {
        const store = yield* McpAuth.TokenStore
        const exclusive = store.exclusive
        assert.isDefined(exclusive)
        if (exclusive === undefined) return
        // A holder that died: take the lock by hand, never release it.
        const holder = Effect.sync(() => Date.now())
        const first = yield* exclusive(server, Effect.andThen(Effect.sleep(10), holder))
        const redis = yield* Redis.Redis
        const keys = yield* redis.send<Array<string>>("KEYS", "t:lock:*")
        assert.deepStrictEqual(keys, [])
        const stuck = yield* Effect.forkChild(exclusive(server, Effect.sleep("10 seconds")))
        yield* Effect.sleep(100)
        const ran = yield* exclusive(server, holder)
        assert.isAtLeast(ran, first)
        // It ran while the other still held the lock (its 10 s are not over): the lock's expiry (700 ms) ended
        // the wait, not the holder.
        assert.isUndefined(stuck.pollUnsafe())
        yield* Fiber.interrupt(stuck)
      }),
      { lockTtl: 700 }
    )
  })

  it("a key that is not 32 bytes, or Redis unreachable, fails the layer with McpFleetError (no secret in it)", async () => {
    const badKey = await Effect.runPromise(
      Effect.flip(Layer.build(McpFleet.layerRedis({ url: redisUrl(), subject: "u", key: "short-secret" })).pipe(Effect.scoped))
    )
    assert.strictEqual(badKey._tag, "McpFleetError")
    assert.strictEqual(badKey.reason, "Key")
    assert.notInclude(badKey.message, "short-secret")
    const started = Date.now()
    const down = await Effect.runPromise(
      Effect.flip(
        Layer.build(McpFleet.layerRedis({ url: "redis://user:pw-secret@127.0.0.1:1", subject: "u", key: KEY })).pipe(
          Effect.scoped
        )
      )
    )
    assert.strictEqual(down.reason, "Redis")
    assert.notInclude(down.message, "pw-secret")
    assert.isBelow(Date.now() - started, 5000)
  })
})

describe.skipIf(!haveRedis)("McpFleet sign-in", () => {
  it("clients starting together on an empty shared store ask the user once", async () => {
    const server = await startOAuthProtected({ accessTokenTtl: 2, rotateRefreshTokens: true })
    const asked: Array<string> = []
    const fleet = { url: redisUrl(), subject: "demo-user", key: KEY, prefix: "together" }
    const client = (name: string) =>
      NodePromise.connectFleet({
        url: server.mcpUrl,
        auth: {
          clientName: "mcp-effect fleet test",
          redirectUrl: REDIRECT,
          onAuthorize: (url) => {
            asked.push(name)
            return followAuthorization(url, REDIRECT)
          }
        },
        fleet
      })
    try {
      const clients = await Promise.all(["a", "b", "c"].map(client))
      const answers = await Promise.all(clients.map((c) => c.callTool("whoami")))
      assert.deepStrictEqual(answers.map(textOf), Array(3).fill("hello demo-user"))
      await Promise.all(clients.map((c) => c.close()))
      assert.strictEqual(asked.length, 1)
      assert.strictEqual(server.counts.authorizations, 1)
    } finally {
      await server.close()
    }
  })
})

interface WorkerReport {
  readonly pid: number
  readonly calls: number
  readonly failures: ReadonlyArray<string>
  readonly signIns: number
  readonly roundTrips: number
  readonly lists: number
  readonly redisHits: number
}



const seconds = Number(process.env["MCP_FLEET_SECONDS"] ?? 15)


describe.skipIf(!haveRedis)("McpFleet: worker processes share one sign-in and single-flight refreshes", () => {
  let server: OAuthProtected
  let lists: { readonly url: string; readonly child: ChildProcess }
  const workers: Array<ChildProcess> = []
  beforeAll(async () => {
    server = await startOAuthProtected({ accessTokenTtl: 2, rotateRefreshTokens: true })
    lists = await startModernServer()
  })
  afterAll(async () => {
    for (const worker of workers) if (worker.exitCode === null) worker.kill("SIGKILL")
    lists.child.kill("SIGTERM")
    await server.close()
  })

  it(`5 worker processes for ${seconds} s: every call answers, one sign-in, no refused refresh; one killed holding the refresh lock, the other 4 carry on`, async () => {
    const fleet = { url: redisUrl(), subject: "demo-user", key: KEY, prefix: "fleet", lockTtl: 3000 }
    // The user signs in once, in the first process.
    const first = await NodePromise.connectFleet({
      url: server.mcpUrl,
      auth: { clientName: "mcp-effect fleet test", redirectUrl: REDIRECT, onAuthorize: (url) => followAuthorization(url, REDIRECT) },
      fleet
    })
    assert.strictEqual(textOf(await first.callTool("whoami")), "hello demo-user")
    await first.close()
    assert.strictEqual(server.counts.authorizations, 1)

    // The tool list, fetched once here: the workers' lists come from the fleet's cache.
    const lister = await NodePromise.connectFleet({ url: lists.url, fleet })
    assert.isTrue((await lister.listTools()).some((tool) => tool.name === "echo"))

    const script = await bundleWorker("fleetWorker.ts", "worker")
    const env = {
      FLEET_MCP_URL: server.mcpUrl,
      FLEET_REDIRECT: REDIRECT,
      FLEET_REDIS_URL: fleet.url,
      FLEET_SUBJECT: fleet.subject,
      FLEET_KEY: KEY,
      FLEET_LOCK_TTL_MS: String(fleet.lockTtl),
      FLEET_LIST_URL: lists.url,
      MCP_FLEET_PREFIX: fleet.prefix
    }
    const started = [1, 2, 3, 4, 5].map(() =>
      startWorker<WorkerReport>(script, { ...env, FLEET_DURATION_MS: String(seconds * 1000) })
    )
    for (const worker of started) workers.push(worker.child)
    await Promise.all(started.map((w) => w.ready))

    // A third of the way in: hold the token endpoint, wait for a worker to take the refresh lock, kill it.
    await new Promise((r) => setTimeout(r, (seconds * 1000) / 3))
    server.setTokenDelay(1500)
    const killed = await Effect.runPromise(
      Effect.gen(function*() {
        const redis = yield* Redis.Redis
        for (let i = 0; i < 200; i++) {
          const keys = yield* redis.send<Array<string>>("KEYS", "fleet:lock:*")
          const holder = keys[0] === undefined ? null : yield* redis.send<string | null>("GET", keys[0])
          const pid = holder === null ? undefined : Number(holder.split(".")[0])
          const victim = started.find((w) => w.child.pid === pid)
          if (victim !== undefined) {
            victim.child.kill("SIGKILL")
            return victim
          }
          yield* Effect.sleep(20)
        }
        return undefined
      }).pipe(Effect.provide(NodeRedis.layer({ url: fleet.url })))
    )
    await new Promise((r) => setTimeout(r, 300))
    server.setTokenDelay(0)
    assert.isDefined(killed, "a worker took the refresh lock")

    const reports = await Promise.all(started.filter((w) => w !== killed).map((w) => w.done))
    const served = JSON.parse(textOf(await lister.callTool("stats"))) as { toolsList: number }
    await lister.close()
    const figures = {
      seconds,
      workers: reports.length,
      calls: reports.reduce((n, r) => n + (r?.calls ?? 0), 0),
      signIns: server.counts.authorizations,
      refreshes: server.counts.grants["refresh_token"] ?? 0,
      refusedRefreshes: server.counts.refusedRefreshes,
      redisRoundTrips: reports.reduce((n, r) => n + (r?.roundTrips ?? 0), 0),
      toolLists: reports.reduce((n, r) => n + (r?.lists ?? 0), 0),
      cacheHitsAcrossProcesses: reports.reduce((n, r) => n + (r?.redisHits ?? 0), 0),
      toolListsServed: served.toolsList
    }
    console.log(`fleet figures: ${JSON.stringify({ ...figures, roundTripsPerCall: figures.redisRoundTrips / (figures.calls + figures.toolLists) })}`)
    for (const [i, report] of reports.entries()) {
      assert.isDefined(report, `worker ${i} reported: ${started[i]?.stderr()}`)
      assert.deepStrictEqual(report?.failures, [])
      assert.isAbove(report?.calls ?? 0, 0)
      assert.strictEqual(report?.signIns, 0)
    }
    assert.strictEqual(figures.signIns, 1)
    assert.strictEqual(figures.refusedRefreshes, 0)
    assert.isAtLeast(figures.refreshes, Math.floor(seconds / 2) - 1)
    // Lists: fetched once by the first process, then served to every worker from the fleet's cache.
    assert.isAbove(figures.toolLists, 0)
    assert.isAtLeast(figures.cacheHitsAcrossProcesses, reports.length)
    // Within the list's 60 s life: fetched once. Longer runs: each process may fetch again once per life (the
    // shared cache has no cross-process single flight for a cold key).
    if (seconds <= 40) assert.strictEqual(figures.toolListsServed, 1)
    else assert.isAtMost(figures.toolListsServed, 1 + started.length * Math.ceil((seconds + 10) / 60))
  }, (seconds + 60) * 1000)
})
