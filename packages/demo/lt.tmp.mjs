import { McpClient, NodeMcpClient } from "@mcp-effect/client"
import { Context, Effect, Layer, Scope, Exit } from "effect"
const scope = Effect.runSync(Scope.make())
const ctx = await Effect.runPromise(Layer.buildWithScope(NodeMcpClient.layerStdio({ command: process.execPath, args: [new URL("./dist/bench-catalog-server.js", import.meta.url).pathname] }), scope))
const client = Context.get(ctx, McpClient.McpClient)
await Effect.runPromise(client.info)
for (let i = 0; i < 20; i++) { const t0 = performance.now(); await Effect.runPromise(client.listTools({ refresh: true })); if (i % 5 === 0 || i === 19) console.log(i, (performance.now() - t0).toFixed(1)) }
await Effect.runPromise(Scope.close(scope, Exit.void))
