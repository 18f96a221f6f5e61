/** Test server, one connection: its state made once, and each incoming message handed to the part that serves it. */
import * as Effect from "effect/Effect"
import type { JsonObject } from "../../McpSchema.js"
import type { Definition } from "../../McpTestServer.js"
import { answerPending } from "./context.js"
import { broadcast, forget, listen } from "./listen.js"
import type { Outbound } from "./protocol.js"
import { route } from "./route.js"
import * as State from "./state.js"

/** One connection's server, as the transport adapter sees it. @internal */
export interface Connection {
  readonly handle: (message: JsonObject) => Effect.Effect<void>
  readonly broadcast: (method: string, params: JsonObject) => Effect.Effect<void>
}

const handle = (conn: State.ConnectionState, message: JsonObject): Effect.Effect<void> => {
  const method = message["method"]
  const id = message["id"]
  if (typeof method !== "string") return answerPending(conn, message)
  if (id === undefined) return Effect.void
  if (method === "subscriptions/listen" && conn.era === "modern" && (typeof id === "string" || typeof id === "number")) {
    return listen(conn, id, message)
  }
  return route(conn, method, message).pipe(
    Effect.matchEffect({
      onFailure: (failure) => conn.out.send({ jsonrpc: "2.0", id, error: { code: failure.code, message: failure.message } }),
      onSuccess: (result) => conn.out.send({ jsonrpc: "2.0", id, result })
    })
  )
}

/** One connection's server: its state lives as long as the connection. @internal */
export const makeConnection = (definition: Definition, out: Outbound): Effect.Effect<Connection> =>
  Effect.map(State.make(definition, out), (conn) => ({
    handle: (message: JsonObject) => Effect.andThen(Effect.sync(() => forget(conn, message)), handle(conn, message)),
    broadcast: (method: string, params: JsonObject) => broadcast(conn, method, params)
  }))
