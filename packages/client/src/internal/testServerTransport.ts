/**
 * The one place the testing kit touches a transport: its server behind the in-memory transport. Porting the
 * kit to another transport interface means changing this file only.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import type { Definition } from "../McpTestServer.js"
import type { JsonObject } from "../McpSchema.js"
import * as McpTransport from "../McpTransport.js"
import { type Connection, makeConnection } from "./testServer/connection.js"

/** @internal */
export const make = (
  definition: Definition,
  received: (message: JsonObject) => Effect.Effect<void>
): {
  readonly layer: Layer.Layer<McpTransport.McpTransport>
  readonly broadcast: (method: string, params: JsonObject) => Effect.Effect<void>
} => {
  // One server state per connection (a restarted connection starts afresh, as a restarted process would).
  const servers = new Map<McpTransport.MemoryPeer, Connection>()
  const layer = McpTransport.layerMemory({
    onConnect: (peer) =>
      Effect.gen(function*() {
        const server = yield* makeConnection(definition, { send: peer.send })
        servers.set(peer, server)
        yield* Effect.addFinalizer(() => Effect.sync(() => servers.delete(peer)))
      }),
    onMessage: (message, peer) => Effect.andThen(received(message), servers.get(peer)?.handle(message) ?? Effect.void)
  })
  const broadcast = (method: string, params: JsonObject) =>
    Effect.forEach([...servers.values()], (server) => server.broadcast(method, params), { discard: true })
  return { layer, broadcast }
}
