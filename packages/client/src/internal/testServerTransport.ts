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
import { makeConnection } from "./testServer.js"

/** @internal */
export const layer = (
  definition: Definition,
  received: (message: JsonObject) => Effect.Effect<void>
): Layer.Layer<McpTransport.McpTransport> => {
  // One server state per connection (a restarted connection starts afresh, as a restarted process would).
  const servers = new WeakMap<McpTransport.MemoryPeer, (message: JsonObject) => Effect.Effect<void>>()
  return McpTransport.layerMemory({
    onConnect: (peer) =>
      Effect.map(makeConnection(definition, { send: peer.send }), (server) => void servers.set(peer, server.handle)),
    onMessage: (message, peer) =>
      Effect.zipRight(received(message), servers.get(peer)?.(message) ?? Effect.void)
  })
}
