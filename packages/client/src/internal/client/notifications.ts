/**
 * Notification routing: every notification is published to `notifications`, then progress and log messages
 * go to their hooks, list changes and resource updates evict what they made stale, and listen streams get
 * theirs.
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { McpDiagnostic } from "../../McpDiagnostic.js"
import { field, type Notification } from "../../McpSchema.js"
import { runLeaf } from "../hooks.js"
import type { ClientContext } from "./context.js"
import { decodeLog } from "./decode.js"
import type { Listen } from "./listen.js"
import type { Progress } from "./progress.js"

/** The cache key params of a `resources/read`. @internal */
export const readKey = (uri: string) => JSON.stringify(uri)

/** @internal */
export const make = (context: ClientContext, progress: Progress, listen: Listen) => {
  const invalidate = (method: string, params?: string) =>
    context.cache.invalidate({ namespace: context.namespace, method, params })

  const onLog = (notification: Notification) => {
    const hook = context.options.onLog
    if (hook === undefined) return Effect.void
    return Option.match(decodeLog(notification.params), {
      onNone: () =>
        context.report(McpDiagnostic.DroppedNotification({ method: notification.method, reason: "malformed params" })),
      onSome: (message) => runLeaf(context.hookFibers, "onLog", hook, message, context.report)
    })
  }

  const route = (notification: Notification): Effect.Effect<void> => {
    const params = notification.params
    switch (notification.method) {
      case "notifications/progress":
        return progress.onNotification(params)
      case "notifications/message":
        return onLog(notification)
      case "notifications/tools/list_changed":
        return Effect.andThen(invalidate("tools/list"), listen.route(notification))
      case "notifications/prompts/list_changed":
        return Effect.andThen(invalidate("prompts/list"), listen.route(notification))
      case "notifications/resources/list_changed":
        return invalidate("resources/list").pipe(
          Effect.andThen(invalidate("resources/templates/list")),
          // Skills (SEP-2640) are resources: servers announce a changed catalogue this way.
          Effect.andThen(invalidate("skills/list")),
          Effect.andThen(invalidate("skills/get")),
          Effect.andThen(invalidate("resources/directory/read")),
          Effect.andThen(listen.route(notification))
        )
      case "notifications/resources/updated": {
        const uri = field(params, "uri")
        return typeof uri === "string"
          ? Effect.andThen(invalidate("resources/read", readKey(uri)), listen.route(notification))
          : listen.route(notification)
      }
      case "notifications/cancelled":
        return listen.cancelled(field(params, "requestId"))
      default:
        return listen.route(notification)
    }
  }

  return (notification: Notification): Effect.Effect<void> =>
    Effect.suspend(() => {
      // Counted before anyone hears of it: a call made on hearing it already sees the listing as stale.
      if (notification.method === "notifications/tools/list_changed") context.listChanges.tools++
      return context.notifications.publish(notification).pipe(Effect.andThen(route(notification)))
    })
}
