/**
 * What a model reads: tool results and failures rendered to text.
 *
 * @internal
 */
import type { McpClientError } from "../../McpError.js"
import { type CallToolResult, type ContentBlock, isRecord } from "../../McpSchema.js"
import { canonicalJson } from "./names.js"

/** @internal */
export interface RenderOptions {
  /** How much of an embedded text resource is shown (default 2000 characters). */
  readonly maxResourceText?: number | undefined
}

const sizeOfBase64 = (data: string): string => {
  const padding = data.endsWith("==") ? 2 : data.endsWith("=") ? 1 : 0
  const bytes = Math.max(0, Math.floor((data.length * 3) / 4) - padding)
  return bytes < 1024 ? `${bytes} bytes` : bytes < 1024 * 1024
    ? `${(bytes / 1024).toFixed(1)} KB`
    : `${(bytes / (1024 * 1024)).toFixed(1)} MB`
}

const str = (value: unknown): string | undefined => typeof value === "string" && value !== "" ? value : undefined

/** One content block as text: text as it is, everything else described. @internal */
export const renderBlock = (block: ContentBlock, options: RenderOptions = {}): string => {
  const raw: unknown = block
  const fields: Record<string, unknown> = isRecord(raw) ? raw : {}
  switch (block.type) {
    case "text":
      return typeof fields["text"] === "string" ? fields["text"] : ""
    case "image":
    case "audio": {
      const data = typeof fields["data"] === "string" ? fields["data"] : ""
      const mime = str(fields["mimeType"]) ?? "unknown type"
      return `[${block.type}: ${mime}, ${sizeOfBase64(data)}; not shown]`
    }
    case "resource_link": {
      const name = str(fields["title"]) ?? str(fields["name"]) ?? "resource"
      const mime = str(fields["mimeType"])
      const description = str(fields["description"])
      return `[resource link: ${name} <${String(fields["uri"])}>${mime === undefined ? "" : ` (${mime})`}${
        description === undefined ? "" : ` - ${description}`
      }]`
    }
    case "resource": {
      const resource = isRecord(fields["resource"]) ? fields["resource"] : {}
      const uri = String(resource["uri"])
      const mime = str(resource["mimeType"])
      const text = resource["text"]
      if (typeof text === "string") {
        const max = options.maxResourceText ?? 2000
        const shown = text.length > max ? `${text.slice(0, max)}\n[... ${text.length - max} more characters not shown]` : text
        return `[resource <${uri}>${mime === undefined ? "" : ` (${mime})`}, ${text.length} characters]\n${shown}`
      }
      const blob = typeof resource["blob"] === "string" ? resource["blob"] : ""
      return `[resource <${uri}>${mime === undefined ? "" : ` (${mime})`}, ${sizeOfBase64(blob)} of binary data; not shown]`
    }
    case "unknown":
      return `[${block.originalType} content; not shown]`
    default:
      // An undecoded block (a local tool's own result) of a type this client does not know.
      return `[${String(fields["type"])} content; not shown]`
  }
}

const parseJson = (text: string): { readonly value: unknown } | undefined => {
  try {
    return { value: JSON.parse(text) }
  } catch {
    return undefined
  }
}

/**
 * Whether the text blocks already carry `structured`: one block is its JSON, or the JSON of its only member
 * `result` (how SDKs wrap a non-object output), or the blocks together are its list (one block per item).
 */
const textCarries = (texts: ReadonlyArray<string>, structured: unknown): boolean => {
  if (texts.length === 0) return false
  const wanted = canonicalJson(structured)
  const unwrapped = isRecord(structured) && Object.keys(structured).length === 1 && "result" in structured
    ? canonicalJson(structured["result"])
    : undefined
  const parsed = texts.map(parseJson)
  for (const entry of parsed) {
    if (entry === undefined) continue
    const json = canonicalJson(entry.value)
    if (json === wanted || json === unwrapped) return true
  }
  if (texts.length < 2 || parsed.some((entry) => entry === undefined)) return false
  const together = canonicalJson(parsed.map((entry) => entry?.value))
  return together === wanted || together === unwrapped
}

/**
 * A whole tool result as text. Structured content is shown as JSON unless a text block already carries it
 * (the spec asks servers to send both).
 *
 * @internal
 */
export const renderResult = (result: CallToolResult, options: RenderOptions = {}): string => {
  const parts = result.content.map((block) => renderBlock(block, options))
  const structured = result.structuredContent
  if (structured !== undefined) {
    const texts = result.content.flatMap((block) => {
      const fields: unknown = block
      return block.type === "text" && isRecord(fields) && typeof fields["text"] === "string" ? [fields["text"]] : []
    })
    if (!textCarries(texts, structured)) parts.push(JSON.stringify(structured))
  }
  const text = parts.filter((part) => part !== "").join("\n")
  if (text !== "") return text
  return result.isError === true ? "The tool reported an error without saying what went wrong." : "(no output)"
}

/**
 * Whether a value a local tool returned is shaped like a `CallToolResult` (`{ content: [{ type, ... }] }`),
 * so it is rendered like a server's answer rather than as JSON.
 *
 * @internal
 */
export const isCallToolResultLike = (value: unknown): value is CallToolResult =>
  isRecord(value) && Array.isArray(value["content"]) &&
  value["content"].every((block) => isRecord(block) && typeof block["type"] === "string")

/** Why a call failed, for the model to read. @internal */
export const describeClientError = (tool: string, error: McpClientError): string => {
  switch (error._tag) {
    case "McpProtocolError":
      return `Tool "${tool}" failed: the server refused the call (error ${error.code}: ${error.serverMessage}).`
    case "McpTimeoutError":
      return `Tool "${tool}" did not answer within ${error.timeoutMillis} ms (${error.limit} timeout) and was cancelled.`
    case "McpInputLoopExceededError":
      return `Tool "${tool}" was abandoned: the server was still asking for more input after ${error.rounds} rounds.`
    case "McpInputRefusedError":
      return `Tool "${tool}" was abandoned: it needed input that was refused (${error.reason}).`
    case "McpInvalidResponseError":
      return `Tool "${tool}" answered with something that could not be read: ${error.reason}.`
    case "McpServerGoneError":
      return `Tool "${tool}" could not be run: the tool server is gone (${error.reason}).`
    case "McpClosedError":
      return `Tool "${tool}" could not be run: the connection to its server is closed.`
    case "McpTransportError":
      return `Tool "${tool}" could not be run: the tool server cannot be reached (${error.detail}).`
    case "McpUnsupportedVersionError":
      return `Tool "${tool}" could not be run: the tool server speaks no protocol version this client supports.`
    case "McpPaginationLimitError":
      return `Tool "${tool}" could not be run: ${error.message}.`
    case "McpProbeStalledError":
      return `Tool "${tool}" could not be run: its in-memory test server never answered server/discover.`
    case "McpAuthError":
      return `Tool "${tool}" could not be run: the client is not authorized at its server (${error.message}).`
    case "McpToolQuarantinedError": {
      const why = error.changes.join("; ")
      if (error.held === "unchecked") return `Tool "${tool}" was not run: tool pinning cannot check it (${why}).`
      if (error.held === "damaged") {
        return `Tool "${tool}" was not run: its approved definition cannot be read back (${why}), and it awaits approval.`
      }
      return `Tool "${tool}" was not run: its definition changed since it was approved (${why}), and the change awaits approval.`
    }
  }
}

/** The message of any failure value a local tool produced. @internal */
export const describeUnknownError = (error: unknown): string => {
  if (typeof error === "string") return error
  if (error instanceof Error) {
    const tag = isRecord(error) && typeof error["_tag"] === "string" ? error["_tag"] : undefined
    const message = error.message !== "" ? error.message : undefined
    return tag !== undefined && message !== undefined && message !== tag
      ? `${tag}: ${message}`
      : message ?? tag ?? error.name
  }
  if (isRecord(error)) {
    const message = error["message"]
    const tag = error["_tag"]
    if (typeof message === "string" && typeof tag === "string") return `${tag}: ${message}`
    if (typeof message === "string") return message
    if (typeof tag === "string") return tag
  }
  try {
    return JSON.stringify(error) ?? String(error)
  } catch {
    return String(error)
  }
}
