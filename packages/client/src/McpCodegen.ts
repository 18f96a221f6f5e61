/**
 * Typed clients generated from a server's tools (what `mcp-effect types` writes): one Effect `Schema` per tool
 * input and output, a typed facade for the Effect API (`yield* tools.search({ query })` gives the decoded output)
 * and one for the Promise API, type-checking under `--strict`. A server whose tool changed shape since
 * generation fails the call with `McpToolResultError`; `changedTools` (in the generated module) says which
 * tools differ, from the hash of each tool's schemas kept at generation.
 *
 * What a server lists cannot break the module: a schema nested deeper than 64 levels types its tool looser (a
 * note says so), a name listed twice is typed once (its first listing), only keywords are dropped (never a property
 * named like one), and the server's text reaches the source only as escapes (bidi controls, C0, C1: no Trojan
 * Source). Arguments take the declared properties only; `undeclared` sends more, explicitly.
 *
 * @since 0.3.0
 */
import * as Effect from "effect/Effect"
import * as internal from "./internal/codegen.js"
import * as McpClient from "./McpClient.js"
import type { McpClientError } from "./McpError.js"
import type { JsonObject, Tool } from "./McpSchema.js"

/**
 * @since 0.3.0
 * @category models
 */
export type GenerateOptions = internal.GenerateOptions

/**
 * @since 0.3.0
 * @category models
 */
export type Generated = internal.Generated

/**
 * @since 0.3.0
 * @category models
 */
export type Note = internal.Note

/**
 * The source of a TypeScript module typing these tools, and notes on what it could not type (keywords a schema
 * cannot express; a tool whose schema cannot be imported is typed with `JsonObject` input and raw results).
 *
 * @since 0.3.0
 * @category constructors
 */
export const toolsModule: (tools: ReadonlyArray<Tool>, options?: GenerateOptions) => Effect.Effect<Generated> =
  internal.toolsModule

/**
 * The tools of `definitions` (a generated module's) that the server in context lists now with other schemas,
 * or no longer lists. A generated module exports it bound to its own definitions as `changedTools`.
 *
 * @since 0.3.0
 * @category utils
 */
export const changedTools = (
  definitions: Readonly<Record<string, string>>
): Effect.Effect<ReadonlyArray<string>, McpClientError, McpClient.McpClient> =>
  Effect.flatMap(McpClient.listTools({ refresh: true }), (tools) => internal.changedTools(definitions, tools))

/**
 * Keys a tool does not declare, for a generated call: `tools.search({ query, ...McpCodegen.undeclared({ debug: true }) })`.
 * Generated input types take a tool's declared properties only, whatever its `additionalProperties` says (a typo
 * in an optional argument must not compile); this is the one explicit way to send more. The keys are sent as
 * given and go unchecked.
 *
 * @since 0.3.0
 * @category constructors
 */
export const undeclared = (keys: JsonObject): object => keys
