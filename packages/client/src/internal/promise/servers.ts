/**
 * `McpConfig`'s servers for Promise code: a Promise client per entry and the registry of them all.
 *
 * @internal
 */
import * as Cause from "effect/Cause"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as McpClient from "../../McpClient.js"
import * as McpConfig from "../../McpConfig.js"
import type { PromiseClient } from "../../McpPromise.js"
import type { PromiseServers } from "../../NodePromise.js"
import { fromBridge } from "./run.js"
import { fromLayer } from "./client.js"

/** @internal */
export const connectServers = async (
  source: McpConfig.Source,
  options: McpConfig.LayerOptions = {}
): Promise<PromiseServers> => {
  const runtime = ManagedRuntime.make(McpConfig.layer(source, { ...options, onBroken: options.onBroken ?? "report" }))
  const exit = await runtime.runPromiseExit(McpConfig.McpServers)
  if (Exit.isFailure(exit)) {
    await runtime.dispose()
    throw Cause.squash(exit.cause)
  }
  const servers = exit.value
  const clients: Record<string, PromiseClient> = {}
  for (const [name, client] of servers.clients) {
    clients[name] = await fromLayer(Layer.succeed(McpClient.McpClient, client))
  }
  return {
    config: servers.config,
    clients,
    registry: fromBridge(servers.registry),
    failures: servers.failures,
    close: async () => {
      await Promise.all(Object.values(clients).map((client) => client.close()))
      await runtime.dispose()
    }
  }
}
