/**
 * What a connected client knows about its server, in the shape `compare` takes.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import type { Service } from "../../McpClient.js"
import type { LiveServer } from "./advice.js"

/** @internal */
export const live = (client: Service) =>
  Effect.gen(function*() {
    const info = yield* client.info
    const toolNames = info.capabilities.tools === undefined
      ? undefined
      : (yield* client.listTools()).map((tool) => tool.name)
    const found: LiveServer = { serverInfo: info.serverInfo, protocolVersion: info.protocolVersion, toolNames }
    return found
  })
