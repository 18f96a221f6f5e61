/**
 * The large-catalogue server of the benchmark: a hand-written stdio MCP server with `BENCH_TOOLS` (default
 * 2,000) tools, in either era (`server/discover` answers modern, `initialize` legacy), and an `echo` tool.
 * Written by hand so that its own cost stays out of the client's measurements.
 */
const count = Number(process.env["BENCH_TOOLS"] ?? 2000)
const MODERN = "2026-07-28"

const tools = [
  { name: "echo", description: "Returns its text", inputSchema: { type: "object", properties: { text: { type: "string" } } } },
  ...Array.from({ length: count - 1 }, (_, i) => ({
    name: `tool_${i}`,
    title: `Tool number ${i}`,
    description: `Tool ${i} of a large catalogue: it looks things up in a system of record by key and region.`,
    inputSchema: {
      type: "object",
      properties: {
        key: { type: "string", description: "The record key" },
        region: { type: "string", enum: ["eu", "us", "ap"] },
        limit: { type: "integer", minimum: 1, maximum: 100 },
        verbose: { type: "boolean" }
      },
      required: ["key"]
    },
    annotations: { readOnlyHint: true, idempotentHint: i % 2 === 0 }
  }))
]

const answer = (message: { id?: unknown; method?: string; params?: { name?: string; arguments?: { text?: string } } }) => {
  switch (message.method) {
    case "server/discover":
      return {
        resultType: "complete",
        ttlMs: 0,
        cacheScope: "public",
        supportedVersions: [MODERN],
        capabilities: { tools: {} },
        _meta: { "io.modelcontextprotocol/serverInfo": { name: "bench-catalog", version: "1.0.0" } }
      }
    case "initialize":
      return { protocolVersion: "2025-11-25", capabilities: { tools: {} }, serverInfo: { name: "bench-catalog", version: "1.0.0" } }
    case "tools/list":
      return { resultType: "complete", ttlMs: 0, cacheScope: "public", tools }
    case "tools/call":
      return { resultType: "complete", content: [{ type: "text", text: message.params?.arguments?.text ?? "" }] }
    case "ping":
      return {}
    default:
      return undefined
  }
}

let buffer = ""
process.stdin.setEncoding("utf8")
process.stdin.on("data", (chunk: string) => {
  buffer += chunk
  let newline: number
  let out = ""
  while ((newline = buffer.indexOf("\n")) >= 0) {
    const line = buffer.slice(0, newline)
    buffer = buffer.slice(newline + 1)
    if (line.trim() === "") continue
    const message = JSON.parse(line) as { id?: unknown; method?: string }
    if (message.id === undefined || message.method === undefined) continue
    const result = answer(message)
    out += JSON.stringify(
      result === undefined
        ? { jsonrpc: "2.0", id: message.id, error: { code: -32601, message: `Method not found: ${message.method}` } }
        : { jsonrpc: "2.0", id: message.id, result }
    ) + "\n"
  }
  if (out !== "") process.stdout.write(out)
})
process.stdin.on("end", () => process.exit(0))
