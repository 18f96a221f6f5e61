/**
 * Test server, server-initiated notifications: open subscriptions/listen requests (modern, task ids included),
 * broadcast, cancellation.
 */
import * as Effect from "effect/Effect"
import { isRecord, type JsonObject, MetaKey } from "../../McpSchema.js"
import { TASKS_EXTENSION } from "./capabilities.js"
import { clientTakesTasks, grantTaskIds, sendTask } from "./modernTasks.js"
import { covers } from "../subscriptionFilter.js"
import { paramsOf } from "./protocol.js"
import type { ConnectionState } from "./state.js"

/** The answer to a listen asking for task notifications from a client that did not declare the tasks extension. */
const missingTasksCapability = (id: string | number): JsonObject => ({
  jsonrpc: "2.0",
  id,
  error: {
    code: -32021,
    message: "Missing required client capability",
    data: { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } }
  }
})

/**
 * `subscriptions/listen`: acknowledged at once with everything asked, but of `taskIds` only the connection's
 * tasks (see `grantTaskIds`), whose current status follows the acknowledgement; open until the client cancels it.
 * @internal
 */
export const listen = (conn: ConnectionState, id: string | number, message: JsonObject): Effect.Effect<void> => {
  const params = paramsOf(message)
  const asked = isRecord(params["notifications"]) ? params["notifications"] : {}
  if (asked["taskIds"] !== undefined && !clientTakesTasks(params)) return conn.out.send(missingTasksCapability(id))
  const taskIds = asked["taskIds"] === undefined ? undefined : grantTaskIds(conn, asked["taskIds"])
  const filter = taskIds === undefined ? asked : { ...asked, taskIds }
  conn.listens.set(id, filter)
  return conn.out.send({
    jsonrpc: "2.0",
    method: "notifications/subscriptions/acknowledged",
    params: { notifications: filter, _meta: { [MetaKey.subscriptionId]: id } }
  }).pipe(
    Effect.andThen(Effect.forEach(taskIds ?? [], (taskId) => {
      const state = conn.modernTasks.get(taskId)
      return state === undefined ? Effect.void : sendTask(conn, id, state)
    }, { discard: true }))
  )
}

/**
 * A server-initiated notification: to every open listen whose filter covers it (modern), or as it is (legacy).
 * @internal
 */
export const broadcast = (conn: ConnectionState, method: string, params: JsonObject): Effect.Effect<void> =>
  conn.era === "legacy"
    ? conn.out.send({ jsonrpc: "2.0", method, params })
    : Effect.forEach(
      // Another method (one no filter field speaks of) goes to every listen.
      [...conn.listens].filter(([, filter]) => covers(filter, method, params) ?? true),
      ([id]) => conn.out.send({ jsonrpc: "2.0", method, params: { ...params, _meta: { [MetaKey.subscriptionId]: id } } }),
      { discard: true }
    )

/** `notifications/cancelled` of a listen closes it. @internal */
export const forget = (conn: ConnectionState, message: JsonObject): void => {
  if (message["method"] !== "notifications/cancelled") return
  const requestId = paramsOf(message)["requestId"]
  if (typeof requestId === "string" || typeof requestId === "number") conn.listens.delete(requestId)
}
