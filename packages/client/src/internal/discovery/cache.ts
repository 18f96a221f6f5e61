/**
 * Documents fetched by discovery, kept in memory as their answer's headers allow, as the extension asks of
 * clients (respect `Cache-Control`, revalidate with `ETag`):
 *
 * - `max-age` (less the `Age` a shared cache reports): reused without a request while fresh.
 * - Once stale (or at once under `no-cache`, or without `max-age`), a document with an `ETag` is asked for again
 *   with `If-None-Match`; a `304 Not Modified` keeps it for the freshness that answer gives.
 * - `no-store`, or neither a `max-age` nor an `ETag`: nothing kept.
 *
 * No guessed freshness: a card is cheap to fetch again, a stale one misleads. Times come from the Effect `Clock`,
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

/** How an answer may be kept: for `seconds` without asking (0: ask every time), revalidated with `etag`. @internal */
export interface Keep {
  readonly seconds: number
  readonly etag: string | undefined
}

/** @internal */
export interface Entry {
  readonly value: Fetched
  /** Epoch milliseconds until which it is used without a request. */
  readonly expiresAt: number
  readonly etag: string | undefined
}

/** @internal */
export interface DiscoveryCache {
  readonly get: (key: string) => Entry | undefined
  readonly set: (key: string, entry: Entry) => void
  readonly delete: (key: string) => void
  readonly clear: () => void
}

/** How many documents one cache holds; past it the oldest stored goes first. */
const DEFAULT_CAPACITY = 128

/** A cache holding at most `capacity` documents. @internal */
export const makeCache = (capacity: number = DEFAULT_CAPACITY): DiscoveryCache => {
  const entries = new Map<string, Entry>()
  return {
    get: (key) => entries.get(key),
    set: (key, entry) => {
      entries.delete(key)
      entries.set(key, entry)
      for (const oldest of entries.keys()) {
        if (entries.size <= capacity) break
        entries.delete(oldest)
      }
    },
    delete: (key) => void entries.delete(key),
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

const seconds = (text: string | undefined): number | undefined =>
  text !== undefined && /^\d+$/.test(text.trim()) ? Number(text.trim()) : undefined

/** How an answer with these headers may be kept; undefined when it may not (or there is no use in it). @internal */
export const keepOf = (headers: Readonly<Record<string, string | undefined>>): Keep | undefined => {
  const control = headers["cache-control"] ?? ""
  if (directive(control, "no-store") !== undefined) return undefined
  const maxAge = directive(control, "no-cache") === undefined ? seconds(directive(control, "max-age")) : undefined
  const fresh = maxAge === undefined ? 0 : Math.max(0, maxAge - (seconds(headers["age"]) ?? 0))
  const etag = headers["etag"]
  return fresh === 0 && etag === undefined ? undefined : { seconds: fresh, etag }
}

/**
 * What a load brought: the document (new, or the stored one a `304` confirmed) and how to keep it.
 *
 * @internal
 */
export interface Loaded {
  readonly fetched: Fetched
  readonly keep: Keep | undefined
  /** A `304`: the stored document is still current. */
  readonly notModified: boolean
}

/**
 * The document for `key`: the stored one while fresh; else `load`'s (handed the stored entry, to revalidate with
 * its `ETag`), stored as its headers allow.
 *
 * @internal
 */
export const cached = <E, R>(
  key: string,
  load: (stored: Entry | undefined) => Effect.Effect<Loaded, E, R>
): Effect.Effect<Fetched, E, R> =>
  Effect.gen(function*() {
    const cache = yield* CurrentCache
    const stored = cache.get(key)
    if (stored !== undefined && stored.expiresAt > (yield* Clock.currentTimeMillis)) return stored.value
    const loaded = yield* load(stored)
    const keep = loaded.keep
    if (keep === undefined) {
      cache.delete(key)
    } else {
      // A 304 need not repeat the ETag: the stored one still names the document.
      const etag = keep.etag ?? (loaded.notModified ? stored?.etag : undefined)
      cache.set(key, { value: loaded.fetched, expiresAt: (yield* Clock.currentTimeMillis) + keep.seconds * 1000, etag })
    }
    return loaded.fetched
  })
