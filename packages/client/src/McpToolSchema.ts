/**
 * A tool's `inputSchema` / `outputSchema` (JSON Schema 2020-12) as an Effect `Schema`, at run time, as far as its
 * keywords allow, saying which it could not express: for a typed call of a tool known only at run time
 * (`callTool(name, args, { schema })`), or to check arguments before sending them. Patterns are never applied (a
 * server's regular expression could block the decoder); `format` is not checked; a schema nested deeper than 64
 * levels is not imported (the failure says so). Only keywords are left out, never a property named like one
 * (`pattern`, `if`). Ahead of time, `mcp-effect types` writes the same schemas as TypeScript.
 *
 * ```ts
 * const tool = (yield* client.listTools()).find((t) => t.name === "search")
 * const output = McpToolSchema.outputSchemaOf(tool)            // Result: the schema, or why not
 * if (Result.isSuccess(output)) {
 *   const value = yield* client.callTool("search", { query: "effect" }, { schema: output.success.schema })
 * }
 * ```
 *
 * @since 0.3.0
 */
import * as Result from "effect/Result"
import * as internal from "./internal/toolSchema.js"
import type { Tool } from "./McpSchema.js"

/**
 * The schema imported, and what it does not check that the JSON Schema does (each keyword and where).
 *
 * @since 0.3.0
 * @category models
 */
export type Imported = internal.Imported

/**
 * A keyword left out, and where (a JSON Pointer into the tool's schema).
 *
 * @since 0.3.0
 * @category models
 */
export type Unexpressed = internal.Unexpressed

/**
 * A JSON Schema (2020-12) as an Effect `Schema`: success with the schema and what it leaves out, or failure with
 * why it cannot be imported at all.
 *
 * @since 0.3.0
 * @category constructors
 */
export const fromJsonSchema: (jsonSchema: unknown) => Result.Result<Imported, string> = internal.fromJsonSchema

/**
 * The tool's `inputSchema` as an Effect `Schema`.
 *
 * @since 0.3.0
 * @category constructors
 */
export const inputSchemaOf = (tool: Tool): Result.Result<Imported, string> => fromJsonSchema(tool.inputSchema)

/**
 * The tool's `outputSchema` as an Effect `Schema` (a failure when the tool declares none).
 *
 * @since 0.3.0
 * @category constructors
 */
export const outputSchemaOf = (tool: Tool): Result.Result<Imported, string> =>
  tool.outputSchema === undefined ? Result.fail(`tool ${tool.name} declares no outputSchema`) : fromJsonSchema(tool.outputSchema)
