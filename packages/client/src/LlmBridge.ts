/**
 * Feeding an LLM: a server's catalogue as OpenAI-style function declarations, and the tool calls a model
 * asked for run and answered.
 *
 * ```ts
 * import { Effect } from "effect"
 * import { LlmBridge, McpClient } from "@mcp-effect/client"
 *
 * const turn = (calls: ReadonlyArray<LlmBridge.ToolCall>) =>
 *   Effect.gen(function*() {
 *     const bridge = yield* LlmBridge.make()
 *     const tools = yield* bridge.toolsForLlm()           // send these with the chat request
 *     const results = yield* bridge.executeToolCalls(calls) // one { tool_call_id, role: "tool", ... } per call
 *     return { tools, results }
 *   })
 *
 * turn([]).pipe(Effect.provide(NodeMcpClient.layerStdio({ command: "my-server" })), Effect.runPromise)
 * ```
 *
 * **`toolsForLlm`.** Each tool becomes `{ type: "function", function: { name, description, parameters } }`.
 * The `parameters` are the tool's `inputSchema` made acceptable to the model APIs:
 *
 * - Same-document `$ref`s (`#/$defs/…`, `#/definitions/…`, any JSON Pointer, `$anchor`s, the root's own
 *   `$id`) are inlined, and `$defs`/`definitions`/`$schema`/`$id` dropped. A recursive reference is
 *   expanded once and then cut; past `maxRefDepth` nested references or `maxNodes` schema nodes, inlining
 *   stops. What is cut becomes "any value" (`{}` with a description saying why).
 * - An external `$ref` (any other document: `https://…`, `other.json#…`) is **never fetched**. It is
 *   replaced by the permissive schema `{}` ("any value"), with the reason in that property's description,
 *   and the tool's description gains a line "Note on the arguments: the external reference … was not
 *   fetched; any value is accepted there". The same note is given for cut and unresolvable references.
 * - The root is always an object schema with `properties`: an `allOf` of objects is merged, an
 *   `anyOf`/`oneOf` of objects is flattened (every alternative's properties offered, only those all of them
 *   require required; noted), and a root that is not an object at all becomes "any object" (noted).
 * - Names are sanitised for the model APIs (`^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$`, what OpenAI, Anthropic and
 *   Gemini all accept): a valid name is kept; any other has its invalid characters replaced by `_`, a `_` put
 *   in front of a leading digit or `-`, is truncated, and ends in `_` plus an 8-hex-digit FNV-1a hash of the
 *   original, so distinct names stay distinct. Calls are routed back by the exposed name (or the original).
 *
 * **Strict mode** (`toolsForLlm({ strict: true })`, or `strict: true` on the bridge): OpenAI's strict
 * function calling. Every object gets `additionalProperties: false` and lists every property in `required`;
 * an optional property is made nullable (`type: [T, "null"]`, `null` added to an `enum`, or an
 * `anyOf` branch), and a `null` the model sends for it is removed again before the call, so the tool sees the
 * property absent. `oneOf` is offered as `anyOf` (exclusivity is lost). Keywords strict mode does not support
 * are removed; the constraints among them (`default`, `minLength`/`maxLength`, unsupported `format`s,
 * `uniqueItems`, `not`, conditionals, …) are written into the property's description instead, so the model
 * still reads them but the API no longer enforces them. Where the schema cannot be expressed strictly at all,
 * that tool (only that one) is declared **non-strict**, with `strict: false`, and `describeTools` says why:
 *
 * - free-form values: a property with no type (including what an external or cut reference became), a
 *   nested object without declared properties, `additionalProperties: true` or a schema (maps),
 *   `patternProperties`, `dependentSchemas`;
 * - tuples (`prefixItems` or an `items` array), arrays without `items`;
 * - an `allOf` that does not merge into one object, `anyOf` next to other constraints, a union at the root;
 * - past OpenAI's limits: 10 levels of nesting, 5000 properties, 1000 enum values.
 *
 * What a non-strict tool loses is only the API's guarantee: the model may send arguments that do not match,
 * which the server then rejects and the model reads as an `is_error` result.
 *
 * **`executeToolCalls`** never fails. A malformed call, arguments that are not JSON or not an object, an
 * unknown tool (after re-listing once), a tool result with `isError`, a protocol error, a timeout, an exhausted
 * input loop, a dead connection: each is that call's result with `is_error: true` and a reason the model can
 * read. `undefined` or `null` instead of a list is no calls; a call without an id gets `call_<index>`, made
 * unique within the batch so no two results share an id. Content is rendered to text: text as it is,
 * structured content as JSON (unless the text blocks already carry the same data: one block equal to it, or
 * to its `result` member, the shape SDKs use for a non-object output, or the blocks together as its list), images and audio described by type and size, resource links by name and URI, embedded resources
 * by URI and type (a text resource's first `maxResourceText` characters are shown, a blob never). The batch is
 * run by the `ToolScheduler` (see there): serial unless every call is to a read-only idempotent tool. Every
 * call carries the model's call id as `toolCallId`, which `onProgress` reports.
 *
 * Each batch reads the catalogue once through `listTools` (which the client caches as far as the server
 * permits; a legacy server is asked every time), to find the tools and their annotations; a tool it does not
 * list triggers one `refresh` before the call is answered as unknown. Arguments are checked against the
 * tool's parameters only for one thing: a `null` given for an optional property that does not accept `null`
 * is removed (that is how strict mode says "left out", and some models do it unasked); everything else is
 * the tool's to validate.
 *
 * @since 0.1.0
 */
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import * as internal from "./internal/llm/bridge.js"
import * as clientBridge from "./internal/llm/client.js"
import { renderResult } from "./internal/llm/content.js"
import * as names from "./internal/llm/names.js"
import * as schemas from "./internal/llm/schema.js"
import * as McpClient from "./McpClient.js"
import type { McpClientError } from "./McpError.js"
import type { CallToolResult, JsonObject, ToolAnnotations } from "./McpSchema.js"
import * as ToolScheduler from "./ToolScheduler.js"

// -----------------------------------------------------------------------------
// Wire shapes of the model APIs
// -----------------------------------------------------------------------------

/**
 * @since 0.1.0
 * @category models
 */
export interface FunctionDeclaration {
  readonly name: string
  readonly description: string
  readonly parameters: JsonObject
  /** Present when strict mode was asked for: `true` if the tool is strict, `false` if it fell back. */
  readonly strict?: boolean
}

/**
 * One entry of a chat request's `tools`.
 *
 * @since 0.1.0
 * @category models
 */
export interface FunctionTool {
  readonly type: "function"
  readonly function: FunctionDeclaration
}

/**
 * A tool call as a model returns it: `arguments` is a JSON string.
 *
 * @since 0.1.0
 * @category models
 */
export interface ToolCall {
  readonly id: string
  readonly type: "function"
  readonly function: { readonly name: string; readonly arguments: string }
}

/**
 * The message that answers one tool call.
 *
 * @since 0.1.0
 * @category models
 */
export interface ToolResult {
  readonly tool_call_id: string
  readonly role: "tool"
  readonly content: string
  readonly is_error: boolean
  /** What went wrong, when `is_error`: the model named no such tool, or its call could not be read, or the tool failed. */
  readonly error_kind?: ErrorKind | undefined
}

/**
 * Why a tool call's answer is an error: `"unknown_tool"` (no such tool, even after listing again),
 * `"invalid_call"` (the call could not be read: bad JSON arguments, no name), `"tool_error"` (the tool
 * answered with `isError`), `"failure"` (the call itself failed: timeout, protocol error, server gone, a local
 * tool's failure).
 *
 * @since 0.2.0
 * @category models
 */
export type ErrorKind = "unknown_tool" | "invalid_call" | "tool_error" | "failure"

/**
 * A tool call once read: runnable, or already answered with the reason it cannot run.
 *
 * @since 0.1.0
 * @category models
 */
export type ParsedToolCall =
  | { readonly _tag: "Call"; readonly id: string; readonly name: string; readonly args: JsonObject }
  | { readonly _tag: "Invalid"; readonly id: string; readonly name: string | undefined; readonly reason: string }

// -----------------------------------------------------------------------------
// Sources and bridges
// -----------------------------------------------------------------------------

/**
 * A tool as its owner describes it (an MCP `Tool`, or a local one).
 *
 * @since 0.1.0
 * @category models
 */
export interface SourceTool {
  readonly name: string
  readonly title?: string | undefined
  readonly description?: string | undefined
  readonly inputSchema: JsonObject
  readonly annotations?: ToolAnnotations | undefined
}

/**
 * @since 0.1.0
 * @category models
 */
export interface InvokeContext {
  /** The id of the model's tool call this run answers. */
  readonly toolCallId: string
}

/**
 * What a tool run came to, as the model will read it.
 *
 * @since 0.1.0
 * @category models
 */
export interface ToolOutcome {
  readonly content: string
  readonly isError: boolean
  /**
   * The result as its owner gave it, when there is one: a server's `CallToolResult`, a local tool's answer
   * when it is shaped like one. For callers that want more than the text (`@mcp-effect/ai`'s `"complete"`
   * result mode).
   */
  readonly result?: CallToolResult | undefined
  /** Why the call failed when it did not come back as a result: a client error, a local tool's failure. */
  readonly failure?: unknown
  /** What kind of error this is (default: `"failure"` with a `failure`, else `"tool_error"`). */
  readonly errorKind?: ErrorKind | undefined
}

/**
 * Anything that can list tools and run one by its own name: a remote server (`clientSource`), a local
 * toolkit (`Toolkit.source`), a registry of both. `invoke` cannot fail: a failed run is an outcome.
 *
 * @since 0.1.0
 * @category models
 */
export interface ToolSource<E> {
  readonly list: (options?: { readonly refresh?: boolean | undefined }) => Effect.Effect<ReadonlyArray<SourceTool>, E>
  readonly invoke: (name: string, args: JsonObject, context: InvokeContext) => Effect.Effect<ToolOutcome>
}

/**
 * @since 0.1.0
 * @category models
 */
export interface ToolsForLlmOptions {
  /** Declare the tools in OpenAI strict mode where their schema allows it. */
  readonly strict?: boolean | undefined
}

/**
 * A declared tool and what the conversion did to it.
 *
 * @since 0.1.0
 * @category models
 */
export interface LlmTool {
  /** The name the model sees. */
  readonly name: string
  /** The tool as its owner describes it. */
  readonly tool: SourceTool
  readonly declaration: FunctionTool
  /** Whether the declaration is strict. */
  readonly strict: boolean
  /** Every change the conversion made, and why a strict declaration fell back. */
  readonly notes: ReadonlyArray<string>
}

/**
 * The pair a model loop needs, identical for a remote server, a local toolkit and a registry.
 *
 * @since 0.1.0
 * @category models
 */
export interface Bridge<E> {
  readonly source: ToolSource<E>
  readonly toolsForLlm: (options?: ToolsForLlmOptions) => Effect.Effect<ReadonlyArray<FunctionTool>, E>
  readonly describeTools: (options?: ToolsForLlmOptions) => Effect.Effect<ReadonlyArray<LlmTool>, E>
  /**
   * One result per call, in call order. Never fails, never throws, whatever `calls` is: `undefined` or `null`
   * (a model reply without tool calls) gives no results, anything else that is not an array one error result.
   */
  readonly executeToolCalls: (calls: ReadonlyArray<ToolCall | unknown> | null | undefined | unknown) => Effect.Effect<ReadonlyArray<ToolResult>>
  /** What the tool's owner said about it (by exposed or original name); `None` if nothing, or no such tool. */
  readonly toolAnnotations: (name: string) => Effect.Effect<Option.Option<ToolAnnotations>, E>
}

/**
 * Bounds of the schema conversion.
 *
 * @since 0.1.0
 * @category models
 */
export interface SchemaOptions {
  /** References expanded inside one another before inlining stops (default 16). */
  readonly maxRefDepth?: number | undefined
  /** Schema nodes after which references are no longer expanded (default 2000). */
  readonly maxNodes?: number | undefined
  /** Strict mode: deepest object nesting (default 10). */
  readonly strictMaxDepth?: number | undefined
  /** Strict mode: most properties in one schema (default 5000). */
  readonly strictMaxProperties?: number | undefined
  /** Strict mode: most values of one enum (default 1000). */
  readonly strictMaxEnumValues?: number | undefined
}

/**
 * @since 0.1.0
 * @category models
 */
export interface BridgeOptions {
  /** The scheduler; default: the `ToolScheduler` in context, or `ToolScheduler.make()`. */
  readonly scheduler?: ToolScheduler.Service | undefined
  /** Shorthand for a scheduler with this `toolConcurrency`. */
  readonly toolConcurrency?: number | undefined
  /** Declare tools in strict mode by default. */
  readonly strict?: boolean | undefined
  readonly schema?: SchemaOptions | undefined
}

/**
 * @since 0.1.0
 * @category models
 */
export interface ClientBridgeOptions extends BridgeOptions {
  /** Request timeout of each tool call (default: the client's). */
  readonly timeout?: Duration.Input | undefined
  /** Budget of each tool call, every input round included. */
  readonly overallTimeout?: Duration.Input | undefined
  /** Merged into each call's `_meta`. */
  readonly meta?: JsonObject | undefined
  /** How much of an embedded text resource the model is shown (default 2000 characters). */
  readonly maxResourceText?: number | undefined
}

// -----------------------------------------------------------------------------
// Constructors
// -----------------------------------------------------------------------------

/**
 * A bridge over any tool source, scheduled by `options.scheduler` (default `ToolScheduler.make()`).
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromSource = <E>(source: ToolSource<E>, options: BridgeOptions = {}): Bridge<E> =>
  internal.fromSource(source, options, ToolScheduler.make())

/**
 * A bridge over any tool source, scheduled by the `ToolScheduler` in context (or the default one).
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromSourceEffect = <E>(source: ToolSource<E>, options: BridgeOptions = {}): Effect.Effect<Bridge<E>> =>
  Effect.map(ToolScheduler.current, (scheduler) => internal.fromSource(source, options, scheduler))

/**
 * A client's tools as a source: `list` is `listTools` (cached as far as the server permits, by the client),
 * `invoke` is `callTool` with the model's call id as `toolCallId`, its result rendered and its failures
 * turned into outcomes.
 *
 * @since 0.1.0
 * @category constructors
 */
export const clientSource: (client: McpClient.Service, options?: ClientBridgeOptions) => ToolSource<McpClientError> =
  clientBridge.clientSource

/**
 * A bridge over a client.
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromClient: (client: McpClient.Service, options?: ClientBridgeOptions) => Bridge<McpClientError> =
  clientBridge.fromClient

/**
 * A bridge over the `McpClient` in context, scheduled by the `ToolScheduler` in context (or the default).
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (options: ClientBridgeOptions = {}): Effect.Effect<Bridge<McpClientError>, never, McpClient.McpClient> =>
  Effect.flatMap(McpClient.McpClient, (client) => fromSourceEffect(clientSource(client, options), options))

// -----------------------------------------------------------------------------
// Accessors
// -----------------------------------------------------------------------------

/**
 * The tools of the `McpClient` in context as function declarations.
 *
 * @since 0.1.0
 * @category accessors
 */
export const toolsForLlm = (
  options?: ToolsForLlmOptions & ClientBridgeOptions
): Effect.Effect<ReadonlyArray<FunctionTool>, McpClientError, McpClient.McpClient> =>
  Effect.flatMap(make(options), (bridge) => bridge.toolsForLlm(options))

/**
 * Run a model's tool calls against the `McpClient` in context. Never fails.
 *
 * @since 0.1.0
 * @category accessors
 */
export const executeToolCalls = (
  calls: ReadonlyArray<ToolCall | unknown> | null | undefined | unknown,
  options?: ClientBridgeOptions
): Effect.Effect<ReadonlyArray<ToolResult>, never, McpClient.McpClient> =>
  Effect.flatMap(make(options), (bridge) => bridge.executeToolCalls(calls))

/**
 * What the server of the `McpClient` in context said about a tool.
 *
 * @since 0.1.0
 * @category accessors
 */
export const toolAnnotations = (
  name: string
): Effect.Effect<Option.Option<ToolAnnotations>, McpClientError, McpClient.McpClient> =>
  Effect.flatMap(make(), (bridge) => bridge.toolAnnotations(name))

// -----------------------------------------------------------------------------
// Pure helpers
// -----------------------------------------------------------------------------

/**
 * Why a schema conversion changed something.
 *
 * @since 0.1.0
 * @category models
 */
export type SchemaNote = schemas.SchemaNote

/**
 * An `inputSchema` as model-ready parameters (see the module docs), with what was changed.
 *
 * @since 0.1.0
 * @category combinators
 */
export const toParameters = (
  inputSchema: unknown,
  options?: SchemaOptions
): { readonly parameters: JsonObject; readonly notes: ReadonlyArray<SchemaNote> } =>
  schemas.toParameters(inputSchema, internal.limitsOf(options).inline)

/**
 * @since 0.1.0
 * @category models
 */
export type StrictOutcome = schemas.StrictOutcome

/**
 * The strict-mode form of parameters from `toParameters`, or why there is none.
 *
 * @since 0.1.0
 * @category combinators
 */
export const toStrictParameters = (parameters: JsonObject, options?: SchemaOptions): StrictOutcome =>
  schemas.toStrict(parameters, internal.limitsOf(options).strict)

/**
 * Remove the `null`s a strict-mode model sends for optional properties that do not accept `null`.
 *
 * @since 0.1.0
 * @category combinators
 */
export const stripOptionalNulls: (args: JsonObject, parameters: JsonObject) => JsonObject = schemas.stripOptionalNulls

/**
 * One tool as a declaration under `name`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const declareTool = (
  tool: SourceTool,
  name: string,
  options?: ToolsForLlmOptions & { readonly schema?: SchemaOptions | undefined }
): LlmTool => internal.declareTool(tool, name, options?.strict ?? false, options?.schema)

/**
 * A tool name the model APIs accept (`^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$`): valid names are kept, others cleaned,
 * given a `_` in front of a leading digit or `-`, cut and given a stable hash suffix.
 *
 * @since 0.1.0
 * @category combinators
 */
export const sanitizeToolName: (name: string) => string = names.sanitizeToolName

/**
 * Read one model tool call.
 *
 * @since 0.1.0
 * @category combinators
 */
export const parseToolCall: (raw: unknown, index: number) => ParsedToolCall = internal.parseToolCall

/**
 * A tool result as the text a model reads.
 *
 * @since 0.1.0
 * @category combinators
 */
export const renderToolResult = (
  result: CallToolResult,
  options?: { readonly maxResourceText?: number | undefined }
): string => renderResult(result, options)
