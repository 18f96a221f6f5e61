/**
 * The token store shared by a fleet: entries in Redis, one hash per (subject, MCP server) with one field per
 * authorization server, each value sealed (AES-256-GCM) with the caller's key. A refresh is single-flight
 * across processes through a short Redis lock (`SET NX PX`): a crashed holder blocks the others at most the
 * lock's lifetime, and every wait is bounded by it.
 *
 * Redis down or slow: every round trip has a deadline; on failure the store logs a warning (never a secret)
 * and works from the process's own memory, which mirrors every save. A value that does not open or does not
 * parse is deleted and counts as absent.
 *
 * @internal
 */
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Redis from "effect/persistence/Redis"
import { randomBytes } from "node:crypto"
import * as store from "../auth/store.js"
import { digest, type Sealer } from "./seal.js"

/** @internal */
export interface RedisStoreOptions {
  readonly redis: Redis.Redis["Service"]
  readonly sealer: Sealer
  /** Whose tokens these are (a user id): part of every key. */
  readonly subject: string
  readonly prefix: string
  /** How long a refresh lock lives (a crashed holder blocks the others at most this long). */
  readonly lockTtl: Duration.Duration
  /** The deadline of one Redis round trip. */
  readonly timeout: Duration.Duration
  /** Counts Redis round trips (for figures). */
  readonly onRoundTrip?: (() => void) | undefined
}

const releaseScript = Redis.script((key: string, token: string) => [key, token], {
  lua: `if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) else return 0 end`,
  numberOfKeys: 1
}).withReturnType<number>()

/** A Redis reply as a field/value list: RESP2 gives a flat array, RESP3 a map. */
const pairs = (reply: unknown): Array<readonly [string, string]> => {
  if (Array.isArray(reply)) {
    const out: Array<readonly [string, string]> = []
    for (let i = 0; i + 1 < reply.length; i += 2) out.push([String(reply[i]), String(reply[i + 1])])
    return out
  }
  if (reply instanceof Map) return [...reply].map(([k, v]) => [String(k), String(v)] as const)
  if (typeof reply === "object" && reply !== null) return Object.entries(reply).map(([k, v]) => [k, String(v)] as const)
  return []
}

const isTokens = (value: unknown): value is store.StoredTokens =>
  typeof value === "object" && value !== null &&
  typeof (value as { accessToken?: unknown }).accessToken === "string" &&
  typeof (value as { tokenType?: unknown }).tokenType === "string" &&
  typeof (value as { issuedAt?: unknown }).issuedAt === "number"

const parseEntry = (text: string): store.StoredEntry | undefined => {
  try {
    const value: unknown = JSON.parse(text)
    if (typeof value !== "object" || value === null) return undefined
    const entry = value as Partial<store.StoredEntry>
    if (typeof entry.server !== "string" || typeof entry.issuer !== "string") return undefined
    if (entry.tokens !== undefined && !isTokens(entry.tokens)) return undefined
    return entry as store.StoredEntry
  } catch {
    return undefined
  }
}

/** @internal */
export const make = (options: RedisStoreOptions): store.Store => {
  const { redis, sealer } = options
  const local = store.memory()
  const subjectKey = digest(options.subject)
  const hashKey = (server: string) => `${options.prefix}:tokens:${subjectKey}:${digest(server)}`
  const lockKey = (server: string) => `${options.prefix}:lock:${subjectKey}:${digest(server)}`
  const lockMs = Math.max(1, Duration.toMillis(options.lockTtl))

  /** One round trip, bounded; `undefined` (and a warning) when Redis fails or is too slow. */
  const trip = <A>(what: string, effect: Effect.Effect<A, Redis.RedisError>): Effect.Effect<A | undefined> =>
    Effect.suspend(() => {
      options.onRoundTrip?.()
      return effect
    }).pipe(
      Effect.timeoutOrElse({
        duration: options.timeout,
        orElse: () => Effect.fail("timeout" as const)
      }),
      Effect.catch((error) =>
        Effect.as(
          Effect.logWarning(
            `mcp fleet: Redis ${what} ${error === "timeout" ? "timed out" : "failed"}; using this process's tokens`
          ),
          undefined
        )
      )
    )

  const load = (server: string) =>
    Effect.gen(function*() {
      const key = hashKey(server)
      const reply = yield* trip("read", redis.send<unknown>("HGETALL", key))
      if (reply === undefined) return yield* local.load(server)
      const entries: Array<store.StoredEntry> = []
      for (const [field, sealed] of pairs(reply)) {
        const opened = sealer.open(sealed, `${key} ${field}`)
        const entry = opened === undefined ? undefined : parseEntry(opened)
        if (entry === undefined || entry.server !== server) {
          yield* Effect.logWarning("mcp fleet: a stored token entry did not open; discarded")
          yield* trip("delete", redis.send("HDEL", key, field))
          continue
        }
        entries.push(entry)
      }
      return entries
    })

  const save = (entry: store.StoredEntry) =>
    Effect.gen(function*() {
      yield* local.save(entry)
      const key = hashKey(entry.server)
      const field = digest(entry.issuer)
      yield* trip("write", redis.send("HSET", key, field, sealer.seal(JSON.stringify(entry), `${key} ${field}`)))
    })

  /** Take the lock, waiting at most its lifetime (then going on without it, as one process would). */
  const acquire = (key: string) =>
    Effect.gen(function*() {
      // The holder's pid is in the value for diagnostics (which process holds it); the random part is its own.
      const token = `${process.pid}.${randomBytes(12).toString("base64url")}`
      const deadline = (yield* Clock.currentTimeMillis) + lockMs + 250
      let pause = 10
      while ((yield* Clock.currentTimeMillis) < deadline) {
        const reply = yield* trip("lock", redis.send<unknown>("SET", key, token, "NX", "PX", String(lockMs)))
        if (reply === undefined) return undefined
        if (reply === "OK") return token
        yield* Effect.sleep(pause)
        pause = Math.min(pause * 2, 100)
      }
      yield* Effect.logWarning("mcp fleet: the refresh lock was not released in its lifetime; going on without it")
      return undefined
    })

  const exclusive = <A, E, R>(server: string, effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> => {
    const key = lockKey(server)
    return Effect.acquireUseRelease(
      acquire(key),
      () => effect,
      (token) => token === undefined ? Effect.void : Effect.asVoid(trip("unlock", redis.eval(releaseScript)(key, token)))
    )
  }

  return { load, save, exclusive }
}
