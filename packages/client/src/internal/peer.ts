import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Data from "effect/Data"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as FiberMap from "effect/FiberMap"
import * as MutableHashMap from "effect/MutableHashMap"
import * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import { McpDiagnostic } from "../McpDiagnostic.js"
import {
  McpClosedError,
  McpProtocolError,
  type McpServerGoneError,
  McpTimeoutError,
  type McpTransportError
} from "../McpError.js"
import {
  decodeWire,
  field,
  isRecord,
  type JsonObject,
  JsonRpcMessage,
  type Notification,
  type OutboundMessage,
  type RequestId
} from "../McpSchema.js"
import type { Connection, SendContext } from "../McpTransport.js"

/**
 * How a server-to-client request is refused: a JSON-RPC error object.
 *
 * @internal
 */
export class RpcErrorResponse extends Data.TaggedError("RpcErrorResponse")<{
  readonly code: number
  readonly message: string
  readonly data?: unknown
  readonly httpStatus?: number
}> {}

/**
 * The key under which the HTTP transport marks a JSON-RPC error response with the status of the HTTP response
 * that carried it (never sent on the wire; read into `McpProtocolError.httpStatus`).
 *
 * @internal
 */
export const HTTP_STATUS_KEY = "@mcp-effect/httpStatus"

/** @internal */
export type RequestError = McpProtocolError | McpTimeoutError | McpServerGoneError | McpClosedError | McpTransportError

/** @internal */
export interface RequestOptions {
  readonly timeout: Duration.Duration
  readonly limit?: "request" | "probe"
  readonly context: SendContext
  /** `false` for `initialize`, which must never be cancelled. */
  readonly cancellable?: boolean
  /** Told the id just before the request is written (subscriptions need it). */
  readonly onId?: (id: RequestId) => Effect.Effect<void>
}

/** @internal */
export interface Peer {
  readonly connection: Connection
  readonly request: (
    method: string,
    params: JsonObject | undefined,
    options: RequestOptions
  ) => Effect.Effect<unknown, RequestError>
  readonly notify: (
    method: string,
    params: JsonObject | undefined,
    context: SendContext
  ) => Effect.Effect<void, McpTransportError | McpServerGoneError | McpClosedError>
  /** Completes once the connection has ended and every request in flight has been failed. */
  readonly ended: Effect.Effect<McpServerGoneError | McpClosedError>
  readonly isEnded: Effect.Effect<boolean>
}

/** @internal */
export interface PeerOptions {
  readonly connection: Connection
  /** Serves a server-to-client request (everything but `ping`, which the peer answers itself). */
  readonly onRequest: (
    method: string,
    params: JsonObject | undefined,
    context: SendContext
  ) => Effect.Effect<unknown, RpcErrorResponse>
  /** Every notification, in arrival order, on the reader: must not block. */
  readonly onNotification: (notification: Notification) => Effect.Effect<void>
  readonly onDiagnostic: (diagnostic: McpDiagnostic) => Effect.Effect<void>
  /** The context replies to server requests are sent with. */
  readonly replyContext: Effect.Effect<SendContext>
  /** Told, on the reader, the moment the answer to a request arrives (before its caller resumes). */
  readonly onAnswered?: ((id: RequestId) => void) | undefined
}

const decodeMessage = decodeWire(JsonRpcMessage)

const parseFrame = (frame: string): Effect.Effect<ReadonlyArray<unknown>, string> =>
  Effect.try({ try: (): unknown => JSON.parse(frame), catch: (e) => `not JSON: ${String(e)}` }).pipe(
    // Batches were legal in 2025-03-26: accept them from such a server, never send one.
    Effect.map((value) => Array.isArray(value) ? value : [value])
  )

type AnswerError = RpcErrorResponse | McpServerGoneError | McpClosedError | McpTimeoutError

/** A request's deadline, watched by the peer's one sweeper fiber instead of a timeout race per request. */
interface Deadline {
  readonly at: number
  readonly answer: Answer
  readonly timeout: () => McpTimeoutError
}

/**
 * The answer to one request in flight: settled once, on the reader, and awaited by the request. A plain
 * callback under `Effect.async` rather than a `Deferred`: this is the hot path of every call, and a `Deferred`
 * costs several times more to make.
 */
interface Answer {
  readonly settle: (exit: Exit.Exit<unknown, AnswerError>) => void
  readonly await: Effect.Effect<unknown, AnswerError>
}

const makeAnswer = (): Answer => {
  let settled: Exit.Exit<unknown, AnswerError> | undefined
  let resume: ((effect: Effect.Effect<unknown, AnswerError>) => void) | undefined
  return {
    settle: (exit) => {
      if (settled !== undefined) return
      settled = exit
      if (resume !== undefined) resume(exit)
    },
    await: Effect.async<unknown, AnswerError>((callback) => {
      if (settled !== undefined) return callback(settled)
      resume = callback
      return Effect.sync(() => {
        resume = undefined
      })
    })
  }
}

/** @internal */
export const make = (options: PeerOptions): Effect.Effect<Peer, never, Scope.Scope> =>
  Effect.gen(function*() {
    const { connection } = options
    const pending = MutableHashMap.empty<RequestId, Answer>()
    const ended = yield* Deferred.make<McpServerGoneError | McpClosedError>()
    const serving = yield* FiberMap.make<RequestId>()
    let nextId = 0

    // Request timeouts: one sweeper sleeps (on the Clock, so TestClock drives it) until the earliest deadline and
    // fails the answers that expired. Requests with the same timeout only ever add later deadlines, so in steady
    // state it wakes about once per timeout period, not once per request. HTTP keeps `timeoutFail` (see below).
    const deadlines = new Map<RequestId, Deadline>()
    let armedFor = Infinity
    let wake = yield* Deferred.make<void>()
    yield* Effect.gen(function*() {
      while (true) {
        const now = yield* Clock.currentTimeMillis
        let next = Infinity
        for (const [id, deadline] of deadlines) {
          if (deadline.at <= now) {
            deadlines.delete(id)
            deadline.answer.settle(Exit.fail(deadline.timeout()))
          } else if (deadline.at < next) {
            next = deadline.at
          }
        }
        armedFor = next
        wake = yield* Deferred.make<void>()
        yield* next === Infinity
          ? Deferred.await(wake)
          : Effect.raceFirst(Effect.sleep(Duration.millis(next - now)), Deferred.await(wake))
      }
    }).pipe(Effect.forkScoped)

    const arm = (id: RequestId, answer: Answer, method: string, requestOptions: RequestOptions) =>
      Effect.map(Clock.currentTimeMillis, (now) => {
        const millis = Duration.toMillis(requestOptions.timeout)
        if (!Number.isFinite(millis)) return
        const at = now + millis
        deadlines.set(id, {
          at,
          answer,
          timeout: () => new McpTimeoutError({ method, limit: requestOptions.limit ?? "request", timeoutMillis: millis })
        })
        if (at < armedFor) {
          armedFor = at
          Deferred.unsafeDone(wake, Exit.void)
        }
      })

    const timedOut = (exit: Exit.Exit<unknown, unknown>) =>
      Exit.isFailure(exit) &&
      Option.exists(Cause.failureOption(exit.cause), (e) => isRecord(e) && e["_tag"] === "McpTimeoutError")

    /** A plain result for a request in flight, settled without the schema; anything else goes through it. */
    const plainResult = (value: unknown): Effect.Effect<void> | undefined => {
      if (!isRecord(value) || value["jsonrpc"] !== "2.0" || value["method"] !== undefined) return undefined
      const id = value["id"]
      const result = value["result"]
      if (value["error"] !== undefined || result === undefined || (typeof id !== "number" && typeof id !== "string")) {
        return undefined
      }
      const waiting = MutableHashMap.get(pending, id)
      if (Option.isNone(waiting)) return undefined
      return Effect.sync(() => {
        options.onAnswered?.(id)
        waiting.value.settle(Exit.succeed(result))
      })
    }

    const write = (message: OutboundMessage, context: SendContext) =>
      Effect.scoped(connection.send(message, context))

    const reply = (id: RequestId, outcome: Exit.Exit<unknown, RpcErrorResponse>) =>
      Effect.flatMap(options.replyContext, (context) =>
        write(
          Exit.match(outcome, {
            onSuccess: (result): OutboundMessage => ({ jsonrpc: "2.0", id, result }),
            onFailure: (cause): OutboundMessage => {
              const failure = Cause.failureOption(cause)
              return Option.match(failure, {
                onNone: () => ({ jsonrpc: "2.0", id, error: { code: -32603, message: "Internal error" } }),
                onSome: (e) => ({
                  jsonrpc: "2.0",
                  id,
                  error: e.data === undefined
                    ? { code: e.code, message: e.message }
                    : { code: e.code, message: e.message, data: e.data }
                })
              })
            }
          }),
          context
        )).pipe(Effect.ignore)

    const serve = (id: RequestId, method: string, params: JsonObject | undefined) =>
      method === "ping"
        ? reply(id, Exit.succeed({}))
        : Effect.flatMap(options.replyContext, (context) =>
          options.onRequest(method, params, context).pipe(
            Effect.exit,
            // Interrupted (the server cancelled its request, or we are closing): no answer at all.
            Effect.flatMap((exit) => Exit.isInterrupted(exit) ? Effect.void : reply(id, exit)),
            FiberMap.run(serving, id),
            Effect.asVoid
          ))

    const dispatch = (value: unknown): Effect.Effect<void> =>
      plainResult(value) ?? decodeMessage(value).pipe(
        Effect.matchEffect({
          onFailure: (error) =>
            options.onDiagnostic(
              McpDiagnostic.MalformedFrame({ frame: JSON.stringify(value).slice(0, 2000), reason: error.message })
            ),
          onSuccess: (message) => {
            const params = isRecord(message.params) ? message.params : undefined
            if (message.method !== undefined) {
              if (message.id !== undefined && message.id !== null) return serve(message.id, message.method, params)
              if (message.method === "notifications/cancelled") {
                const requestId = params?.["requestId"]
                if (typeof requestId === "string" || typeof requestId === "number") {
                  return FiberMap.remove(serving, requestId).pipe(
                    Effect.zipRight(options.onNotification({ method: message.method, params }))
                  )
                }
              }
              return options.onNotification({ method: message.method, params })
            }
            const id = message.id
            const waiting = id === undefined || id === null ? Option.none() : MutableHashMap.get(pending, id)
            if (Option.isNone(waiting)) return options.onDiagnostic(McpDiagnostic.UnmatchedResponse({ id }))
            if (id !== undefined && id !== null) options.onAnswered?.(id)
            const httpStatus = field(message, HTTP_STATUS_KEY)
            return Effect.sync(() =>
              waiting.value.settle(
                message.error !== undefined
                  ? Exit.fail(
                    new RpcErrorResponse(
                      typeof httpStatus === "number" ? { ...message.error, httpStatus } : message.error
                    )
                  )
                  : message.result !== undefined
                  ? Exit.succeed(message.result)
                  : Exit.fail(new RpcErrorResponse({ code: -32603, message: "response has neither result nor error" }))
              )
            )
          }
        }),
        Effect.asVoid
      )

    const onFrame = (frame: string) =>
      parseFrame(frame).pipe(
        Effect.matchEffect({
          onFailure: (reason) => options.onDiagnostic(McpDiagnostic.MalformedFrame({ frame: frame.slice(0, 2000), reason })),
          onSuccess: (values) => Effect.forEach(values, dispatch, { discard: true })
        })
      )

    /** Record why the connection ended and fail every request in flight with it (the first reason wins). */
    const end = (reason: McpServerGoneError | McpClosedError) =>
      Deferred.succeed(ended, reason).pipe(
        Effect.zipRight(Deferred.await(ended)),
        Effect.flatMap((first) =>
          Effect.sync(() => {
            for (const answer of MutableHashMap.values(pending)) answer.settle(Exit.fail(first))
          })
        )
      )

    // Reader: when the connection's stream ends, everything in flight fails with the reason it ended.
    yield* connection.incoming.pipe(
      Stream.runForEach(onFrame),
      Effect.zipRight(connection.ended),
      Effect.flatMap(end),
      Effect.forkScoped
    )
    // Closing the client fails what is still in flight with McpClosedError (runs before the reader stops).
    yield* Effect.addFinalizer(() => end(new McpClosedError({ reason: "the client was closed" })))

    const awaitAnswer = (method: string, answer: Answer) =>
      answer.await.pipe(
        Effect.mapError((e) =>
          e._tag === "RpcErrorResponse"
            ? new McpProtocolError({
              method,
              code: e.code,
              message: e.message,
              ...(e.data === undefined ? {} : { data: e.data }),
              ...(e.httpStatus === undefined ? {} : { httpStatus: e.httpStatus })
            })
            : e
        )
      )

    const request = (method: string, params: JsonObject | undefined, requestOptions: RequestOptions) =>
      Effect.suspend(() => {
        const id: RequestId = ++nextId
        const message: OutboundMessage = params === undefined
          ? { jsonrpc: "2.0", id, method }
          : { jsonrpc: "2.0", id, method, params }
        const cancellable = requestOptions.cancellable ?? true
        return Effect.acquireUseRelease(
          Effect.sync(() => {
            const answer = makeAnswer()
            MutableHashMap.set(pending, id, answer)
            return answer
          }).pipe(
            // HTTP's `send` reads the whole answer, so there the timeout must interrupt it (`timeoutFail` below).
            Effect.tap((answer) => connection.kind === "http" ? Effect.void : arm(id, answer, method, requestOptions))
          ),
          (deferred) =>
            Effect.gen(function*() {
              const alreadyEnded = yield* Deferred.poll(ended)
              if (Option.isSome(alreadyEnded)) return yield* Effect.flatMap(alreadyEnded.value, Effect.fail)
              if (requestOptions.onId !== undefined) yield* requestOptions.onId(id)
              yield* connection.send(message, requestOptions.context)
              return yield* awaitAnswer(method, deferred)
            }).pipe(Effect.scoped),
          (_, exit) =>
            Effect.suspend(() => {
              MutableHashMap.remove(pending, id)
              deadlines.delete(id)
              if (!(Exit.isInterrupted(exit) || timedOut(exit)) || !cancellable) return Effect.void
              if (requestOptions.context.era !== undefined && connection.cancelsByClosingStream(requestOptions.context.era)) {
                return Effect.void
              }
              return Deferred.isDone(ended).pipe(
                Effect.flatMap((isEnded) =>
                  isEnded ? Effect.void : write({
                    jsonrpc: "2.0",
                    method: "notifications/cancelled",
                    params: { requestId: id, reason: "request cancelled by the client" }
                  }, requestOptions.context)
                ),
                Effect.ignore
              )
            })
        ).pipe((self) =>
          connection.kind !== "http" ? self : Effect.timeoutFail(self, {
            duration: requestOptions.timeout,
            onTimeout: () =>
              new McpTimeoutError({
                method,
                limit: requestOptions.limit ?? "request",
                timeoutMillis: Duration.toMillis(requestOptions.timeout)
              })
          })
        )
      })

    const notify = (method: string, params: JsonObject | undefined, context: SendContext) =>
      Deferred.poll(ended).pipe(
        Effect.flatMap(Option.match({
          onNone: () =>
            write(params === undefined ? { jsonrpc: "2.0", method } : { jsonrpc: "2.0", method, params }, context),
          onSome: (reason) => Effect.flatMap(reason, Effect.fail)
        }))
      )

    const peer: Peer = {
      connection,
      request,
      notify,
      ended: Deferred.await(ended),
      isEnded: Deferred.isDone(ended)
    }
    return peer
  })

