/**
 * Connection life: the link to the server (opened at once, reopened after the server died), the era settled
 * once per link, restart during the probe, and close.
 */
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"
import * as Semaphore from "effect/Semaphore"
import type * as EraResolver from "../../EraResolver.js"
import { type McpClientError, McpClosedError } from "../../McpError.js"
import type { Notification, RequestId } from "../../McpSchema.js"
import type * as McpTransport from "../../McpTransport.js"
import * as Peer from "../transport/peer.js"
import type { ClientContext } from "./context.js"
import { modernMeta } from "./envelope.js"

/** @internal */
export interface Link {
  readonly scope: Scope.Closeable
  connectionScope: Scope.Closeable
  peer: Peer.Peer
  /** The settlement in progress or done; replaced when one fails, so that the next call settles again. */
  era: Deferred.Deferred<EraResolver.EraInfo, McpClientError>
  started: boolean
  /** The settled session, once the era is known: the fast path of every call after the first. */
  settled: Session | undefined
}

/** A link whose era is settled. @internal */
export interface Session {
  readonly link: Link
  readonly info: EraResolver.EraInfo
  /** `Effect.succeed` of this session, made once. */
  readonly succeed: Effect.Effect<Session>
}

/** What the connection tells the rest of the client. @internal */
export interface Handlers {
  readonly onNotification: (notification: Notification) => Effect.Effect<void>
  readonly onAnswered: (id: RequestId) => void
  /** Once per link, after the era is settled (legacy `logging/setLevel`, the list-change watcher). */
  readonly afterHandshake: (session: Session) => Effect.Effect<void>
}

/** @internal */
export interface Connections {
  /** The current session: without the lock once the era is settled and the connection is alive. */
  readonly session: Effect.Effect<Session, McpClientError>
  /** The current link, opened (again) if needed. */
  readonly currentLink: Effect.Effect<Link, McpClientError>
  readonly close: Effect.Effect<void>
}

/** @internal */
export const makeSession = (link: Link, info: EraResolver.EraInfo): Session => {
  let succeed: Effect.Effect<Session> | undefined
  const session: Session = {
    link,
    info,
    get succeed() {
      return succeed ??= Effect.succeed(session)
    }
  }
  return session
}

const replyContext = (era: Deferred.Deferred<EraResolver.EraInfo, McpClientError>) =>
  Effect.flatMap(Deferred.poll(era), (done): Effect.Effect<McpTransport.SendContext> =>
    done._tag === "None"
      ? Effect.succeed({ era: "legacy" })
      : done.value.pipe(
        Effect.map((info): McpTransport.SendContext => ({ era: info.era, protocolVersion: info.protocolVersion })),
        Effect.orElseSucceed((): McpTransport.SendContext => ({ era: "legacy" }))
      ))

const openPeer = (
  context: ClientContext,
  handlers: Handlers,
  scope: Scope.Scope,
  era: () => Deferred.Deferred<EraResolver.EraInfo, McpClientError>
) =>
  Effect.gen(function*() {
    const connection = yield* context.transport.connect
    return yield* Peer.make({
      connection,
      onRequest: (method, params, sendContext) =>
        context.fulfiller.fulfil({ method, params }, sendContext.era ?? "legacy", context.report).pipe(
          Effect.mapError((refusal) => new Peer.RpcErrorResponse({ code: refusal.code, message: refusal.message }))
        ),
      onNotification: handlers.onNotification,
      onDiagnostic: context.report,
      onAnswered: handlers.onAnswered,
      replyContext: Effect.suspend(() => replyContext(era()))
    })
  }).pipe(Scope.provide(scope))

const openLink = (context: ClientContext, handlers: Handlers) =>
  Effect.gen(function*() {
    const scope = yield* Scope.fork(context.scope, "sequential")
    const connectionScope = yield* Scope.fork(scope, "sequential")
    const era = yield* Deferred.make<EraResolver.EraInfo, McpClientError>()
    const opening = { scope, connectionScope, era, started: false, settled: undefined }
    const peer = yield* openPeer(context, handlers, connectionScope, () => opening.era).pipe(
      Effect.tapError(() => Scope.close(scope, Exit.void))
    )
    const opened: Link = Object.assign(opening, { peer })
    return opened
  })

const restartLink = (context: ClientContext, handlers: Handlers, current: Link) =>
  Effect.gen(function*() {
    yield* Scope.close(current.connectionScope, Exit.void)
    current.connectionScope = yield* Scope.fork(current.scope, "sequential")
    current.peer = yield* openPeer(context, handlers, current.connectionScope, () => current.era)
  })

const probeContext = (context: ClientContext, handlers: Handlers, current: Link): EraResolver.ProbeContext => ({
  request: (method, params, requestOptions) =>
    current.peer.request(method, params, {
      timeout: requestOptions.timeout,
      limit: requestOptions.limit,
      cancellable: requestOptions.cancellable,
      context: { era: requestOptions.era, protocolVersion: requestOptions.protocolVersion }
    }),
  notify: (method, params, notifyOptions) => current.peer.notify(method, params, notifyOptions),
  modernMeta: (version) => modernMeta(context, version),
  initializeParams: (protocolVersion) => ({
    protocolVersion,
    capabilities: context.fulfiller.capabilities("legacy"),
    clientInfo: context.clientInfo
  }),
  restart: restartLink(context, handlers, current),
  preference: context.options.era ?? "auto",
  transportKind: current.peer.connection.kind,
  probeTimeout: context.probeTimeout,
  requestTimeout: context.requestTimeout,
  restartOnProbeExit: context.options.restartOnProbeExit ?? true,
  probeWatchdog: current.peer.connection.probeWatchdog
})

/** @internal */
export const make = (context: ClientContext, handlers: Handlers) =>
  Effect.gen(function*() {
    let link: Link | undefined
    let closed = false
    const lock = yield* Semaphore.make(1)

    const currentLink: Effect.Effect<Link, McpClientError> = lock.withPermits(1)(
      Effect.gen(function*() {
        if (closed) return yield* new McpClosedError({ reason: "close() was called" })
        if (link !== undefined) {
          if (!(yield* link.peer.isEnded)) return link
          const reason = yield* link.peer.ended
          if (context.options.restartOnExit === false || reason._tag === "McpClosedError") return yield* reason
          yield* Scope.close(link.scope, Exit.void)
        }
        link = yield* openLink(context, handlers)
        return link
      })
    )

    const forget = (current: Link) =>
      Effect.map(Deferred.make<EraResolver.EraInfo, McpClientError>(), (fresh) => {
        current.era = fresh
        current.started = false
      })

    const settle = (current: Link) => {
      const resolve = context.resolver.resolve(probeContext(context, handlers, current))
      return context.telemetry.probe(resolve).pipe(
        Effect.tap((info) => handlers.afterHandshake(makeSession(current, info))),
        Effect.onExit((exit) =>
          Exit.hasInterrupts(exit)
            ? Deferred.fail(current.era, new McpClosedError({ reason: "closed while settling the era" }))
            : Deferred.done(current.era, exit).pipe(
              // A failed settlement is not remembered: those waiting get the failure, the next call settles again.
              Effect.andThen(Exit.isFailure(exit) ? forget(current) : Effect.void)
            )
        ),
        Effect.forkIn(current.scope)
      )
    }

    const settleSession: Effect.Effect<Session, McpClientError> = Effect.gen(function*() {
      const current = yield* currentLink
      if (!current.started) {
        current.started = true
        yield* settle(current)
      }
      const info = yield* Deferred.await(current.era)
      const settled = makeSession(current, info)
      current.settled = settled
      return settled
    })

    const session: Effect.Effect<Session, McpClientError> = Effect.suspend(() => {
      const settled = link?.settled
      return settled !== undefined && !closed && settled.link === link && !settled.link.peer.hasEnded()
        ? settled.succeed
        : settleSession
    })

    const close = lock.withPermits(1)(
      Effect.suspend(() => {
        closed = true
        const current = link
        link = undefined
        return current === undefined ? Effect.void : Scope.close(current.scope, Exit.void)
      })
    )

    const connections: Connections = { session, currentLink, close }
    return connections
  })
