/**
 * This client, Effect API and Promise API, as benchmark runners; loaded only for their runs. From the Node entry
 * (`@mcp-effect/client/node`), the one a Node program imports for the fast paths: `child_process` for stdio and
 * undici for HTTP.
 */
import { connectHttp, connectStdio, LlmBridge, McpClient, NodeMcpClient } from "@mcp-effect/client/node"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Scope from "effect/Scope"
import type { Runner, Target } from "./bench-run.js"
import { echoArgs, pool } from "./bench-run-shared.js"

const oursLayer = (target: Target, tracing: boolean) =>
  target.transport === "stdio"
    ? NodeMcpClient.layerStdio({ command: target.command ?? "", args: target.args ?? [], clientName: "mcp-bench", tracing })
    : NodeMcpClient.layerHttp({ url: target.url ?? "", clientName: "mcp-bench", tracing })

/**
 * Ours, Effect API: the phases are Effect programs (no Promise per call). With `tracing`, the client's
 * `tracing: true` (spans on Effect's default tracer, and the duration metric).
 */
export const ours = async (target: Target, tracing = false): Promise<Runner> => {
  const scope = Effect.runSync(Scope.make())
  const context = await Effect.runPromise(Layer.buildWithScope(oursLayer(target, tracing), scope))
  const client = Context.get(context, McpClient.McpClient)
  await Effect.runPromise(client.info)
  // Made per call, as a program would (and as the other clients do): no effect value is reused.
  const call = () => client.callTool("echo", echoArgs)
  const bridge = LlmBridge.fromClient(client)
  return {
    era: await Effect.runPromise(client.era),
    calls: (n, width) =>
      Effect.runPromise(
        width === 1
          ? Effect.gen(function*() {
            for (let i = 0; i < n; i++) yield* call()
          })
          : Effect.forEach(Array.from({ length: n }), call, { concurrency: width, discard: true })
      ),
    listTools: () => Effect.runPromise(Effect.map(client.listTools({ refresh: true }), (tools) => tools.length)),
    toolsForLlm: () => Effect.runPromise(Effect.map(bridge.toolsForLlm(), (tools) => tools.length)),
    close: () => Effect.runPromise(Scope.close(scope, Exit.void))
  }
}

/** Ours, Promise API (`connectStdio`/`connectHttp`). */
export const oursPromise = async (target: Target): Promise<Runner> => {
  const client = target.transport === "stdio"
    ? await connectStdio({ command: target.command ?? "", args: target.args ?? [], clientName: "mcp-bench" })
    : await connectHttp({ url: target.url ?? "", clientName: "mcp-bench" })
  return {
    era: await client.era(),
    calls: (n, width) => pool(n, width, () => client.callTool("echo", echoArgs)),
    listTools: async () => (await client.listTools({ refresh: true })).length,
    toolsForLlm: async () => (await client.toolsForLlm()).length,
    close: () => client.close()
  }
}

