/**
 * A per-server rate limit shared by the fleet. An operation holds a turn while it runs; when the fleet is
 * over the limit it waits for one, and its own timeout starts only then (a call that waits shows as waiting:
 * a debug log and the `McpFleet.rateLimit` span, never as a timeout).
 *
 * - `sliding-window` (the default): the server sees at most `limit` requests in any `window`, wherever the
 *   window starts, however late a request reaches the wire after its turn (a busy event loop, a queue in the
 *   transport). A turn is a member of a Redis sorted set (Redis's own clock, so every process and machine
 *   agrees), scored "in flight" while its operation runs and with the time it ended once it ended; a turn is
 *   taken only while fewer than `limit` turns are in flight or ended within the last `window`. The server saw
 *   each request between its turn's start and end, so any `limit + 1` requests within one window would have
 *   found `limit` turns counted when the last of them started. A turn reserved for a time to come (the rule
 *   before) is not enough: a request sent late lands in the next window beside those sent on time.
 * - `fixed-window`, `token-bucket`: `effect/persistence/RateLimiter`'s Redis store, on request (a turn is taken
 *   before the operation, not held).
 *
 * Redis down or slow: the call goes on unlimited (the outage is told to `Health`). A turn whose end was never
 * recorded (its process died, Redis was gone at the end) counts as ended `IN_FLIGHT_MS` after it started.
 *
 * @internal
 */
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Redis from "effect/persistence/Redis"
import * as RateLimiter from "effect/persistence/RateLimiter"
import { randomBytes } from "node:crypto"
import type * as McpClient from "../../McpClient.js"
import { type OperationName, wrapOperations } from "../client/operations.js"
import type { Service as ResultCacheService } from "../../ResultCache.js"
import type { Health } from "./health.js"
import { tripper } from "./lock.js"

/** @internal */
export type Algorithm = "sliding-window" | "fixed-window" | "token-bucket"

/** @internal */
export interface RateLimitOptions {
  /** Operations (requests) per `window`, across every process sharing the key. */
  readonly limit: number
  readonly window: Duration.Duration
  readonly algorithm: Algorithm
  /** The shared key (the server's identity, hashed). */
  readonly key: string
  readonly prefix: string
  readonly timeout: Duration.Duration
  readonly health: Health
  /** Called with the time a call waited (figures, tests). */
  readonly onWait?: ((millis: number) => void) | undefined
}

/** Operations run within a turn of the limit. @internal */
export interface Gate {
  <A, E, R>(operation: Effect.Effect<A, E, R>): Effect.Effect<A, E, R>
  /** Whether the current fiber's operation holds this gate's turn (its own requests need no other). */
  readonly held: Effect.Effect<boolean>
}

/** How long a turn whose end was never recorded counts as in flight. @internal */
export const IN_FLIGHT_MS = 60_000

/**
 * Take a turn at `key` when fewer than `limit` turns are in flight or ended within `window`: 0, the turn
 * recorded as in flight (scored `now + IN_FLIGHT_MS`); otherwise the wait (ms) until one of them leaves the
 * window, at the soonest (a turn in flight leaves it a whole window after it ends, so no sooner than
 * `window` from now), nothing recorded.
 */
const takeScript = Redis.script(
  (key: string, limit: number, windowMs: number, inFlightMs: number, member: string) => [key, limit, windowMs, inFlightMs, member],
  {
    lua: `local limit = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local inflight = tonumber(ARGV[3])
local time = redis.call("TIME")
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
redis.call("ZREMRANGEBYSCORE", KEYS[1], "-inf", now - window)
local count = redis.call("ZCARD", KEYS[1])
if count < limit then
  redis.call("ZADD", KEYS[1], now + inflight, ARGV[4])
  redis.call("PEXPIRE", KEYS[1], inflight + window)
  return 0
end
local back = redis.call("ZRANGE", KEYS[1], count - limit, count - limit, "WITHSCORES")
return math.max(1, math.min(tonumber(back[2]), now) + window - now)`,
    numberOfKeys: 1
  }
).withReturnType<number>()

/** Record the end of a turn still recorded (Redis's time now). */
const endScript = Redis.script((key: string, member: string) => [key, member], {
  lua: `local time = redis.call("TIME")
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
return redis.call("ZADD", KEYS[1], "XX", now, ARGV[1])`,
  numberOfKeys: 1
}).withReturnType<number>()

const waited = (options: RateLimitOptions, millis: number): Effect.Effect<void> =>
  Effect.suspend(() => {
    options.onWait?.(millis)
    return Effect.logDebug(`mcp fleet: waited ${millis} ms for the fleet's rate limit`)
  })

const sleepFor = (millis: number): Effect.Effect<void> =>
  Effect.sleep(Duration.millis(millis)).pipe(
    Effect.withSpan("McpFleet.rateLimit", { attributes: { "mcp.fleet.wait_ms": millis } })
  )

const unlimited = Effect.logDebug("mcp fleet: the shared rate limit is unavailable; this call goes unlimited")

/** The sliding-window keys whose turn the current fiber's operation holds. */
const HeldTurns = Context.Reference<ReadonlySet<string>>("@mcp-effect/client/McpFleet/HeldTurns", {
  defaultValue: () => new Set()
})

/** The sliding window: hold a turn while `operation` runs, waiting for one first when the fleet is over. */
const slidingGate = (
  options: RateLimitOptions,
  redis: Redis.Redis["Service"],
  limit: number,
  windowMs: number
): Gate => {
  const trip = tripper({ timeout: options.timeout }, options.health)
  const key = `${options.prefix}:rate:sliding:${options.key}`
  const take = redis.eval(takeScript)
  const end = redis.eval(endScript)
  /** Wait for a turn as `member` (Redis not answering: the call goes unlimited, as `Health` is told). */
  const acquire = (member: string) =>
    Effect.gen(function*() {
      let total = 0
      while (true) {
        const wait = yield* trip("rate limit", take(key, limit, windowMs, IN_FLIGHT_MS, member))
        if (wait === undefined) return yield* unlimited
        if (!(Number(wait) > 0)) return total > 0 ? yield* waited(options, total) : undefined
        total += Number(wait)
        yield* sleepFor(Number(wait))
      }
    })
  // The end is recorded whatever happened: a turn taken by an answer that came too late, or by a wait
  // interrupted, is let go rather than counted as in flight for `IN_FLIGHT_MS`.
  const release = (member: string) => Effect.asVoid(trip("rate limit", end(key, member)))
  const through = <A, E, R>(operation: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    HeldTurns.use((held) => {
      // Within an operation that holds this server's turn (a call that lists the tools first, through the
      // gated cache), the turn it holds is the one: a second would wait for the first to end, which waits on it.
      if (held.has(key)) return operation
      const member = `${process.pid}.${randomBytes(9).toString("base64url")}`
      const holding = new Set([...held, key])
      return Effect.uninterruptibleMask((restore) =>
        restore(acquire(member)).pipe(
          Effect.andThen(restore(Effect.provideService(operation, HeldTurns, holding))),
          Effect.ensuring(release(member))
        )
      )
    })
  return Object.assign(through, { held: HeldTurns.use((held) => Effect.succeed(held.has(key))) })
}

/** The gate: every operation through it takes (and, sliding, holds) a turn. @internal */
export const gate = (options: RateLimitOptions): Effect.Effect<Gate, never, Redis.Redis> =>
  Effect.gen(function*() {
    const redis = yield* Redis.Redis
    const windowMs = Math.max(1, Math.round(Duration.toMillis(options.window)))
    const limit = Math.max(1, Math.floor(options.limit))
    if (options.algorithm === "sliding-window") return slidingGate(options, redis, limit, windowMs)
    const trip = tripper({ timeout: options.timeout }, options.health)
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
    const before = Effect.flatMap(trip("rate limit", consume), (result) => {
      if (result === undefined) return unlimited
      const millis = Duration.toMillis(result.delay)
      return millis > 0 ? Effect.andThen(sleepFor(millis), waited(options, millis)) : Effect.void
    })
    const through = <A, E, R>(operation: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> => Effect.andThen(before, operation)
    const gate: Gate = Object.assign(through, { held: Effect.succeed(false) })
    return gate
  })

/**
 * The operations the result cache may answer (modern servers). Through `gateCache` they take a turn only when
 * they go to the server; gated here, they would take one for every answer.
 */
const CACHEABLE: ReadonlySet<OperationName> = new Set<OperationName>([
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
 * The client with every call (and scoped call: `listen`) of `McpClient.operations` through the gate: each runs
 * within a turn; the effects (`era`, `info`, `close`) and streams are as they are. With `cacheGated` (the
 * client's cache is behind `gateCache`), the operations the cache may answer are gated here only on a legacy
 * server (whose answers are never cached).
 *
 * @internal
 */
export const limitClient = (
  client: McpClient.Service,
  through: Gate,
  cacheGated = false
): McpClient.Service => {
  const legacyOnly = <A, E, R>(operation: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    Effect.flatMap(
      Effect.orElseSucceed(client.era, () => "legacy" as const),
      (era) => era === "legacy" ? through(operation) : operation
    )
  return wrapOperations(client, (operation, name, kind) =>
    kind === "effect"
      ? operation
      : cacheGated && CACHEABLE.has(name)
      ? legacyOnly(operation)
      : through(operation))
}

/**
 * The result cache with every fetch through the gate: an answer the cache has takes no turn. The wait
 * for a turn is then within the request's own timeout.
 *
 * @internal
 */
export const gateCache = (cache: ResultCacheService, through: Gate): ResultCacheService => ({
  ...cache,
  // Asked by an operation that holds the turn (a call listing the tools first): fetched afresh under that
  // turn, never joined to a fetch in flight, which may be waiting for the very turn this operation holds.
  get: (key, fetch, options) =>
    Effect.flatMap(through.held, (held) =>
      held ? cache.get(key, fetch, { ...options, refresh: true }) : cache.get(key, through(fetch), options))
})
