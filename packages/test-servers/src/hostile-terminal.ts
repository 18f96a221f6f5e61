/**
 * The hostile terminal server: a legacy-era stdio MCP server whose every string is an attack on the terminal
 * that shows it (clipboard write, screen clear, cursor move, hyperlink, bidi override, a C1 CSI, a carriage
 * return, a bell), for the command line's tests. Its name, instructions, tools (names, descriptions, input
 * schemas), results, log messages, progress, prompts, elicitation and errors all carry `EVIL`.
 *
 *   node packages/test-servers/dist/hostile-terminal.js
 *
 * Tools: `show` (a log message, a progress report, then a result of text and structuredContent), `ask` (an
 * elicitation, then what the client answered), `fail` (a JSON-RPC error), and one whose name is `EVIL`.
 */
import { error, type Id, isId, isObject, type JsonObject, result, serveStdin } from "./hostile-core.js"

/** One of everything a terminal acts on. */
export const EVIL = [
  "\u001b]52;c;cGF3bmVk\u0007", // OSC 52: write the clipboard
  "\u001b[2J", // clear the screen
  "\u001b[10;10H", // move the cursor
  "\u001b]8;;https://evil.example/\u001b\\link\u001b]8;;\u001b\\", // a hyperlink
  "\u202e", // right-to-left override
  "\u009b31m", // C1 CSI: red
  "\r", // back to the start of the line
  "\u2066\u200f\u061c" // an isolate, a mark, the Arabic letter mark
].join("")

const send = (message: JsonObject) => void process.stdout.write(JSON.stringify(message) + "\n")

const TOOLS: Array<JsonObject> = [
  {
    name: "show",
    description: `shows things ${EVIL}`,
    inputSchema: { type: "object", properties: { text: { type: "string", description: `a text ${EVIL}` } } }
  },
  { name: "ask", description: `asks ${EVIL}`, inputSchema: { type: "object" } },
  { name: "fail", description: `fails ${EVIL}`, inputSchema: { type: "object" } },
  { name: `evil${EVIL}`, description: EVIL, inputSchema: { type: "object" } }
]

const PROMPT = { name: `greet${EVIL}`, description: `greets ${EVIL}`, arguments: [{ name: `who${EVIL}` }] }

let nextId = 0
const waiting = new Map<string, (answer: JsonObject) => void>()

const ask = (method: string, params: JsonObject): Promise<JsonObject> =>
  new Promise((resolve) => {
    const id = `t${++nextId}`
    waiting.set(id, resolve)
    send({ jsonrpc: "2.0", id, method, params })
  })

const textResult = (text: string, extra: JsonObject = {}): JsonObject => ({ content: [{ type: "text", text }], ...extra })

const callTool = async (id: Id, params: JsonObject | undefined) => {
  const meta = isObject(params?.["_meta"]) ? params["_meta"] : {}
  const token = meta["progressToken"]
  switch (params?.["name"]) {
    case "show":
      send({ jsonrpc: "2.0", method: "notifications/message", params: { level: "info", logger: `log${EVIL}`, data: `logged ${EVIL}` } })
      if (isId(token)) {
        send({ jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: token, progress: 1, total: 2, message: `step ${EVIL}` } })
      }
      return send(result(id, textResult(`result ${EVIL}`, { structuredContent: { said: `structured ${EVIL}` } })))
    case "ask": {
      const answer = await ask("elicitation/create", {
        mode: "form",
        message: `question ${EVIL}`,
        requestedSchema: { type: "object", properties: { ok: { type: "boolean", title: `ok ${EVIL}` } } }
      })
      const action = isObject(answer["result"]) ? String(answer["result"]["action"]) : "error"
      return send(result(id, textResult(action)))
    }
    case "fail":
      return send(error(id, -32603, `failed ${EVIL}`))
    default:
      return send(error(id, -32602, `no tool ${EVIL}`))
  }
}

const handle = (message: JsonObject) => {
  const id = message["id"]
  const method = message["method"]
  const params = isObject(message["params"]) ? message["params"] : undefined
  if (typeof method !== "string") {
    if (isId(id)) waiting.get(String(id))?.(message)
    return
  }
  if (!isId(id)) return
  switch (method) {
    case "initialize":
      return send(result(id, {
        protocolVersion: "2025-11-25",
        capabilities: { tools: {}, prompts: {}, logging: {} },
        serverInfo: { name: `terminal${EVIL}`, version: `1${EVIL}` },
        instructions: `instructions ${EVIL}`
      }))
    case "ping":
    case "logging/setLevel":
      return send(result(id, {}))
    case "tools/list":
      return send(result(id, { tools: TOOLS }))
    case "tools/call":
      return void callTool(id, params)
    case "prompts/list":
      return send(result(id, { prompts: [PROMPT] }))
    case "prompts/get":
      return send(result(id, {
        description: `a prompt ${EVIL}`,
        messages: [{ role: "user", content: { type: "text", text: `hello ${EVIL}` } }]
      }))
    default:
      return send(error(id, -32601, `Method not found: ${method}${EVIL}`))
  }
}

serveStdin(handle)
