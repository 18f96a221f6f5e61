/**
 * The main job (`npm start`): connect to the bundled example server (built on the official MCP SDK) once in
 * each protocol era, and print the era, the server's name, its tools and the result of one tool call.
 *
 * The example server speaks both eras; started with `--era legacy` it behaves like a pre-2026 server (it
 * does not know `server/discover`), so the client's probe falls back to `initialize` on its own.
 */
import { McpClient, NodeMcpClient } from "@mcp-effect/client/node"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import { createRequire } from "node:module"

const require = createRequire(import.meta.url)
const serverScript = require.resolve("@mcp-effect/test-servers/official")

const describeServer = (era: "both" | "legacy") =>
  Effect.gen(function*() {
    const client = yield* McpClient.McpClient
    const info = yield* client.info
    const tools = yield* client.listTools()
    const result = yield* client.callTool("echo", { text: `hello from the ${info.era} era` })
    const text = result.content.flatMap((block) => "text" in block && typeof block.text === "string" ? [block.text] : [])
    yield* Console.log(`server started with --era ${era}`)
    yield* Console.log(`  era:      ${info.era} (protocol ${info.protocolVersion})`)
    yield* Console.log(`  server:   ${info.serverInfo?.name ?? "(unnamed)"} ${info.serverInfo?.version ?? ""}`)
    yield* Console.log(`  tools:    ${tools.map((tool) => tool.name).join(", ")}`)
    yield* Console.log(`  echo ->   ${text.join(" ")}`)
  }).pipe(
    Effect.provide(
      NodeMcpClient.layerStdio({
        command: process.execPath,
        args: [serverScript, "--era", era],
        clientName: "mcp-effect-demo"
      })
    )
  )

const main = Effect.gen(function*() {
  yield* describeServer("both")
  yield* describeServer("legacy")
})

NodeRuntime.runMain(main)
