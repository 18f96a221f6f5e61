/** Test server, the era's opening: server/discover (modern only) and initialize (legacy only). */
import * as Effect from "effect/Effect"
import { type JsonObject, LEGACY_VERSIONS, MetaKey, MODERN_VERSION } from "../../McpSchema.js"
import { RpcFailure } from "./protocol.js"
import type { ConnectionState } from "./state.js"

/** @internal */
export const discover = (conn: ConnectionState): Effect.Effect<JsonObject, RpcFailure> => {
  if (conn.era === "legacy") return Effect.fail(new RpcFailure(-32601, "Method not found: server/discover"))
  return Effect.succeed({
    resultType: "complete",
    supportedVersions: [MODERN_VERSION],
    capabilities: conn.capabilities,
    ...(conn.definition.instructions === undefined ? {} : { instructions: conn.definition.instructions }),
    _meta: { [MetaKey.serverInfo]: conn.serverInfo }
  })
}

/** `initialize`: the version asked for if we know it, else our latest. @internal */
export const initialize = (conn: ConnectionState, params: JsonObject): Effect.Effect<JsonObject, RpcFailure> => {
  if (conn.era === "modern") return Effect.fail(new RpcFailure(-32601, "Method not found: initialize"))
  const asked = params["protocolVersion"]
  const version = typeof asked === "string" && LEGACY_VERSIONS.includes(asked) ? asked : LEGACY_VERSIONS[0]
  return Effect.succeed({
    protocolVersion: version ?? "2025-11-25",
    capabilities: conn.capabilities,
    serverInfo: conn.serverInfo,
    ...(conn.definition.instructions === undefined ? {} : { instructions: conn.definition.instructions })
  })
}
