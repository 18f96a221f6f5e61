/**
 * What every hostile server answers when it behaves: the handshake of its era, `tools/list`, `echo`, `ping`.
 * The transports (`hostile.ts` for stdio, `hostile-http.ts` for loopback HTTP) add the misbehaviour.
 */
import { spawn } from "node:child_process"

export type Json = null | boolean | number | string | Array<Json> | { [key: string]: Json }
export type JsonObject = { [key: string]: Json }
export type Id = string | number

export const MODERN = "2026-07-28"
export const LEGACY = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"]

export const isObject = (value: unknown): value is JsonObject =>
  typeof value === "object" && value !== null && !Array.isArray(value)

export const isId = (value: unknown): value is Id => typeof value === "string" || typeof value === "number"

export const result = (id: Id, value: JsonObject): JsonObject => ({ jsonrpc: "2.0", id, result: value })

export const error = (id: Id | null, code: number, message: string, data?: Json): JsonObject => ({
  jsonrpc: "2.0",
  id,
  error: data === undefined ? { code, message } : { code, message, data }
})

export const text = (era: "modern" | "legacy", value: string): JsonObject =>
  era === "modern"
    ? { resultType: "complete", content: [{ type: "text", text: value }] }
    : { content: [{ type: "text", text: value }] }

const TOOL_NAMES = [
  "echo",
  "slow",
  "die",
  "close_stdout",
  "stop_reading",
  "huge_line",
  "huge_body",
  "sample_flood",
  "stderr_flood",
  "spawn_children",
  "never_ending",
  "reset",
  "redirect",
  "garbage_body",
  "notify",
  "stats"
]

const tools = (): Json =>
  TOOL_NAMES.map((name) => ({ name, description: `hostile ${name}`, inputSchema: { type: "object" } }))

/** The answer to a well-formed request every hostile server treats alike, or `undefined` for the tools. */
export const answerCommon = (
  era: "modern" | "legacy",
  id: Id,
  method: string,
  params: JsonObject | undefined
): JsonObject | undefined => {
  switch (method) {
    case "server/discover":
      return era === "modern"
        ? result(id, {
          resultType: "complete",
          supportedVersions: [MODERN],
          capabilities: { tools: {} },
          _meta: { "io.modelcontextprotocol/serverInfo": { name: "hostile", version: "0.0.1" } }
        })
        : error(id, -32601, "Method not found")
    case "initialize": {
      if (era === "modern") return error(id, -32022, "Unsupported protocol version", { supported: [MODERN] })
      const asked = typeof params?.["protocolVersion"] === "string" ? params["protocolVersion"] : ""
      return result(id, {
        protocolVersion: LEGACY.includes(asked) ? asked : "2025-11-25",
        capabilities: { tools: {} },
        serverInfo: { name: "hostile-legacy", version: "0.0.1" }
      })
    }
    case "ping":
      return result(id, {})
    case "tools/list":
      return result(id, era === "modern" ? { resultType: "complete", tools: tools() } : { tools: tools() })
    default:
      return method === "tools/call" ? undefined : error(id, -32601, `Method not found: ${method}`)
  }
}

/** The arguments of a `tools/call`. */
export const argumentsOf = (params: JsonObject | undefined): JsonObject =>
  isObject(params?.["arguments"]) ? params["arguments"] : {}

export const numberArg = (args: JsonObject, key: string, fallback: number): number => {
  const value = args[key]
  return typeof value === "number" && Number.isFinite(value) ? value : fallback
}

/**
 * A child that does nothing but live, carrying `tag` in its command line so that a test finds it (and its own
 * child, down to `depth`) wherever it was reparented to. Same process group as the server.
 */
export const spawnIdleChild = (tag: string, depth: number, detached = false): number | undefined => {
  const script =
    "const [s, t, d] = process.argv.slice(-3); if (+d > 1) require('child_process').spawn(process.execPath, " +
    "['-e', s, '--', s, t, String(+d - 1)], { stdio: 'ignore' }); setInterval(() => {}, 1 << 30)"
  // `detached`: a session of its own (setsid), outside the server's process group.
  const child = spawn(process.execPath, ["-e", script, "--", script, `hostile-child-${tag}`, String(depth)], {
    stdio: "ignore",
    detached
  })
  child.unref()
  return child.pid
}

export const log = (message: string) => {
  process.stderr.write(`[hostile ${process.pid}] ${message}\n`)
}

/** Read JSON-RPC lines from stdin, each object to `handle` (a line that is not JSON is logged); exit at its end. */
export const serveStdin = (handle: (message: JsonObject) => void) => {
  let buffer = ""
  process.stdin.setEncoding("utf8")
  process.stdin.on("data", (chunk: string) => {
    buffer += chunk
    for (let newline = buffer.indexOf("\n"); newline >= 0; newline = buffer.indexOf("\n")) {
      const line = buffer.slice(0, newline)
      buffer = buffer.slice(newline + 1)
      try {
        const message: unknown = JSON.parse(line)
        if (isObject(message)) handle(message)
      } catch {
        log(`not JSON: ${line.slice(0, 80)}`)
      }
    }
  })
  process.stdin.on("end", () => process.exit(0))
  process.stdout.on("error", () => process.exit(0))
}
