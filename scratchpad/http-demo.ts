/**
 * The Promise API over Streamable HTTP: start the official-SDK example server on a free loopback port (as a
 * modern and as a legacy server), connect, read the era, list and call tools.
 * Run: npm run run -w scratchpad -- http-demo.ts
 */
import { connectHttp } from "@mcp-effect/client"
import { spawn } from "node:child_process"
import { createRequire } from "node:module"
import { createInterface } from "node:readline"

const script = createRequire(import.meta.url).resolve("@mcp-effect/test-servers/official")

for (const era of ["both", "legacy"]) {
  const server = spawn(process.execPath, [script, "--http", "--port", "0", "--era", era], { stdio: ["ignore", "pipe", "inherit"] })
  const url = await new Promise<string>((resolve) =>
    createInterface({ input: server.stdout }).once("line", (line) => resolve(line.replace("listening ", "")))
  )
  const client = await connectHttp({ url, onElicit: () => ({ action: "accept", content: { ok: true } }) })
  try {
    console.log(`--era ${era}: ${url}`)
    console.log("  era:", await client.era())
    console.log("  tools:", (await client.listTools()).map((tool) => tool.name).join(", "))
    console.log("  echo:", JSON.stringify((await client.callTool("echo", { text: "over http" })).content))
    console.log("  confirm:", JSON.stringify((await client.callTool("confirm", { question: "ok?" })).content))
  } finally {
    await client.close()
    server.kill("SIGTERM")
  }
}
