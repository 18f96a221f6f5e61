/**
 * The fleet's result cache on a real `redis-server`. Each "process" here is a cache built on a Redis
 * connection of its own with its own near cache, as two workers would have: an entry fetched by one is served
 * to the other from Redis; private entries never cross auth contexts; an invalidation in one process reaches
 * the other (pub/sub) and no older entry is served after it; no `ttlMs`, no entry; a corrupted entry is
 * discarded and fetched again; Redis hung, the fetch answers within the deadline.
 */
import * as NodeRedis from "@effect/platform-node/NodeRedis"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Redis from "effect/persistence/Redis"
import * as Scope from "effect/Scope"
import { randomBytes } from "node:crypto"
import { afterAll, assert, beforeAll, describe, it } from "vitest"
import * as McpFleet from "../src/McpFleet.js"
import * as ResultCache from "../src/ResultCache.js"
import { type RedisServer, redisServerPath, startRedis } from "./fixtures/redisServer.js"

const haveRedis = redisServerPath() !== undefined
if (!haveRedis) console.log("McpFleet cache tests skipped: no redis-server on this machine (.ci/run installs it)")

const KEY = randomBytes(32)
let redis: RedisServer | undefined
beforeAll(async () => {
  if (haveRedis) redis = await startRedis()
})
afterAll(async () => {
  await redis?.stop()
})

interface Process {
  readonly cache: ResultCache.Service
  readonly redis: Redis.Redis["Service"]
  readonly hits: { redis: number }
  readonly close: () => Promise<void>
}

/** One worker's cache: its own Redis connection and near cache. */
const process_ = async (prefix: string): Promise<Process> => {
  const scope = Effect.runSync(Scope.make())
  const hits = { redis: 0 }
  const layer = McpFleet.layerResultCache({ key: KEY, prefix, timeout: 300, onRedisHit: () => void hits.redis++ }).pipe(
    Layer.provideMerge(NodeRedis.layer({ url: redis?.url ?? "" }))
  )
  const context = await Effect.runPromise(Layer.buildWithScope(layer, scope))
  return {
    cache: Context.get(context, ResultCache.ResultCache),
    redis: Context.get(context, Redis.Redis),
    hits,
    close: () => Effect.runPromise(Scope.close(scope, Exit.void))
  }
}

const key = (authContext: string, params = "{}"): ResultCache.CacheKey => ({
  namespace: "http://mcp.example/mcp",
  authContext,
  method: "tools/list",
  params
})

const counter = () => {
  let fetches = 0
  const fetch = (value: string, ttlMs: number | undefined, cacheScope?: "public" | "private") =>
    Effect.sync((): ResultCache.Cacheable<{ tools: Array<string> }> => {
      fetches++
      return { value: { tools: [value] }, ttlMs, cacheScope }
    })
  return { fetch, count: () => fetches }
}

const run = <A>(effect: Effect.Effect<A>) => Effect.runPromise(effect)

/** Redis's own count of the bytes it has sent to its clients (`INFO stats`). */
const sentBytes = async (redis: Redis.Redis["Service"]): Promise<number> => {
  const info = await run(Effect.orDie(redis.send<string>("INFO", "stats")))
  const found = /total_net_output_bytes:(\d+)/.exec(String(info))?.[1]
  if (found === undefined) throw new Error("INFO stats has no total_net_output_bytes")
  return Number(found)
}
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

describe.skipIf(!haveRedis)("McpFleet result cache on Redis", () => {
  it("an entry fetched by one process is served to another from Redis; private ones stay in their auth context, public ones cross", async () => {
    const [a, b] = [await process_("c1"), await process_("c1")]
    try {
      const { fetch, count } = counter()
      assert.deepStrictEqual(await run(a.cache.get(key("alice"), fetch("x", 60_000, "private"))), { tools: ["x"] })
      assert.deepStrictEqual(await run(b.cache.get(key("alice"), fetch("y", 60_000, "private"))), { tools: ["x"] })
      assert.strictEqual(count(), 1)
      assert.strictEqual(b.hits.redis, 1)
      // Another user: the private answer never reaches them.
      assert.deepStrictEqual(await run(b.cache.get(key("bob"), fetch("bob's", 60_000, "private"))), { tools: ["bob's"] })
      assert.strictEqual(count(), 2)
      // A public answer reaches every auth context.
      const pub = key("alice", "{\"cursor\":\"p2\"}")
      await run(a.cache.get(pub, fetch("public", 60_000, "public")))
      assert.deepStrictEqual(
        await run(b.cache.get({ ...pub, authContext: "carol" }, fetch("other", 60_000, "public"))),
        { tools: ["public"] }
      )
      assert.strictEqual(count(), 3)
      // Sealed at rest.
      const keys = await run(Effect.orDie(a.redis.send<Array<string>>("KEYS", "c1:cache:*")))
      for (const k of keys.filter((k) => !k.includes(":gen:"))) {
        const raw = await run(Effect.orDie(a.redis.send<string>("GET", k)))
        assert.notInclude(raw, "tools")
      }
    } finally {
      await a.close()
      await b.close()
    }
  })

  it("nothing without ttlMs (legacy, or a modern answer that allows none)", async () => {
    const [a, b] = [await process_("c2"), await process_("c2")]
    try {
      const { fetch, count } = counter()
      await run(a.cache.get(key("alice"), fetch("x", undefined)))
      await run(a.cache.get(key("alice"), fetch("x", 0)))
      await run(b.cache.get(key("alice"), fetch("x", undefined)))
      assert.strictEqual(count(), 3)
      const keys = await run(Effect.orDie(a.redis.send<Array<string>>("KEYS", "c2:cache:*")))
      assert.deepStrictEqual(keys, [])
    } finally {
      await a.close()
      await b.close()
    }
  })

  it("an invalidation (list_changed) in one process reaches the others: nobody serves the stale list", async () => {
    const [a, b] = [await process_("c3"), await process_("c3")]
    try {
      const { fetch, count } = counter()
      await run(a.cache.get(key("alice"), fetch("old", 60_000)))
      await run(b.cache.get(key("alice"), fetch("old", 60_000)))
      assert.strictEqual(count(), 1)
      await run(a.cache.invalidate({ namespace: "http://mcp.example/mcp", method: "tools/list" }))
      await sleep(100)
      // b's own copy is gone (pub/sub) and the Redis entry is of an older generation.
      assert.strictEqual(await run(b.cache.size), 0)
      assert.deepStrictEqual(await run(b.cache.get(key("alice"), fetch("new", 60_000))), { tools: ["new"] })
      assert.deepStrictEqual(await run(a.cache.get(key("alice"), fetch("newer", 60_000))), { tools: ["new"] })
      assert.strictEqual(count(), 2)
    } finally {
      await a.close()
      await b.close()
    }
  })

  it("a corrupted entry is discarded and fetched again; Redis hung: the fetch answers within the deadline", async () => {
    const [a, b] = [await process_("c4"), await process_("c4")]
    try {
      const { fetch, count } = counter()
      await run(a.cache.get(key("alice"), fetch("x", 60_000)))
      const keys = await run(Effect.orDie(a.redis.send<Array<string>>("KEYS", "c4:cache:*")))
      for (const k of keys.filter((k) => !k.includes(":gen:"))) {
        await run(Effect.orDie(a.redis.send("SET", k, "Y29ycnVwdGVk")))
      }
      assert.deepStrictEqual(await run(b.cache.get(key("alice"), fetch("again", 60_000))), { tools: ["again"] })
      assert.strictEqual(count(), 2)
      redis?.pause()
      try {
        // Redis stays hung until the answer is back: the fetch answered, past Redis's deadline, not Redis.
        const answer = await run(b.cache.get(key("bob"), fetch("while hung", 60_000)))
        assert.deepStrictEqual(answer, { tools: ["while hung"] })
      } finally {
        redis?.resume()
      }
    } finally {
      await a.close()
      await b.close()
    }
  })

  it("a 200 MB value at an entry's key (or a hash there) is deleted at the first read, not read: every read after it answers at once", async () => {
    const [a, b] = [await process_("c5"), await process_("c5")]
    try {
      const { fetch, count } = counter()
      await run(a.cache.get(key("alice"), fetch("x", 60_000)))
      const keys = (await run(Effect.orDie(a.redis.send<Array<string>>("KEYS", "c5:cache:*")))).filter((k) => !k.includes(":gen:"))
      assert.strictEqual(keys.length, 1)
      // SETRANGE pads with zero bytes: 200 MB in Redis without sending them.
      for (const k of keys) await run(Effect.orDie(a.redis.send("SETRANGE", k, String(200 * 2 ** 20 - 1), "x")))
      // Not read: what Redis sent meanwhile (its own count) is far below the 200 MB, whatever the machine's speed.
      const sentBefore = await sentBytes(a.redis)
      assert.deepStrictEqual(await run(b.cache.get(key("alice"), fetch("again", 60_000))), { tools: ["again"] })
      assert.isBelow((await sentBytes(a.redis)) - sentBefore, 1024 * 1024)
      assert.strictEqual(count(), 2)
      // Gone (the fresh answer written in its place), and what another process reads now opens.
      const length = await run(Effect.orDie(a.redis.send<number>("STRLEN", keys[0] ?? "")))
      assert.isBelow(length, 10_000)
      // A hash at the key (not a value the fleet writes): deleted too, no WRONGTYPE for every reader.
      for (const k of keys) {
        await run(Effect.orDie(a.redis.send("DEL", k)))
        await run(Effect.orDie(a.redis.send("HSET", k, "f", "v")))
      }
      const [c] = [await process_("c5")]
      try {
        assert.deepStrictEqual(await run(c.cache.get(key("alice"), fetch("third", 60_000))), { tools: ["third"] })
        assert.strictEqual(await run(Effect.orDie(a.redis.send<string>("TYPE", keys[0] ?? ""))), "string")
      } finally {
        await c.close()
      }
    } finally {
      await a.close()
      await b.close()
    }
  }, 20_000)
})
