/** Test server, server-initiated notifications: open subscriptions/listen requests (modern), broadcast, cancellation. */
import * as Effect from "effect/Effect"
import { isRecord, type JsonObject, MetaKey } from "../../McpSchema.js"
import { paramsOf } from "./protocol.js"
import type { ConnectionState } from "./state.js"

/** `subscriptions/listen`: acknowledged at once with everything asked; open until the client cancels it. @internal */
export const listen = (conn: ConnectionState, id: string | number, message: JsonObject): Effect.Effect<void> => {
  const asked = paramsOf(message)["notifications"]
  const filter = isRecord(asked) ? asked : {}
  conn.listens.set(id, filter)
  return conn.out.send({
    jsonrpc: "2.0",
    method: "notifications/subscriptions/acknowledged",
    params: { notifications: filter, _meta: { [MetaKey.subscriptionId]: id } }
  })
}

/** A server-initiated notification: to every open listen (modern), or as it is (legacy). @internal */
export const broadcast = (conn: ConnectionState, method: string, params: JsonObject): Effect.Effect<void> =>
  conn.era === "legacy"
    ? conn.out.send({ jsonrpc: "2.0", method, params })
    : Effect.forEach(
      [...conn.listens.keys()],
      (id) => conn.out.send({ jsonrpc: "2.0", method, params: { ...params, _meta: { [MetaKey.subscriptionId]: id } } }),
      { discard: true }
    )

/** `notifications/cancelled` of a listen closes it. @internal */
export const forget = (conn: ConnectionState, message: JsonObject): void => {
  if (message["method"] !== "notifications/cancelled") return
  const requestId = paramsOf(message)["requestId"]
  if (typeof requestId === "string" || typeof requestId === "number") conn.listens.delete(requestId)
}
