/**
 * The wire of the HTTP transport: the one place every HTTP request goes through (the caller's headers, the
 * `HttpAuthorizer`'s headers and its one retry after a 401/403, the optional `fetchTimeout`), and the helpers
 * that read responses.
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import type { McpAuthError } from "../../McpAuthError.js"
import { McpTransportError } from "../../McpError.js"
import type { HttpOptions, HttpRequestInfo } from "../../McpTransport.js"
import type * as requester from "./httpRequester.js"
import { flattenHeaders } from "./httpRequester.js"
import { DEFAULT_MAX_MESSAGE_BYTES } from "./lineFramer.js"
import { SentCredentials } from "../redact.js"

/** @internal */
/**
 * The endpoint as errors name it: scheme, host and path; no user information, query or fragment (a key in
 * the query string, `https://host/mcp?api_key=…`, is a credential). @internal
 */
export const describeUrl = (url: URL): string => `${url.protocol}//${url.host}${url.pathname}`

export const SSE = "text/event-stream"

/** @internal */
export const mediaType = (response: WireResponse): string =>
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

/** What broke a request or its body, in a few words. @internal */
export const describeCause = (cause: unknown): string =>
  cause instanceof Error
    ? (cause.cause instanceof Error ? `${cause.message} (${cause.cause.message})` : cause.message)
    : String(cause)

/** Where a body goes once it is read: its chunks, then `onEnd` or `onError` (once). @internal */
export interface Sink {
  readonly onData: (chunk: Uint8Array) => void
  readonly onEnd: () => void
  readonly onError: (cause: unknown) => void
}

/**
 * A response whose head came: the body is pushed to the one `Sink` given to `read` (chunks that came before
 * are kept for it). It ends one of three ways: read to its end, `cancel`led (the HTTP request is aborted), or
 * `handOff` to the wire, which lets it finish on its own (so that its connection is kept alive) and cancels it
 * when too many are still open, or when the connection closes.
 *
 * @internal
 */
export class WireResponse implements requester.Handler {
  status = 0
  headers: Readonly<Record<string, string>> = {}
  /** The body ended (read whole, broke or cancelled). */
  finished = false
  private handedOff = false
  private cancelled = false
  private sink: Sink | undefined = undefined
  private early: Array<Uint8Array> = []
  private outcome: { readonly error: unknown } | "end" | undefined = undefined
  abort: () => void = () => {}

  constructor(
    private readonly onHeadCallback: (response: WireResponse) => void,
    private readonly onNoResponse: (cause: unknown) => void,
    private readonly draining: Set<WireResponse>
  ) {}

  onHead(status: number, headers: Readonly<Record<string, string>>) {
    this.status = status
    this.headers = headers
    this.onHeadCallback(this)
  }
  onData(chunk: Uint8Array) {
    if (this.sink === undefined) this.early.push(chunk)
    else this.sink.onData(chunk)
  }
  onEnd() {
    this.settle("end")
  }
  onError(cause: unknown) {
    if (this.status === 0) return this.onNoResponse(cause)
    this.settle({ error: cause })
  }

  /** Push the body to `sink`, from its start. */
  read(sink: Sink) {
    this.sink = sink
    const early = this.early
    this.early = []
    for (const chunk of early) {
      if (this.cancelled) return
      sink.onData(chunk)
    }
    if (this.outcome !== undefined) this.tell(sink, this.outcome)
  }
  /** Stop: abort the HTTP request if its body did not end. */
  cancel() {
    if (this.finished) return
    this.finished = true
    this.cancelled = true
    this.draining.delete(this)
    this.abort()
  }
  /** Let the body finish on its own (what comes is still pushed to the sink; with none, it is let go). */
  handOff() {
    if (this.finished || this.handedOff) return
    this.handedOff = true
    if (this.sink === undefined) this.read(ignored)
    this.draining.add(this)
    if (this.draining.size > MAX_DRAINING) {
      for (const oldest of this.draining) {
        oldest.cancel()
        break
      }
    }
  }
  /** Let go with the request that made it: cancelled, unless it was handed off. */
  release() {
    if (!this.handedOff) this.cancel()
  }

  private settle(outcome: { readonly error: unknown } | "end") {
    if (this.finished) return
    this.finished = true
    this.draining.delete(this)
    this.outcome = outcome
    if (this.sink !== undefined) this.tell(this.sink, outcome)
  }
  private tell(sink: Sink, outcome: { readonly error: unknown } | "end") {
    if (outcome === "end") sink.onEnd()
    else sink.onError(outcome.error)
  }
}

const ignored: Sink = { onData: () => {}, onEnd: () => {}, onError: () => {} }

/** Responses handed off and still open, per connection, past which the oldest is cancelled. */
const MAX_DRAINING = 16

const textDecoder = new TextDecoder()

/** A body read whole, or how far it got past its bound. @internal */
export type Bounded = { readonly text: string } | { readonly oversized: number }

/**
 * Read a response body whole, but never past `max` bytes: a declared or actual length past it stops the read
 * (the request is aborted) and says how far it got. `done` is told once: what was read, or what broke it.
 *
 * @internal
 */
export const readBoundedWith = (
  response: WireResponse,
  max: number,
  done: (outcome: Bounded | { readonly broke: unknown }) => void
): void => {
  const declared = Number(response.headers["content-length"])
  if (Number.isFinite(declared) && declared > max) {
    response.cancel()
    return done({ oversized: declared })
  }
  const parts: Array<Uint8Array> = []
  let size = 0
  let over = false
  response.read({
    onData: (chunk) => {
      if (over) return
      size += chunk.length
      if (size <= max) return void parts.push(chunk)
      over = true
      response.cancel()
      done({ oversized: size })
    },
    onEnd: () => {
      if (!over) done({ text: decodeAll(parts, size) })
    },
    onError: (cause) => {
      if (!over) done({ broke: cause })
    }
  })
}

/**
 * `readBoundedWith` as an effect, failing with what broke the body.
 *
 * @internal
 */
export const readBounded = (response: WireResponse, max: number) =>
  Effect.callback<Bounded, unknown>((resume) => {
    readBoundedWith(response, max, (outcome) => resume("broke" in outcome ? Effect.fail(outcome.broke) : Effect.succeed(outcome)))
    return Effect.sync(() => response.cancel())
  })

const decodeAll = (parts: ReadonlyArray<Uint8Array>, size: number): string => {
  if (parts.length === 1 && parts[0] !== undefined) return textDecoder.decode(parts[0])
  const body = new Uint8Array(size)
  let at = 0
  for (const part of parts) {
    body.set(part, at)
    at += part.length
  }
  return textDecoder.decode(body)
}

/** @internal */
export const readText = (response: WireResponse, max = DEFAULT_MAX_MESSAGE_BYTES) =>
  readBounded(response, max).pipe(
    Effect.map((body) => "text" in body ? body.text : ""),
    Effect.orElseSucceed(() => "")
  )

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
  /**
   * Make one HTTP request (and, when the authorizer asks, again after a 401/403, at most 3 times); the
   * response is released with the scope.
   */
  readonly execute: (outgoing: Outgoing) => Effect.Effect<WireResponse, McpTransportError | McpAuthError, Scope.Scope>
  /** Cancel the responses still finishing on their own (the connection closes). */
  readonly close: () => void
  /** `text` (from the server) without the credentials this connection sent lately. */
  readonly redact: (text: string) => string
  /**
   * `execute` in three steps, for a caller that reads responses as they come: the authorizer's headers of a
   * first attempt, `begin` the request with them, and, after its head, `challenged` (a 401/403 goes to the
   * authorizer, which may have the request sent again; otherwise the response as it is).
   */
  readonly headersFor: (
    outgoing: Outgoing
  ) => Effect.Effect<Readonly<Record<string, string>>, McpTransportError | McpAuthError>
  readonly begin: (
    outgoing: Outgoing,
    extra: Readonly<Record<string, string>>,
    onHead: (response: WireResponse) => void,
    onNoResponse: (error: McpTransportError) => void
  ) => WireResponse
  readonly challenged: (
    outgoing: Outgoing,
    extra: Readonly<Record<string, string>>,
    response: WireResponse
  ) => Effect.Effect<WireResponse, McpTransportError | McpAuthError, Scope.Scope>
}

/** Headers whose values say how to talk, not who is talking: not secrets. */
const PLAIN_HEADERS: ReadonlySet<string> = new Set(["accept", "content-type", "user-agent"])

/**
 * What the caller gave that never reaches an error: its `secrets`, and the values of the headers it gave (an
 * `X-Api-Key` is as much a credential as an `Authorization`).
 */
const callerSecrets = (options: HttpOptions, headers: Readonly<Record<string, string>>): ReadonlyArray<string> => [
  ...(options.secrets ?? []),
  ...Object.entries(headers).flatMap(([name, value]) => (PLAIN_HEADERS.has(name) ? [] : [value]))
]


/**
 * In a page, a server on another origin that does not allow it through CORS looks like a server that cannot be
 * reached ("Failed to fetch"): say what to look at.
 */
const pageHint = (url: URL): string => {
  const location: unknown = Reflect.get(globalThis, "location")
  const origin = typeof location === "object" && location !== null ? Reflect.get(location, "origin") : undefined
  return "document" in globalThis && typeof origin === "string" && origin !== url.origin
    ? " (from a page: does the server allow this page's origin through CORS?)"
    : ""
}

/** @internal */
export const makeWire = (requester: requester.Requester, url: URL, options: HttpOptions): Wire => {
  const fetchTimeout = options.fetchTimeout === undefined ? undefined : Duration.fromInputUnsafe(options.fetchTimeout)
  const authorizer = options.authorizer
  const draining = new Set<WireResponse>()
  // Merged by lower-case name: a caller's `Accept` gives way to ours instead of going beside it.
  const base = flattenHeaders(options.headers ?? {})
  const sent = new SentCredentials(16, callerSecrets(options, base))

  const unreachable = (outgoing: Outgoing, cause: unknown) =>
    new McpTransportError({
      reason: "Http",
      detail: sent.redact(`${outgoing.what}: cannot reach ${describeUrl(url)}: ${describeCause(cause)}${pageHint(url)}`),
      cause
    })

  const info = (outgoing: Outgoing, attempt: number): HttpRequestInfo => ({
    method: outgoing.method,
    url,
    mcpMethod: outgoing.mcpMethod,
    attempt
  })

  const onResponse = authorizer?.onResponse
  /** Start one HTTP request: `onHead` once its head came (shown to the authorizer first), or `onNoResponse`. */
  const begin = (
    outgoing: Outgoing,
    extra: Readonly<Record<string, string>>,
    onHead: (response: WireResponse) => void,
    onNoResponse: (error: McpTransportError) => void,
    attempt = 0
  ) => {
    const headed = onResponse === undefined ? onHead : (response: WireResponse) => {
      onResponse({ status: response.status, headers: response.headers, request: info(outgoing, attempt) })
      onHead(response)
    }
    const response = new WireResponse(headed, (cause) => onNoResponse(unreachable(outgoing, cause)), draining)
    response.abort = requester.start({
      method: outgoing.method,
      url,
      headers: sent.noted({ ...base, ...flattenHeaders(extra), ...flattenHeaders(outgoing.headers) }),
      body: outgoing.body
    }, response)
    return response
  }

  /** One HTTP request, until its head. */
  const start = (outgoing: Outgoing, extra: Readonly<Record<string, string>>, attempt: number) =>
    Effect.callback<WireResponse, McpTransportError>((resume) => {
      const response = begin(
        outgoing,
        extra,
        (headed) => resume(Effect.succeed(headed)),
        (error) => resume(Effect.fail(error)),
        attempt
      )
      return Effect.sync(() => response.cancel())
    })

  const once = (outgoing: Outgoing, extra: Readonly<Record<string, string>>, attempt = 0) => {
    const headed = Effect.flatMap(start(outgoing, extra, attempt), (response) =>
      Effect.as(Effect.addFinalizer(() => Effect.sync(() => response.release())), response))
    return fetchTimeout === undefined ? headed : headed.pipe(
      Effect.timeoutOrElse({
        duration: fetchTimeout,
        orElse: () =>
          Effect.fail(
            new McpTransportError({
              reason: "Http",
              detail: sent.redact(
                `${outgoing.what}: no HTTP response from ${describeUrl(url)} within ${Duration.format(fetchTimeout)}`
              )
            })
          )
      })
    )
  }

  const close = () => {
    for (const response of [...draining]) response.cancel()
  }

  if (authorizer === undefined) {
    return {
      url,
      execute: (outgoing) => once(outgoing, {}),
      close,
      redact: (text) => sent.redact(text),
      begin,
      headersFor: () => Effect.succeed({}),
      challenged: (_outgoing, _extra, response) => Effect.succeed(response)
    }
  }

  // Sent again at most this many times: an authorization, then e.g. a DPoP nonce the server asks for.
  const maxRetries = 3
  /** After the answer to attempt `n`: a 401/403 goes to the authorizer, which may have it sent again. */
  const after = (
    outgoing: Outgoing,
    n: number,
    extra: Readonly<Record<string, string>>,
    response: WireResponse
  ): Effect.Effect<WireResponse, McpTransportError | McpAuthError, Scope.Scope> => {
    if ((response.status !== 401 && response.status !== 403) || n >= maxRetries) return Effect.succeed(response)
    return authorizer.onChallenge({
      status: response.status,
      headers: response.headers,
      request: info(outgoing, n),
      sent: extra
    }).pipe(Effect.flatMap((decision) => {
      if (decision !== "retry") return Effect.succeed(response)
      response.cancel()
      return run(outgoing, n + 1)
    }))
  }
  const run = (outgoing: Outgoing, n: number): Effect.Effect<WireResponse, McpTransportError | McpAuthError, Scope.Scope> =>
    Effect.flatMap(
      authorizer.headers(info(outgoing, n)),
      (extra) => Effect.flatMap(once(outgoing, extra, n), (response) => after(outgoing, n, extra, response))
    )

  return {
    url,
    execute: (outgoing) => run(outgoing, 0),
    close,
    redact: (text) => sent.redact(text),
    begin,
    headersFor: (outgoing) => authorizer.headers(info(outgoing, 0)),
    challenged: (outgoing, extra, response) => after(outgoing, 0, extra, response)
  }
}
