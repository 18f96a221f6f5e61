/**
 * The wire of the HTTP transport: the one place every HTTP request goes through (the caller's headers, the
 * `HttpAuthorizer`'s headers and its one retry after a 401/403, the optional `fetchTimeout`), and the helpers
 * that read responses.
 */
import * as HttpClient from "@effect/platform/HttpClient"
import type * as HttpClientError from "@effect/platform/HttpClientError"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import type * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import { McpTransportError } from "../../McpError.js"
import type { HttpOptions, HttpRequestInfo } from "../../McpTransport.js"
import * as Stream from "effect/Stream"
import { DEFAULT_MAX_MESSAGE_BYTES } from "./lineFramer.js"

/** @internal */
export type Client = HttpClient.HttpClient.With<HttpClientError.HttpClientError>

/** @internal */
export const SSE = "text/event-stream"

/** @internal */
export const mediaType = (response: HttpClientResponse.HttpClientResponse): string =>
  (response.headers["content-type"] ?? "").split(";")[0]?.trim().toLowerCase() ?? ""

/** @internal */
export const isJsonType = (type: string) => type === "application/json" || type.endsWith("+json")

/** @internal */
export const isOk = (status: number) => status >= 200 && status < 300

/** @internal */
export const excerpt = (text: string) => {
  const trimmed = text.trim().replace(/\s+/g, " ")
  return trimmed.length > 300 ? `${trimmed.slice(0, 300)}…` : trimmed
}

/** @internal */
export const describeCause = (error: HttpClientError.HttpClientError): string => {
  const cause = error.cause
  const inner = cause instanceof Error
    ? (cause.cause instanceof Error ? `${cause.message} (${cause.cause.message})` : cause.message)
    : cause === undefined
    ? ""
    : String(cause)
  return inner === "" ? error.message : inner
}

/** @internal */
export const readText = (response: HttpClientResponse.HttpClientResponse, max = DEFAULT_MAX_MESSAGE_BYTES) =>
  readBounded(response, max).pipe(
    Effect.map((body) => "text" in body ? body.text : ""),
    Effect.orElseSucceed(() => "")
  )

const textDecoder = new TextDecoder()

/**
 * A response body read whole, but never past `max` bytes: a declared or actual length past it stops the read
 * (the response is let go with its request's scope) and says how far it got.
 *
 * @internal
 */
export const readBounded = (response: HttpClientResponse.HttpClientResponse, max: number) =>
  Effect.gen(function*() {
    const declared = Number(response.headers["content-length"])
    if (Number.isFinite(declared) && declared > max) return { oversized: declared } as const
    const parts: Array<Uint8Array> = []
    let size = 0
    yield* response.stream.pipe(
      Stream.takeWhile((chunk) => {
        size += chunk.length
        if (size > max) return false
        parts.push(chunk)
        return true
      }),
      Stream.runDrain
    )
    if (size > max) return { oversized: size } as const
    const body = new Uint8Array(size)
    let at = 0
    for (const part of parts) {
      body.set(part, at)
      at += part.length
    }
    return { text: textDecoder.decode(body) } as const
  })

/** What one HTTP request is: everything but the headers the wire adds. @internal */
export interface Outgoing {
  readonly method: "GET" | "POST" | "DELETE"
  /** For messages: what the request is about. */
  readonly what: string
  readonly mcpMethod?: string | undefined
  readonly headers: Readonly<Record<string, string>>
  readonly body?: string | undefined
}

/** @internal */
export interface Wire {
  readonly url: URL
  /** Make one HTTP request (and, when the authorizer asks, again after a 401/403, at most 3 times). */
  readonly execute: (
    outgoing: Outgoing
  ) => Effect.Effect<HttpClientResponse.HttpClientResponse, McpTransportError, Scope.Scope>
}

/** @internal */
export const makeWire = (client: Client, url: URL, options: HttpOptions): Wire => {
  const fetchTimeout = options.fetchTimeout === undefined ? undefined : Duration.decode(options.fetchTimeout)
  const authorizer = options.authorizer

  const build = (outgoing: Outgoing, extra: Readonly<Record<string, string>>) => {
    const headers = { ...options.headers, ...extra, ...outgoing.headers }
    const base = outgoing.method === "POST"
      ? HttpClientRequest.post(url)
      : outgoing.method === "GET"
      ? HttpClientRequest.get(url)
      : HttpClientRequest.del(url)
    const request = HttpClientRequest.setHeaders(base, headers)
    return outgoing.body === undefined ? request : HttpClientRequest.bodyText(request, outgoing.body, "application/json")
  }

  const once = (outgoing: Outgoing, extra: Readonly<Record<string, string>>) => {
    const sent = client.execute(build(outgoing, extra)).pipe(
      Effect.mapError((error) =>
        new McpTransportError({
          reason: "Http",
          detail: `${outgoing.what}: cannot reach ${url.href}: ${describeCause(error)}`,
          cause: error
        })
      )
    )
    return fetchTimeout === undefined ? sent : sent.pipe(
      Effect.timeoutFail({
        duration: fetchTimeout,
        onTimeout: () =>
          new McpTransportError({
            reason: "Http",
            detail: `${outgoing.what}: no HTTP response from ${url.href} within ${Duration.format(fetchTimeout)}`
          })
      })
    )
  }

  if (authorizer === undefined) return { url, execute: (outgoing) => once(outgoing, {}) }

  const info = (outgoing: Outgoing, attempt: number): HttpRequestInfo => ({
    method: outgoing.method,
    url,
    mcpMethod: outgoing.mcpMethod,
    attempt
  })
  const attempt = (outgoing: Outgoing, n: number) =>
    Effect.flatMap(
      authorizer.headers(info(outgoing, n)),
      (extra) => Effect.map(once(outgoing, extra), (response) => ({ response, extra }))
    )

  // Sent again at most this many times: an authorization, then e.g. a DPoP nonce the server asks for.
  const maxRetries = 3
  const run = (outgoing: Outgoing, n: number): Effect.Effect<HttpClientResponse.HttpClientResponse, McpTransportError, Scope.Scope> =>
    Effect.flatMap(attempt(outgoing, n), ({ extra, response }) => {
      if ((response.status !== 401 && response.status !== 403) || n >= maxRetries) return Effect.succeed(response)
      return authorizer.onChallenge({
        status: response.status,
        headers: response.headers,
        request: info(outgoing, n),
        sent: extra
      }).pipe(Effect.flatMap((decision) => decision === "retry" ? run(outgoing, n + 1) : Effect.succeed(response)))
    })

  return { url, execute: (outgoing) => run(outgoing, 0) }
}

/**
 * No trace headers (`traceparent`, `b3`) to third-party servers. A request is aborted when the fiber waiting
 * for its headers or reading its body is interrupted, and when a streamed body ends; a body read whole is not
 * aborted after the fact (an abort costs an error object and the connection).
 *
 * @internal
 */
export const prepareClient = (client: HttpClient.HttpClient): Client => HttpClient.withTracerPropagation(client, false)
