/**
 * Documents fetched by discovery, kept in memory as long as their `Cache-Control` allows: `max-age` (less the
 * `Age` a shared cache reports) sets how long; `no-store`, `no-cache` or no `max-age` at all keep nothing (no
 * guessed freshness: a card is cheap to fetch again, a stale one misleads). Times come from the Effect `Clock`,
 * so a test moves them with `TestClock`.
 *
 * @internal
 */
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"

/** A document as fetched: the URL it came from (after redirects) and its JSON, not yet decoded. @internal */
export interface Fetched {
  readonly url: string
  readonly json: unknown
}

/** @internal */
export interface DiscoveryCache {
  /** The value stored under `key`, if it is still fresh at `now` (epoch milliseconds). */
  readonly get: (key: string, now: number) => Fetched | undefined
  readonly set: (key: string, value: Fetched, expiresAt: number) => void
  readonly clear: () => void
}

/** How many documents one cache holds; past it the oldest stored goes first. */
const DEFAULT_CAPACITY = 128

/** A cache holding at most `capacity` documents. @internal */
export const makeCache = (capacity: number = DEFAULT_CAPACITY): DiscoveryCache => {
  const entries = new Map<string, { readonly value: Fetched; readonly expiresAt: number }>()
  return {
    get: (key, now) => {
      const entry = entries.get(key)
      if (entry === undefined) return undefined
      if (entry.expiresAt > now) return entry.value
      entries.delete(key)
      return undefined
    },
    set: (key, value, expiresAt) => {
      entries.delete(key)
      entries.set(key, { value, expiresAt })
      for (const oldest of entries.keys()) {
        if (entries.size <= capacity) break
        entries.delete(oldest)
      }
    },
    clear: () => entries.clear()
  }
}

/** The cache discovery uses: one per process unless a caller provides its own. @internal */
export const CurrentCache = Context.Reference<DiscoveryCache>("@mcp-effect/client/McpDiscovery/Cache", {
  defaultValue: () => makeCache()
})

const directive = (header: string, name: string): string | undefined => {
  for (const part of header.split(",")) {
    const [key, value] = part.trim().split("=", 2)
    if (key?.toLowerCase() === name) return value?.trim().replace(/^"(.*)"$/, "$1") ?? ""
  }
  return undefined
}

/**
 * For how many seconds an answer may be reused, from its `Cache-Control` and `Age` headers; undefined when it may
 * not be stored at all.
 *
 * @internal
 */
export const freshSeconds = (cacheControl: string | undefined, age: string | undefined): number | undefined => {
  if (cacheControl === undefined) return undefined
  if (directive(cacheControl, "no-store") !== undefined || directive(cacheControl, "no-cache") !== undefined) {
    return undefined
  }
  const maxAge = directive(cacheControl, "max-age")
  if (maxAge === undefined || !/^\d+$/.test(maxAge)) return undefined
  const aged = age !== undefined && /^\d+$/.test(age.trim()) ? Number(age.trim()) : 0
  const fresh = Number(maxAge) - aged
  return fresh > 0 ? fresh : undefined
}

/**
 * `load` once per fresh period: the cached document for `url` while it is fresh, else `load`'s, stored for as
 * long as the seconds it returns say.
 *
 * @internal
 */
export const cached = <E, R>(
  url: string,
  load: Effect.Effect<{ readonly fetched: Fetched; readonly freshSeconds: number | undefined }, E, R>
): Effect.Effect<Fetched, E, R> =>
  Effect.gen(function*() {
    const cache = yield* CurrentCache
    const hit = cache.get(url, yield* Clock.currentTimeMillis)
    if (hit !== undefined) return hit
    const loaded = yield* load
    if (loaded.freshSeconds !== undefined) {
      cache.set(url, loaded.fetched, (yield* Clock.currentTimeMillis) + loaded.freshSeconds * 1000)
    }
    return loaded.fetched
  })
