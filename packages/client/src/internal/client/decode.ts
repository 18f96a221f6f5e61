/**
 * Decoders of results, built once and reused.
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { McpInvalidResponseError } from "../../McpError.js"
import {
  CallToolResult,
  CompleteResult,
  decodeWire,
  GetPromptResult,
  InputRequiredResult,
  isRecord,
  LoggingMessageParams,
  OpenStruct,
  ProgressParams,
  ReadResourceResult
} from "../../McpSchema.js"

/** @internal */
export const decodeAs = <A>(schema: Schema.Decoder<A>, method: string) => {
  const decode = decodeWire(schema)
  return (raw: unknown): Effect.Effect<A, McpInvalidResponseError> =>
    decode(raw).pipe(
      Effect.mapError((e) => new McpInvalidResponseError({ method, reason: e.message, response: raw }))
    )
}

/** @internal */
export const decodeInputRequired = decodeAs(InputRequiredResult, "input_required")
const decodeCallToolResultFully = decodeAs(CallToolResult, "tools/call")

/** A text block with nothing else: what the schema accepts and returns as it is. */
const isPlainText = (block: unknown): boolean => {
  if (!isRecord(block) || block["type"] !== "text" || typeof block["text"] !== "string") return false
  for (const key in block) if (key !== "type" && key !== "text") return false
  return true
}

/**
 * The shape nearly every tool result has (text blocks, `isError`, `structuredContent`), checked by hand;
 * anything else goes through the schema. Both accept and return the same.
 */
const isPlainCallToolResult = (raw: unknown): raw is CallToolResult => {
  if (!isRecord(raw)) return false
  const content = raw["content"]
  if (!Array.isArray(content)) return false
  for (const block of content) if (!isPlainText(block)) return false
  const isError = raw["isError"]
  if (isError !== undefined && typeof isError !== "boolean") return false
  const meta = raw["_meta"]
  return meta === undefined || isRecord(meta)
}

/** @internal */
export const decodeCallToolResult = (raw: unknown): Effect.Effect<CallToolResult, McpInvalidResponseError> =>
  isPlainCallToolResult(raw) ? Effect.succeed(raw) : decodeCallToolResultFully(raw)
/** @internal */
export const decodeGetPromptResult = decodeAs(GetPromptResult, "prompts/get")
/** @internal */
export const decodeReadResourceResult = decodeAs(ReadResourceResult, "resources/read")
/** @internal */
export const decodeCompleteResult = decodeAs(CompleteResult, "completion/complete")
/** @internal */
export const decodeProgress = Schema.decodeUnknownOption(ProgressParams)
/** @internal */
export const decodeLog = Schema.decodeUnknownOption(LoggingMessageParams)
/** @internal */
export const decodeFilter = Schema.decodeUnknownOption(
  OpenStruct({
    toolsListChanged: Schema.optional(Schema.Boolean),
    promptsListChanged: Schema.optional(Schema.Boolean),
    resourcesListChanged: Schema.optional(Schema.Boolean),
    resourceSubscriptions: Schema.optional(Schema.Array(Schema.String)),
    taskIds: Schema.optional(Schema.Array(Schema.String))
  })
)
