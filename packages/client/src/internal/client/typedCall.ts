/**
 * Typed tool calls: `callTool(name, args, { schema })` decodes the answer's `structuredContent` with an Effect
 * `Schema` (the result's `Type`, its decoding services in `R`); without `schema` the call is as it always was.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type * as SchemaIssue from "effect/SchemaIssue"
import type {
  AnyCallOptions,
  CallErrorOf,
  CallOptions,
  CallResultOf,
  CallServicesOf,
  Service
} from "../../McpClient.js"
import { type McpClientError, McpToolResultError } from "../../McpError.js"
import type { CallToolResult, JsonObject } from "../../McpSchema.js"
import { MAX_DEPTH, measure } from "../outputSchema.js"

type Untyped = (
  name: string,
  args: JsonObject | undefined,
  options: CallOptions | undefined
) => Effect.Effect<CallToolResult, McpClientError>

/** The first failing path of an issue, as an accessor path (`.results[0].title`). */
const pathOf = (issue: SchemaIssue.Issue): string => {
  const keys: Array<PropertyKey> = []
  let current: SchemaIssue.Issue | undefined = issue
  while (current !== undefined) {
    if (current._tag === "Pointer") {
      keys.push(...current.path)
      current = current.issue
    } else if (current._tag === "Composite" || current._tag === "AnyOf") {
      current = current.issues[0]
    } else if (current._tag === "Filter" || current._tag === "Encoding") {
      current = current.issue
    } else {
      current = undefined
    }
  }
  return keys.map((key) => typeof key === "number" ? `[${key}]` : `.${String(key)}`).join("")
}

/** The text an error answer carried, cut short (it is the server's). */
const errorText = (result: CallToolResult): string => {
  const text = result.content.flatMap((block) => block.type === "text" ? [block.text] : []).join(" ")
  return text.length > 300 ? `${text.slice(0, 299)}…` : text === "" ? "(no text)" : text
}

/** Decode `structuredContent` with `schema`, or fail saying why it is not the value the schema describes. */
const decoded = <A, R>(name: string, result: CallToolResult, schema: Schema.Decoder<A, R>) => {
  if (result.isError === true) {
    return Effect.fail(new McpToolResultError({ tool: name, reason: "ToolError", detail: errorText(result) }))
  }
  if (result.structuredContent === undefined) {
    return Effect.fail(
      new McpToolResultError({ tool: name, reason: "NoStructuredContent", detail: "the answer has no structuredContent" })
    )
  }
  // Bounded before the decoder walks it: a server's 100,000 levels would overflow the stack of any schema that
  // recurses (a tree), an untagged defect instead of this error.
  if (measure(result.structuredContent, Number.POSITIVE_INFINITY) === "too-deep") {
    return Effect.fail(
      new McpToolResultError({
        tool: name,
        reason: "Decode",
        detail: `structuredContent is nested deeper than ${MAX_DEPTH} levels: not decoded`
      })
    )
  }
  return Schema.decodeUnknownEffect(schema)(result.structuredContent).pipe(
    Effect.mapError((error) =>
      new McpToolResultError({
        tool: name,
        reason: "Decode",
        path: pathOf(error.issue),
        detail: `structuredContent does not decode: ${error.message.split("\n")[0] ?? ""}`
      })
    )
  )
}

/** A typed call's effect at the types its options give (TypeScript cannot narrow `O` from a value). */
type CallOf<O> = Effect.Effect<CallResultOf<O>, CallErrorOf<O>, CallServicesOf<O>>

/**
 * `callTool` with the typed form added: with `options.schema` the call's result decoded, else the call as it is.
 * The branch taken is the one `O`'s conditional types describe, which is what the two conversions state.
 *
 * @internal
 */
export const withSchema = (untyped: Untyped): Service["callTool"] =>
<O extends AnyCallOptions = CallOptions>(name: string, args?: JsonObject, options?: O): CallOf<O> => {
  const schema = options?.schema
  if (options === undefined || schema === undefined) return untyped(name, args, options) as unknown as CallOf<O>
  const { schema: _, ...rest } = options
  return Effect.flatMap(untyped(name, args, rest), (result) => decoded(name, result, schema)) as unknown as CallOf<O>
}
