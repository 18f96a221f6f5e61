/**
 * The hostile stdio server: an MCP server (either era) that misbehaves on demand, for the client's hostile
 * suite and the soak run. Flags set how the whole process misbehaves; tools trigger one misdeed each.
 *
 *   node packages/test-servers/dist/hostile.js [--era modern|legacy] [--tag T] [flags]
 *
 * See packages/test-servers/README.md ("hostile") for the flags and tools.
 */
import {
  answerCommon,
  argumentsOf,
  error,
  type Id,
  isId,
  isObject,
  type JsonObject,
  log,
  numberArg,
  result,
  spawnIdleChild,
  text
} from "./hostile-core.js"

interface Options {
  era: "modern" | "legacy"
  tag: string
  startDelay: number
  garbage: boolean
  invalidUtf8: boolean
  duplicate: boolean
  children: number
  /** Children started in a session of their own (setsid): outside the server's process group. */
  sessionChildren: number
  depth: number
  ignoreStdinClose: boolean
  stderrFlood: number
  initializeError: number
  outputSchemas: boolean
  hugeSchemaBytes: number
}

const parse = (argv: ReadonlyArray<string>): Options => {
  const options: Options = {
    era: "modern",
    tag: String(process.pid),
    startDelay: 0,
    garbage: false,
    invalidUtf8: false,
    duplicate: false,
    children: 0,
    sessionChildren: 0,
    depth: 1,
    ignoreStdinClose: false,
    stderrFlood: 0,
    initializeError: -32022,
    outputSchemas: false,
    hugeSchemaBytes: 0
  }
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i]
    const value = () => argv[++i] ?? ""
    switch (flag) {
      case "--era":
        options.era = value() === "legacy" ? "legacy" : "modern"
        break
      case "--tag":
        options.tag = value()
        break
      case "--start-delay":
        options.startDelay = Number(value())
        break
      case "--garbage":
        options.garbage = true
        break
      case "--invalid-utf8":
        options.invalidUtf8 = true
        break
      case "--duplicate":
        options.duplicate = true
        break
      case "--children":
        options.children = Number(value())
        break
      case "--session-children":
        options.sessionChildren = Number(value())
        break
      case "--depth":
        options.depth = Number(value())
        break
      case "--ignore-stdin-close":
        options.ignoreStdinClose = true
        break
      case "--stderr-flood":
        options.stderrFlood = Number(value())
        break
      case "--initialize-error":
        options.initializeError = Number(value())
        break
      case "--output-schemas":
        options.outputSchemas = true
        break
      case "--huge-schema":
        options.hugeSchemaBytes = Number(value())
        break
      default:
        process.stderr.write(`unknown flag ${flag}\n`)
        process.exit(2)
    }
  }
  return options
}

const options = parse(process.argv.slice(2))
const era = options.era
let stdoutClosed = false
let readingStopped = false
let calls = 0

process.stdout.on("error", () => process.exit(0))

/** Write with the pipe's backpressure: resolves once the bytes were taken. */
const writeRaw = (data: string | Uint8Array): Promise<void> =>
  new Promise((resolve) => {
    if (stdoutClosed) return resolve()
    if (process.stdout.write(data)) resolve()
    else process.stdout.once("drain", () => resolve())
  })

const GARBAGE = [
  "this is not json",
  "{\"jsonrpc\":\"2.0\"}",
  "[1,2",
  "42",
  "[]",
  "{\"jsonrpc\":\"2.0\",\"id\":{\"x\":1},\"result\":{}}",
  "{\"jsonrpc\":\"1.0\",\"method\":7}",
  "\u0000\u0001\u0002",
  "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":[]}}"
]

/** One writer at a time: a huge line is never interleaved with other frames. */
let writing: Promise<void> = Promise.resolve()
const exclusive = (work: () => Promise<void>): Promise<void> => {
  const run = writing.then(work)
  writing = run.catch(() => undefined)
  return run
}

const send = (message: JsonObject) => exclusive(() => sendNow(message))

const sendNow = async (message: JsonObject) => {
  if (options.garbage) await writeRaw(GARBAGE.join("\n") + "\n\n")
  if (options.invalidUtf8) await writeRaw(new Uint8Array([0xff, 0xfe, 0x80, 0x0a]))
  const line = JSON.stringify(message) + "\n"
  await writeRaw(line)
  if (options.duplicate) {
    await writeRaw(line)
    await writeRaw(JSON.stringify(result(987654, {})) + "\n")
    await writeRaw(JSON.stringify(error("nobody-asked", -32603, "unknown id")) + "\n")
  }
}

// --- server-to-client requests (legacy sampling flood) -------------------------------------------------------

const waiting = new Map<string, (answer: JsonObject) => void>()
let nextServerId = 0

const ask = (method: string, params: JsonObject): Promise<JsonObject> =>
  new Promise((resolve) => {
    const id = `h${++nextServerId}`
    waiting.set(id, resolve)
    void send({ jsonrpc: "2.0", id, method, params })
  })

const SAMPLE: JsonObject = { messages: [{ role: "user", content: { type: "text", text: "bill me" } }], maxTokens: 10 }

// --- output schemas (--output-schemas) ------------------------------------------------------------------------

/** A wide schema of about `bytes` bytes of JSON: one integer property per 40 bytes. */
const hugeSchema = (bytes: number): JsonObject => {
  const properties: JsonObject = {}
  for (let i = 0; i < bytes / 40; i++) properties[`property${i}`] = { type: "integer", minimum: 0 }
  return { type: "object", properties }
}

const deepSchema = (depth: number): JsonObject => {
  let schema: JsonObject = { type: "string" }
  for (let i = 0; i < depth; i++) schema = { type: "object", properties: { a: schema } }
  return schema
}

/** Tools whose `outputSchema` is an attack on the client's validator, and the `structuredContent` each returns. */
const SCHEMA_TOOLS: ReadonlyArray<{ readonly name: string; readonly schema: () => JsonObject; readonly structured: JsonObject }> = [
  {
    name: "redos",
    schema: () => ({ type: "object", properties: { s: { type: "string", pattern: "^(a+)+$" } }, required: ["s"] }),
    structured: { s: "a".repeat(30) + "!" }
  },
  { name: "self_ref", schema: () => ({ $ref: "#" }), structured: { any: "thing" } },
  { name: "huge_schema", schema: () => hugeSchema(options.hugeSchemaBytes), structured: { property0: 1 } },
  { name: "deep_schema", schema: () => deepSchema(1000), structured: { a: {} } },
  {
    name: "lookahead",
    schema: () => ({ type: "object", properties: { s: { type: "string", pattern: "^(?=a)a$" } } }),
    structured: { s: "a" }
  }
]

const schemaToolList = (): JsonObject => {
  const tools = [
    { name: "echo", inputSchema: { type: "object" } },
    ...SCHEMA_TOOLS.filter((tool) => tool.name !== "huge_schema" || options.hugeSchemaBytes > 0)
      .map((tool) => ({ name: tool.name, inputSchema: { type: "object" }, outputSchema: tool.schema() }))
  ]
  return era === "modern" ? { resultType: "complete", tools } : { tools }
}

// --- tools ---------------------------------------------------------------------------------------------------

const hugeLine = (id: Id, args: JsonObject) => exclusive(() => hugeLineNow(id, args))

const hugeLineNow = async (id: Id, args: JsonObject) => {
  const bytes = numberArg(args, "bytes", 32 * 1024 * 1024)
  const chunk = "x".repeat(1 << 20)
  await writeRaw(`{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{"content":[{"type":"text","text":"`)
  for (let sent = 0; sent < bytes; sent += chunk.length) await writeRaw(chunk)
  if (args["terminated"] !== false) await writeRaw("\"}]}}\n")
}

const sampleFlood = async (id: Id, args: JsonObject, params: JsonObject | undefined) => {
  const count = numberArg(args, "count", 1000)
  if (era === "modern") {
    const responses = params?.["inputResponses"]
    if (isObject(responses)) return send(result(id, text(era, `got ${Object.keys(responses).length} responses`)))
    const inputRequests: JsonObject = {}
    for (let i = 0; i < count; i++) inputRequests[`s${i}`] = { method: "sampling/createMessage", params: SAMPLE }
    return send(result(id, { resultType: "input_required", inputRequests }))
  }
  const answers = await Promise.all(Array.from({ length: count }, () => ask("sampling/createMessage", SAMPLE)))
  const failed = answers.filter((answer) => answer["error"] !== undefined).length
  return send(result(id, text(era, `answered ${answers.length - failed}, refused ${failed}`)))
}

const callTool = async (id: Id, params: JsonObject | undefined) => {
  calls++
  const name = params?.["name"]
  const args = argumentsOf(params)
  switch (name) {
    case "echo":
      return send(result(id, text(era, typeof args["text"] === "string" ? args["text"] : "")))
    case "slow":
      await new Promise((resolve) => setTimeout(resolve, numberArg(args, "ms", 100)))
      return send(result(id, text(era, "slow done")))
    case "die": {
      log("dying")
      if (typeof args["signal"] === "string") return process.kill(process.pid, args["signal"] as NodeJS.Signals)
      return process.exit(numberArg(args, "code", 7))
    }
    case "close_stdout":
      log("closing stdout, staying alive")
      stdoutClosed = true
      options.ignoreStdinClose = true
      return process.stdout.end()
    case "stop_reading": {
      await send(result(id, text(era, "no longer reading")))
      readingStopped = true
      options.ignoreStdinClose = true
      process.stdin.pause()
      const resumeAfter = numberArg(args, "ms", 0)
      if (resumeAfter > 0) {
        setTimeout(() => {
          readingStopped = false
          process.stdin.resume()
          pump()
        }, resumeAfter)
      }
      return
    }
    case "huge_line":
      return hugeLine(id, args)
    case "sample_flood":
      return sampleFlood(id, args, params)
    case "stderr_flood": {
      const line = "e".repeat(1023) + "\n"
      for (let sent = 0; sent < numberArg(args, "bytes", 1 << 20); sent += line.length) process.stderr.write(line)
      return send(result(id, text(era, "flooded stderr")))
    }
    case "spawn_children": {
      const pids = Array.from({ length: numberArg(args, "count", 1) }, () =>
        spawnIdleChild(options.tag, numberArg(args, "depth", 1)))
      return send(result(id, text(era, pids.join(","))))
    }
    case "notify": {
      const count = numberArg(args, "count", 1)
      for (let i = 0; i < count; i++) {
        await send({ jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: `note ${i}` } })
      }
      return send(result(id, text(era, `sent ${count}`)))
    }
    case "stats":
      return send(result(id, text(era, JSON.stringify({ calls, pid: process.pid }))))
    default: {
      const schemaTool = options.outputSchemas ? SCHEMA_TOOLS.find((tool) => tool.name === name) : undefined
      if (schemaTool !== undefined) {
        return send(result(id, { ...text(era, JSON.stringify(schemaTool.structured)), structuredContent: schemaTool.structured }))
      }
      return send(error(id, -32602, `Unknown tool: ${String(name)}`))
    }
  }
}

// --- dispatch ------------------------------------------------------------------------------------------------

const handle = (line: string) => {
  if (line.trim() === "") return
  let message: unknown
  try {
    message = JSON.parse(line)
  } catch {
    return void send(error(null, -32700, "Parse error"))
  }
  if (!isObject(message)) return
  const id = message["id"]
  const method = message["method"]
  const params = isObject(message["params"]) ? message["params"] : undefined
  if (typeof method !== "string") {
    if (isId(id)) waiting.get(String(id))?.(message)
    if (isId(id)) waiting.delete(String(id))
    return
  }
  if (!isId(id)) return // notifications
  if (method === "initialize" && era === "modern") {
    const code = options.initializeError
    return void send(
      code === -32022
        ? error(id, code, "Unsupported protocol version", { supported: ["2026-07-28"] })
        : error(id, code, "Method not found")
    )
  }
  if (method === "tools/list" && options.outputSchemas) return void send(result(id, schemaToolList()))
  const common = answerCommon(era, id, method, params)
  if (common !== undefined) return void send(common)
  void callTool(id, params)
}

let buffer = ""
const pump = () => {
  let newline = buffer.indexOf("\n")
  while (newline >= 0 && !readingStopped) {
    handle(buffer.slice(0, newline))
    buffer = buffer.slice(newline + 1)
    newline = buffer.indexOf("\n")
  }
}

const start = () => {
  process.stdin.setEncoding("utf8")
  process.stdin.on("data", (chunk: string) => {
    buffer += chunk
    pump()
  })
  process.stdin.resume()
  process.stdin.on("end", () => {
    if (options.ignoreStdinClose) return log("stdin closed; staying alive")
    log("stdin closed; exiting with code 0")
    process.exit(0)
  })
}

for (let i = 0; i < options.children; i++) spawnIdleChild(options.tag, options.depth)
for (let i = 0; i < options.sessionChildren; i++) spawnIdleChild(options.tag, options.depth, true)
if (options.stderrFlood > 0) {
  const line = "noise ".repeat(170) + "\n"
  for (let sent = 0; sent < options.stderrFlood; sent += line.length) process.stderr.write(line)
}
if (options.ignoreStdinClose) process.on("SIGTERM", () => log("ignoring SIGTERM"))
setInterval(() => undefined, 1 << 30)
log(`started: era ${era}, tag ${options.tag}`)
if (options.startDelay > 0) {
  process.stdin.pause()
  setTimeout(start, options.startDelay)
} else {
  start()
}
