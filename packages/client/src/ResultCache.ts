/**
 * Caches results exactly as far as a modern server permits: the `ttlMs` it attaches to each result.
 *
 * - `ttlMs` 0, absent or negative: not reusable. The answer is shared only with identical requests that were
 *   already waiting for it (a cold key is fetched once however many callers ask at the same moment). The
 *   fetch runs on a fiber of its own: each caller waits under its own timeout and interruption, and the fetch
 *   is stopped only when every caller waiting for it has gone.
 * - A result is fresh while `now < receivedAt + ttlMs`, read on the `Clock` (so `TestClock` drives expiry),
 *   capped at `maxTtl`.
 * - Keys are the method plus the params that shape the result (`cursor` of a page, `uri` of a read), so each
 *   page is cached on its own with its own clock.
 * - `cacheScope: "private"` (or absent, read as private) entries are served only to the same authorization
 *   context; `"public"` ones to any client that shares this cache and the same namespace.
 * - At most `capacity` entries; the oldest is dropped first.
 * - Legacy servers make no such promise, MRTR retries are never cached: the client does not even ask.
 *
 * Why not `effect/Cache`: its lookup function is fixed when the cache is made and a lookup cannot carry the
 * per-call request; here the fetch is the caller's (its own request, timeout and interruption), and a private
 * entry is served only within its authorization context.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import type * as Duration from "effect/Duration"
import type * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as internal from "./internal/resultCache.js"

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
 * @category services
 */
export class ResultCache extends Context.Service<ResultCache, Service>()("@mcp-effect/client/ResultCache") {}

/**
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** Most entries kept (default 1000). */
  readonly capacity?: number | undefined
  /** The longest a result is reused, whatever the server says (default 1 hour). */
  readonly maxTtl?: Duration.Input | undefined
}

/**
 * @since 0.1.0
 * @category constructors
 */
export const make: (options?: Options) => Effect.Effect<Service> = internal.make

/**
 * A cache of its own for every client built with it (unless a shared one is provided).
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (options: Options = {}): Layer.Layer<ResultCache> => Layer.effect(ResultCache, make(options))
