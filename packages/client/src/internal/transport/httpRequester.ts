/**
 * What the HTTP transport asks of an HTTP client: start one request and push what comes back to a handler,
 * with no stream, fiber or scope per request. The Node implementation is undici's dispatcher
 * (`undiciRequester.ts`); `fromFetch` calls the runtime's `fetch` itself (a page, a Worker, Bun, Deno), as the
 * Promise API's `connectHttp` asks; `fromHttpClient` runs on any `effect/http` `HttpClient` (the caller's
 * own, middleware and tracing included): each request is a fiber running the client's effect, its body read as
 * a stream.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import { constTrue } from "effect/Function"
import * as FetchHttpClient from "effect/http/FetchHttpClient"
import * as HttpClient from "effect/http/HttpClient"
import type * as HttpClientError from "effect/http/HttpClientError"
import * as HttpClientRequest from "effect/http/HttpClientRequest"
import * as Stream from "effect/Stream"
import * as Tracer from "effect/Tracer"

/** One HTTP request. @internal */
export interface Exchange {
  readonly method: "GET" | "POST" | "DELETE"
  readonly url: URL
  readonly headers: Readonly<Record<string, string>>
  readonly body?: string | undefined
}

/** Where a response goes: its head once, then its body's chunks, then `onEnd` or `onError` (once). @internal */
export interface Handler {
  readonly onHead: (status: number, headers: Readonly<Record<string, string>>) => void
  readonly onData: (chunk: Uint8Array) => void
  readonly onEnd: () => void
  /** No response (`headed` false: the server could not be reached) or a body that broke. */
  readonly onError: (cause: unknown) => void
}

/** @internal */
export interface Requester {
  /** Start `exchange`; the function returned aborts it (no call reaches the handler after it). */
  readonly start: (exchange: Exchange, handler: Handler) => () => void
}

/** Header names lower-cased, repeated values joined with `, `. @internal */
export const flattenHeaders = (
  headers: Readonly<Record<string, string | ReadonlyArray<string> | undefined>>
): Record<string, string> => {
  const flat: Record<string, string> = {}
  for (const name in headers) {
    const value = headers[name]
    if (value === undefined) continue
    flat[name.toLowerCase()] = typeof value === "string" ? value : value.join(", ")
  }
  return flat
}

const toRequest = (exchange: Exchange) => {
  const base = exchange.method === "POST"
    ? HttpClientRequest.post(exchange.url)
    : exchange.method === "GET"
    ? HttpClientRequest.get(exchange.url)
    : HttpClientRequest.delete(exchange.url)
  const request = HttpClientRequest.setHeaders(base, exchange.headers)
  return exchange.body === undefined ? request : HttpClientRequest.bodyText(request, exchange.body, "application/json")
}

/** A response's headers as the handler takes them (`Headers` already lower-cases names and joins values). */
const headersOf = (headers: globalThis.Headers): Record<string, string> => {
  const flat: Record<string, string> = {}
  headers.forEach((value, name) => {
    flat[name] = value
  })
  return flat
}

/**
 * A `Requester` on `fetch`: the `FetchHttpClient.Fetch` of `context` (else the runtime's), with its
 * `RequestInit` under each request's own method, headers and body, and `redirect: "manual"` (as
 * `fromHttpClient`). The body is read from its reader, chunk by chunk, straight to the handler: no fiber, no
 * stream, no scope per request.
 *
 * @internal
 */
export const fromFetch = (context: Context.Context<never>): Requester => {
  const init = Context.getOrUndefined(context, FetchHttpClient.RequestInit)
  const initHeaders = init?.headers === undefined ? undefined : headersOf(new Headers(init.headers))
  const fetchOf = () => Context.getOrUndefined(context, FetchHttpClient.Fetch) ?? globalThis.fetch
  return {
    start: (exchange, handler) => {
      const controller = new AbortController()
      let stopped = false
      const fail = (cause: unknown) => {
        if (stopped) return
        stopped = true
        handler.onError(cause)
      }
      const pump = (reader: ReadableStreamDefaultReader<Uint8Array>): Promise<void> =>
        reader.read().then(({ done, value }) => {
          if (stopped) return
          if (done) {
            stopped = true
            return handler.onEnd()
          }
          handler.onData(value)
          return pump(reader)
        })
      const headers = initHeaders === undefined ? exchange.headers : { ...initHeaders, ...exchange.headers }
      fetchOf()(exchange.url, {
        ...init,
        method: exchange.method,
        headers,
        body: exchange.body ?? null,
        redirect: "manual",
        signal: controller.signal
      }).then((response) => {
        if (stopped) return
        handler.onHead(response.status, headersOf(response.headers))
        if (response.body === null) {
          stopped = true
          return handler.onEnd()
        }
        return pump(response.body.getReader())
      }).catch(fail)
      return () => {
        stopped = true
        controller.abort()
      }
    }
  }
}

/** The cause an `HttpClientError` stands for (what undici or `fetch` threw, when there is one). */
const causeOf = (error: HttpClientError.HttpClientError): unknown => error.reason.cause ?? error

/**
 * The `fetch` options of the caller's `FetchHttpClient.RequestInit` (if any), with `redirect: "manual"`: a
 * redirect is answered to the transport as the 3xx it is (a page sees an opaque redirect, status 0), never
 * followed, as on undici's path, so that a request and its credentials go only where the caller sent them.
 * Other `HttpClient`s ignore it.
 */
const noRedirects = (context: Context.Context<never>): globalThis.RequestInit => ({
  ...Context.getOrUndefined(context, FetchHttpClient.RequestInit),
  redirect: "manual"
})

/**
 * A `Requester` on an `HttpClient`: each request runs on a fiber forked with `context` (interrupted by the
 * abort). No trace headers (`traceparent`, `b3`) go to third-party servers, and no redirect is followed.
 *
 * @internal
 */
export const fromHttpClient = (client: HttpClient.HttpClient, context: Context.Context<never>): Requester => {
  // Without a tracer of the caller's, a request's span would go to Effect's default tracer, which nobody reads:
  // none is made. With one, each request is the span `HttpClient` makes, as before.
  const untraced = Context.getOrUndefined(context, Tracer.Tracer) === undefined
  const base = Context.add(context, FetchHttpClient.RequestInit, noRedirects(context))
  const run = Effect.runForkWith(untraced ? Context.add(base, HttpClient.TracerDisabledWhen, constTrue) : base)
  return {
    start: (exchange, handler) => {
      let stopped = false
      const fiber = run(
        Effect.scoped(
          Effect.flatMap(client.execute(toRequest(exchange)), (response) => {
            if (!stopped) handler.onHead(response.status, flattenHeaders(response.headers))
            return Stream.runForEach(response.stream, (chunk) =>
              Effect.sync(() => {
                if (!stopped) handler.onData(chunk)
              }))
          })
        ).pipe(
          Effect.match({
            onFailure: (error) => {
              if (!stopped) handler.onError(causeOf(error))
            },
            onSuccess: () => {
              if (!stopped) handler.onEnd()
            }
          }),
          Effect.provideService(HttpClient.TracerPropagationEnabled, false)
        )
      )
      return () => {
        stopped = true
        fiber.interruptUnsafe()
      }
    }
  }
}
