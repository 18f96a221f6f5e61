/**
 * MCP servers, registries of many servers and local toolkits as an `effect/ai` toolkit, so that
 * `LanguageModel.generateText({ prompt, toolkit })` uses MCP tools as it uses any other.
 *
 * ```ts
 * import { McpToolkit } from "@mcp-effect/ai"
 * import { McpClient, NodeMcpClient } from "@mcp-effect/client/node"
 * import { Effect } from "effect"
 * import { LanguageModel } from "effect/ai"
 *
 * const program = Effect.gen(function*() {
 *   const client = yield* McpClient.McpClient
 *   const toolkit = yield* McpToolkit.toolkit(client, { prefix: "files__" })   // files__read, ...
 *   const response = yield* LanguageModel.generateText({ prompt: "What is in /tmp/notes.txt?", toolkit })
 *   return response.toolResults.map((result) => result.result)
 * })
 *
 * // provide a LanguageModel (OpenAiLanguageModel.model(...), AnthropicLanguageModel.model(...)) and a client:
 * export const main = program.pipe(Effect.provide(NodeMcpClient.layerStdio({ command: "my-server" })))
 * ```
 *
 * **A drop-in for `McpClient.toolkit` of `effect/ai`.** `McpToolkit.toolkit(client, prefix | options)` takes the
 * options Effect's own `McpClient.toolkit(client, options)` takes, with the same meaning: `prefix` (prepended as
 * written), `tools` (an approved snapshot instead of `tools/list`), `trustAnnotations` (copy the server's hints
 * into `Tool.Readonly`, `Tool.Destructive`, `Tool.Idempotent`, `Tool.OpenWorld`, `Tool.Title`; never approval),
 * `timeout` (bounds each call), `resultMode` (`"text"`, or `"complete"`: the whole `CallToolResult`, sent to the
 * model as text and file parts), `failureMode` and `transformTool` (each tool, before binding). What it gives
 * back is a `Toolkit.WithHandler` that `generateText({ toolkit })` takes as it is, so switching is an import
 * change. What differs:
 *
 * - `failureMode` defaults to `"return"`: a failed call (an `isError` result, a protocol error, a timeout, a dead
 *   server, a local tool's failure or defect) is a tool result with `isFailure: true` whose result says why, in
 *   the result mode's shape (the text, or a `CallToolResult` with `isError`), so nothing fails `generateText`
 *   because a tool failed. With `"error"` the call fails with `McpToolError` (the text, the `isError` result,
 *   the client error as `cause`).
 * - **Names** are sanitised, not rejected: a name outside `^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$` is cleaned, cut and
 *   given a stable hash suffix (`LlmBridge.sanitizeToolName`); where two tools would share a name the first keeps
 *   it and the collision is reported in `declarations[i].notes`.
 * - **Parameters** are the tool's JSON Schema made model-ready as `LlmBridge.toolsForLlm` declares it (same-
 *   document `$ref`s inlined, the root made an object; with `strict: true` OpenAI's strict form where the schema
 *   allows it, each tool annotated `Tool.Strict` accordingly, `false` otherwise). A `null` the model sends for an
 *   optional property is removed before the call; everything else is the tool's to validate.
 * - **Input hooks and progress** are the client's (`onElicit`, `onSample`, `onListRoots`, `onProgress`) and run
 *   during the call as for any `callTool`; each call carries the model's call id (`toolCallId`), which progress
 *   reports.
 * - **Many servers and local toolkits**: `fromBridge(registry)` (a `ToolRegistry` under its prefixes) and
 *   `fromSource(Toolkit.source(...))` take the same options.
 * - **Batches.** `generateText` hands the calls of a turn to the toolkit one by one (all at once unless its
 *   `concurrency` option says otherwise). The `ToolScheduler` rule is kept as far as that allows: a call to a
 *   tool annotated `readOnlyHint` and `idempotentHint` takes one of `toolConcurrency` (4) slots, any other call
 *   runs alone. Where the toolkit sees the batch (`generateText({ ..., disableToolCallResolution: true })`, then
 *   `executeToolCalls(response.toolCalls)`), the exact rules apply: serial unless every call is safe, identical
 *   calls run once, results in call order.
 * - The catalogue is read once, when the toolkit is made: make it again after `tools/list_changed`.
 *
 * @since 0.1.0
 */
import { LlmBridge, McpClient } from "@mcp-effect/client"
import type { McpError, McpSchema } from "@mcp-effect/client"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import type * as Schema from "effect/Schema"
import type * as Response from "effect/ai/Response"
import type * as Tool from "effect/ai/Tool"
import type * as AiToolkit from "effect/ai/Toolkit"
import * as internal from "./internal/toolkit.js"

// -----------------------------------------------------------------------------
// Models
// -----------------------------------------------------------------------------

/**
 * What a successful call gives: the text the bridge renders, or the whole `CallToolResult`.
 *
 * @since 0.1.0
 * @category models
 */
export type ResultMode = "text" | "complete"

/**
 * A call that failed, in `failureMode: "error"`: what the model would have read (`detail`, also the message),
 * the server's `isError` result when there was one, and the client error or local failure as `cause`.
 *
 * @since 0.1.0
 * @category errors
 */
export const McpToolError: typeof internal.McpToolError = internal.McpToolError

/**
 * @since 0.1.0
 * @category errors
 */
export type McpToolError = internal.McpToolError

/**
 * The annotation every tool carries: the declaration it was made from (the tool as its owner described it,
 * the exposed name, what the conversion did).
 *
 * @since 0.1.0
 * @category services
 */
export const Descriptor: typeof internal.Descriptor = internal.Descriptor

/**
 * @since 0.1.0
 * @category services
 */
export type Descriptor = internal.Descriptor

/**
 * The success schema of a result mode.
 *
 * @since 0.1.0
 * @category models
 */
export type SuccessSchema<Mode extends ResultMode> = {
  readonly text: typeof Schema.String
  readonly complete: typeof McpSchema.CallToolResult
}[Mode]

/**
 * The failure schema: `McpToolError` when failures fail, otherwise the result mode's own shape.
 *
 * @since 0.1.0
 * @category models
 */
export type FailureSchema<Mode extends ResultMode, Failure extends Tool.FailureMode> = Failure extends "error"
  ? typeof internal.McpToolError
  : SuccessSchema<Mode>

/**
 * An MCP (or registry, or local) tool as `effect/ai` sees it: a JSON Schema in (the handler receives the
 * arguments as `unknown`), text or a `CallToolResult` out.
 *
 * @since 0.1.0
 * @category models
 */
export type McpTool<
  Mode extends ResultMode = "text",
  Failure extends Tool.FailureMode = "return",
  Requirements = never
> = Failure extends Tool.FailureMode ? Tool.Tool<string, {
    readonly parameters: typeof Schema.Unknown
    readonly success: SuccessSchema<Mode>
    readonly failure: FailureSchema<Mode, Failure>
    readonly failureMode: Failure
  }, Requirements>
  : never

/**
 * The tools of a toolkit, by name.
 *
 * @since 0.1.0
 * @category models
 */
export type Tools<
  Mode extends ResultMode = "text",
  Failure extends Tool.FailureMode = "return",
  Requirements = never
> = Record<string, McpTool<Mode, Failure, Requirements>>

/**
 * A toolkit with its handlers: pass it as `generateText({ toolkit })` as it is. `toolkit` and `layer` are the
 * same tools as a `Toolkit` and the layer of its handlers, for code that provides handlers itself.
 *
 * @since 0.1.0
 * @category models
 */
export interface McpToolkit<
  Mode extends ResultMode = "text",
  Failure extends Tool.FailureMode = "return",
  Requirements = never
> extends AiToolkit.WithHandler<Tools<Mode, Failure, Requirements>> {
  readonly toolkit: AiToolkit.Toolkit<Tools<Mode, Failure, Requirements>>
  readonly layer: Layer.Layer<Tool.HandlersFor<Tools<Mode, Failure, Requirements>>>
  /** What was declared, and what the conversion did to each tool (`LlmBridge.describeTools`). */
  readonly declarations: ReadonlyArray<LlmBridge.LlmTool>
  /**
   * Run the tool calls of a response (`response.toolCalls`, with `disableToolCallResolution: true`) as one
   * batch, by the `ToolScheduler` rules; one tool-result part per call, in call order, their result the text.
   * Never fails.
   */
  readonly executeToolCalls: (
    calls: ReadonlyArray<{ readonly id: string; readonly name: string; readonly params: unknown }>
  ) => Effect.Effect<Array<Response.ToolResultPart<string, string, string>>>
}

/**
 * The options of Effect's `McpClient.toolkit`, and this toolkit's own.
 *
 * @since 0.1.0
 * @category models
 */
export interface BaseOptions<
  Mode extends ResultMode = "text",
  Failure extends Tool.FailureMode = "return",
  Requirements = never
> {
  /** Prepended to every tool name, as written (`"files__"` gives `files__read`). */
  readonly prefix?: string | undefined
  /** An approved snapshot of the tools to offer; they are not listed. */
  readonly tools?: ReadonlyArray<LlmBridge.SourceTool> | undefined
  /** Copy the owner's hints (`readOnlyHint`, ..., `title`) into the `effect/ai` annotations (default `false`). */
  readonly trustAnnotations?: boolean | undefined
  /** Bounds each call: past it the call is cancelled and answered as failed. */
  readonly timeout?: Duration.Input | undefined
  /** Each tool before it is bound; must return a tool derived from it (same name, schemas, failure mode). */
  readonly transformTool?:
    | ((
      tool: McpTool<Mode, Failure>,
      descriptor: LlmBridge.SourceTool
    ) => McpTool<Mode, Failure, Requirements>)
    | undefined
  /** Declare the parameters in OpenAI's strict form where possible (`LlmBridge` strict mode). */
  readonly strict?: boolean | undefined
  /** How many calls to read-only idempotent tools run at once (default 4). */
  readonly toolConcurrency?: number | undefined
  readonly schema?: LlmBridge.SchemaOptions | undefined
  /** The start of the ids given to calls that arrive without the model's call id (default `mcp`). */
  readonly callIdPrefix?: string | undefined
}

/**
 * A mode may be left out only when its type is exactly the default (as in Effect's `McpClient.toolkit`).
 *
 * @since 0.1.0
 * @category models
 */
export type ModeOptions<Mode extends ResultMode, Failure extends Tool.FailureMode> =
  & ([Mode] extends ["text"] ? { readonly resultMode?: "text" | undefined } : { readonly resultMode: Mode })
  & ([Failure] extends ["return"] ? { readonly failureMode?: "return" | undefined }
    : { readonly failureMode: Failure })

/**
 * @since 0.1.0
 * @category models
 */
export type Options<
  Mode extends ResultMode = "text",
  Failure extends Tool.FailureMode = "return",
  Requirements = never
> = BaseOptions<Mode, Failure, Requirements> & ModeOptions<Mode, Failure>

/**
 * Options of a client's toolkit: also the bridge's per-call settings (`overallTimeout`, `meta`,
 * `maxResourceText`). `timeout` is the client's request timeout of each call (cancelled on the wire).
 *
 * @since 0.1.0
 * @category models
 */
export type ClientOptions<
  Mode extends ResultMode = "text",
  Failure extends Tool.FailureMode = "return",
  Requirements = never
> =
  & Options<Mode, Failure, Requirements>
  & Omit<LlmBridge.ClientBridgeOptions, "timeout" | "strict" | "toolConcurrency" | "schema" | "scheduler">

// -----------------------------------------------------------------------------
// Constructors
// -----------------------------------------------------------------------------

const finish = <E, Mode extends ResultMode, Failure extends Tool.FailureMode, Requirements>(
  built: internal.Built<E>
): McpToolkit<Mode, Failure, Requirements> => {
  // The modes are chosen at run time; the options' types fix them for the caller.
  const typed = built as unknown as {
    readonly withHandler: AiToolkit.WithHandler<Tools<Mode, Failure, Requirements>>
    readonly toolkit: AiToolkit.Toolkit<Tools<Mode, Failure, Requirements>>
    readonly layer: Layer.Layer<Tool.HandlersFor<Tools<Mode, Failure, Requirements>>>
  }
  return {
    tools: typed.withHandler.tools,
    handle: typed.withHandler.handle,
    toolkit: typed.toolkit,
    layer: typed.layer,
    declarations: built.declarations,
    executeToolCalls: internal.executeBatch(built.bridge)
  }
}

const configOf = <Mode extends ResultMode, Failure extends Tool.FailureMode, Requirements>(
  options: Options<Mode, Failure, Requirements> | undefined
): internal.Config =>
  // `transformTool` is typed for the modes asked for; at run time it sees tools made in those modes.
  (options ?? {}) as unknown as internal.Config

/**
 * Any tool source as a toolkit: a client's (`LlmBridge.clientSource`), a local toolkit's (`Toolkit.source`), a
 * registry's (`registry.source`). Lists the tools once, now (unless `tools` is given).
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromSource = <
  E,
  Mode extends ResultMode = "text",
  Failure extends Tool.FailureMode = "return",
  Requirements = never
>(
  source: LlmBridge.ToolSource<E>,
  options?: Options<Mode, Failure, Requirements>
): Effect.Effect<McpToolkit<Mode, Failure, Requirements>, E> =>
  Effect.map(internal.build(source, configOf(options)), finish<E, Mode, Failure, Requirements>)

/**
 * A bridge (a `ToolRegistry` is one: many servers and local toolkits under their prefixes) as a toolkit.
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromBridge = <
  E,
  Mode extends ResultMode = "text",
  Failure extends Tool.FailureMode = "return",
  Requirements = never
>(
  bridge: LlmBridge.Bridge<E>,
  options?: Options<Mode, Failure, Requirements>
): Effect.Effect<McpToolkit<Mode, Failure, Requirements>, E> => fromSource(bridge.source, options)

/**
 * A client's tools as a toolkit.
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromClient = <
  Mode extends ResultMode = "text",
  Failure extends Tool.FailureMode = "return",
  Requirements = never
>(
  client: McpClient.Service,
  options?: ClientOptions<Mode, Failure, Requirements>
): Effect.Effect<McpToolkit<Mode, Failure, Requirements>, McpError.McpClientError> => {
  const config = configOf(options)
  const source = LlmBridge.clientSource(client, options ?? {})
  // The client bounds each call itself (and cancels it on the wire).
  return Effect.map(internal.build(source, { ...config, timeout: undefined }), finish<McpError.McpClientError, Mode, Failure, Requirements>)
}

/**
 * A client's tools as a toolkit with handlers, with the signature of Effect's `McpClient.toolkit(client,
 * prefix | options)` (see the module docs for what differs).
 *
 * @since 0.1.0
 * @category constructors
 */
export function toolkit(
  client: McpClient.Service,
  prefix?: string
): Effect.Effect<McpToolkit, McpError.McpClientError>
export function toolkit<
  Mode extends ResultMode = "text",
  Failure extends Tool.FailureMode = "return",
  Requirements = never
>(
  client: McpClient.Service,
  options: ClientOptions<Mode, Failure, Requirements>
): Effect.Effect<McpToolkit<Mode, Failure, Requirements>, McpError.McpClientError>
export function toolkit<
  Mode extends ResultMode = "text",
  Failure extends Tool.FailureMode = "return",
  Requirements = never
>(
  client: McpClient.Service,
  options: string | ClientOptions<Mode, Failure, Requirements> = ""
): Effect.Effect<unknown, McpError.McpClientError> {
  if (typeof options !== "string") return fromClient(client, options)
  // A prefix alone asks for the default modes.
  const prefixOnly = { prefix: options } as ClientOptions<Mode, Failure, Requirements>
  return fromClient(client, prefixOnly)
}

/**
 * The tools of the `McpClient` in context as a toolkit.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = <
  Mode extends ResultMode = "text",
  Failure extends Tool.FailureMode = "return",
  Requirements = never
>(
  options?: ClientOptions<Mode, Failure, Requirements>
): Effect.Effect<McpToolkit<Mode, Failure, Requirements>, McpError.McpClientError, McpClient.McpClient> =>
  Effect.flatMap(McpClient.McpClient, (client) => fromClient(client, options))
