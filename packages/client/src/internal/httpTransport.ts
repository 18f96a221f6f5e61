/**
 * Streamable HTTP, both eras, on `@effect/platform`'s `HttpClient`.
 *
 * `send` of a request POSTs it and reads the whole answer before it returns: a JSON body, or an SSE stream
 * whose events (notifications, legacy server requests, the response) are pushed into `incoming` as they come.
 * It succeeds once the response to the request has been pushed, so the peer's wait for the answer resolves at
 * once; the HTTP request belongs to `send`'s scope, so closing that scope (cancellation, timeout) aborts it.
 *
 * - A response stream that breaks or ends before the request's response fails `send` with
 *   `McpServerGoneError` (the request is lost; nothing is re-sent). A legacy stream with event ids is resumed
 *   first: `GET` with `Last-Event-ID`, after the server's `retry` (or a backoff).
 * - A non-2xx answer whose body is a JSON-RPC error is pushed like any response (an id-less error is the
 *   request's), marked with the HTTP status so the peer can put it on `McpProtocolError.httpStatus`; any other
 *   non-2xx fails `send` with `McpTransportError({ reason: "Http", status })`; a request that reaches no server
 *   fails with `McpTransportError` without a status.
 * - Legacy sessions: `Mcp-Session-Id` from the `initialize` response goes on every later request; a 404 to a
 *   request that carried it ends the connection (`McpServerGoneError`, "session expired") so that the client
 *   opens a fresh one; `DELETE` when the connection is closed. The GET stream opens after
 *   `notifications/initialized` (405: none) and is resumed with `Last-Event-ID` when it drops.
 */
import * as Sse from "@effect/experimental/Sse"
import * as HttpClient from "@effect/platform/HttpClient"
import type * as HttpClientError from "@effect/platform/HttpClientError"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import type * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import * as Chunk from "effect/Chunk"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Mailbox from "effect/Mailbox"
import * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import { McpClosedError, McpServerGoneError, McpTransportError } from "../McpError.js"
import { field, isRecord, type JsonObject, MetaKey, type OutboundMessage, type RequestId } from "../McpSchema.js"
import type { Connection, Era, HttpOptions, SendContext, Service } from "../McpTransport.js"
import { encodeHeaderValue } from "./mcpHeaders.js"
import { HTTP_STATUS_KEY } from "./peer.js"

type Client = HttpClient.HttpClient.With<HttpClientError.HttpClientError, Scope.Scope>

interface Request {
  readonly id: RequestId
  readonly method: string
  readonly params?: JsonObject
}

interface SessionState {
  /** The legacy session id, from the `initialize` response. */
  id: string | undefined
  /** The negotiated legacy version, known once `notifications/initialized` went out. */
  protocolVersion: string | undefined
  getStream: boolean
}

interface Position {
  lastEventId: string | undefined
  retry: Duration.Duration | undefined
}

const SSE = "text/event-stream"

const parseJson = Option.liftThrowable((text: string): unknown => JSON.parse(text))

const mediaType = (response: HttpClientResponse.HttpClientResponse): string =>
  (response.headers["content-type"] ?? "").split(";")[0]?.trim().toLowerCase() ?? ""

const isJsonType = (type: string) => type === "application/json" || type.endsWith("+json")

const isOk = (status: number) => status >= 200 && status < 300

/** Session ids are visible ASCII (0x21–0x7E). */
const isValidSessionId = (value: string) => /^[\x21-\x7e]+$/.test(value)

const requestOf = (message: OutboundMessage): Request | undefined =>
  "method" in message && "id" in message ? message : undefined

const methodOf = (message: OutboundMessage): string | undefined => "method" in message ? message.method : undefined

/** The value `Mcp-Name` mirrors, for the methods that carry one. */
const nameOf = (method: string, params: JsonObject | undefined): string | undefined => {
  const value = method === "tools/call" || method === "prompts/get"
    ? params?.["name"]
    : method === "resources/read"
    ? params?.["uri"]
    : undefined
  return typeof value === "string" ? value : undefined
}

const excerpt = (text: string) => {
  const trimmed = text.trim().replace(/\s+/g, " ")
  return trimmed.length > 300 ? `${trimmed.slice(0, 300)}…` : trimmed
}

const describeCause = (error: HttpClientError.HttpClientError): string => {
  const cause = error.cause
  const inner = cause instanceof Error
    ? (cause.cause instanceof Error ? `${cause.message} (${cause.cause.message})` : cause.message)
    : cause === undefined
    ? ""
    : String(cause)
  return inner === "" ? error.message : inner
}

/** SSE items (events and `retry` fields) of a byte stream, parsed by `@effect/experimental`'s parser. */
const sseItems = <E>(bytes: Stream.Stream<Uint8Array, E>): Stream.Stream<Sse.AnyEvent, E | Sse.SseError> =>
  Stream.suspend(() => {
    let pending: Array<Sse.AnyEvent> = []
    const parser = Sse.makeParser((item) => {
      pending.push(item)
    })
    return bytes.pipe(
      Stream.decodeText(),
      Stream.mapChunksEffect((chunk) => {
        for (const text of chunk) {
          const error = parser.feed(text)
          if (error !== undefined) return Effect.fail(error)
        }
        const items = Chunk.unsafeFromArray(pending)
        pending = []
        return Effect.succeed(items)
      })
    )
  })

/** The `data` of every event in an SSE document read whole. */
const sseData = (text: string): ReadonlyArray<string> => {
  const data: Array<string> = []
  const parser = Sse.makeParser((item) => {
    if (item._tag === "Event") data.push(item.data)
  })
  parser.feed(text)
  parser.feed("\n\n")
  return data
}

/** @internal */
export const make = (options: HttpOptions): Effect.Effect<Service, never, HttpClient.HttpClient> =>
  Effect.map(HttpClient.HttpClient, (client) => ({
    // No trace headers (`traceparent`, `b3`) to third-party servers.
    connect: connect(HttpClient.withScope(HttpClient.withTracerPropagation(client, false)), options)
  }))

const connect = (client: Client, options: HttpOptions) =>
  Effect.gen(function*() {
    const url = yield* Effect.try({
      try: () => new URL(options.url),
      catch: (cause) => new McpTransportError({ reason: "Http", detail: `invalid URL ${String(options.url)}`, cause })
    })
    const fetchTimeout = options.fetchTimeout === undefined ? undefined : Duration.decode(options.fetchTimeout)
    const closeTimeout = Duration.decode(options.closeTimeout ?? "2 seconds")
    const reconnectDelay = Duration.decode(options.reconnectDelay ?? "1 second")
    const maxReconnectDelay = Duration.decode(options.maxReconnectDelay ?? "30 seconds")
    const maxReconnects = options.maxReconnectAttempts ?? 3
    const openGetStream = options.getStream ?? true

    const scope = yield* Effect.scope
    const ended = yield* Deferred.make<McpServerGoneError | McpClosedError>()
    const inbox = yield* Mailbox.make<string>()
    const session: SessionState = { id: undefined, protocolVersion: undefined, getStream: false }
    /** Requests in flight, completed when their response has been pushed, whichever stream it came on. */
    const awaiting = new Map<RequestId, Deferred.Deferred<void>>()

    const backoff = (attempt: number, position: Position) =>
      position.retry ?? Duration.min(Duration.times(reconnectDelay, 2 ** Math.max(0, attempt - 1)), maxReconnectDelay)

    // --- the wire --------------------------------------------------------------------------------------------

    const authorization = options.authorization
    const execute = (request: HttpClientRequest.HttpClientRequest, what: string) =>
      authorization === undefined ? executeOnce(request, what) : Effect.gen(function*() {
        const target = { method: request.method, url }
        for (let attempt = 0;; attempt++) {
          const extra = yield* authorization.headers(target)
          const response = yield* executeOnce(HttpClientRequest.setHeaders(request, extra), what)
          // Only a POST (a message) may start an authorization: the GET stream and the closing DELETE just
          // carry what there is.
          if ((response.status !== 401 && response.status !== 403) || attempt >= 3 || request.method !== "POST") {
            return response
          }
          const again = yield* authorization.onChallenge(target, extra, { status: response.status, headers: response.headers })
          if (!again) return response
          yield* readText(response)
        }
      })

    const executeOnce = (request: HttpClientRequest.HttpClientRequest, what: string) => {
      const sent = client.execute(request).pipe(
        Effect.mapError((error) =>
          new McpTransportError({ reason: "Http", detail: `${what}: cannot reach ${url.href}: ${describeCause(error)}`, cause: error })
        )
      )
      return fetchTimeout === undefined ? sent : sent.pipe(
        Effect.timeoutFail({
          duration: fetchTimeout,
          onTimeout: () =>
            new McpTransportError({
              reason: "Http",
              detail: `${what}: no HTTP response from ${url.href} within ${Duration.format(fetchTimeout)}`
            })
        })
      )
    }

    const readText = (response: HttpClientResponse.HttpClientResponse) =>
      response.text.pipe(Effect.orElseSucceed(() => ""))

    /** The headers of a POST: the caller's, then the transport's, then the message's own (`Mcp-Param-*`). */
    const postHeaders = (message: OutboundMessage, context: SendContext, era: Era): Record<string, string> => {
      const headers: Record<string, string> = {
        ...options.headers,
        "accept": "application/json, text/event-stream",
        "content-type": "application/json"
      }
      const method = methodOf(message)
      const params = "params" in message ? message.params : undefined
      if (era === "modern") {
        const bodyVersion = field(field(params, "_meta"), MetaKey.protocolVersion)
        const version = typeof bodyVersion === "string" ? bodyVersion : context.protocolVersion
        if (version !== undefined) headers["mcp-protocol-version"] = version
        if (method !== undefined) {
          headers["mcp-method"] = method
          const name = nameOf(method, params)
          if (name !== undefined) headers["mcp-name"] = encodeHeaderValue(name)
        }
      } else {
        if (session.id !== undefined) headers["mcp-session-id"] = session.id
        // Required on every request after initialization; `initialize` itself negotiates in its body.
        if (method !== "initialize" && context.protocolVersion !== undefined) {
          headers["mcp-protocol-version"] = context.protocolVersion
        }
      }
      return { ...headers, ...context.headers }
    }

    const getHeaders = (protocolVersion: string | undefined, lastEventId: string | undefined) => {
      const headers: Record<string, string> = { ...options.headers, "accept": SSE }
      if (session.id !== undefined) headers["mcp-session-id"] = session.id
      if (protocolVersion !== undefined) headers["mcp-protocol-version"] = protocolVersion
      if (lastEventId !== undefined) headers["last-event-id"] = lastEventId
      return headers
    }

    const deleteHeaders = (id: string) => {
      const headers: Record<string, string> = { ...options.headers, "mcp-session-id": id }
      if (session.protocolVersion !== undefined) headers["mcp-protocol-version"] = session.protocolVersion
      return headers
    }

    // --- incoming --------------------------------------------------------------------------------------------

    /**
     * Push one frame into `incoming`; `true` when it holds the response to `request`. The body of a request's
     * own HTTP response is about that request: an id-less error there is given the request's id, and errors are
     * marked with the HTTP status they came with.
     */
    const deliver = (text: string, request: Request | undefined, status: number | undefined) =>
      Effect.suspend(() => {
        const parsed = parseJson(text)
        // Not JSON: the peer reports it as a malformed frame.
        if (Option.isNone(parsed)) return inbox.offer(text).pipe(Effect.as(false))
        const value = parsed.value
        let answered = false
        let changed = false
        const settled: Array<RequestId> = []
        const messages = Array.isArray(value) ? value : [value]
        const patched = messages.map((message: unknown) => {
          if (!isRecord(message) || message["method"] !== undefined) return message
          const isError = isRecord(message["error"])
          if (!isError && !("result" in message)) return message
          let out = message
          if (isError && request !== undefined && (message["id"] === undefined || message["id"] === null)) {
            out = { ...out, id: request.id }
            changed = true
          }
          if (isError && status !== undefined) {
            out = { ...out, [HTTP_STATUS_KEY]: status }
            changed = true
          }
          if (out["jsonrpc"] === "2.0") {
            if (request !== undefined && out["id"] === request.id) answered = true
            const id = out["id"]
            if (typeof id === "string" || typeof id === "number") settled.push(id)
          }
          return out
        })
        const frame = changed ? JSON.stringify(Array.isArray(value) ? patched : patched[0]) : text
        return inbox.offer(frame).pipe(
          // A response may come on another stream than its request's (the legacy GET stream): its POST is done.
          Effect.zipRight(Effect.forEach(settled, (id) => {
            const waiting = awaiting.get(id)
            return waiting === undefined ? Effect.void : Deferred.succeed(waiting, undefined)
          }, { discard: true })),
          Effect.as(answered)
        )
      })

    /**
     * Read an SSE response: every event with data is pushed; `true` once the response to `request` came (the
     * stream is let go there). A stream that breaks ends the read the same way as one that ends.
     */
    const consume = (
      response: HttpClientResponse.HttpClientResponse,
      request: Request | undefined,
      position: Position,
      onEvent: Effect.Effect<void> = Effect.void
    ) =>
      Effect.gen(function*() {
        let answered = false
        const broke = yield* sseItems(response.stream).pipe(
          Stream.mapEffect((item) => {
            if (item._tag === "Retry") {
              position.retry = item.duration
              return Effect.succeed(false)
            }
            if (item.id !== undefined) position.lastEventId = item.id
            // Priming events (an id, empty data) and non-message events carry no JSON-RPC message.
            if (item.data.trim() === "" || item.event !== "message") return Effect.succeed(false)
            return onEvent.pipe(
              Effect.zipRight(deliver(item.data, request, request === undefined ? undefined : response.status)),
              Effect.tap((done) => {
                if (done) answered = true
              })
            )
          }),
          Stream.takeUntil((done) => done),
          Stream.runDrain,
          Effect.as(Option.none<string>()),
          Effect.catchAll((error) => Effect.succeed(Option.some(error.message)))
        )
        return { answered, broke }
      })

    // --- connection end --------------------------------------------------------------------------------------

    const endWith = (reason: McpServerGoneError | McpClosedError) =>
      Deferred.succeed(ended, reason).pipe(Effect.zipRight(inbox.end), Effect.asVoid)

    /** A 404 to a request that carried the session id: the session is over; so is this connection. */
    const sessionExpired = (what: string) =>
      Effect.gen(function*() {
        const error = new McpServerGoneError({
          reason: `session expired: the server answered HTTP 404 to ${what}, which carried Mcp-Session-Id`,
          stderrTail: ""
        })
        session.id = undefined
        yield* endWith(error)
        return yield* Effect.fail(error)
      })

    const checkSession = (response: HttpClientResponse.HttpClientResponse, sentSession: boolean, what: string) =>
      response.status === 404 && sentSession ? sessionExpired(what) : Effect.void

    /** A non-2xx answer: a JSON-RPC error for the request is delivered; anything else fails. */
    const httpFailure = (response: HttpClientResponse.HttpClientResponse, request: Request | undefined, what: string) =>
      Effect.gen(function*() {
        const status = response.status
        const text = yield* readText(response)
        if (request !== undefined) {
          const frames = mediaType(response) === SSE ? sseData(text) : [text]
          let answered = false
          for (const frame of frames) {
            if (!isJsonRpcError(frame)) continue
            if (yield* deliver(frame, request, status)) answered = true
          }
          if (answered) return
        }
        const body = excerpt(text)
        return yield* new McpTransportError({
          reason: "Http",
          status,
          detail: `${what}: HTTP ${status}${body === "" ? "" : `: ${body}`}`
        })
      })

    const lost = (request: Request, how: string) =>
      new McpServerGoneError({
        reason: `the HTTP response stream of ${request.method} (id ${JSON.stringify(request.id)}) ${how}` +
          " before its response; the request is lost",
        stderrTail: ""
      })

    // --- legacy resumption -----------------------------------------------------------------------------------

    /**
     * Resume a legacy stream that ended before the response: `GET` with `Last-Event-ID`, after the server's
     * `retry` or a backoff, until the response comes or `maxReconnectAttempts` resumptions failed.
     */
    const resume = (request: Request, position: Position, protocolVersion: string | undefined, how: string) =>
      Effect.gen(function*() {
        let failure = how
        for (let attempt = 1; attempt <= maxReconnects; attempt++) {
          if (position.lastEventId === undefined) break
          yield* Effect.sleep(backoff(attempt, position))
          const lastEventId = position.lastEventId
          const outcome = yield* Effect.scoped(
            Effect.gen(function*() {
              const sentSession = session.id !== undefined
              const response = yield* execute(
                HttpClientRequest.get(url).pipe(HttpClientRequest.setHeaders(getHeaders(protocolVersion, lastEventId))),
                `resuming ${request.method}`
              )
              yield* checkSession(response, sentSession, `the GET resuming ${request.method}`)
              if (response.status === 405) return { answered: false, broke: Option.some("cannot be resumed (GET: 405)"), final: true }
              if (!isOk(response.status) || mediaType(response) !== SSE) {
                return { answered: false, broke: Option.some(`could not be resumed (GET answered HTTP ${response.status})`) }
              }
              return yield* consume(response, request, position)
            })
          ).pipe(
            Effect.catchTag("McpTransportError", (error) =>
              Effect.succeed({ answered: false, broke: Option.some(`could not be resumed (${error.detail})`) }))
          )
          if (outcome.answered) return
          failure = Option.getOrElse(outcome.broke, () => "ended again")
          if ("final" in outcome) break
        }
        return yield* lost(request, failure)
      })

    // --- sending ---------------------------------------------------------------------------------------------

    const postRequest = (request: Request, body: string, headers: Record<string, string>, context: SendContext, era: Era) =>
      Effect.gen(function*() {
        const sentSession = headers["mcp-session-id"] !== undefined
        const response = yield* execute(
          HttpClientRequest.post(url).pipe(
            HttpClientRequest.setHeaders(headers),
            HttpClientRequest.bodyText(body, "application/json")
          ),
          request.method
        )
        if (era === "legacy" && request.method === "initialize" && isOk(response.status)) {
          const id = response.headers["mcp-session-id"]
          if (id !== undefined && isValidSessionId(id)) session.id = id
        }
        yield* checkSession(response, sentSession, request.method)
        const status = response.status
        if (!isOk(status)) return yield* httpFailure(response, request, request.method)
        const type = mediaType(response)
        if (type === SSE) {
          const position: Position = { lastEventId: undefined, retry: undefined }
          const outcome = yield* consume(response, request, position)
          if (outcome.answered) return
          const how = Option.match(outcome.broke, { onNone: () => "ended", onSome: (reason) => `broke (${reason})` })
          // Modern streams are not resumable: a dropped stream is a cancelled, lost request.
          if (era === "modern" || position.lastEventId === undefined) return yield* lost(request, how)
          return yield* resume(request, position, context.protocolVersion, how)
        }
        if (isJsonType(type)) {
          const text = yield* response.text.pipe(
            Effect.mapError((error) => lost(request, `broke (${describeCause(error)})`))
          )
          if (yield* deliver(text, request, status)) return
          return yield* new McpTransportError({
            reason: "Http",
            status,
            detail: `${request.method}: the HTTP ${status} JSON body is not the response to the request: ${excerpt(text)}`
          })
        }
        return yield* new McpTransportError({
          reason: "Http",
          status,
          detail: `${request.method}: HTTP ${status} with ${type === "" ? "no content type" : type}, not a JSON-RPC response`
        })
      })

    /** A notification or a response (legacy replies to server requests): 202 expected. */
    const postOther = (message: OutboundMessage, body: string, headers: Record<string, string>, context: SendContext, era: Era) =>
      Effect.gen(function*() {
        const what = methodOf(message) ?? `the response to server request ${"id" in message ? JSON.stringify(message.id) : ""}`
        const sentSession = headers["mcp-session-id"] !== undefined
        const response = yield* execute(
          HttpClientRequest.post(url).pipe(
            HttpClientRequest.setHeaders(headers),
            HttpClientRequest.bodyText(body, "application/json")
          ),
          what
        )
        yield* checkSession(response, sentSession, what)
        if (!isOk(response.status)) return yield* httpFailure(response, undefined, what)
        const type = mediaType(response)
        if (isJsonType(type)) {
          const text = yield* readText(response)
          if (text.trim() !== "") yield* deliver(text, undefined, undefined)
        } else if (type === SSE) {
          yield* consume(response, undefined, { lastEventId: undefined, retry: undefined })
        }
        if (era === "legacy" && methodOf(message) === "notifications/initialized") {
          session.protocolVersion = context.protocolVersion
          if (openGetStream && !session.getStream) {
            session.getStream = true
            yield* Effect.forkIn(getStream, scope)
          }
        }
      })

    // --- the legacy GET stream -------------------------------------------------------------------------------

    type GetOutcome = "unsupported" | "failed" | "quiet" | "ended"

    const getStream = Effect.gen(function*() {
      const position: Position = { lastEventId: undefined, retry: undefined }
      let failures = 0
      while (true) {
        const outcome: GetOutcome = yield* Effect.scoped(
          Effect.gen(function*() {
            const sentSession = session.id !== undefined
            const response = yield* execute(
              HttpClientRequest.get(url).pipe(
                HttpClientRequest.setHeaders(getHeaders(session.protocolVersion, position.lastEventId))
              ),
              "the GET stream"
            )
            if (response.status === 405) return "unsupported" as const
            yield* checkSession(response, sentSession, "the GET stream")
            if (!isOk(response.status) || mediaType(response) !== SSE) {
              yield* Effect.logDebug(`mcp http: the GET stream was refused with HTTP ${response.status}`)
              return "failed" as const
            }
            let received = false
            yield* consume(
              response,
              undefined,
              position,
              Effect.sync(() => {
                received = true
              })
            )
            return received ? "ended" as const : "quiet" as const
          })
        ).pipe(Effect.catchTag("McpTransportError", () => Effect.succeed("failed" as const)))
        if (outcome === "unsupported") {
          return yield* Effect.logDebug("mcp http: the server offers no GET stream (405)")
        }
        failures = outcome === "ended" ? 0 : failures + 1
        if (failures > maxReconnects) {
          return yield* Effect.logWarning(
            `mcp http: the GET stream failed ${failures} times in a row; server-initiated messages outside requests are no longer received`
          )
        }
        yield* Effect.sleep(outcome === "ended" ? position.retry ?? reconnectDelay : backoff(failures, position))
      }
    }).pipe(Effect.catchTag("McpServerGoneError", () => Effect.void))

    const send = (message: OutboundMessage, context: SendContext) =>
      Effect.gen(function*() {
        const done = yield* Deferred.poll(ended)
        if (Option.isSome(done)) return yield* Effect.flatMap(done.value, Effect.fail)
        const body = yield* Effect.try({
          try: () => JSON.stringify(message),
          catch: (cause) => new McpTransportError({ reason: "Write", detail: "message is not serialisable", cause })
        })
        const era: Era = context.era ?? "legacy"
        const request = requestOf(message)
        if (era === "modern" && methodOf(message) === undefined) {
          // A modern server never sends requests, so it takes no responses: whatever asked is not answered.
          return yield* Effect.logDebug("mcp http: not POSTing a response to a modern server")
        }
        const headers = postHeaders(message, context, era)
        const work = request === undefined
          ? postOther(message, body, headers, context, era)
          : Effect.acquireUseRelease(
            Deferred.make<void>().pipe(Effect.tap((answered) => Effect.sync(() => awaiting.set(request.id, answered)))),
            (answered) => Effect.raceFirst(postRequest(request, body, headers, context, era), Deferred.await(answered)),
            () => Effect.sync(() => awaiting.delete(request.id))
          )
        // Interruptible even where the caller is not (the peer sends cancellations from a finalizer): the loser
        // of the race must be interruptible for the race to end.
        return yield* Effect.raceFirst(
          Effect.interruptible(work),
          Effect.interruptible(Effect.flatMap(Deferred.await(ended), Effect.fail))
        )
      })

    // Closing: in-flight sends fail with McpClosedError (their requests are aborted with their scopes), the GET
    // stream stops (it was forked later, so it is interrupted first), and the session is deleted.
    yield* Effect.addFinalizer(() =>
      Effect.gen(function*() {
        yield* endWith(new McpClosedError({}))
        const id = session.id
        if (id === undefined) return
        yield* Effect.scoped(
          execute(HttpClientRequest.del(url).pipe(HttpClientRequest.setHeaders(deleteHeaders(id))), "DELETE")
        ).pipe(Effect.interruptible, Effect.timeout(closeTimeout), Effect.ignore)
      })
    )

    const connection: Connection = {
      kind: "http",
      send,
      incoming: Mailbox.toStream(inbox),
      ended: Deferred.await(ended),
      cancelsByClosingStream: (era) => era === "modern"
    }
    return connection
  })

const isJsonRpcError = (text: string): boolean =>
  Option.match(parseJson(text), {
    onNone: () => false,
    onSome: (value) =>
      isRecord(value) && value["jsonrpc"] === "2.0" && isRecord(value["error"]) &&
      typeof value["error"]["code"] === "number"
  })
