/**
 * The token store shared by a fleet: entries in Redis, one hash per (subject, MCP server) with one field per
 * authorization server, each value sealed (AES-256-GCM) with the caller's key. A refresh is single-flight
 * across processes through a short Redis lock (`SET NX PX`, `lock.ts`): a crashed holder blocks the others at
 * most the lock's lifetime, and every wait is bounded by it.
 *
 * Redis down or slow: every round trip has a deadline; on failure the store tells `Health` (one warning per
 * outage, never a secret) and works from the process's own memory, which mirrors every save and load. Tokens
 * whose write failed are kept and written again (unless Redis has newer ones) once Redis answers: at the
 * latest before the refresh lock is let go, else at the next read. A value that does not open or does not
 * parse is deleted and counts as absent.
 *
 * @internal
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as Redis from "effect/persistence/Redis"
import * as store from "../auth/tokens.js"
import * as Health from "./health.js"
import * as lock from "./lock.js"
import { digest, type Sealer } from "./seal.js"
import { pairs } from "./replies.js"

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
  /** Where outages are told (one per connection; a store of its own when not given). */
  readonly health?: Health.Health | undefined
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
  const health = options.health ?? Health.make()
  const local = store.memory()
  const subjectKey = digest(options.subject)
  const hashKey = (server: string) => `${options.prefix}:tokens:${subjectKey}:${digest(server)}`
  const lockKey = (server: string) => `${options.prefix}:lock:${subjectKey}:${digest(server)}`
  /** Servers this process has held tokens for: Redis holding none of them means it lost its data. */
  const seen = new Set<string>()
  /** Entries whose write failed, by hash key and field: written again once Redis answers. */
  const pending = new Map<string, store.StoredEntry>()

  const trip = lock.tripper(options, health)

  const place = (entry: store.StoredEntry) => {
    const key = hashKey(entry.server)
    const field = digest(entry.issuer)
    return { key, field, id: `${key} ${field}` }
  }

  const write = (entry: store.StoredEntry) =>
    Effect.gen(function*() {
      const { key, field, id } = place(entry)
      const written = yield* trip("write", redis.send("HSET", key, field, sealer.seal(JSON.stringify(entry), id)))
      if (written === undefined) pending.set(id, entry)
      else pending.delete(id)
      return written !== undefined
    })

  const issuedAt = (entry: store.StoredEntry | undefined) => entry?.tokens?.issuedAt ?? 0

  /** Write the kept entries of `server` again, unless what Redis holds (`stored`) is as new. */
  const writeBack = (server: string, stored: ReadonlyArray<store.StoredEntry>) =>
    Effect.forEach([...pending.values()].filter((entry) => entry.server === server), (entry) => {
      const current = stored.find((other) => other.issuer === entry.issuer)
      if (issuedAt(current) >= issuedAt(entry)) return Effect.sync(() => void pending.delete(place(entry).id))
      return Effect.asVoid(write(entry))
    }, { discard: true })

  const read = (server: string) =>
    Effect.gen(function*() {
      const key = hashKey(server)
      const reply = yield* trip("read", redis.send<unknown>("HGETALL", key))
      if (reply === undefined) return undefined
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

  const load = (server: string) =>
    Effect.gen(function*() {
      const stored = yield* read(server)
      if (stored === undefined) return yield* local.load(server)
      // Tokens this process kept because their write failed, newer than Redis's: they are the answer, and
      // written again now.
      const mine = [...pending.values()].filter((entry) =>
        entry.server === server && issuedAt(entry) > issuedAt(stored.find((other) => other.issuer === entry.issuer))
      )
      const entries = [...stored.filter((entry) => !mine.some((kept) => kept.issuer === entry.issuer)), ...mine]
      yield* writeBack(server, stored)
      for (const entry of entries) yield* local.save(entry)
      if (entries.length > 0) seen.add(server)
      return entries
    })

  const save = (entry: store.StoredEntry) =>
    Effect.gen(function*() {
      yield* local.save(entry)
      seen.add(entry.server)
      yield* write(entry)
    })

  /** Redis holds no entry of a server this process holds tokens of: it lost its data (a restart). */
  const lost = (server: string) =>
    Effect.gen(function*() {
      if (!seen.has(server)) return false
      const count = yield* trip("read", redis.send<number>("HLEN", hashKey(server)))
      return count === 0
    })

  const locks = lock.make({ ...options, health, trip })

  /** `alone`: what to run when the lock could not be had within its lifetime (default: `effect`, alone). */
  const exclusive = <A, E, R>(
    server: string,
    effect: Effect.Effect<A, E, R>,
    alone?: Effect.Effect<A, E, R>
  ): Effect.Effect<A, E, R> =>
    locks.exclusive(lockKey(server), effect, {
      lost: lost(server),
      unwritten: () => [...pending.values()].some((entry) => entry.server === server),
      writeAgain: (deadline) =>
        lock.retryUntil(deadline, Effect.gen(function*() {
          const stored = yield* read(server)
          if (stored === undefined) return false
          yield* writeBack(server, stored)
          return ![...pending.values()].some((entry) => entry.server === server)
        }))
    }, alone)

  return { load, save, exclusive }
}
