/**
 * What the server sends, in arrival order. Answers are settled right on the transport's reader while nothing
 * is queued; everything else (notifications, server requests, malformed frames, transport failures, the end)
 * goes through one fiber, and while it has a backlog answers queue behind it, so a progress notification is
 * always handled before the answer that follows it.
 */
import * as Cause from "effect/Cause"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as FiberMap from "effect/FiberMap"
import * as Option from "effect/Option"
import * as Scope from "effect/Scope"
import { McpDiagnostic } from "../../McpDiagnostic.js"
import type { McpAuthError } from "../../McpAuthError.js"
import { McpInvalidResponseError, type McpServerGoneError, type McpTransportError } from "../../McpError.js"
import {
  decodeWire,
  isRecord,
  isRequestId,
  type JsonObject,
  JsonRpcMessage,
  type Notification,
  type OutboundMessage,
  type RequestId
} from "../../McpSchema.js"
import type { MessageMeta, Receiver, SendContext } from "../../McpTransport.js"
import { type Correlator, type Ended, protocolError } from "./correlator.js"

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
export interface DispatchOptions {
  /** Serves a server-to-client request (everything but `ping`, which is answered here). */
  readonly onRequest: (
    method: string,
    params: JsonObject | undefined,
    context: SendContext
  ) => Effect.Effect<unknown, RpcErrorResponse>
  /** Every notification, in arrival order: must not block. */
  readonly onNotification: (notification: Notification) => Effect.Effect<void>
  readonly onDiagnostic: (diagnostic: McpDiagnostic) => Effect.Effect<void>
  /** The context replies to server requests are sent with. */
  readonly replyContext: Effect.Effect<SendContext>
}

/** Something the dispatcher handles, in arrival order. */
type Item =
  | { readonly _tag: "Message"; readonly message: unknown; readonly meta: MessageMeta | undefined }
  | { readonly _tag: "Malformed"; readonly frame: string; readonly reason: string }
  | {
    readonly _tag: "Failed"
    readonly id: RequestId
    readonly error: McpTransportError | McpAuthError | McpServerGoneError | McpInvalidResponseError
  }
  | { readonly _tag: "End"; readonly reason: Ended }

const decodeMessage = decodeWire(JsonRpcMessage)


const replyMessage = (id: RequestId, outcome: Exit.Exit<unknown, RpcErrorResponse>): OutboundMessage =>
  Exit.match(outcome, {
    onSuccess: (result): OutboundMessage => ({ jsonrpc: "2.0", id, result }),
    onFailure: (cause): OutboundMessage =>
      Option.match(Cause.findErrorOption(cause), {
        onNone: () => ({ jsonrpc: "2.0", id, error: { code: -32603, message: "Internal error" } }),
        onSome: (e) => ({
          jsonrpc: "2.0",
          id,
          error: e.data === undefined ? { code: e.code, message: e.message } : { code: e.code, message: e.message, data: e.data }
        })
      })
  })

/** @internal */
export interface Dispatcher {
  readonly receiver: Receiver
  /** The connection ended: fail what is in flight once everything before is handled. */
  readonly ended: (reason: Ended) => void
}

/** @internal */
export const make = (
  options: DispatchOptions,
  correlator: Correlator,
  write: (message: OutboundMessage, context: SendContext) => Effect.Effect<void, unknown>,
  onEnd: (reason: Ended) => Effect.Effect<void>
): Effect.Effect<Dispatcher, never, Scope.Scope> =>
  Effect.gen(function*() {
    // The server's requests being served, by id (a cancellation interrupts one), in this scope; made for the
    // first of them: most connections never get one.
    const scope = yield* Effect.scope
    let serving: FiberMap.FiberMap<RequestId> | undefined
    const servingMap = Effect.suspend(() =>
      serving !== undefined
        ? Effect.succeed(serving)
        : Effect.map(Scope.provide(FiberMap.make<RequestId>(), scope), (made) => (serving ??= made))
    )
    let backlog = 0

    const reply = (id: RequestId, outcome: Exit.Exit<unknown, RpcErrorResponse>) =>
      Effect.flatMap(options.replyContext, (context) => write(replyMessage(id, outcome), context)).pipe(Effect.ignore)

    const serve = (id: RequestId, method: string, params: JsonObject | undefined) =>
      method === "ping"
        ? reply(id, Exit.succeed({}))
        : Effect.flatMap(options.replyContext, (context) =>
          Effect.flatMap(servingMap, (map) =>
            options.onRequest(method, params, context).pipe(
              Effect.exit,
              // Interrupted (the server cancelled its request, or we are closing): no answer at all.
              Effect.flatMap((exit) => Exit.hasInterrupts(exit) ? Effect.void : reply(id, exit)),
              FiberMap.run(map, id),
              Effect.asVoid
            )))

    /** A response nobody could settle: unmatched, or with neither result nor error. */
    const unsettled = (id: RequestId | null | undefined) => {
      const entry = isRequestId(id) ? correlator.pending.get(id) : undefined
      if (entry === undefined) return options.onDiagnostic(McpDiagnostic.UnmatchedResponse({ id }))
      return Effect.sync(() =>
        correlator.settle(
          entry,
          Exit.fail(protocolError(entry.method, -32603, "response has neither result nor error", undefined, undefined))
        )
      )
    }

    const onMessage = (value: unknown, meta: MessageMeta | undefined): Effect.Effect<void> => {
      if (correlator.settleAnswer(value, meta)) return Effect.void
      return decodeMessage(value).pipe(
        Effect.matchEffect({
          onFailure: (error) =>
            options.onDiagnostic(
              McpDiagnostic.MalformedFrame({ frame: JSON.stringify(value).slice(0, 2000), reason: error.message })
            ),
          onSuccess: (message) => {
            if (message.method === undefined) return unsettled(message.id)
            const params = isRecord(message.params) ? message.params : undefined
            if (message.id !== undefined && message.id !== null) return serve(message.id, message.method, params)
            const notification = { method: message.method, params }
            const cancelled = message.method === "notifications/cancelled" ? params?.["requestId"] : undefined
            return isRequestId(cancelled)
              ? Effect.andThen(
                serving === undefined ? Effect.void : FiberMap.remove(serving, cancelled),
                options.onNotification(notification)
              )
              : options.onNotification(notification)
          }
        })
      )
    }

    const handle = (item: Item): Effect.Effect<void> => {
      switch (item._tag) {
        case "Message":
          return onMessage(item.message, item.meta)
        case "Malformed":
          return options.onDiagnostic(McpDiagnostic.MalformedFrame({ frame: item.frame.slice(0, 2000), reason: item.reason }))
        case "Failed": {
          const entry = correlator.pending.get(item.id)
          if (entry === undefined) return Effect.void
          // A transport that dropped an answer does not know which method it answered; the request does.
          const error = item.error._tag === "McpInvalidResponseError"
            ? new McpInvalidResponseError({ method: entry.method, reason: item.error.reason })
            : item.error
          return Effect.sync(() => correlator.settle(entry, Exit.fail(error)))
        }
        case "End":
          return onEnd(item.reason)
      }
    }

    // The items wait in an array; a fiber drains it while it is not empty and ends when it is (no fiber, no
    // queue while the connection is quiet, which is most of its life).
    let inbox: Array<Item | undefined> = []
    let head = 0
    let draining: Fiber.Fiber<void> | undefined
    let closed = false
    const runFork = Effect.runForkWith(yield* Effect.context<never>())
    const drain: Effect.Effect<void> = Effect.suspend(() => {
      const item = inbox[head]
      if (item === undefined) {
        inbox = []
        head = 0
        draining = undefined
        return Effect.void
      }
      inbox[head++] = undefined
      return Effect.andThen(Effect.ensuring(handle(item), Effect.sync(() => backlog--)), drain)
    })
    yield* Effect.addFinalizer(() =>
      Effect.suspend(() => {
        closed = true
        return draining === undefined ? Effect.void : Fiber.interrupt(draining)
      })
    )

    const enqueue = (item: Item) => {
      if (closed) return
      backlog++
      inbox.push(item)
      // Handled on the scheduler's next turn, not on the caller's stack (the transport's reader).
      draining ??= runFork(Effect.andThen(Effect.yieldNow, drain))
    }

    const receiver: Receiver = {
      message: (message, meta) => {
        if (backlog === 0 && correlator.settleAnswer(message, meta)) return
        enqueue({ _tag: "Message", message, meta })
      },
      malformed: (frame, reason) => enqueue({ _tag: "Malformed", frame, reason }),
      failed: (id, error) => enqueue({ _tag: "Failed", id, error })
    }
    const dispatcher: Dispatcher = { receiver, ended: (reason) => enqueue({ _tag: "End", reason }) }
    return dispatcher
  })
