/**
 * Streamable HTTP, both eras, on a `Requester` (`effect/http`'s `HttpClient`, or undici's dispatcher on Node).
 *
 * `send` of a request starts its POST (on the `Requester`, with no fiber of its own unless `fetchTimeout` bounds
 * its head) and ties it to the request's scope, then returns: the answer reaches the client through the `Receiver` (from the POST's JSON body or SSE stream, or another stream), and when the
 * client has it, or gives up, the scope closes and the HTTP request with it. The transport keeps no map of
 * requests: a POST that ends without its answer reports the request `failed`.
 *
 * - A response stream that breaks or ends before the request's response fails it with `McpServerGoneError`
 *   (the request is lost; nothing is re-sent). A legacy stream with event ids is resumed first: `GET` with
 *   `Last-Event-ID`, after the server's `retry` (or a backoff).
 * - A non-2xx answer whose body is a JSON-RPC error is handed over like any response (with the HTTP status
 *   beside it; an id-less error in a request's body is that request's); any other non-2xx fails the request
 *   with `McpTransportError({ reason: "Http", status })`; a request that reaches no server fails with
 *   `McpTransportError` without a status.
 * - Legacy sessions: `Mcp-Session-Id` from the `initialize` response goes on every later request; a 404 to a
 *   request that carried it ends the connection (`McpServerGoneError`, "session expired") so that the client
 *   opens a fresh one; `DELETE` when the connection is closed. The GET stream opens after
 *   `notifications/initialized` (405: none) and is resumed with `Last-Event-ID` when it drops.
 */
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Sse from "effect/encoding/Sse"
import * as Fiber from "effect/Fiber"
import * as FiberSet from "effect/FiberSet"
import * as HttpClient from "effect/http/HttpClient"
import * as Option from "effect/Option"
import * as Scope from "effect/Scope"
import {
  McpClosedError,
  McpInvalidResponseError,
  McpServerGoneError,
  McpTransportError
} from "../../McpError.js"
import { field, isRecord, type JsonObject, MetaKey, type OutboundMessage, type RequestId } from "../../McpSchema.js"
import type { Connection, Era, HttpOptions, MessageMeta, Receiver, SendContext, Service } from "../../McpTransport.js"
import { encodeHeaderValue } from "../mcpHeaders.js"
import { cleanErrorResponse } from "../redact.js"
import type * as requester from "./httpRequester.js"
import { fromFetch, fromHttpClient } from "./httpRequester.js"
import { PlainFetch } from "./plainFetch.js"
import { sseData } from "./httpSse.js"
import * as wire from "./httpWire.js"
import { DEFAULT_MAX_MESSAGE_BYTES } from "./lineFramer.js"
import * as ReconnectGate from "./reconnectGate.js"

interface Request {
  readonly id: RequestId
  readonly method: string
  readonly params?: JsonObject | undefined
  /** Set the moment its answer is handed over. */
  answered: boolean
}

interface Position {
  lastEventId: string | undefined
  retry: Duration.Duration | undefined
}

/** Everything one connection shares between its requests. */
interface State {
  readonly wire: wire.Wire
  readonly options: HttpOptions
  readonly scope: Scope.Scope
  readonly ended: Deferred.Deferred<McpServerGoneError | McpClosedError>
  /** What `ended` holds, once it does (read without an effect on every send). */
  endedWith: Ended | undefined
  /** Runs an effect on a fiber of the connection (the slow paths of a request: resumption, 401s, failures). */
  readonly run: (effect: Effect.Effect<void>) => Fiber.Fiber<void>
  readonly reconnectDelay: Duration.Duration
  readonly maxReconnectDelay: Duration.Duration
  readonly maxReconnects: number
  /** The largest message: JSON bodies and SSE events past it are dropped. */
  readonly maxMessageBytes: number
  /** A floor on reconnection delays and a bound on reconnections a minute, whatever `retry` says. */
  readonly gate: ReconnectGate.ReconnectGate
  /** The legacy session id, from the `initialize` response. */
  sessionId: string | undefined
  /** The negotiated legacy version, known once `notifications/initialized` went out. */
  protocolVersion: string | undefined
  getStream: boolean
  receiver: Receiver
}

type Ended = McpServerGoneError | McpClosedError

/** What fails a request's POST. */
type PostError = Parameters<Receiver["failed"]>[1]

const parseJson = (text: string): Option.Option<unknown> => {
  try {
    return Option.some(JSON.parse(text))
  } catch {
    return Option.none()
  }
}

/** Session ids are visible ASCII (0x21–0x7E). */
const isValidSessionId = (value: string) => /^[\x21-\x7e]+$/.test(value)

const requestOf = (message: OutboundMessage): Request | undefined =>
  "method" in message && "id" in message
    ? { id: message.id, method: message.method, params: message.params, answered: false }
    : undefined

const methodOf = (message: OutboundMessage): string | undefined => "method" in message ? message.method : undefined

/** The value `Mcp-Name` mirrors, for the methods that carry one. */
const nameOf = (method: string, params: JsonObject | undefined): string | undefined => {
  const value = method === "tools/call" || method === "prompts/get"
    ? params?.["name"]
    : method === "resources/read"
    ? params?.["uri"]
    : method === "tasks/get" || method === "tasks/update" || method === "tasks/cancel"
    ? params?.["taskId"] // the tasks extension (SEP-2663): routes a task's requests to the instance holding it
    : undefined
  return typeof value === "string" ? value : undefined
}

const isJsonRpcError = (value: unknown): boolean =>
  isRecord(value) && value["jsonrpc"] === "2.0" && isRecord(value["error"]) && typeof value["error"]["code"] === "number"

const backoff = (state: State, attempt: number, position: Position) =>
  position.retry ??
    Duration.min(Duration.times(state.reconnectDelay, 2 ** Math.max(0, attempt - 1)), state.maxReconnectDelay)

// --- headers ---------------------------------------------------------------------------------------------

/** The transport's headers of a POST, then the message's own (`Mcp-Param-*`). */
const postHeaders = (state: State, message: OutboundMessage, context: SendContext, era: Era) => {
  const headers: Record<string, string> = {
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
    if (state.sessionId !== undefined) headers["mcp-session-id"] = state.sessionId
    // Required on every request after initialization; `initialize` itself negotiates in its body.
    if (method !== "initialize" && context.protocolVersion !== undefined) {
      headers["mcp-protocol-version"] = context.protocolVersion
    }
  }
  return context.headers === undefined ? headers : { ...headers, ...context.headers }
}

const getHeaders = (state: State, protocolVersion: string | undefined, lastEventId: string | undefined) => {
  const headers: Record<string, string> = { "accept": wire.SSE }
  if (state.sessionId !== undefined) headers["mcp-session-id"] = state.sessionId
  if (protocolVersion !== undefined) headers["mcp-protocol-version"] = protocolVersion
  if (lastEventId !== undefined) headers["last-event-id"] = lastEventId
  return headers
}

// --- incoming --------------------------------------------------------------------------------------------

/** Is `message` the answer to `request` (an id-less error in the request's own body is)? */
const answers = (message: unknown, request: Request | undefined): boolean => {
  if (request === undefined || !isRecord(message) || message["method"] !== undefined) return false
  if (message["jsonrpc"] !== "2.0") return false
  const id = message["id"]
  return id === request.id || ((id === undefined || id === null) && isRecord(message["error"]))
}

/**
 * Hand a parsed value over; `true` when it holds the answer to `request`. The request is marked answered before
 * its answer is handed over: its caller resumes on this stack and closes the request's scope, which must then
 * leave the response to finish on its own rather than abort it.
 */
const deliverValue = (state: State, value: unknown, request: Request | undefined, status: number | undefined) => {
  const meta: MessageMeta | undefined = request === undefined ? undefined : { httpStatus: status, inReplyTo: request.id }
  const messages = Array.isArray(value) ? value : [value]
  let answered = false
  for (const message of messages) {
    if (request !== undefined && answers(message, request)) {
      answered = true
      request.answered = true
    }
    // An error may quote what was sent: no credential goes on into it, whatever the HTTP status.
    state.receiver.message(cleanErrorResponse(message, state.wire.redact), meta)
  }
  return answered
}

/** Parse one frame and hand it over (not JSON: reported as malformed); `true` when it answers `request`. */
const deliver = (state: State, text: string, request: Request | undefined, status: number | undefined) => {
  const parsed = parseJson(text)
  if (Option.isNone(parsed)) {
    state.receiver.malformed(state.wire.redact(text), "not JSON")
    return false
  }
  return deliverValue(state, parsed.value, request, status)
}

interface Consumed {
  readonly answered: boolean
  readonly broke: Option.Option<string>
  readonly oversized: boolean
}

/**
 * Read an SSE response: every event with data is handed over as it comes; `done` is told once the response to
 * `request` came (the rest of the stream is handed off to the wire, to finish on its own), or when the stream
 * ends or breaks. An event past `maxMessageBytes` ends the read as `oversized`.
 */
const consumeWith = (
  state: State,
  response: wire.WireResponse,
  request: Request | undefined,
  position: Position,
  onEvent: () => void,
  done: (consumed: Consumed) => void
): void => {
  let answered = false
  let settled = false
  const settle = (broke: Option.Option<string>, oversized = false) => {
    if (settled) return
    settled = true
    done({ answered, broke, oversized })
  }
  const status = request === undefined ? undefined : response.status
  const parser = Sse.makeParser((item) => {
    if (item._tag === "Retry") {
      position.retry = item.duration
      return
    }
    if (item.id !== undefined) position.lastEventId = item.id
    // Priming events (an id, empty data) and non-message events carry no JSON-RPC message.
    if (item.data.trim() === "" || item.event !== "message") return
    onEvent()
    if (!deliver(state, item.data, request, status) || answered) return
    answered = true
    response.handOff()
    settle(Option.none())
  }, { maxEventSize: state.maxMessageBytes })
  const decoder = new TextDecoder()
  response.read({
    onData: (chunk) => {
      const error = parser.feed(decoder.decode(chunk, { stream: true }))
      if (error === undefined) return
      response.cancel()
      // An event past maxMessageBytes: on a request's own stream it is taken as its (dropped) answer.
      settle(Option.some(error.message), /exceeded the maximum size/.test(error.message))
    },
    onEnd: () => settle(Option.none()),
    onError: (cause) => settle(Option.some(wire.describeCause(cause)))
  })
}

/** `consumeWith` as an effect (interrupted: the request is aborted). */
const consume = (
  state: State,
  response: wire.WireResponse,
  request: Request | undefined,
  position: Position,
  onEvent: () => void = () => {}
) =>
  Effect.callback<Consumed>((resume) => {
    consumeWith(state, response, request, position, onEvent, (consumed) => resume(Effect.succeed(consumed)))
    return Effect.sync(() => response.cancel())
  })

// --- connection end --------------------------------------------------------------------------------------

const endWith = (state: State, reason: Ended) =>
  Effect.suspend(() => {
    state.endedWith ??= reason
    return Deferred.succeed(state.ended, reason)
  }).pipe(Effect.asVoid)

/** A 404 to a request that carried the session id: the session is over; so is this connection. */
const checkSession = (
  state: State,
  response: wire.WireResponse,
  sentSession: boolean,
  what: string
): Effect.Effect<void, McpServerGoneError> => {
  if (response.status !== 404 || !sentSession) return Effect.void
  const error = new McpServerGoneError({
    reason: `session expired: the server answered HTTP 404 to ${what}, which carried Mcp-Session-Id`,
    stderrTail: ""
  })
  state.sessionId = undefined
  return Effect.andThen(endWith(state, error), Effect.fail(error))
}

/** A non-2xx answer: a JSON-RPC error for the request is handed over; anything else fails. */
const httpFailure = (
  state: State,
  response: wire.WireResponse,
  request: Request | undefined,
  what: string
) =>
  Effect.gen(function*() {
    const status = response.status
    const text = yield* wire.readText(response)
    if (request !== undefined) {
      // An error answer may echo what was sent: no credential goes on into the error.
      const frames = (wire.mediaType(response) === wire.SSE ? sseData(text) : [text]).map(state.wire.redact)
      let answered = false
      for (const frame of frames) {
        const value = parseJson(frame)
        if (Option.isNone(value) || !isJsonRpcError(value.value)) continue
        if (deliverValue(state, value.value, request, status)) answered = true
      }
      if (answered) return
    }
    const body = wire.excerpt(state.wire.redact(text))
    return yield* new McpTransportError({
      reason: "Http",
      status,
      detail: `${what}: HTTP ${status}${body === "" ? "" : `: ${body}`}`
    })
  })

/** The answer to `request` was past `maxMessageBytes`: a diagnostic, and the error that fails the request. */
const tooLargeError = (state: State, request: Request, bytes: number) => {
  const reason = `larger than maxMessageBytes (${state.maxMessageBytes} bytes): dropped after ${bytes} bytes`
  state.receiver.malformed(`(the answer to ${request.method}, id ${JSON.stringify(request.id)})`, reason)
  return new McpInvalidResponseError({ method: request.method, reason: `the answer was ${reason}` })
}

/** A JSON body that is not the answer to the request it came with. */
const notTheAnswer = (request: Request, status: number, text: string, redact: (text: string) => string) =>
  new McpTransportError({
    reason: "Http",
    status,
    detail: `${request.method}: the HTTP ${status} JSON body is not the response to the request: ${
      wire.excerpt(redact(text))
    }`
  })

/** How a stream that ended without the answer is described. */
const howItEnded = (consumed: Consumed) =>
  Option.match(consumed.broke, { onNone: () => "ended", onSome: (reason) => `broke (${reason})` })

const lost = (request: Request, how: string) =>
  new McpServerGoneError({
    reason: `the HTTP response stream of ${request.method} (id ${JSON.stringify(request.id)}) ${how}` +
      " before its response; the request is lost",
    stderrTail: ""
  })

// --- legacy resumption -----------------------------------------------------------------------------------

interface Resumed {
  readonly answered: boolean
  readonly broke: Option.Option<string>
  readonly final?: boolean
}

/** One `GET` with `Last-Event-ID` resuming `request`'s stream. */
const resumeOnce = (state: State, request: Request, position: Position, protocolVersion: string | undefined) =>
  Effect.scoped(
    Effect.gen(function*() {
      const sentSession = state.sessionId !== undefined
      const response = yield* state.wire.execute({
        method: "GET",
        what: `resuming ${request.method}`,
        headers: getHeaders(state, protocolVersion, position.lastEventId)
      })
      yield* checkSession(state, response, sentSession, `the GET resuming ${request.method}`)
      if (response.status === 405) {
        return { answered: false, broke: Option.some("cannot be resumed (GET: 405)"), final: true } satisfies Resumed
      }
      if (!wire.isOk(response.status) || wire.mediaType(response) !== wire.SSE) {
        return {
          answered: false,
          broke: Option.some(`could not be resumed (GET answered HTTP ${response.status})`)
        } satisfies Resumed
      }
      const outcome: Resumed = yield* consume(state, response, request, position)
      return outcome
    })
  ).pipe(
    Effect.catchTag("McpTransportError", (error) =>
      Effect.succeed<Resumed>({ answered: false, broke: Option.some(`could not be resumed (${error.detail})`) }))
  )

/**
 * Resume a legacy stream that ended before the response, after the server's `retry` or a backoff, until the
 * response comes or `maxReconnectAttempts` resumptions failed.
 */
const resume = (state: State, request: Request, position: Position, protocolVersion: string | undefined, how: string) =>
  Effect.gen(function*() {
    let failure = how
    for (let attempt = 1; attempt <= state.maxReconnects; attempt++) {
      if (position.lastEventId === undefined) break
      yield* Effect.sleep(yield* state.gate.delay(backoff(state, attempt, position)))
      const outcome = yield* resumeOnce(state, request, position, protocolVersion)
      if (outcome.answered) return
      failure = Option.getOrElse(outcome.broke, () => "ended again")
      if (outcome.final === true) break
    }
    return yield* lost(request, failure)
  })

// --- sending ---------------------------------------------------------------------------------------------

/** A request's POST failed; when the connection ended (an expired session), the end fails it instead. */
const reportFailure = (state: State, request: Request, error: PostError) => {
  if (state.endedWith === undefined) state.receiver.failed(request.id, error)
}

/** How reading a request's 2xx answer ended: answered, failed, or a legacy stream to resume. */
type AnswerOutcome =
  | { readonly _tag: "Answered" }
  | { readonly _tag: "Failed"; readonly error: PostError }
  | { readonly _tag: "Resumable"; readonly position: Position; readonly how: string }

const answered: AnswerOutcome = { _tag: "Answered" }
const failed = (error: PostError): AnswerOutcome => ({ _tag: "Failed", error })

/**
 * Read a request's 2xx answer as it comes: an SSE stream (its end without the answer is resumable when legacy
 * and it carried event ids) or a JSON body; any other content type fails. `done` is told once.
 */
const readAnswerWith = (
  state: State,
  response: wire.WireResponse,
  request: Request,
  era: Era,
  done: (outcome: AnswerOutcome) => void
): void => {
  const status = response.status
  const type = wire.mediaType(response)
  if (type === wire.SSE) {
    const position: Position = { lastEventId: undefined, retry: undefined }
    return consumeWith(state, response, request, position, () => {}, (consumed) => {
      if (consumed.answered) return done(answered)
      if (consumed.oversized) return done(failed(tooLargeError(state, request, state.maxMessageBytes)))
      const how = howItEnded(consumed)
      // Modern streams are not resumable: a dropped stream is a cancelled, lost request.
      if (era === "modern" || position.lastEventId === undefined) return done(failed(lost(request, how)))
      done({ _tag: "Resumable", position, how })
    })
  }
  if (wire.isJsonType(type)) {
    return wire.readBoundedWith(response, state.maxMessageBytes, (outcome) => {
      if ("broke" in outcome) return done(failed(lost(request, `broke (${wire.describeCause(outcome.broke)})`)))
      if ("oversized" in outcome) return done(failed(tooLargeError(state, request, outcome.oversized)))
      done(deliver(state, outcome.text, request, status) ? answered : failed(notTheAnswer(request, status, outcome.text, state.wire.redact)))
    })
  }
  done(failed(
    new McpTransportError({
      reason: "Http",
      status,
      detail: `${request.method}: HTTP ${status} with ${type === "" ? "no content type" : type}, not a JSON-RPC response`
    })
  ))
}

/** `readAnswerWith` as an effect, resuming a legacy stream that ended early (interrupted: the request is aborted). */
const readAnswer = (
  state: State,
  response: wire.WireResponse,
  request: Request,
  context: SendContext,
  era: Era
) =>
  Effect.callback<void, PostError>((resumeWith) => {
    readAnswerWith(state, response, request, era, (outcome) => {
      switch (outcome._tag) {
        case "Answered":
          return resumeWith(Effect.void)
        case "Failed":
          return resumeWith(Effect.fail(outcome.error))
        case "Resumable":
          return resumeWith(resume(state, request, outcome.position, context.protocolVersion, outcome.how))
      }
    })
    return Effect.sync(() => response.cancel())
  })

/** The legacy session id from a 2xx answer to `initialize`. */
const captureSession = (state: State, response: wire.WireResponse) => {
  const id = response.headers["mcp-session-id"]
  if (id !== undefined && isValidSessionId(id)) state.sessionId = id
}

/** What comes after a request's response head, on the effect path (see `PostExchange` for the usual one). */
const afterHead = (
  state: State,
  response: wire.WireResponse,
  request: Request,
  sentSession: boolean,
  context: SendContext,
  era: Era
) =>
  Effect.gen(function*() {
    if (era === "legacy" && request.method === "initialize" && wire.isOk(response.status)) captureSession(state, response)
    yield* checkSession(state, response, sentSession, request.method)
    if (!wire.isOk(response.status)) return yield* httpFailure(state, response, request, request.method)
    return yield* readAnswer(state, response, request, context, era)
  })

const postRequest = (
  state: State,
  request: Request,
  body: string,
  headers: Record<string, string>,
  context: SendContext,
  era: Era
) =>
  Effect.gen(function*() {
    const response = yield* state.wire.execute({
      method: "POST",
      what: request.method,
      mcpMethod: request.method,
      headers,
      body
    })
    return yield* afterHead(state, response, request, headers["mcp-session-id"] !== undefined, context, era)
  }).pipe(Effect.scoped)

/**
 * A request's POST without a fiber of its own: a 2xx answer is read as it comes, from undici's callbacks
 * (`readAnswerWith`). The rest goes on to effects on a fiber of the connection: any other status (with the
 * response as it came, through `afterHead`: an error, a 401/403 for the authorizer) and a legacy stream to
 * resume.
 */
class PostExchange {
  response: wire.WireResponse | undefined = undefined
  slow: Fiber.Fiber<void, never> | undefined = undefined

  constructor(
    readonly state: State,
    readonly request: Request,
    readonly outgoing: wire.Outgoing,
    readonly extra: Readonly<Record<string, string>>,
    readonly context: SendContext,
    readonly era: Era
  ) {}

  start() {
    this.response = this.state.wire.begin(
      this.outgoing,
      this.extra,
      (response) => this.onHead(response),
      (error) => this.fail(error)
    )
  }

  /** What the request's scope does when it closes: abort the POST unless it handed the answer over. */
  release(): Effect.Effect<void> {
    const slow = this.slow
    if (this.request.answered) return slow === undefined ? Effect.void : Effect.asVoid(Fiber.await(slow))
    this.response?.cancel()
    return slow === undefined ? Effect.void : Fiber.interrupt(slow)
  }

  private onHead(response: wire.WireResponse) {
    const { era, request, state } = this
    if (!wire.isOk(response.status)) return this.goSlow(response)
    if (era === "legacy" && request.method === "initialize") captureSession(state, response)
    readAnswerWith(state, response, request, era, (outcome) => {
      if (outcome._tag === "Failed") return this.fail(outcome.error)
      if (outcome._tag === "Resumable") {
        this.run(resume(state, request, outcome.position, this.context.protocolVersion, outcome.how))
      }
    })
  }

  /** The unusual answers: on, through the effects. */
  private goSlow(response: wire.WireResponse) {
    const { context, era, extra, outgoing, request, state } = this
    const sentSession = outgoing.headers["mcp-session-id"] !== undefined
    this.run(
      Effect.addFinalizer(() => Effect.sync(() => response.release())).pipe(
        Effect.andThen(state.wire.challenged(outgoing, extra, response)),
        Effect.flatMap((final) => afterHead(state, final, request, sentSession, context, era)),
        Effect.scoped
      )
    )
  }

  private run(effect: Effect.Effect<void, PostError>) {
    this.slow = this.state.run(Effect.catch(effect, (error) => Effect.sync(() => this.fail(error))))
  }

  private fail(error: PostError) {
    reportFailure(this.state, this.request, error)
  }
}

/** A notification or a response (legacy replies to server requests): 202 expected. */
const postOther = (
  state: State,
  message: OutboundMessage,
  body: string,
  headers: Record<string, string>,
  context: SendContext,
  era: Era
) =>
  Effect.gen(function*() {
    const method = methodOf(message)
    const what = method ?? `the response to server request ${"id" in message ? JSON.stringify(message.id) : ""}`
    const sentSession = headers["mcp-session-id"] !== undefined
    const response = yield* state.wire.execute({ method: "POST", what, mcpMethod: method, headers, body })
    yield* checkSession(state, response, sentSession, what)
    if (!wire.isOk(response.status)) return yield* httpFailure(state, response, undefined, what)
    const type = wire.mediaType(response)
    if (wire.isJsonType(type)) {
      const text = yield* wire.readText(response)
      if (text.trim() !== "") deliver(state, text, undefined, undefined)
    } else if (type === wire.SSE) {
      yield* consume(state, response, undefined, { lastEventId: undefined, retry: undefined })
    } else {
      // A 202 (no body, or one nobody reads): left to end on its own, so that its connection is kept.
      response.handOff()
    }
    if (era === "legacy" && method === "notifications/initialized") {
      state.protocolVersion = context.protocolVersion
      if ((state.options.getStream ?? true) && !state.getStream) {
        state.getStream = true
        // Started at once (Effect 4 forks start on the scheduler): the GET is under way before the next message.
        yield* Effect.forkIn(getStream(state), state.scope, { startImmediately: true })
      }
    }
  })

// --- the legacy GET stream -------------------------------------------------------------------------------

type GetOutcome = "unsupported" | "failed" | "quiet" | "ended"

const getOnce = (state: State, position: Position): Effect.Effect<GetOutcome, McpServerGoneError> =>
  Effect.scoped(
    Effect.gen(function*() {
      const sentSession = state.sessionId !== undefined
      const response = yield* state.wire.execute({
        method: "GET",
        what: "the GET stream",
        headers: getHeaders(state, state.protocolVersion, position.lastEventId)
      })
      if (response.status === 405) return "unsupported" as const
      yield* checkSession(state, response, sentSession, "the GET stream")
      if (!wire.isOk(response.status) || wire.mediaType(response) !== wire.SSE) {
        yield* Effect.logDebug(`mcp http: the GET stream was refused with HTTP ${response.status}`)
        return "failed" as const
      }
      let received = false
      yield* consume(state, response, undefined, position, () => {
        received = true
      })
      return received ? "ended" as const : "quiet" as const
    })
  ).pipe(Effect.catchTag(["McpTransportError", "McpAuthError"], () => Effect.succeed("failed" as const)))

const getStream = (state: State) =>
  Effect.gen(function*() {
    const position: Position = { lastEventId: undefined, retry: undefined }
    let failures = 0
    while (true) {
      const outcome = yield* getOnce(state, position)
      if (outcome === "unsupported") {
        return yield* Effect.logDebug("mcp http: the server offers no GET stream (405)")
      }
      failures = outcome === "ended" ? 0 : failures + 1
      if (failures > state.maxReconnects) {
        return yield* Effect.logWarning(
          `mcp http: the GET stream failed ${failures} times in a row; server-initiated messages outside requests are no longer received`
        )
      }
      yield* Effect.sleep(
        yield* state.gate.delay(outcome === "ended" ? position.retry ?? state.reconnectDelay : backoff(state, failures, position))
      )
    }
  }).pipe(Effect.catchTag("McpServerGoneError", () => Effect.void))

/**
 * A request's POST, started before `send` returns and living in the request's scope: closing it (timed out,
 * cancelled, answered on another stream) aborts it; once it handed the answer over, the rest of its stream is
 * left to finish on its own (so that its connection is kept alive). With `fetchTimeout`, the POST runs as an
 * effect on a fiber of its own, which bounds the wait for its head.
 */
const sendRequest = (
  state: State,
  request: Request,
  body: string,
  headers: Record<string, string>,
  context: SendContext,
  era: Era,
  scope: Scope.Scope
) => {
  if (state.options.fetchTimeout !== undefined) {
    return Effect.flatMap(
      postRequest(state, request, body, headers, context, era).pipe(
        Effect.catch((error) => Effect.sync(() => reportFailure(state, request, error))),
        Effect.interruptible,
        // Started at once: the POST is under way, in order, before `send` returns.
        Effect.forkDetach({ startImmediately: true })
      ),
      (fiber) => Scope.addFinalizer(scope, Effect.suspend(() => request.answered ? Fiber.await(fiber) : Fiber.interrupt(fiber)))
    )
  }
  const outgoing: wire.Outgoing = { method: "POST", what: request.method, mcpMethod: request.method, headers, body }
  return Effect.flatMap(state.wire.headersFor(outgoing), (extra) => {
    const exchange = new PostExchange(state, request, outgoing, extra, context, era)
    exchange.start()
    return Scope.addFinalizer(scope, Effect.suspend(() => exchange.release()))
  })
}

const send = (state: State) => (message: OutboundMessage, context: SendContext, scope?: Scope.Scope) =>
  Effect.suspend(() => {
    if (state.endedWith !== undefined) return Effect.fail(state.endedWith)
    let body: string
    try {
      body = JSON.stringify(message)
    } catch (cause) {
      return Effect.fail(new McpTransportError({ reason: "Write", detail: "message is not serialisable", cause }))
    }
    const era: Era = context.era ?? "legacy"
    const request = requestOf(message)
    if (era === "modern" && methodOf(message) === undefined) {
      // A modern server never sends requests, so it takes no responses: whatever asked is not answered.
      return Effect.logDebug("mcp http: not POSTing a response to a modern server")
    }
    const headers = postHeaders(state, message, context, era)
    if (request !== undefined) return sendRequest(state, request, body, headers, context, era, scope ?? state.scope)
    // Interruptible even where the caller is not (the peer sends cancellations from a finalizer).
    return Effect.raceFirst(
      Effect.interruptible(Effect.scoped(postOther(state, message, body, headers, context, era))),
      Effect.interruptible(Effect.flatMap(Deferred.await(state.ended), Effect.fail))
    )
  })

/** Closing: the GET stream stops (it was forked later, so it is interrupted first); the session is deleted. */
const close = (state: State, closeTimeout: Duration.Duration) =>
  Effect.gen(function*() {
    yield* endWith(state, new McpClosedError({}))
    state.wire.close()
    const id = state.sessionId
    if (id === undefined) return
    const headers: Record<string, string> = { "mcp-session-id": id }
    if (state.protocolVersion !== undefined) headers["mcp-protocol-version"] = state.protocolVersion
    yield* Effect.scoped(state.wire.execute({ method: "DELETE", what: "DELETE", headers })).pipe(
      Effect.interruptible,
      Effect.timeout(closeTimeout),
      Effect.ignore
    )
  })

/** Messages that come before the client listens are kept for it. */
const bufferingReceiver = (buffer: Array<(receiver: Receiver) => void>): Receiver => ({
  message: (message, meta) => buffer.push((r) => r.message(message, meta)),
  malformed: (frame, reason) => buffer.push((r) => r.malformed(frame, reason)),
  failed: (id, error) => buffer.push((r) => r.failed(id, error))
})

const connect = (requester: requester.Requester, options: HttpOptions) =>
  Effect.gen(function*() {
    const url = yield* Effect.try({
      try: () => new URL(options.url),
      catch: (cause) => new McpTransportError({ reason: "Http", detail: `invalid URL ${String(options.url)}`, cause })
    })
    const buffer: Array<(receiver: Receiver) => void> = []
    const state: State = {
      wire: wire.makeWire(requester, url, options),
      options,
      scope: yield* Effect.scope,
      ended: yield* Deferred.make<Ended>(),
      endedWith: undefined,
      run: yield* FiberSet.makeRuntime<never, void, never>(),
      reconnectDelay: Duration.fromInputUnsafe(options.reconnectDelay ?? "1 second"),
      maxReconnectDelay: Duration.fromInputUnsafe(options.maxReconnectDelay ?? "30 seconds"),
      maxReconnects: options.maxReconnectAttempts ?? 3,
      maxMessageBytes: options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES,
      gate: ReconnectGate.make(
        Duration.fromInputUnsafe(options.minReconnectDelay ?? "500 millis"),
        options.maxReconnectsPerMinute ?? 30
      ),
      sessionId: undefined,
      protocolVersion: undefined,
      getStream: false,
      receiver: bufferingReceiver(buffer)
    }
    yield* Effect.addFinalizer(() => close(state, Duration.fromInputUnsafe(options.closeTimeout ?? "2 seconds")))

    const connection: Connection = {
      kind: "http",
      send: send(state),
      receive: (receiver) =>
        Effect.sync(() => {
          state.receiver = receiver
          for (const replay of buffer.splice(0)) replay(receiver)
        }),
      ended: Deferred.await(state.ended),
      cancelsByClosingStream: (era) => era === "modern",
      holdDeadlines: options.authorizer?.holdDuring
    }
    return connection
  })

/** The transport on `requester`. @internal */
export const makeWith = (requester: requester.Requester, options: HttpOptions): Service => ({
  connect: connect(requester, options)
})

/**
 * The transport on the `HttpClient` in context (any runtime), or on `fetch` itself when the context says the
 * client is Effect's plain `FetchHttpClient` (`PlainFetch`). @internal
 */
export const make = (options: HttpOptions): Effect.Effect<Service, never, HttpClient.HttpClient> =>
  Effect.gen(function*() {
    const client = yield* HttpClient.HttpClient
    const context = yield* Effect.context<never>()
    return makeWith(Context.getOrUndefined(context, PlainFetch) === true ? fromFetch(context) : fromHttpClient(client, context), options)
  })
