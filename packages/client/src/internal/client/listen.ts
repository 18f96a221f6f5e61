/**
 * Subscriptions. Modern: a `subscriptions/listen` request whose notifications carry its id in `_meta`,
 * acknowledged first, re-established after the server restarts. Legacy: the unsolicited notifications, with
 * `resources/subscribe` for the URIs.
 */
import type * as Cause from "effect/Cause"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import * as Schedule from "effect/Schedule"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import type { Subscription, SubscriptionFilter } from "../../McpClient.js"
import { McpDiagnostic } from "../../McpDiagnostic.js"
import type { McpClientError } from "../../McpError.js"
import { field, type JsonObject, MetaKey, type Notification } from "../../McpSchema.js"
import type { Session } from "./connection.js"
import type { ClientContext } from "./context.js"
import { decodeFilter } from "./decode.js"
import { envelope } from "./envelope.js"
import { tokenKey } from "./progress.js"
import { covers } from "../subscriptionFilter.js"

/** A listen stream's buffer: ended (`Cause.Done`) when the subscription is over, so that its stream ends. */
type Sink = Queue.Queue<Notification, Cause.Done>

/** The subscription is over: buffered notifications are dropped and the stream ends (it does not fail). */
const closeSink = (queue: Sink) => Effect.andThen(Queue.end(queue), Queue.shutdown(queue))

interface Route {
  readonly queue: Sink
  readonly acknowledged: (granted: SubscriptionFilter) => Effect.Effect<void>
  readonly ended: Deferred.Deferred<void>
}

/**
 * One listen stream on one session, never re-established: what the server agreed to (`None` when the listen
 * failed or ended before its acknowledgement), and its notifications, ended when the stream ends. @internal
 */
export interface Opened {
  readonly acknowledged: Effect.Effect<Option.Option<SubscriptionFilter>>
  readonly notifications: Queue.Dequeue<Notification, Cause.Done>
  /** End the stream now (the listen request is cancelled); the scope's end does it too. */
  readonly close: Effect.Effect<void>
}

/** @internal */
export interface Listen {
  /** A listen stream on `session`'s connection, opened again on the next connection when one drops. */
  readonly listen: (
    session: Effect.Effect<Session, McpClientError>,
    filter: SubscriptionFilter
  ) => Effect.Effect<Subscription, McpClientError, Scope.Scope>
  /** One listen on `current`'s connection for as long as the scope (a task's notifications); its failure is reported. */
  readonly open: (current: Session, filter: SubscriptionFilter) => Effect.Effect<Opened, never, Scope.Scope>
  /** The modern list-change watcher of `watchListChanges`, for the lifetime of `session`'s link. */
  readonly watch: (current: Session, filter: SubscriptionFilter) => Effect.Effect<void, McpClientError>
  /** A notification that may belong to a listen stream (`_meta` subscription id). */
  readonly route: (notification: Notification) => Effect.Effect<void>
  /** A server ends a listen stream by cancelling the listen request. */
  readonly cancelled: (requestId: unknown) => Effect.Effect<void>
}

/** The wire form of a filter: only the fields that are set. */
const filterParams = (filter: SubscriptionFilter): JsonObject =>
  Object.fromEntries(Object.entries(filter).filter(([, value]) => value !== undefined && value !== false))

const isKey = (u: unknown): u is string | number => typeof u === "string" || typeof u === "number"

/** What a legacy server can grant of `filter`. */
const legacyGrant = (current: Session, filter: SubscriptionFilter, uris: ReadonlyArray<string>): SubscriptionFilter => {
  const caps = current.info.capabilities
  return {
    ...(filter.toolsListChanged === true && caps.tools?.listChanged === true ? { toolsListChanged: true } : {}),
    ...(filter.promptsListChanged === true && caps.prompts?.listChanged === true ? { promptsListChanged: true } : {}),
    ...(filter.resourcesListChanged === true && caps.resources?.listChanged === true
      ? { resourcesListChanged: true }
      : {}),
    ...(uris.length > 0 ? { resourceSubscriptions: uris } : {})
  }
}

/** A legacy server's unsolicited notification that `granted` covers (a legacy task status is never one). */
const legacyWanted = (granted: SubscriptionFilter) => (notification: Notification) =>
  covers(granted, notification.method, notification.params) === true

/** @internal */
export const make = (context: ClientContext): Listen => {
  const routes = new Map<string, Route>()
  const invalidate = (method: string) => context.cache.invalidate({ namespace: context.namespace, method })

  const route = (notification: Notification) => {
    const subscriptionId = field(field(notification.params, "_meta"), MetaKey.subscriptionId)
    const target = isKey(subscriptionId) ? routes.get(tokenKey(subscriptionId)) : undefined
    if (target === undefined) return Effect.void
    if (notification.method === "notifications/subscriptions/acknowledged") {
      const granted = Option.getOrElse(decodeFilter(field(notification.params, "notifications")), () => ({}))
      return target.acknowledged(granted)
    }
    return Queue.offer(target.queue, notification).pipe(Effect.asVoid)
  }

  const cancelled = (requestId: unknown) => {
    const ended = isKey(requestId) ? routes.get(tokenKey(requestId)) : undefined
    return ended === undefined ? Effect.void : Deferred.succeed(ended.ended, undefined).pipe(Effect.asVoid)
  }

  const listenModern = (
    current: Session,
    filter: SubscriptionFilter,
    onAcknowledged: (granted: SubscriptionFilter) => Effect.Effect<void>,
    queue?: Sink
  ) =>
    Effect.gen(function*() {
      const ended = yield* Deferred.make<void>()
      const sink = queue ?? (yield* Queue.sliding<Notification, Cause.Done>(context.notificationBuffer))
      let routeKey: string | undefined
      const request = current.link.peer.request(
        "subscriptions/listen",
        envelope(context, current.info, { notifications: filterParams(filter) }, undefined),
        {
          timeout: Duration.infinity,
          context: { era: current.info.era, protocolVersion: current.info.protocolVersion },
          onId: (id) => {
            routeKey = tokenKey(id)
            routes.set(routeKey, { queue: sink, acknowledged: onAcknowledged, ended })
          }
        }
      )
      return yield* Effect.raceFirst(request, Deferred.await(ended)).pipe(
        Effect.asVoid,
        Effect.ensuring(Effect.sync(() => {
          if (routeKey !== undefined) routes.delete(routeKey)
        }))
      )
    })

  const listenLegacy = (current: Session, filter: SubscriptionFilter, queue: Sink) =>
    Effect.gen(function*() {
      const uris = current.info.capabilities.resources?.subscribe === true ? filter.resourceSubscriptions ?? [] : []
      const sendContext = { era: "legacy" as const, protocolVersion: current.info.protocolVersion }
      const options = { timeout: context.requestTimeout, context: sendContext }
      for (const uri of uris) {
        yield* Effect.acquireRelease(
          current.link.peer.request("resources/subscribe", { uri }, options),
          () => current.link.peer.request("resources/unsubscribe", { uri }, options).pipe(Effect.ignore)
        )
      }
      const granted = legacyGrant(current, filter, uris)
      yield* context.notifications.subscribe.pipe(
        Stream.filter(legacyWanted(granted)),
        Stream.runForEach((notification) => Queue.offer(queue, notification)),
        // Started at once: subscribed to the notifications before this returns, so none published after is missed.
        Effect.forkScoped({ startImmediately: true })
      )
      const subscription: Subscription = { acknowledged: granted, notifications: Stream.fromQueue(queue) }
      return subscription
    })

  const listen = (
    session: Effect.Effect<Session, McpClientError>,
    filter: SubscriptionFilter
  ): Effect.Effect<Subscription, McpClientError, Scope.Scope> =>
    Effect.gen(function*() {
      const first = yield* session
      const queue = yield* Effect.acquireRelease(
        Queue.sliding<Notification, Cause.Done>(context.notificationBuffer),
        closeSink
      )
      if (first.info.era === "legacy") return yield* listenLegacy(first, filter, queue)

      const acknowledged = yield* Deferred.make<SubscriptionFilter, McpClientError>()
      const onAcknowledged = (granted: SubscriptionFilter) => Deferred.succeed(acknowledged, granted).pipe(Effect.asVoid)
      // Re-established whenever the connection drops (a restarted server keeps no subscription state);
      // what it covered may have changed unseen, so the caches it covered are dropped first.
      const covered = Effect.all([
        filter.toolsListChanged === true ? invalidate("tools/list") : Effect.void,
        filter.promptsListChanged === true ? invalidate("prompts/list") : Effect.void,
        filter.resourcesListChanged === true ? invalidate("resources/list") : Effect.void
      ], { discard: true })
      const once = Effect.flatMap(session, (current) => listenModern(current, filter, onAcknowledged, queue))
      yield* once.pipe(
        Effect.tapError((error) => error._tag === "McpServerGoneError" ? covered : Effect.void),
        Effect.retry({
          while: (error) => error._tag === "McpServerGoneError",
          schedule: Schedule.min([Schedule.exponential("100 millis"), Schedule.spaced("5 seconds")])
        }),
        Effect.tapCause((cause) => Deferred.failCause(acknowledged, cause)),
        Effect.ensuring(closeSink(queue)),
        Effect.forkScoped
      )
      const granted = yield* Deferred.await(acknowledged)
      const subscription: Subscription = { acknowledged: granted, notifications: Stream.fromQueue(queue) }
      return subscription
    })

  const watch = (current: Session, filter: SubscriptionFilter) => listenModern(current, filter, () => Effect.void)

  const open = (current: Session, filter: SubscriptionFilter): Effect.Effect<Opened, never, Scope.Scope> =>
    Effect.gen(function*() {
      const queue = yield* Effect.acquireRelease(
        Queue.sliding<Notification, Cause.Done>(context.notificationBuffer),
        closeSink
      )
      const acknowledged = yield* Deferred.make<Option.Option<SubscriptionFilter>>()
      const onAcknowledged = (granted: SubscriptionFilter) =>
        Deferred.succeed(acknowledged, Option.some(granted)).pipe(Effect.asVoid)
      const fiber = yield* listenModern(current, filter, onAcknowledged, queue).pipe(
        Effect.catch((error) =>
          context.report(McpDiagnostic.RefusedRequest({ method: "subscriptions/listen", reason: error.message }))
        ),
        // However it ends: no acknowledgement any more, and the notifications end once read.
        Effect.ensuring(Effect.andThen(Deferred.succeed(acknowledged, Option.none()), Queue.end(queue))),
        Effect.forkScoped({ startImmediately: true })
      )
      const opened: Opened = {
        acknowledged: Deferred.await(acknowledged),
        notifications: queue,
        close: Fiber.interrupt(fiber)
      }
      return opened
    })

  return { listen, watch, open, route, cancelled }
}
