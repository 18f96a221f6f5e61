/**
 * The mark of a caller that provides Effect's `FetchHttpClient` and nothing around it (the Promise API's
 * `connectHttp` without tracing): the HTTP transport then calls `fetch` itself (`httpRequester.fromFetch`),
 * with the same `Fetch` and `RequestInit`, instead of going through `HttpClient` (a fiber, a request value
 * and a span per exchange). A module of its own, so that setting it loads nothing else.
 *
 * @internal
 */
import * as Context from "effect/Context"
import * as Layer from "effect/Layer"

/** @internal */
export const PlainFetch = Context.Reference<boolean>("@mcp-effect/client/internal/transport/PlainFetch", {
  defaultValue: () => false
})

/** @internal */
export const layer: Layer.Layer<never> = Layer.succeed(PlainFetch)(true)
