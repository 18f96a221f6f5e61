/**
 * The JSON-RPC peer over one connection: the one map of requests in flight, correlation of answers, the
 * connection's deadline sweeper, serving server-to-client requests and handing notifications on.
 *
 * A request is one `Effect.async` resumed from the map of ids: no fork, race, timeout, `Deferred` or span per
 * request. Answers are settled right on the transport's reader; anything that needs an effect (notifications,
 * server requests, malformed frames) goes through one dispatcher fiber, and while it has a backlog answers
 * queue behind it, so a progress notification is always handled before the answer that follows it.
 */
import * as Cause from "effect/Cause"
import * as Data from "effect/Data"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as FiberMap from "effect/FiberMap"
import * as FiberSet from "effect/FiberSet"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import type * as Scope from "effect/Scope"
import { McpDiagnostic } from "../../McpDiagnostic.js"
import {
  McpClosedError,
  McpProtocolError,
  McpServerGoneError,
  McpTimeoutError,
  McpTransportError
} from "../../McpError.js"
import {
  decodeWire,
  isRecord,
  type JsonObject,
  JsonRpcMessage,
  type Notification,
  type OutboundMessage,
  type RequestId
} from "../../McpSchema.js"
import type { Connection, MessageMeta, Receiver, SendContext } from "../../McpTransport.js"
import * as Deadline from "./deadline.js"

/**
 * How a server-to-client request is refused: a JSON-RPC error object.
 *
 * @internal
 */
export class RpcErrorResponse extends Data.TaggedError("RpcErrorResponse")<{
  readonly code: number
  readonly message: string
  readonly data?: unknown
}> {}

/** @internal */
export type RequestError = McpProtocolError | McpTimeoutError | McpServerGoneError | McpClosedError | McpTransportError

/** @internal */
export interface RequestOptions {
  readonly timeout: Duration.Duration
  readonly limit?: "request" | "probe" | undefined
  readonly context: SendContext
  /** `false` for `initialize`, which must never be cancelled. */
  readonly cancellable?: boolean | undefined
  /** Told the id just before the request is written (subscriptions, progress tokens). */
  readonly onId?: ((id: RequestId) => void) | undefined
  /** Progress resets the timeout (see `progressed`), up to this hard limit from the start. */
  readonly maxTotal?: Duration.Duration | undefined
}

/** @internal */
export interface Peer {
  readonly connection: Connection
  readonly deadlines: Deadline.Deadlines
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
  /** A progress report for request `id` came: a request whose timeout progress resets gets it afresh. */
  readonly progressed: (id: RequestId) => void
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
  /** Every notification, in arrival order, on the dispatcher: must not block. */
  readonly onNotification: (notification: Notification) => Effect.Effect<void>
  readonly onDiagnostic: (diagnostic: McpDiagnostic) => Effect.Effect<void>
  /** The context replies to server requests are sent with. */
  readonly replyContext: Effect.Effect<SendContext>
  /** Told the moment the answer to a request arrives (before its caller resumes). */
  readonly onAnswered?: ((id: RequestId) => void) | undefined
}

type AnswerError = McpProtocolError | McpServerGoneError | McpClosedError | McpTimeoutError | McpTransportError
type Ended = McpServerGoneError | McpClosedError

/** One request in flight: its own deadline timer, settled once. */
class Pending implements Deadline.Timer {
  at: number
  resume: ((effect: Effect.Effect<unknown, AnswerError>) => void) | undefined = undefined
  settled: Exit.Exit<unknown, AnswerError> | undefined = undefined
  constructor(
    readonly id: RequestId,
    readonly method: string,
    readonly options: RequestOptions,
    readonly started: number,
    private readonly onExpire: (entry: Pending) => Effect.Effect<void> | void
  ) {
    this.at = started + Duration.toMillis(options.timeout)
  }
  expire(): Effect.Effect<void> | void {
    return this.onExpire(this)
  }
}

/** Something the dispatcher fiber handles, in arrival order. */
type Item =
  | { readonly _tag: "Message"; readonly message: unknown; readonly meta: MessageMeta | undefined }
  | { readonly _tag: "Malformed"; readonly frame: string; readonly reason: string }
  | { readonly _tag: "Failed"; readonly id: RequestId; readonly error: McpTransportError | McpServerGoneError }
  | { readonly _tag: "End"; readonly reason: Ended }

const decodeMessage = decodeWire(JsonRpcMessage)

const isId = (u: unknown): u is RequestId => typeof u === "string" || typeof u === "number"

const protocolError = (
  method: string,
  error: { readonly code: number; readonly message: string; readonly data?: unknown },
  httpStatus: number | undefined
) =>
  new McpProtocolError({
    method,
    code: error.code,
    message: error.message,
    ...(error.data === undefined ? {} : { data: error.data }),
    ...(httpStatus === undefined ? {} : { httpStatus })
  })

const replyMessage = (id: RequestId, outcome: Exit.Exit<unknown, RpcErrorResponse>): OutboundMessage =>
  Exit.match(outcome, {
    onSuccess: (result): OutboundMessage => ({ jsonrpc: "2.0", id, result }),
    onFailure: (cause): OutboundMessage =>
      Option.match(Cause.failureOption(cause), {
        onNone: () => ({ jsonrpc: "2.0", id, error: { code: -32603, message: "Internal error" } }),
        onSome: (e) => ({
          jsonrpc: "2.0",
          id,
          error: e.data === undefined ? { code: e.code, message: e.message } : { code: e.code, message: e.message, data: e.data }
        })
      })
  })

/** @internal */
export const make = (options: PeerOptions): Effect.Effect<Peer, never, Scope.Scope> =>
  Effect.gen(function*() {
    const { connection } = options
    const deadlines = yield* Deadline.make
    const pending = new Map<RequestId, Pending>()
    const ended = yield* Deferred.make<Ended>()
    let endedWith: Ended | undefined
    const serving = yield* FiberMap.make<RequestId>()
    const background = yield* FiberSet.make()
    const inbox = yield* Queue.unbounded<Item>()
    let backlog = 0
    let nextId = 0

    // --- settling ----------------------------------------------------------------------------------------

    const settle = (entry: Pending, exit: Exit.Exit<unknown, AnswerError>) => {
      if (entry.settled !== undefined) return
      entry.settled = exit
      pending.delete(entry.id)
      deadlines.remove(entry)
      const resume = entry.resume
      if (resume !== undefined) {
        entry.resume = undefined
        resume(exit)
      }
    }

    const write = (message: OutboundMessage, context: SendContext) => Effect.scoped(connection.send(message, context))

    const cancel = (entry: Pending): Effect.Effect<void> => {
      const context = entry.options.context
      if (entry.options.cancellable === false || endedWith !== undefined) return Effect.void
      if (context.era !== undefined && connection.cancelsByClosingStream(context.era)) return Effect.void
      return write({
        jsonrpc: "2.0",
        method: "notifications/cancelled",
        params: { requestId: entry.id, reason: "request cancelled by the client" }
      }, context).pipe(Effect.ignore)
    }

    /** The sweeper's side of a request: it ran out of time. */
    const expire = (entry: Pending) => {
      if (entry.settled !== undefined) return
      const timeout = entry.options.maxTotal !== undefined && entry.at >= entry.started + Duration.toMillis(entry.options.maxTotal)
        ? Duration.toMillis(entry.options.maxTotal)
        : Duration.toMillis(entry.options.timeout)
      settle(entry, Exit.fail(new McpTimeoutError({ method: entry.method, limit: entry.options.limit ?? "request", timeoutMillis: timeout })))
      // Not on the sweeper itself: a legacy HTTP cancellation is a POST.
      return FiberSet.run(background, cancel(entry)).pipe(Effect.asVoid)
    }

    // --- the reader ----------------------------------------------------------------------------------------

    /** A plain answer to a request in flight, settled right here; `false` when the dispatcher must see it. */
    const settleAnswer = (value: unknown, meta: MessageMeta | undefined): boolean => {
      if (!isRecord(value) || value["jsonrpc"] !== "2.0" || value["method"] !== undefined) return false
      let id = value["id"]
      const error = value["error"]
      if ((id === undefined || id === null) && error !== undefined) id = meta?.inReplyTo
      if (!isId(id)) return false
      const entry = pending.get(id)
      if (entry === undefined) return false
      if (error !== undefined) {
        if (!isRecord(error) || typeof error["code"] !== "number" || typeof error["message"] !== "string") return false
        options.onAnswered?.(id)
        settle(entry, Exit.fail(protocolError(entry.method, error as { code: number; message: string }, meta?.httpStatus)))
        return true
      }
      if (value["result"] === undefined) return false
      options.onAnswered?.(id)
      settle(entry, Exit.succeed(value["result"]))
      return true
    }

    const enqueue = (item: Item) => {
      backlog++
      Queue.unsafeOffer(inbox, item)
    }

    const receiver: Receiver = {
      message: (message, meta) => {
        if (backlog === 0 && settleAnswer(message, meta)) return
        enqueue({ _tag: "Message", message, meta })
      },
      malformed: (frame, reason) => enqueue({ _tag: "Malformed", frame, reason }),
      failed: (id, error) => enqueue({ _tag: "Failed", id, error })
    }

    // --- the dispatcher ------------------------------------------------------------------------------------

    const reply = (id: RequestId, outcome: Exit.Exit<unknown, RpcErrorResponse>) =>
      Effect.flatMap(options.replyContext, (context) => write(replyMessage(id, outcome), context)).pipe(Effect.ignore)

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

    const onMessage = (value: unknown, meta: MessageMeta | undefined): Effect.Effect<void> => {
      if (settleAnswer(value, meta)) return Effect.void
      return decodeMessage(value).pipe(
        Effect.matchEffect({
          onFailure: (error) =>
            options.onDiagnostic(
              McpDiagnostic.MalformedFrame({ frame: JSON.stringify(value).slice(0, 2000), reason: error.message })
            ),
          onSuccess: (message) => {
            const params = isRecord(message.params) ? message.params : undefined
            if (message.method === undefined) {
              // Not settled above: nobody waits for it, or it has neither result nor error.
              const entry = isId(message.id) ? pending.get(message.id) : undefined
              if (entry === undefined) return options.onDiagnostic(McpDiagnostic.UnmatchedResponse({ id: message.id }))
              return Effect.sync(() =>
                settle(
                  entry,
                  Exit.fail(protocolError(entry.method, { code: -32603, message: "response has neither result nor error" }, undefined))
                )
              )
            }
            if (message.id !== undefined && message.id !== null) return serve(message.id, message.method, params)
            const notification = { method: message.method, params }
            if (message.method === "notifications/cancelled" && isId(params?.["requestId"])) {
              return FiberMap.remove(serving, params["requestId"]).pipe(
                Effect.zipRight(options.onNotification(notification))
              )
            }
            return options.onNotification(notification)
          }
        })
      )
    }

    /** Record why the connection ended and fail every request in flight with it (the first reason wins). */
    const end = (reason: Ended) =>
      Effect.suspend(() => {
        if (endedWith === undefined) endedWith = reason
        const first = endedWith
        for (const entry of pending.values()) settle(entry, Exit.fail(first))
        return Deferred.succeed(ended, first)
      })

    const handle = (item: Item): Effect.Effect<void> => {
      switch (item._tag) {
        case "Message":
          return onMessage(item.message, item.meta)
        case "Malformed":
          return options.onDiagnostic(McpDiagnostic.MalformedFrame({ frame: item.frame.slice(0, 2000), reason: item.reason }))
        case "Failed": {
          const entry = pending.get(item.id)
          return entry === undefined ? Effect.void : Effect.sync(() => settle(entry, Exit.fail(item.error)))
        }
        case "End":
          return end(item.reason)
      }
    }

    yield* Queue.take(inbox).pipe(
      Effect.flatMap((item) => Effect.ensuring(handle(item), Effect.sync(() => backlog--))),
      Effect.forever,
      Effect.forkScoped
    )
    yield* connection.receive(receiver)
    // Everything received before the end is handed over first, so it is queued after it.
    yield* connection.ended.pipe(
      Effect.flatMap((reason) => Effect.sync(() => enqueue({ _tag: "End", reason }))),
      Effect.forkScoped
    )
    // Closing the client fails what is still in flight with McpClosedError (runs before the readers stop).
    yield* Effect.addFinalizer(() => end(new McpClosedError({ reason: "the client was closed" })))

    // --- requests ------------------------------------------------------------------------------------------

    const forget = (entry: Pending) => {
      pending.delete(entry.id)
      deadlines.remove(entry)
    }

    const answer = (entry: Pending) =>
      Effect.async<unknown, AnswerError>((resume) => {
        if (entry.settled !== undefined) return resume(entry.settled)
        entry.resume = resume
        return Effect.suspend(() => {
          entry.resume = undefined
          if (entry.settled !== undefined) return Effect.void
          forget(entry)
          return cancel(entry)
        })
      })

    const request = (method: string, params: JsonObject | undefined, requestOptions: RequestOptions) =>
      Effect.suspend(() => {
        if (endedWith !== undefined) return Effect.fail(endedWith)
        const id: RequestId = ++nextId
        const message: OutboundMessage = params === undefined
          ? { jsonrpc: "2.0", id, method }
          : { jsonrpc: "2.0", id, method, params }
        const current = new Pending(id, method, requestOptions, deadlines.now(), expire)
        pending.set(id, current)
        deadlines.add(current)
        requestOptions.onId?.(id)
        return Effect.uninterruptibleMask((restore) =>
          connection.send(message, requestOptions.context).pipe(
            Effect.catchAll((error) => {
              forget(current)
              return Effect.fail(error)
            }),
            Effect.zipRight(restore(answer(current)))
          )
        ).pipe(Effect.scoped)
      })

    const progressed = (id: RequestId) => {
      const entry = pending.get(id)
      const maxTotal = entry?.options.maxTotal
      if (entry === undefined || maxTotal === undefined) return
      entry.at = Math.min(deadlines.now() + Duration.toMillis(entry.options.timeout), entry.started + Duration.toMillis(maxTotal))
    }

    const notify = (method: string, params: JsonObject | undefined, context: SendContext) =>
      Effect.suspend(() =>
        endedWith !== undefined
          ? Effect.fail(endedWith)
          : write(params === undefined ? { jsonrpc: "2.0", method } : { jsonrpc: "2.0", method, params }, context)
      )

    const peer: Peer = {
      connection,
      deadlines,
      request,
      notify,
      progressed,
      ended: Deferred.await(ended),
      isEnded: Deferred.isDone(ended)
    }
    return peer
  })
