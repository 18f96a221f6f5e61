/**
 * What tracing costs per call: sequential tools/call against an in-memory kit server, with tracing off and on
 * (spans go to Effect's default tracer). Not a test: run it and read the numbers (noisy on a busy machine).
 * Run: npm run run -w scratchpad -- tracing-cost.ts
 */
import { McpClient, McpTestServer } from "@mcp-effect/client"
import { Effect } from "effect"

const server = McpTestServer.make({
  tools: [McpTestServer.tool({ name: "echo", handler: (args) => Effect.succeed(String(args["text"])) })]
})

const calls = 5_000
const measure = (tracing: boolean) =>
  Effect.gen(function*() {
    const client = yield* McpClient.McpClient
    for (let i = 0; i < 500; i++) yield* client.callTool("echo", { text: "warm" })
    const start = process.hrtime.bigint()
    for (let i = 0; i < calls; i++) yield* client.callTool("echo", { text: "x" })
    const micros = Number(process.hrtime.bigint() - start) / 1000 / calls
    return { tracing, microsPerCall: Math.round(micros * 10) / 10 }
  }).pipe(Effect.provide(server.layer({ tracing })))

const results = await Effect.runPromise(Effect.all([measure(false), measure(true), measure(false), measure(true)]))
console.table(results)
