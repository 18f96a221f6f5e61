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
  LoggingMessageParams,
  ProgressParams,
  ReadResourceResult
} from "../../McpSchema.js"

/** @internal */
export const decodeAs = <A, I>(schema: Schema.Schema<A, I>, method: string) => {
  const decode = decodeWire(schema)
  return (raw: unknown): Effect.Effect<A, McpInvalidResponseError> =>
    decode(raw).pipe(
      Effect.mapError((e) => new McpInvalidResponseError({ method, reason: e.message, response: raw }))
    )
}

/** @internal */
export const decodeInputRequired = decodeAs(InputRequiredResult, "input_required")
/** @internal */
export const decodeCallToolResult = decodeAs(CallToolResult, "tools/call")
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
  Schema.Struct({
    toolsListChanged: Schema.optional(Schema.Boolean),
    promptsListChanged: Schema.optional(Schema.Boolean),
    resourcesListChanged: Schema.optional(Schema.Boolean),
    resourceSubscriptions: Schema.optional(Schema.Array(Schema.String))
  })
)
