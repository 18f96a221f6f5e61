/**
 * A per-server rate limit shared by the fleet. Before a request goes to the server it takes its turn; when
 * the fleet is over the limit it waits for it, and its own timeout starts only then for the operations the
 * client gates (a call that waits shows as waiting: a debug log and the `McpFleet.rateLimit` span, never as a
 * timeout).
 *
 * - `sliding-window` (the default): at most `limit` turns in any `window`, wherever the window starts. Each
 *   turn is a time in a Redis sorted set (Redis's own clock, so every process and machine agrees): a new turn
 *   is the later of now and the turn `limit` places back plus `window`. A fixed window lets `limit` through at
 *   the end of one window and `limit` more at the start of the next: twice the limit within one window.
 * - `fixed-window`, `token-bucket`: `effect/persistence/RateLimiter`'s Redis store, on request.
 *
 * Redis down or slow: the call goes on unlimited (the outage is told to `Health`).
 *
 * @internal
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Redis from "effect/persistence/Redis"
import * as RateLimiter from "effect/persistence/RateLimiter"
import { randomBytes } from "node:crypto"
import type * as McpClient from "../../McpClient.js"
import type { Service as ResultCacheService } from "../../ResultCache.js"
import type { Health } from "./health.js"
import { tripper } from "./lock.js"

/** @internal */
export type Algorithm = "sliding-window" | "fixed-window" | "token-bucket"

/** @internal */
export interface RateLimitOptions {
  /** Operations (requests) per `window`, across every process sharing the key. */
  readonly limit: number
  readonly window: Duration.Input
  readonly algorithm: Algorithm
  /** The shared key (the server's identity, hashed). */
  readonly key: string
  readonly prefix: string
  readonly timeout: Duration.Duration
  readonly health: Health
  /** Called with the time a call waited (figures, tests). */
  readonly onWait?: ((millis: number) => void) | undefined
}

/** The wait (ms) for a new turn at `key`, the turn recorded. Turns older than the window are dropped. */
const slidingScript = Redis.script(
  (key: string, limit: number, windowMs: number, member: string) => [key, limit, windowMs, member],
  {
    lua: `local limit = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local time = redis.call("TIME")
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
redis.call("ZREMRANGEBYSCORE", KEYS[1], "-inf", now - window)
local at = now
local count = redis.call("ZCARD", KEYS[1])
if count >= limit then
  local back = redis.call("ZRANGE", KEYS[1], count - limit, count - limit, "WITHSCORES")
  at = math.max(now, tonumber(back[2]) + window)
end
redis.call("ZADD", KEYS[1], at, ARGV[3])
redis.call("PEXPIRE", KEYS[1], at - now + window)
return at - now`,
    numberOfKeys: 1
  }
).withReturnType<number>()

const waitFor = (options: RateLimitOptions, millis: number): Effect.Effect<void> => {
  if (!(millis > 0)) return Effect.void
  options.onWait?.(millis)
  return Effect.logDebug(`mcp fleet: waiting ${millis} ms for the fleet's rate limit`).pipe(
    Effect.andThen(Effect.sleep(Duration.millis(millis))),
    Effect.withSpan("McpFleet.rateLimit", { attributes: { "mcp.fleet.wait_ms": millis } })
  )
}

/** The gate: take a turn (waiting for it when over the limit). @internal */
export const gate = (options: RateLimitOptions): Effect.Effect<Effect.Effect<void>, never, Redis.Redis> =>
  Effect.gen(function*() {
    const redis = yield* Redis.Redis
    const trip = tripper({ timeout: options.timeout }, options.health)
    const windowMs = Math.max(1, Math.round(Duration.toMillis(Duration.fromInputUnsafe(options.window))))
    const limit = Math.max(1, Math.floor(options.limit))
    const unlimited = Effect.logDebug("mcp fleet: the shared rate limit is unavailable; this call goes unlimited")
    if (options.algorithm === "sliding-window") {
      const key = `${options.prefix}:rate:sliding:${options.key}`
      const turn = redis.eval(slidingScript)
      return Effect.suspend(() => trip("rate limit", turn(key, limit, windowMs, `${process.pid}.${randomBytes(9).toString("base64url")}`)))
        .pipe(Effect.flatMap((millis) => millis === undefined ? unlimited : waitFor(options, Number(millis))))
    }
    const limiter = yield* RateLimiter.make.pipe(
      Effect.provideServiceEffect(RateLimiter.RateLimiterStore, RateLimiter.makeStoreRedis({ prefix: `${options.prefix}:rate:` }))
    )
    const consume = limiter.consume({
      key: options.key,
      limit,
      window: Duration.millis(windowMs),
      algorithm: options.algorithm,
      onExceeded: "delay"
    }).pipe(Effect.mapError((cause) => new Redis.RedisError({ cause })))
    return Effect.flatMap(
      trip("rate limit", consume),
      (result) => result === undefined ? unlimited : waitFor(options, Duration.toMillis(result.delay))
    )
  })

/**
 * The operations the result cache may answer (modern servers). Through `gateCache` they take a turn only when
 * they go to the server; gated here, they would take one for every answer.
 */
const CACHEABLE = new Set([
  "listTools",
  "listPrompts",
  "listResources",
  "listResourceTemplates",
  "readResource",
  "listSkills",
  "getSkill",
  "listSkillDirectory",
  "readSkillFile",
  "loadSkill"
])

/**
 * The client with every operation behind `before`: functions returning an Effect get the gate in front; other
 * members are as they are. With `cacheGated` (the client's cache is behind `gateCache`), the operations the
 * cache may answer are gated here only on a legacy server (whose answers are never cached).
 *
 * @internal
 */
export const limitClient = (
  client: McpClient.Service,
  before: Effect.Effect<void>,
  cacheGated = false
): McpClient.Service => {
  const legacyOnly = Effect.flatMap(
    Effect.orElseSucceed(client.era, () => "legacy" as const),
    (era) => era === "legacy" ? before : Effect.void
  )
  const wrapped: Record<string, unknown> = {}
  for (const [name, member] of Object.entries(client)) {
    const gateOf = cacheGated && CACHEABLE.has(name) ? legacyOnly : before
    wrapped[name] = typeof member === "function"
      ? (...args: ReadonlyArray<unknown>) => {
        const out: unknown = Reflect.apply(member, client, args)
        return Effect.isEffect(out) ? Effect.andThen(gateOf, out) : out
      }
      : member
  }
  return wrapped as unknown as McpClient.Service
}

/**
 * The result cache with the gate in front of every fetch: an answer the cache has takes no turn. The wait
 * for a turn is then within the request's own timeout.
 *
 * @internal
 */
export const gateCache = (cache: ResultCacheService, before: Effect.Effect<void>): ResultCacheService => ({
  ...cache,
  get: (key, fetch, options) => cache.get(key, Effect.andThen(before, fetch), options)
})
