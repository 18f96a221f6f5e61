/**
 * Connect to @modelcontextprotocol/server-everything over stdio with the Promise API: era, tools, one call.
 * Run: npm run run -w scratchpad -- everything.ts
 */
import { connectStdio } from "@mcp-effect/client/node"
import { createRequire } from "node:module"

const server = createRequire(import.meta.url).resolve("@modelcontextprotocol/server-everything/dist/index.js")

const client = await connectStdio({
  command: process.execPath,
  args: [server, "stdio"]
})
try {
  console.log("era:", await client.era())
  console.log("server:", await client.serverInfo())
  const tools = await client.listTools()
  console.log("tools:", tools.map((tool) => tool.name).join(", "))
  console.log("echo:", JSON.stringify(await client.callTool("echo", { message: "hello" })))
} finally {
  await client.close()
}
