/**
 * The JSON-RPC peer over one connection: the connection's one map of requests in flight (`Correlator`), its
 * deadline sweeper, and the dispatcher of what the server sends.
 *
 * A request is one `Effect.callback` resumed from the map of ids: no fork, race, timeout, `Deferred` or span per
 * request. A request that times out or is interrupted is cancelled (`notifications/cancelled`, or for modern
 * HTTP by closing its response stream).
 */
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"
import type { McpDiagnostic } from "../../McpDiagnostic.js"
import type { McpAuthError } from "../../McpAuthError.js"
import {
  McpClosedError,
  type McpRequestError,
  type McpServerGoneError,
  McpTimeoutError,
  type McpTransportError
} from "../../McpError.js"
import type { JsonObject, Notification, OutboundMessage, RequestId } from "../../McpSchema.js"
import type { Connection, SendContext } from "../../McpTransport.js"
import { type AnswerError, Correlator, type Ended, Pending, type RequestOptions } from "./correlator.js"
import * as Deadline from "./deadline.js"
import * as Dispatcher from "./dispatcher.js"

export {
  /** @internal */
  RpcErrorResponse
} from "./dispatcher.js"
export type {
  /** @internal */
  RequestOptions
} from "./correlator.js"

/** @internal */
export type RequestError = McpRequestError

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
  ) => Effect.Effect<void, McpTransportError | McpAuthError | McpServerGoneError | McpClosedError>
  /** A progress report for request `id` came: a request whose timeout progress resets gets it afresh. */
  readonly progressed: (id: RequestId) => void
  /** Completes once the connection has ended and every request in flight has been failed. */
  readonly ended: Effect.Effect<Ended>
  readonly isEnded: Effect.Effect<boolean>
  /** `isEnded`, read synchronously. */
  readonly hasEnded: () => boolean
}

/** @internal */
export interface PeerOptions extends Dispatcher.DispatchOptions {
  readonly connection: Connection
  /** Told the moment the answer to a request arrives (before its caller resumes). */
  readonly onAnswered?: ((id: RequestId) => void) | undefined
  readonly onNotification: (notification: Notification) => Effect.Effect<void>
  readonly onDiagnostic: (diagnostic: McpDiagnostic) => Effect.Effect<void>
}

/** @internal */
export const make = (options: PeerOptions): Effect.Effect<Peer, never, Scope.Scope> =>
  Effect.gen(function*() {
    const { connection } = options
    const deadlines = yield* Deadline.make
    // An authorizer signing in holds the deadlines: the sign-in is not charged to the requests waiting on it.
    if (connection.holdDeadlines !== undefined) {
      yield* connection.holdDeadlines({ pause: deadlines.pause, resume: deadlines.resume })
    }
    const correlator = new Correlator(deadlines, options.onAnswered)
    const ended = yield* Deferred.make<Ended>()
    const scope = yield* Effect.scope
    let nextId = 0
    const scoped = connection.scopedSend !== false

    const write = (message: OutboundMessage, context: SendContext) => connection.send(message, context)
    const end = (reason: Ended) =>
      Effect.sync(() => void correlator.end(reason, (first) => Deferred.doneUnsafe(ended, Exit.succeed(first))))

    const cancel = (entry: Pending): Effect.Effect<void> => {
      const context = entry.options.context
      if (entry.options.cancellable === false || correlator.endedWith !== undefined) return Effect.void
      if (context.era !== undefined && connection.cancelsByClosingStream(context.era)) return Effect.void
      return write({
        jsonrpc: "2.0",
        method: "notifications/cancelled",
        params: { requestId: entry.id, reason: "request cancelled by the client" }
      }, context).pipe(Effect.ignore)
    }

    /**
     * The sweeper's side of a request: it ran out of time. Its cancellation is under way before its caller
     * resumes (on this stack), so a caller that closes the client at once does not take the cancellation with it.
     */
    const expire = (entry: Pending) => {
      if (entry.settled !== undefined) return
      const { maxTotal, timeout, limit } = entry.options
      const capped = maxTotal !== undefined && entry.at >= entry.started + Deadline.millisOf(maxTotal)
      const timeoutMillis = Deadline.millisOf(capped && maxTotal !== undefined ? maxTotal : timeout)
      // A stdio server that has written nothing yet is named as such: the cause is its start, not this request.
      return (connection.silentStderr ?? Effect.undefined).pipe(
        Effect.map((silentServer) =>
          new McpTimeoutError({ method: entry.method, limit: limit ?? "request", timeoutMillis, silentServer })
        ),
        // Not on the sweeper itself: a legacy HTTP cancellation is a POST. Started at once: it is written (or
        // its POST begun) before the caller resumes.
        Effect.tap(() => Effect.forkIn(cancel(entry), scope, { startImmediately: true })),
        Effect.flatMap((error) => Effect.sync(() => correlator.settle(entry, Exit.fail(error))))
      )
    }

    const dispatcher = yield* Dispatcher.make(options, correlator, write, end)
    yield* connection.receive(dispatcher.receiver)
    // Everything received before the end is handed over first, so the end is queued behind it.
    yield* connection.ended.pipe(Effect.flatMap((reason) => Effect.sync(() => dispatcher.ended(reason))), Effect.forkScoped)
    // Closing the client fails what is still in flight with McpClosedError (runs before the readers stop).
    yield* Effect.addFinalizer(() => end(new McpClosedError({ reason: "the client was closed" })))

    const answer = (entry: Pending) =>
      Effect.callback<unknown, AnswerError>((resume) => {
        if (entry.settled !== undefined) return resume(entry.settled)
        entry.resume = resume
        return Effect.suspend(() => {
          entry.resume = undefined
          if (entry.settled !== undefined) return Effect.void
          correlator.forget(entry)
          return cancel(entry)
        })
      })

    const request = (method: string, params: JsonObject | undefined, requestOptions: RequestOptions) =>
      Effect.suspend(() => {
        if (correlator.endedWith !== undefined) return Effect.fail(correlator.endedWith)
        const id: RequestId = ++nextId
        const message: OutboundMessage = params === undefined
          ? { jsonrpc: "2.0", id, method }
          : { jsonrpc: "2.0", id, method, params }
        const entry = new Pending(id, method, requestOptions, deadlines.now(), expire)
        correlator.add(entry)
        requestOptions.onId?.(id)
        // The send is not interrupted halfway; the wait for the answer is as interruptible as the caller.
        const exchange = (scope: Scope.Scope | undefined) =>
          Effect.andThen(
            Effect.uninterruptible(
              Effect.catch(connection.send(message, requestOptions.context, scope), (error) => {
                correlator.forget(entry)
                return Effect.fail(error)
              })
            ),
            answer(entry)
          )
        if (!scoped) return exchange(undefined)
        // The exchange's scope is closed however it ends; made here, it holds nothing until the send runs.
        const scope = Scope.makeUnsafe()
        return Effect.onExit(exchange(scope), (exit) => Scope.close(scope, exit))
      })

    const progressed = (id: RequestId) => {
      const entry = correlator.pending.get(id)
      const maxTotal = entry?.options.maxTotal
      if (entry === undefined || maxTotal === undefined) return
      entry.at = Math.min(
        deadlines.now() + Deadline.millisOf(entry.options.timeout),
        entry.started + Deadline.millisOf(maxTotal)
      )
    }

    const notify = (method: string, params: JsonObject | undefined, context: SendContext) =>
      Effect.suspend(() =>
        correlator.endedWith !== undefined
          ? Effect.fail(correlator.endedWith)
          : write(params === undefined ? { jsonrpc: "2.0", method } : { jsonrpc: "2.0", method, params }, context)
      )

    const peer: Peer = {
      connection,
      deadlines,
      request,
      notify,
      progressed,
      ended: Deferred.await(ended),
      isEnded: Deferred.isDone(ended),
      hasEnded: () => correlator.endedWith !== undefined
    }
    return peer
  })
