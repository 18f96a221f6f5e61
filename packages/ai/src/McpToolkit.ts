/**
 * MCP servers, registries of many servers and local toolkits as an `@effect/ai` `Toolkit` plus the layer of
 * its handlers, so that `LanguageModel.generateText({ prompt, toolkit })` uses MCP tools as it uses any other.
 *
 * ```ts
 * import { LanguageModel } from "@effect/ai"
 * import { McpToolkit } from "@mcp-effect/ai"
 * import { NodeMcpClient } from "@mcp-effect/client"
 * import { Effect } from "effect"
 *
 * const program = Effect.gen(function*() {
 *   const mcp = yield* McpToolkit.make({ prefix: "files" })   // the McpClient in context, tools files__*
 *   const response = yield* LanguageModel.generateText({
 *     prompt: "What is in /tmp/notes.txt?",
 *     toolkit: mcp.toolkit
 *   }).pipe(Effect.provide(mcp.layer))
 *   return response.toolResults.map((result) => result.result)
 * })
 *
 * // provide a LanguageModel (OpenAiLanguageModel.model(...), AnthropicLanguageModel.model(...)) and a client:
 * export const main = program.pipe(Effect.provide(NodeMcpClient.layerStdio({ command: "my-server" })))
 * ```
 *
 * What the model gets, and what it reads back:
 *
 * - **Names** are the bridge's (`LlmBridge`): sanitised for the model APIs, `prefix__tool` when a prefix is
 *   given (or through a `ToolRegistry`, whose prefixes they are), collisions reported, never overwritten.
 * - **Parameters** are the tool's JSON Schema as `LlmBridge.toolsForLlm` declares it (references inlined,
 *   root made an object; with `strict: true` the OpenAI strict form where possible). The `@effect/ai` tool
 *   carries it as the `jsonSchema` annotation of a schema that accepts any object, so what the model sends is
 *   passed on untouched (nulls for optional properties removed as in the bridge) and validated by the server.
 * - **Results** are the text `LlmBridge` renders (text blocks, structured content, resources described).
 *   Each tool's `failureMode` is `"return"`: an `isError` result, a protocol error, a timeout, a dead server,
 *   a defect in a local tool are all a tool result with `isFailure: true` and the reason as text, which the
 *   providers send to the model as an error result (Anthropic's `is_error`). Nothing fails `generateText`
 *   because a tool failed, and nothing escapes as a defect.
 * - **Annotations** become the `@effect/ai` ones (`Tool.Readonly`, `Tool.Destructive`, `Tool.Idempotent`,
 *   `Tool.OpenWorld`, `Tool.Title`).
 * - **Progress and input hooks** are the client's: they run as for any `callTool`. `@effect/ai` does not tell a
 *   handler the model's call id, so progress reports carry an id of this toolkit's own (`mcp_1`, `mcp_2`, ...).
 * - **Batches.** `@effect/ai` hands a toolkit one call at a time (`generateText` runs them with its own
 *   `concurrency` option, sequential by default), so a toolkit never sees the batch. The `ToolScheduler`
 *   rule is kept as far as that allows: a call to a tool annotated `readOnlyHint` and `idempotentHint` takes one of
 *   `toolConcurrency` slots, any other call runs alone. Identical calls in one batch are not merged (the
 *   toolkit cannot tell a batch from two turns). For the exact batch rules, resolve the calls yourself with
 *   `LlmBridge.executeToolCalls` (`disableToolCallResolution: true`).
 * - The catalogue is read once, when the toolkit is made; make it again after `tools/list_changed`.
 *
 * @since 0.1.0
 */
import type * as AiToolkit from "@effect/ai/Toolkit"
import type * as Tool from "@effect/ai/Tool"
import { LlmBridge, McpClient, ToolRegistry } from "@mcp-effect/client"
import type { McpError } from "@mcp-effect/client"
import * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import type * as Schema from "effect/Schema"
import * as internal from "./internal/toolkit.js"

/**
 * The parameters schema of every MCP tool: any JSON object, its JSON Schema the tool's own.
 *
 * @since 0.1.0
 * @category models
 */
export type Parameters = Schema.TypeLiteral<{}, readonly [Schema.Record$<typeof Schema.String, typeof Schema.Unknown>]>

/**
 * An MCP (or registry, or local) tool as `@effect/ai` sees it: any object in, text out, failures returned.
 *
 * @since 0.1.0
 * @category models
 */
export type McpTool = Tool.Tool<string, {
  readonly parameters: Parameters
  readonly success: typeof Schema.String
  readonly failure: typeof Schema.String
  readonly failureMode: "return"
}>

/**
 * A toolkit and its handlers.
 *
 * @since 0.1.0
 * @category models
 */
export interface McpToolkit {
  /** Pass as `generateText({ toolkit })` (or `streamText`, `Chat`), with `layer` provided. */
  readonly toolkit: AiToolkit.Toolkit<Record<string, McpTool>>
  /** The handlers of every tool of `toolkit`. */
  readonly layer: Layer.Layer<Tool.Handler<string>>
  /** What was declared, and what the conversion did to each tool (`LlmBridge.describeTools`). */
  readonly tools: ReadonlyArray<LlmBridge.LlmTool>
}

/**
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** Declare the parameters in OpenAI's strict form where possible (`LlmBridge` strict mode). */
  readonly strict?: boolean | undefined
  /** How many calls to read-only idempotent tools run at once when the model's calls arrive together (default 4). */
  readonly toolConcurrency?: number | undefined
  readonly schema?: LlmBridge.SchemaOptions | undefined
  /** The start of the ids given to calls for progress reports (default `mcp`). */
  readonly callIdPrefix?: string | undefined
}

/**
 * @since 0.1.0
 * @category models
 */
export interface ClientOptions extends Options, LlmBridge.ClientBridgeOptions {
  /** Offer the tools as `prefix__tool` (the `ToolRegistry` rules for a prefix). */
  readonly prefix?: string | undefined
}

/**
 * Any tool source as a toolkit: a client's (`LlmBridge.clientSource`), a local toolkit's (`Toolkit.source`), a
 * registry's (`registry.source`). Lists the tools once, now.
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromSource: <E>(source: LlmBridge.ToolSource<E>, options?: Options) => Effect.Effect<McpToolkit, E> =
  internal.fromSource

/**
 * A bridge (a registry is one) as a toolkit.
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromBridge = <E>(bridge: LlmBridge.Bridge<E>, options?: Options): Effect.Effect<McpToolkit, E> =>
  internal.fromSource(bridge.source, options)

/**
 * A client's tools as a toolkit, under `prefix` if one is given.
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromClient = (
  client: McpClient.Service,
  options: ClientOptions = {}
): Effect.Effect<McpToolkit, McpError.McpClientError | ToolRegistry.ToolRegistryError> => {
  const source = LlmBridge.clientSource(client, options)
  const prefix = options.prefix
  if (prefix === undefined) return internal.fromSource(source, options)
  return Effect.gen(function*() {
    const registry = yield* ToolRegistry.make()
    yield* registry.register(prefix, source)
    return yield* internal.fromSource(registry.source, options)
  })
}

/**
 * The tools of the `McpClient` in context as a toolkit.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (
  options: ClientOptions = {}
): Effect.Effect<McpToolkit, McpError.McpClientError | ToolRegistry.ToolRegistryError, McpClient.McpClient> =>
  Effect.flatMap(McpClient.McpClient, (client) => fromClient(client, options))
