/**
 * The demo server's content (tools, resources, prompts), built on the official
 * `@modelcontextprotocol/server` 2.x SDK. One factory serves both protocol eras:
 * tools that need client input return `inputRequired(...)`, which the SDK sends as
 * an `input_required` result on 2026-07-28 requests and fulfils itself with real
 * server-to-client requests on 2025-era connections (its "legacy shim").
 */
import { randomBytes } from "node:crypto"
import {
  McpServer,
  ResourceTemplate,
  createRequestStateCodec,
  fromJsonSchema,
  inputRequired,
  inputResponse
} from "@modelcontextprotocol/server"
import type { CallToolResult, InputResponseView, LoggingLevel } from "@modelcontextprotocol/server"

export const SERVER_NAME = "official-demo"
export const SERVER_VERSION = "1.0.0"
export const INSTRUCTIONS = "Demo server built on the official MCP SDK"
/** Which protocol eras a host accepts. */
export type Era = "both" | "modern" | "legacy"

/** `ttlMs` of modern `tools/list` results (the SDK's default for every cacheable result is 0). */
export const TOOLS_LIST_TTL_MS = 60_000

/**
 * State shared by every server instance of one process. Over HTTP the modern era
 * builds one instance per request, so whatever must survive a request lives here.
 */
export class DemoState {
  #extraOn = false
  readonly #listeners = new Set<(extraOn: boolean) => void>()

  get extraOn(): boolean {
    return this.#extraOn
  }

  /** Flips the `extra` tool on or off and tells every listener; returns the new setting. */
  toggleExtra(): boolean {
    this.#extraOn = !this.#extraOn
    for (const listener of this.#listeners) listener(this.#extraOn)
    return this.#extraOn
  }

  /** Calls `listener` after every toggle; returns the function that stops it. */
  onExtraChanged(listener: (extraOn: boolean) => void): () => void {
    this.#listeners.add(listener)
    return () => {
      this.#listeners.delete(listener)
    }
  }
}

export interface DemoServerOptions {
  /**
   * Whether the instance outlives one request (stdio, a legacy HTTP session). Such an
   * instance keeps its `extra` tool in step with toggles made anywhere in the process
   * and announces each change with its own `notifications/tools/list_changed`. A
   * per-request instance (modern HTTP) just reads the state when it is built.
   */
  readonly longLived: boolean
}

/**
 * `confirm` sends an HMAC-signed `requestState` with its elicitation and only accepts
 * the answer when the retry echoes it, so tests can check that a client does. The key
 * lives for the process, which serves every round of a flow.
 */
interface ConfirmState {
  readonly question: string
}
const confirmStates = createRequestStateCodec<ConfirmState>({ key: randomBytes(32) })

const text = (value: string): CallToolResult => ({ content: [{ type: "text", text: value }] })

const readOnly = { readOnlyHint: true, idempotentHint: true } as const

/** Waits `ms`, or rejects as soon as the request is cancelled. */
const sleep = (ms: number, signal: AbortSignal): Promise<void> =>
  new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason)
    const onAbort = () => {
      clearTimeout(timer)
      reject(signal.reason)
    }
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort)
      resolve()
    }, ms)
    signal.addEventListener("abort", onAbort, { once: true })
  })

type SamplingAnswer = Extract<InputResponseView, { kind: "sampling" }>["result"]

/** The text of a sampling answer, whose `content` is one block or an array of blocks. */
const textOf = ({ content }: SamplingAnswer): string =>
  (Array.isArray(content) ? content : [content])
    .flatMap((block) => (block.type === "text" ? [block.text] : []))
    .join("")

/**
 * Argument and result schemas, built once: `fromJsonSchema` compiles an AJV validator,
 * and modern HTTP builds a server instance per request.
 */
const schemas = {
  echoInput: fromJsonSchema<{ text: string }>({
    type: "object",
    properties: { text: { type: "string" } },
    required: ["text"]
  }),
  addInput: fromJsonSchema<{ a: number; b: number }>({
    type: "object",
    properties: { a: { type: "number" }, b: { type: "number" } },
    required: ["a", "b"]
  }),
  addOutput: fromJsonSchema<{ sum: number }>({
    type: "object",
    properties: { sum: { type: "number" } },
    required: ["sum"]
  }),
  slowInput: fromJsonSchema<{ ms: number; steps?: number }>({
    type: "object",
    properties: {
      ms: { type: "integer", minimum: 0 },
      steps: { type: "integer", minimum: 1, default: 3 }
    },
    required: ["ms"]
  }),
  confirmInput: fromJsonSchema<{ question: string }>({
    type: "object",
    properties: { question: { type: "string" } },
    required: ["question"]
  }),
  sampleInput: fromJsonSchema<{ prompt: string }>({
    type: "object",
    properties: { prompt: { type: "string" } },
    required: ["prompt"]
  }),
  logInput: fromJsonSchema<{ message: string }>({
    type: "object",
    properties: { message: { type: "string" } },
    required: ["message"]
  }),
  greetArgs: fromJsonSchema<{ name: string }>({
    type: "object",
    properties: { name: { type: "string", description: "Who to greet" } },
    required: ["name"]
  })
}

export function createDemoServer(state: DemoState, options: DemoServerOptions): McpServer {
  const server = new McpServer(
    { name: SERVER_NAME, version: SERVER_VERSION },
    {
      instructions: INSTRUCTIONS,
      capabilities: { tools: { listChanged: true }, resources: {}, prompts: {}, logging: {} },
      cacheHints: { "tools/list": { ttlMs: TOOLS_LIST_TTL_MS } },
      // A tampered or expired requestState is answered with -32602 before any handler runs.
      requestState: { verify: confirmStates.verify }
    }
  )

  server.registerTool(
    "echo",
    { description: "Returns its text argument", inputSchema: schemas.echoInput, annotations: readOnly },
    ({ text: value }) => text(value)
  )

  server.registerTool(
    "add",
    {
      description: "Adds two numbers",
      inputSchema: schemas.addInput,
      outputSchema: schemas.addOutput,
      annotations: readOnly
    },
    ({ a, b }) => ({ content: [{ type: "text", text: String(a + b) }], structuredContent: { sum: a + b } })
  )

  server.registerTool(
    "slow",
    { description: "Waits ms milliseconds, reporting progress in steps when asked to", inputSchema: schemas.slowInput },
    async ({ ms, steps = 3 }, ctx) => {
      const progressToken = ctx.mcpReq._meta?.progressToken
      for (let step = 1; step <= steps; step++) {
        await sleep(ms / steps, ctx.mcpReq.signal)
        if (progressToken !== undefined) {
          await ctx.mcpReq.notify({
            method: "notifications/progress",
            params: { progressToken, progress: step, total: steps, message: `step ${step}` }
          })
        }
      }
      return text("done")
    }
  )

  server.registerTool(
    "confirm",
    { description: "Asks the user a yes/no question (elicitation)", inputSchema: schemas.confirmInput },
    async ({ question }, ctx) => {
      const answer = inputResponse(ctx.mcpReq.inputResponses, "confirm")
      const asked = ctx.mcpReq.requestState<ConfirmState>()
      if (answer.kind !== "elicit" || asked?.question !== question) {
        return inputRequired({
          inputRequests: {
            confirm: inputRequired.elicit({
              message: question,
              requestedSchema: { type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"] }
            })
          },
          requestState: await confirmStates.mint({ question })
        })
      }
      switch (answer.action) {
        case "accept":
          return text(`confirmed: ${answer.content?.["ok"] === true}`)
        case "decline":
          return text("declined")
        case "cancel":
          return text("cancelled")
      }
    }
  )

  server.registerTool(
    "sample",
    { description: "Asks the client's model to answer a prompt (sampling)", inputSchema: schemas.sampleInput },
    ({ prompt }, ctx) => {
      const answer = inputResponse(ctx.mcpReq.inputResponses, "sample")
      if (answer.kind !== "sampling") {
        return inputRequired({
          inputRequests: {
            sample: inputRequired.createMessage({
              messages: [{ role: "user", content: { type: "text", text: prompt } }],
              maxTokens: 100
            })
          }
        })
      }
      return text(`model said: ${textOf(answer.result)}`)
    }
  )

  server.registerTool("roots", { description: "Lists the client's roots" }, (ctx) => {
    const answer = inputResponse(ctx.mcpReq.inputResponses, "roots")
    if (answer.kind !== "roots") {
      return inputRequired({ inputRequests: { roots: inputRequired.listRoots() } })
    }
    return text(answer.roots.length === 0 ? "no roots" : answer.roots.map((root) => root.uri).join(", "))
  })

  server.registerTool(
    "log",
    { description: "Sends its message as log notifications (info and debug)", inputSchema: schemas.logInput },
    async ({ message }, ctx) => {
      // Legacy: sent unless logging/setLevel filtered them out. Modern: sent only when the
      // request's _meta carries io.modelcontextprotocol/logLevel (the SDK checks both).
      const levels: ReadonlyArray<LoggingLevel> = ["info", "debug"]
      for (const level of levels) await ctx.mcpReq.log(level, message, SERVER_NAME)
      return text("logged")
    }
  )

  server.registerTool("fail", { description: "Always returns a tool error" }, () => ({
    ...text("this tool always fails"),
    isError: true
  }))

  const extra = server.registerTool("extra", { description: "Only listed while toggle_extra has turned it on" }, () =>
    text("extra called")
  )
  if (!state.extraOn) extra.disable()
  if (options.longLived) {
    const stopFollowing = state.onExtraChanged((on) => (on ? extra.enable() : extra.disable()))
    server.server.onclose = stopFollowing
  }

  server.registerTool("toggle_extra", { description: "Adds or removes the extra tool" }, () =>
    text(state.toggleExtra() ? "extra on" : "extra off")
  )

  server.registerResource(
    "greeting",
    "demo://greeting",
    { mimeType: "text/plain", description: "A fixed greeting" },
    (uri) => ({ contents: [{ uri: uri.href, mimeType: "text/plain", text: "Hello from the official SDK" }] })
  )

  server.registerResource(
    "item",
    new ResourceTemplate("demo://items/{id}", { list: undefined }),
    { mimeType: "text/plain", description: "An item by id" },
    (uri, { id }) => ({ contents: [{ uri: uri.href, mimeType: "text/plain", text: `item ${String(id)}` }] })
  )

  server.registerPrompt(
    "greet",
    { description: "Greets someone by name", argsSchema: schemas.greetArgs },
    ({ name }) => ({ messages: [{ role: "user", content: { type: "text", text: `Hello, ${name}!` } }] })
  )

  return server
}
