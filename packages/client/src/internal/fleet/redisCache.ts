/**
 * The result cache shared by a fleet: exactly the entries the single-process cache keeps (a modern `ttlMs`,
 * never legacy: the client does not ask for those), in Redis under the server identity (the client's
 * `cacheNamespace`), the method, the params, and the auth context for anything not `public`. Values are
 * sealed like the tokens; Redis expires them with their `ttlMs`.
 *
 * In front of Redis, each process keeps the single-process cache (`internal/resultCache.ts`): it gives the
 * single-flight per key and serves repeats without a round trip. Invalidation (a `list_changed`) bumps the
 * method's generation in Redis (an entry of an older generation is never served, even one written by a fetch
 * that was under way) and is published on a channel: every process drops its own copies.
 *
 * Redis down or slow: each round trip has a deadline, after which the process works from its own cache (the
 * outage is told to `Health`: one warning). What is read is bounded: a value longer than `maxEntryBytes` (or
 * not a string at all) is deleted by the read itself, in Redis, without being sent; a value that does not open
 * or parse is deleted and fetched again. An answer longer than `maxEntryBytes` sealed is not shared.
 *
 * @internal
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Redis from "effect/persistence/Redis"
import * as Queue from "effect/Queue"
import type * as Scope from "effect/Scope"
import * as local from "../resultCache.js"
import type { Cacheable, CacheKey, Invalidation, Options, Service } from "../../ResultCache.js"
import type { Health } from "./health.js"
import { tripper } from "./lock.js"
import { digest, type Sealer } from "./seal.js"

/** @internal */
export interface RedisCacheOptions extends Options {
  readonly redis: Redis.Redis["Service"]
  readonly sealer: Sealer
  readonly prefix: string
  readonly timeout: Duration.Duration
  readonly onRoundTrip?: (() => void) | undefined
  /** Counts answers served from Redis (written by this or another process). */
  readonly onRedisHit?: (() => void) | undefined
  /** The longest sealed entry read or written (longer ones are deleted unread). */
  readonly maxEntryBytes: number
  readonly health: Health
}

/**
 * The values at `KEYS`, each only if it is a string of at most `ARGV[1]` bytes: a longer one, or a key of
 * another type, is deleted (and answers nil) without being sent.
 */
const boundedRead = Redis.script((keys: ReadonlyArray<string>, max: number) => [...keys, max], {
  lua: `local max = tonumber(ARGV[1])
local out = {}
for i, key in ipairs(KEYS) do
  local kind = redis.call("TYPE", key).ok
  if kind == "string" and redis.call("STRLEN", key) <= max then
    out[i] = redis.call("GET", key)
  else
    if kind ~= "none" then redis.call("DEL", key) end
    out[i] = false
  end
end
return out`,
  numberOfKeys: (keys) => keys.length
}).withReturnType<Array<string | null>>()

interface Shared {
  readonly value: unknown
  readonly expiresAt: number
  readonly scope: "public" | "private"
  readonly generation: string
}

const parseShared = (text: string): Shared | undefined => {
  try {
    const value: unknown = JSON.parse(text)
    if (typeof value !== "object" || value === null) return undefined
    const shared = value as Partial<Shared>
    if (typeof shared.expiresAt !== "number" || typeof shared.generation !== "string") return undefined
    if (shared.scope !== "public" && shared.scope !== "private") return undefined
    return shared as Shared
  } catch {
    return undefined
  }
}

/** @internal */
export const make = (options: RedisCacheOptions): Effect.Effect<Service, never, Scope.Scope> =>
  Effect.gen(function*() {
    const { redis, sealer } = options
    const maxTtl = Duration.toMillis(Duration.fromInputUnsafe(options.maxTtl ?? "1 hour"))
    const near = yield* local.make(options)
    const channel = `${options.prefix}:cache:invalidate`
    const method = (key: { readonly namespace: string; readonly method: string }) =>
      `${digest(key.namespace)}:${digest(key.method)}`
    const generationKey = (key: { readonly namespace: string; readonly method: string }) =>
      `${options.prefix}:cache:gen:${method(key)}`
    const entryKey = (key: CacheKey, scope: "public" | "private") =>
      `${options.prefix}:cache:${method(key)}:${digest(key.params)}:${scope === "public" ? "public" : digest(key.authContext)}`

    const trip = tripper(options, options.health)

    /** The shared entry (public first, then this auth context's), with the method's current generation. */
    const read = (key: CacheKey) =>
      Effect.gen(function*() {
        const keys = [generationKey(key), entryKey(key, "public"), entryKey(key, "private")] as const
        const reply = yield* trip("read", redis.eval(boundedRead)(keys, options.maxEntryBytes))
        if (reply === undefined) return { generation: undefined, hit: undefined }
        const generation = reply[0] ?? "0"
        // Wall-clock time: the expiry is compared across processes (and machines), not on one fiber's Clock.
        const now = Date.now()
        for (const [index, sealed] of reply.slice(1).entries()) {
          if (sealed === null || sealed === undefined) continue
          const place = keys[index + 1] ?? ""
          const opened = sealer.open(sealed, place)
          const shared = opened === undefined ? undefined : parseShared(opened)
          if (shared === undefined) {
            yield* Effect.logWarning("mcp fleet: a shared cache entry did not open; discarded")
            yield* trip("delete", redis.send("DEL", place))
            continue
          }
          if (shared.generation === generation && now < shared.expiresAt) return { generation, hit: shared }
        }
        return { generation, hit: undefined }
      })

    const write = (key: CacheKey, generation: string, result: Cacheable<unknown>) =>
      Effect.suspend(() => {
        const ttl = Math.floor(Math.min(result.ttlMs ?? 0, maxTtl))
        if (!(ttl > 0)) return Effect.void
        const scope = result.cacheScope ?? "private"
        const place = entryKey(key, scope)
        const shared: Shared = { value: result.value, expiresAt: Date.now() + ttl, scope, generation }
        const sealed = sealer.seal(JSON.stringify(shared), place)
        if (sealed.length > options.maxEntryBytes) return Effect.void
        return Effect.asVoid(trip("write", redis.send("SET", place, sealed, "PX", String(ttl))))
      })

    /** Behind the near cache: Redis first, else the caller's fetch (whose answer is shared). */
    const far = <A, E, R>(key: CacheKey, fetch: Effect.Effect<Cacheable<A>, E, R>, refresh: boolean) =>
      Effect.gen(function*() {
        const { generation, hit } = refresh ? { generation: yield* currentGeneration(key), hit: undefined } : yield* read(key)
        if (hit !== undefined) {
          options.onRedisHit?.()
          const ttlMs = hit.expiresAt - Date.now()
          return { value: hit.value as A, ttlMs, cacheScope: hit.scope } satisfies Cacheable<A>
        }
        const result = yield* fetch
        if (generation !== undefined) yield* write(key, generation, result)
        return result
      })

    const currentGeneration = (key: CacheKey) =>
      Effect.map(
        trip("read", redis.eval(boundedRead)([generationKey(key)], options.maxEntryBytes)),
        (reply) => reply === undefined ? undefined : reply[0] ?? "0"
      )

    const get: Service["get"] = (key, fetch, getOptions) =>
      near.get(key, far(key, fetch, getOptions?.refresh === true), getOptions)

    const invalidate = (invalidation: Invalidation) =>
      Effect.gen(function*() {
        yield* near.invalidate(invalidation)
        yield* trip("invalidate", redis.send("INCR", generationKey(invalidation)))
        yield* trip("publish", redis.send("PUBLISH", channel, JSON.stringify(invalidation)))
      })

    // Invalidations from the other processes: drop this process's copies.
    const messages = yield* redis.subscribe(channel)
    yield* Queue.take(messages).pipe(
      Effect.flatMap((message) => {
        const parsed = parseInvalidation(message.message)
        return parsed === undefined ? Effect.void : near.invalidate(parsed)
      }),
      Effect.forever,
      Effect.catch(() => Effect.logWarning("mcp fleet: the cache invalidation channel closed; local invalidation only")),
      Effect.forkScoped
    )

    return { get, invalidate, size: near.size }
  })

const parseInvalidation = (text: string): Invalidation | undefined => {
  try {
    const value: unknown = JSON.parse(text)
    if (typeof value !== "object" || value === null) return undefined
    const { namespace, method, params } = value as Record<string, unknown>
    if (typeof namespace !== "string" || typeof method !== "string") return undefined
    return typeof params === "string" ? { namespace, method, params } : { namespace, method }
  } catch {
    return undefined
  }
}
