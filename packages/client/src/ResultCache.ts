/**
 * Caches results exactly as far as a modern server permits: the `ttlMs` it attaches to each result.
 *
 * - `ttlMs` 0, absent or negative: not reusable. The answer is shared only with identical requests that were
 *   already waiting for it (a cold key is fetched once however many callers ask at the same moment).
 * - A result is fresh while `now < receivedAt + ttlMs`, read on the `Clock` (so `TestClock` drives expiry),
 *   capped at `maxTtl`.
 * - Keys are the method plus the params that shape the result (`cursor` of a page, `uri` of a read), so each
 *   page is cached on its own with its own clock.
 * - `cacheScope: "private"` (or absent, read as private) entries are served only to the same authorization
 *   context; `"public"` ones to any client that shares this cache and the same namespace.
 * - At most `capacity` entries; the oldest is dropped first.
 * - Legacy servers make no such promise, MRTR retries are never cached: the client does not even ask.
 *
 * Why not `effect/Cache`: its per-entry TTL serves a zero-TTL value to every request in the same clock
 * millisecond (an entry is valid while `now <= loadedAt + ttl`), and a lookup cannot carry the per-call
 * request; here freshness is the spec's strict `<` and the fetch is the caller's.
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"

/**
 * What a cached request is.
 *
 * @since 0.1.0
 * @category models
 */
export interface CacheKey {
  /** Which server (a client's namespace): entries never cross namespaces. */
  readonly namespace: string
  /** The authorization context of the caller: private entries never cross it. */
  readonly authContext: string
  readonly method: string
  /** The params that shape the result (`cursor`, `uri`), serialised. */
  readonly params: string
}

/**
 * A fetched result and the server's cache hints.
 *
 * @since 0.1.0
 * @category models
 */
export interface Cacheable<A> {
  readonly value: A
  readonly ttlMs: number | undefined
  readonly cacheScope: "public" | "private" | undefined
}

/**
 * Which entries an invalidation drops (within a namespace).
 *
 * @since 0.1.0
 * @category models
 */
export interface Invalidation {
  readonly namespace: string
  readonly method: string
  /** Only entries whose params equal this; all of the method's entries when absent. */
  readonly params?: string | undefined
}

/**
 * @since 0.1.0
 * @category models
 */
export interface Service {
  /**
   * The cached value, or the result of `fetch` (stored as far as its hints allow). With `refresh`, always
   * fetch, and store the fresh answer.
   */
  readonly get: <A, E, R>(
    key: CacheKey,
    fetch: Effect.Effect<Cacheable<A>, E, R>,
    options?: { readonly refresh?: boolean | undefined }
  ) => Effect.Effect<A, E, R>
  readonly invalidate: (invalidation: Invalidation) => Effect.Effect<void>
  /** How many entries are stored (fresh or not yet evicted). */
  readonly size: Effect.Effect<number>
}

/**
 * @since 0.1.0
 * @category tags
 */
export class ResultCache extends Context.Tag("@mcp-effect/client/ResultCache")<ResultCache, Service>() {}

/**
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** Most entries kept (default 1000). */
  readonly capacity?: number | undefined
  /** The longest a result is reused, whatever the server says (default 1 hour). */
  readonly maxTtl?: Duration.DurationInput | undefined
}

interface Stored {
  readonly key: CacheKey
  readonly value: unknown
  readonly expiresAt: number
  readonly scope: "public" | "private"
  readonly authContext: string
}

const storeKey = (key: { readonly namespace: string; readonly method: string; readonly params: string }) =>
  JSON.stringify([key.namespace, key.method, key.params])

/**
 * @since 0.1.0
 * @category constructors
 */
export const make = (options: Options = {}): Effect.Effect<Service> =>
  Effect.sync(() => {
    const capacity = options.capacity ?? 1000
    const maxTtl = Duration.toMillis(Duration.decode(options.maxTtl ?? "1 hour"))
    // Insertion-ordered: the first entry is the oldest.
    const stored = new Map<string, Stored>()
    const inFlight = new Map<string, Deferred.Deferred<unknown, unknown>>()
    // Bumped by an invalidation of a method, so that an answer fetched before it is not stored after it.
    const generations = new Map<string, number>()
    const generationKey = (key: { readonly namespace: string; readonly method: string }) =>
      JSON.stringify([key.namespace, key.method])

    const freshFor = (entry: Stored, key: CacheKey, now: number) =>
      now < entry.expiresAt && (entry.scope === "public" || entry.authContext === key.authContext)

    const store = (id: string, key: CacheKey, result: Cacheable<unknown>, now: number) => {
      const ttl = Math.min(result.ttlMs ?? 0, maxTtl)
      if (!(ttl > 0)) return
      stored.delete(id)
      stored.set(id, {
        key,
        value: result.value,
        expiresAt: now + ttl,
        scope: result.cacheScope ?? "private",
        authContext: key.authContext
      })
      while (stored.size > capacity) {
        const oldest = stored.keys().next()
        if (oldest.done === true) break
        stored.delete(oldest.value)
      }
    }

    const get: Service["get"] = <A, E, R>(
      key: CacheKey,
      fetch: Effect.Effect<Cacheable<A>, E, R>,
      getOptions?: { readonly refresh?: boolean | undefined }
    ) =>
      Effect.gen(function*() {
        const id = storeKey(key)
        const flightId = `${id}\u0000${key.authContext}`
        const now = yield* Clock.currentTimeMillis
        if (getOptions?.refresh !== true) {
          const entry = stored.get(id)
          if (entry !== undefined && freshFor(entry, key, now)) return entry.value as A
          const waiting = inFlight.get(flightId)
          if (waiting !== undefined) return (yield* Deferred.await(waiting)) as A
        }
        const deferred = yield* Deferred.make<unknown, unknown>()
        inFlight.set(flightId, deferred)
        const generation = generations.get(generationKey(key)) ?? 0
        return yield* fetch.pipe(
          Effect.onExit((exit) =>
            Effect.gen(function*() {
              if (inFlight.get(flightId) === deferred) inFlight.delete(flightId)
              if (Exit.isSuccess(exit) && (generations.get(generationKey(key)) ?? 0) === generation) {
                store(id, key, exit.value, yield* Clock.currentTimeMillis)
              }
              yield* Deferred.done(deferred, Exit.map(exit, (result) => result.value))
            })
          ),
          Effect.map((result) => result.value)
        )
      }) as Effect.Effect<A, E, R>

    const invalidate = (invalidation: Invalidation) =>
      Effect.sync(() => {
        for (const [id, entry] of stored) {
          if (
            entry.key.namespace === invalidation.namespace && entry.key.method === invalidation.method &&
            (invalidation.params === undefined || invalidation.params === entry.key.params)
          ) {
            stored.delete(id)
          }
        }
        const generation = generationKey(invalidation)
        generations.set(generation, (generations.get(generation) ?? 0) + 1)
      })

    return { get, invalidate, size: Effect.sync(() => stored.size) }
  })

/**
 * A cache of its own for every client built with it (unless a shared one is provided).
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (options: Options = {}): Layer.Layer<ResultCache> => Layer.effect(ResultCache, make(options))
