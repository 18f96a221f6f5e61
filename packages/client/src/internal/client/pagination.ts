/**
 * Cacheable requests and list walks: modern answers go through the `ResultCache` (each caller waiting under
 * its own timeout), legacy ones straight to the wire; pages are followed up to `maxPages`, and a cursor that
 * stops working restarts the walk once from a fresh first page.
 */
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as Schema from "effect/Schema"
import type { ListOptions } from "../../McpClient.js"
import { type McpClientError, McpPaginationLimitError, McpTimeoutError } from "../../McpError.js"
import { ErrorCode, type JsonObject } from "../../McpSchema.js"
import type { Cacheable } from "../../ResultCache.js"
import type { Session } from "./connection.js"
import type { ClientContext } from "./context.js"
import { decodeAs } from "./decode.js"
import type { Requests } from "./request.js"

/** Internal signal of a walk: a cursor stopped working, so the walk starts over. */
class StaleCursor extends Data.TaggedError("StaleCursor")<{}> {}

interface CacheablePage {
  readonly nextCursor?: string | undefined
  readonly ttlMs?: number | undefined
  readonly cacheScope?: "public" | "private" | undefined
}

/** @internal */
export interface Pagination {
  readonly cacheable: <A>(
    current: Session,
    method: string,
    params: string,
    fetch: Effect.Effect<Cacheable<A>, McpClientError>,
    callOptions: ListOptions | undefined
  ) => Effect.Effect<A, McpClientError>
  readonly listAll: <Item, Page extends CacheablePage>(
    method: string,
    schema: Schema.Decoder<Page>,
    items: (page: Page) => ReadonlyArray<Item>,
    callOptions: ListOptions | undefined
  ) => Effect.Effect<ReadonlyArray<Item>, McpClientError>
}

/** @internal */
export const make = (
  context: ClientContext,
  requests: Requests,
  session: Effect.Effect<Session, McpClientError>
): Pagination => {
  const invalidate = (method: string) => context.cache.invalidate({ namespace: context.namespace, method })

  /**
   * A cacheable request. The fetch is shared by identical callers; each of them waits under its own timeout
   * and its own interruption, whoever started the fetch.
   */
  const cacheable = <A>(
    current: Session,
    method: string,
    params: string,
    fetch: Effect.Effect<Cacheable<A>, McpClientError>,
    callOptions: ListOptions | undefined
  ): Effect.Effect<A, McpClientError> => {
    if (current.info.era === "legacy") return Effect.map(fetch, (result) => result.value)
    const millis = Duration.toMillis(requests.timeoutOf(callOptions))
    const key = { namespace: context.namespace, authContext: context.authContext, method, params }
    return current.link.peer.deadlines.within(
      context.cache.get(key, fetch, { refresh: callOptions?.refresh }),
      millis,
      () => new McpTimeoutError({ method, limit: "request", timeoutMillis: millis })
    )
  }

  const listAll = <Item, Page extends CacheablePage>(
    method: string,
    schema: Schema.Decoder<Page>,
    items: (page: Page) => ReadonlyArray<Item>,
    callOptions: ListOptions | undefined
  ): Effect.Effect<ReadonlyArray<Item>, McpClientError> => {
    const decode = decodeAs(schema, method)
    const page = (current: Session, cursor: string | undefined, refresh: boolean | undefined) => {
      const params: JsonObject | undefined = cursor === undefined ? undefined : { cursor }
      const fetch = requests.requestComplete(current, method, params, callOptions).pipe(
        Effect.flatMap(decode),
        Effect.map((value) => ({ value, ttlMs: value.ttlMs, cacheScope: value.cacheScope }))
      )
      return cacheable(current, method, JSON.stringify(cursor ?? null), fetch, { ...callOptions, refresh }).pipe(
        Effect.catchIf(
          (error) =>
            cursor !== undefined && refresh !== true && current.info.era === "modern" &&
            error._tag === "McpProtocolError" && error.code === ErrorCode.InvalidParams,
          () => new StaleCursor()
        )
      )
    }
    /** Fails with `StaleCursor` when a cursor stops working (modern): the pages before it may be stale. */
    const walk = (refresh: boolean | undefined) =>
      Effect.gen(function*() {
        const current = yield* session
        const all: Array<Item> = []
        let cursor: string | undefined = undefined
        let pages = 0
        do {
          if (pages >= context.maxPages) return yield* new McpPaginationLimitError({ method, pages: context.maxPages })
          const next: Page = yield* page(current, cursor, refresh)
          all.push(...items(next))
          cursor = next.nextCursor
          pages++
        } while (cursor !== undefined)
        return all
      })
    // A cursor that stopped working: drop every cached page of the list and start over, once.
    return walk(callOptions?.refresh).pipe(
      Effect.catchTag("StaleCursor", () =>
        invalidate(method).pipe(
          Effect.andThen(walk(true)),
          // A refreshed walk reports a dead cursor as the protocol error it is, never as StaleCursor.
          Effect.catchTag("StaleCursor", (e) => Effect.die(e))
        ))
    )
  }

  return { cacheable, listAll }
}
