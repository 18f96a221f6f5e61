/**
 * What the scripted server offers, independent of the era: tool, prompt and resource
 * definitions, pagination, the input requests its tools make and how answers are worded.
 */
import { ErrorCode, RpcError, getString, isObject } from "./scripted-json.js"
import type { Json, JsonObject } from "./scripted-json.js"

// ---------------------------------------------------------------------------
// Tools

const object = (properties: JsonObject = {}, required: Array<string> = []): JsonObject => ({
  type: "object",
  properties,
  ...(required.length > 0 ? { required } : {}),
  additionalProperties: false
})
const str: JsonObject = { type: "string" }
const int: JsonObject = { type: "integer", minimum: 0 }
const readOnly: JsonObject = { readOnlyHint: true, idempotentHint: true }

const tool = (name: string, description: string, inputSchema: JsonObject, annotations?: JsonObject): JsonObject => ({
  name,
  description,
  inputSchema,
  ...(annotations !== undefined ? { annotations } : {})
})

const BASE_TOOLS: ReadonlyArray<JsonObject> = [
  tool("echo", "Returns its text", object({ text: str }, ["text"]), readOnly),
  tool("slow", "Waits ms, then returns text", object({ ms: int, text: str }, ["ms"]), readOnly),
  tool("slow_write", "Waits ms (no annotations)", object({ ms: int }, ["ms"])),
  tool("die", "Exits with code 7 without answering", object()),
  tool("count", "How many tools/call requests the server has received", object(), readOnly),
  tool("progress", "Sends progress notifications, a foreign one and a late one", object({ steps: int, ms: int })),
  tool("log", "Sends notifications/message (logger scripted)", object({ level: str })),
  tool("confirm", "Asks a yes/no form elicitation", object()),
  tool("multi", "Asks one elicitation per round", object({ rounds: int })),
  tool("state_only", "input_required with only requestState, for a number of rounds", object({ rounds: int })),
  tool("forever", "Always asks for more input", object()),
  tool("sample", "Asks the client to sample a message", object()),
  tool("roots", "Asks the client for its roots", object()),
  tool("roots_changed_count", "How many notifications/roots/list_changed were received", object(), readOnly),
  tool("both_inputs", "Asks an elicitation and roots in one round", object()),
  tool("ask_undeclared", "Asks an elicitation even if the client did not declare the capability", object()),
  tool("bad_result_type", 'Returns resultType "weird"', object()),
  tool("error", "Fails with a JSON-RPC error", object()),
  tool("is_error", "Returns a result with isError: true", object()),
  tool("add_tool", "Adds the tool extra and announces the change", object()),
  tool(
    "list_changed",
    "Announces a list change without changing anything",
    object({ kind: { type: "string", enum: ["tools", "prompts", "resources"] } }, ["kind"])
  ),
  tool("touch", "Sends notifications/resources/updated for uri", object({ uri: str }, ["uri"])),
  tool(
    "end_listen",
    "Ends every open subscriptions/listen from the server side",
    object({ how: { type: "string", enum: ["result", "cancel", "both"] } })
  ),
  tool("ping_client", "Legacy: pings the client", object())
]

const EXTRA_TOOL = tool("extra", "Added by add_tool", object(), readOnly)

/** Listed only to a client that declares URL-mode elicitation. */
const URL_TOOLS: ReadonlyArray<JsonObject> = [
  tool(
    "url_elicit",
    "Asks a URL-mode elicitation; legacy: sends notifications/elicitation/complete complete_ms after an accept",
    object({ url: str, message: str, complete_ms: int })
  ),
  tool(
    "url_required",
    "Legacy: answers -32042 (URL elicitation required) until `refusals` completions, each sent complete_ms later",
    object({ url: str, message: str, complete_ms: int, refusals: int, wrong_id: { type: "boolean" } })
  )
]

export const toolDefinitions = (withExtra: boolean, withUrl = false): Array<JsonObject> => [
  ...BASE_TOOLS,
  ...(withUrl ? URL_TOOLS : []),
  ...(withExtra ? [EXTRA_TOOL] : [])
]

export const URL_ELICITATION_DEFAULTS = {
  url: "https://example.com/connect?step=1",
  message: "Connect your example.com account"
} as const

/** The URL elicitation's params of a tool call's arguments (`url`, `message`, defaults above). */
export const urlElicitation = (args: JsonObject, elicitationId?: string): JsonObject => ({
  mode: "url",
  message: getString(args, "message") ?? URL_ELICITATION_DEFAULTS.message,
  url: getString(args, "url") ?? URL_ELICITATION_DEFAULTS.url,
  ...(elicitationId !== undefined ? { elicitationId } : {})
})

/** `url elicitation: accepted`, `declined` or `cancelled`. */
export const describeUrlAnswer = (result: JsonObject): string =>
  `url elicitation: ${result["action"] === "accept" ? "accepted" : result["action"] === "decline" ? "declined" : "cancelled"}`

export const hasTool = (name: string, withExtra: boolean): boolean =>
  BASE_TOOLS.some((definition) => definition["name"] === name) || (withExtra && name === "extra")

// ---------------------------------------------------------------------------
// Pagination of tools/list

export interface PageOptions {
  readonly pageSize: number | undefined
  readonly endless: boolean
  /** Modern: the first cursor is "" (a valid cursor, not the end). */
  readonly modern: boolean
}

/** The cursor that fetches page `index` (1 or more). */
const cursorFor = (index: number, options: PageOptions): string => (options.modern && index === 1 ? "" : `c${index}`)

const pageIndex = (cursor: Json | undefined, options: PageOptions): number | undefined => {
  if (cursor === undefined) return 0
  if (typeof cursor !== "string") return undefined
  if (options.modern && cursor === "") return 1
  const match = /^c([1-9][0-9]*)$/.exec(cursor)
  const index = match?.[1] !== undefined ? Number(match[1]) : undefined
  return index !== undefined && (!options.modern || index >= 2) ? index : undefined
}

export const paginate = <A>(
  items: ReadonlyArray<A>,
  cursor: Json | undefined,
  options: PageOptions
): { readonly page: Array<A>; readonly nextCursor: string | undefined } => {
  const size = options.pageSize ?? Math.max(items.length, 1)
  const pages = Math.max(1, Math.ceil(items.length / size))
  const index = pageIndex(cursor, options)
  if (index === undefined || (!options.endless && index >= pages)) {
    throw new RpcError(ErrorCode.InvalidParams, "Invalid cursor", { cursor: cursor ?? null })
  }
  const hasNext = options.endless || index + 1 < pages
  return {
    page: items.slice(index * size, (index + 1) * size),
    nextCursor: hasNext ? cursorFor(index + 1, options) : undefined
  }
}

// ---------------------------------------------------------------------------
// Prompts, resources, completion

export const PROMPTS: ReadonlyArray<JsonObject> = [
  {
    name: "hello",
    description: "Says hello",
    arguments: [
      { name: "name", description: "Who to greet", required: true },
      { name: "ask", description: '"yes": confirm first (modern: input_required)', required: false }
    ]
  }
]

export const promptMessages = (name: string, suffix: string): JsonObject => ({
  description: "Says hello",
  messages: [{ role: "user", content: { type: "text", text: `Hello, ${name}!${suffix}` } }]
})

export const RESOURCES: ReadonlyArray<JsonObject> = [
  { uri: "test://a", name: "a", mimeType: "text/plain" },
  { uri: "test://b", name: "b", mimeType: "text/plain" }
]

export const RESOURCE_TEMPLATES: ReadonlyArray<JsonObject> = [
  { uriTemplate: "test://items/{id}", name: "item", mimeType: "text/plain" }
]

/** URI that asks for a confirmation before it can be read. */
export const ASK_URI = "test://ask"

export const isKnownResource = (uri: string): boolean =>
  RESOURCES.some((resource) => resource["uri"] === uri) || /^test:\/\/items\/[^/]+$/.test(uri) || uri === ASK_URI

export const resourceContents = (uri: string, suffix = ""): JsonObject => ({
  contents: [{ uri, mimeType: "text/plain", text: `content of ${uri}${suffix}` }]
})

export const COMPLETION: JsonObject = { completion: { values: ["alpha", "beta"], total: 2, hasMore: false } }

// ---------------------------------------------------------------------------
// Input requests and how their answers are worded

export const CONFIRM_SCHEMA: JsonObject = {
  type: "object",
  properties: { ok: { type: "boolean" } },
  required: ["ok"]
}

/** Elicitation params; `mode: "form"` is left out for legacy revisions older than 2025-11-25. */
export const confirmElicitation = (withMode: boolean): JsonObject => ({
  ...(withMode ? { mode: "form" } : {}),
  message: "Proceed?",
  requestedSchema: CONFIRM_SCHEMA
})

export const questionElicitation = (round: number, withMode: boolean): JsonObject => ({
  ...(withMode ? { mode: "form" } : {}),
  message: `Question ${round}?`,
  requestedSchema: { type: "object", properties: { answer: { type: "string" } }, required: ["answer"] }
})

export const SAMPLING_REQUEST: JsonObject = {
  messages: [{ role: "user", content: { type: "text", text: "Say hi" } }],
  maxTokens: 50
}

export const text = (value: string, isError = false): JsonObject => ({
  content: [{ type: "text", text: value }],
  ...(isError ? { isError: true } : {})
})

/** Checks the shape of an ElicitResult; a bad shape is the client's bug, so `-32602`. */
export const asElicitResult = (value: Json, where: string): JsonObject => {
  if (!isObject(value)) throw invalid(where, "an ElicitResult must be an object")
  if ("resultType" in value) throw invalid(where, "input responses carry no resultType")
  const action = value["action"]
  if (action !== "accept" && action !== "decline" && action !== "cancel") {
    throw invalid(where, 'action must be "accept", "decline" or "cancel"')
  }
  return value
}

export const asSamplingResult = (value: Json, where: string): JsonObject => {
  if (!isObject(value)) throw invalid(where, "a CreateMessageResult must be an object")
  if ("resultType" in value) throw invalid(where, "input responses carry no resultType")
  if (!("content" in value)) throw invalid(where, "a CreateMessageResult needs content")
  return value
}

export const asRootsResult = (value: Json, where: string): JsonObject => {
  if (!isObject(value)) throw invalid(where, "a ListRootsResult must be an object")
  if ("resultType" in value) throw invalid(where, "input responses carry no resultType")
  if (!Array.isArray(value["roots"])) throw invalid(where, "a ListRootsResult needs roots: []")
  return value
}

const invalid = (where: string, reason: string): RpcError =>
  new RpcError(ErrorCode.InvalidParams, `Invalid input response ${where}: ${reason}`, { key: where, reason })

/** `accepted ok=<bool>`, `declined` or `cancelled`. */
export const describeConfirm = (result: JsonObject): string => {
  switch (result["action"]) {
    case "accept": {
      const content = result["content"]
      return `accepted ok=${isObject(content) ? JSON.stringify(content["ok"] ?? null) : "null"}`
    }
    case "decline":
      return "declined"
    default:
      return "cancelled"
  }
}

/** One answer of `multi`: the accepted `answer`, else `declined` / `cancelled`. */
export const describeAnswer = (result: JsonObject): string => {
  switch (result["action"]) {
    case "accept": {
      const content = result["content"]
      const answer = isObject(content) ? content["answer"] : undefined
      return typeof answer === "string" ? answer : JSON.stringify(answer ?? null)
    }
    case "decline":
      return "declined"
    default:
      return "cancelled"
  }
}

export const describeAnswers = (answers: ReadonlyArray<string>): string => `answers: ${answers.join(", ")}`

/** `sampled: <text>`, using the first text block of the sampled content. */
export const describeSample = (result: JsonObject): string => {
  const content = result["content"]
  const blocks = Array.isArray(content) ? content : [content ?? null]
  const first = blocks.find((block) => isObject(block) && block["type"] === "text")
  return `sampled: ${isObject(first) ? (getString(first, "text") ?? "") : ""}`
}

export const describeRoots = (result: JsonObject): string => {
  const roots = result["roots"]
  return Array.isArray(roots) ? roots.map((root) => (isObject(root) ? (getString(root, "uri") ?? "") : "")).join(",") : ""
}

// ---------------------------------------------------------------------------
// Capabilities

/** Form elicitation is declared by `elicitation: {}` or `elicitation: {form: {}}`, not by `{url: {}}` alone. */
export const declaresFormElicitation = (capabilities: JsonObject | undefined): boolean => {
  const elicitation = capabilities?.["elicitation"]
  return isObject(elicitation) && ("form" in elicitation || !("url" in elicitation))
}

/** URL-mode elicitation is declared by `elicitation: {url: {}}`. */
export const declaresUrlElicitation = (capabilities: JsonObject | undefined): boolean => {
  const elicitation = capabilities?.["elicitation"]
  return isObject(elicitation) && "url" in elicitation
}

export const declares = (capabilities: JsonObject | undefined, name: "sampling" | "roots"): boolean =>
  isObject(capabilities?.[name])
