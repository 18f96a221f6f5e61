/**
 * The official MCP client (`@modelcontextprotocol/sdk`) next to ours, against the bundled everything server:
 * this file type-checks in `npm run check` (a scratchpad file importing the official client must).
 * Run: npm run run -w scratchpad -- official-client.ts
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { connectStdio } from "@mcp-effect/client/node"
import { createRequire } from "node:module"

const server = createRequire(import.meta.url).resolve("@modelcontextprotocol/server-everything/dist/index.js")

const official = new Client({ name: "scratchpad", version: "1.0.0" })
await official.connect(new StdioClientTransport({ command: process.execPath, args: [server, "stdio"] }))
const ours = await connectStdio({ command: process.execPath, args: [server, "stdio"] })
try {
  const [theirs, mine] = await Promise.all([official.listTools(), ours.listTools()])
  console.log("official:", theirs.tools.length, "tools; ours:", mine.length, "tools")
} finally {
  await official.close()
  await ours.close()
}
