/**
 * This client on `fetch`, from the portable main entry (`@mcp-effect/client`: what a page, a Worker, Bun or
 * Deno imports), as benchmark runners: the Promise API's `connectHttp` and the Effect API's `layerHttp` on
 * `FetchHttpClient`. Loaded only for their runs.
 */
import { connectHttp, McpClient } from "@mcp-effect/client"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as FetchHttpClient from "effect/http/FetchHttpClient"
import * as Layer from "effect/Layer"
import * as Scope from "effect/Scope"
import type { Runner, Target } from "./bench-run.js"
import { echoArgs, pool } from "./bench-run-shared.js"

/** Ours, Promise API, main entry: `connectHttp` on `fetch`. */
export const oursFetch = async (target: Target): Promise<Runner> => {
  const client = await connectHttp({ url: target.url ?? "", clientName: "mcp-bench" })
  return {
    era: await client.era(),
    calls: (n, width) => pool(n, width, () => client.callTool("echo", echoArgs)),
    listTools: async () => (await client.listTools({ refresh: true })).length,
    close: () => client.close()
  }
}

/** Ours, Effect API, main entry: `McpClient.layerHttp` on `FetchHttpClient.layer`. */
export const oursFetchEffect = async (target: Target): Promise<Runner> => {
  const scope = Effect.runSync(Scope.make())
  const layer = McpClient.layerHttp({ url: target.url ?? "", clientName: "mcp-bench" }).pipe(
    Layer.provide(FetchHttpClient.layer)
  )
  const context = await Effect.runPromise(Layer.buildWithScope(layer, scope))
  const client = Context.get(context, McpClient.McpClient)
  const call = () => client.callTool("echo", echoArgs)
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
    close: () => Effect.runPromise(Scope.close(scope, Exit.void))
  }
}
