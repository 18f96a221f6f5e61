/**
 * Effect 4's own MCP client (`effect/ai` `McpClient`, experimental since 4.0.6) as a benchmark runner; loaded
 * only for its runs.
 *
 * It has no era detection: the protocol is given (`2026-07-28` for a modern target, `2025-11-25` for a legacy
 * one), as its documentation asks. Its `callTool` takes a discovered tool, so the runner lists the tools once
 * when it connects and calls with the `echo` descriptor. The phases are Effect programs, as for ours (Effect
 * API). Stdio through `NodeServices` (its `ChildProcessSpawner`), HTTP through undici (`NodeHttpClient`).
 */
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as NodeServices from "@effect/platform-node/NodeServices"
import * as McpClient from "effect/ai/McpClient"
import type { McpClientError } from "effect/ai/McpClientError"
import * as McpProtocol from "effect/ai/McpProtocol"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as ChildProcess from "effect/process/ChildProcess"
import * as Scope from "effect/Scope"
import type { Runner, Target } from "./bench-run.js"
import { echoArgs } from "./bench-run-shared.js"

const clientInfo = { name: "mcp-bench", version: "0.0.0" }

const effectLayer = (target: Target): Layer.Layer<McpClient.McpClient, McpClientError> => {
  const protocol = target.era === "modern" ? McpProtocol.v2026_07_28 : McpProtocol.v2025_11_25
  return target.transport === "stdio"
    ? McpClient.layerStdio({
      ...clientInfo,
      protocol,
      command: ChildProcess.make(target.command ?? "", [...(target.args ?? [])])
    }).pipe(Layer.provide(NodeServices.layer))
    : McpClient.layerHttp({ ...clientInfo, protocol, url: target.url ?? "" }).pipe(
      Layer.provide(NodeHttpClient.layerUndici)
    )
}

export const effect = async (target: Target): Promise<Runner> => {
  const scope = Effect.runSync(Scope.make())
  const context = await Effect.runPromise(Layer.buildWithScope(effectLayer(target), scope))
  const client = Context.get(context, McpClient.McpClient)
  const tools = await Effect.runPromise(client.listTools())
  const echo = tools.find((tool) => tool.name === "echo")
  if (echo === undefined) throw new Error("the server lists no echo tool")
  // Made per call, as a program would (and as the other clients do): no effect value is reused.
  const call = () => client.callTool({ tool: echo, arguments: echoArgs })
  return {
    era: client.protocolVersion === "2026-07-28" ? "modern" : "legacy",
    calls: (n, width) =>
      Effect.runPromise(
        width === 1
          ? Effect.gen(function*() {
            for (let i = 0; i < n; i++) yield* call()
          })
          : Effect.forEach(Array.from({ length: n }), call, { concurrency: width, discard: true })
      ),
    listTools: () => Effect.runPromise(Effect.map(client.listTools(), (list) => list.length)),
    close: () => Effect.runPromise(Scope.close(scope, Exit.void))
  }
}
