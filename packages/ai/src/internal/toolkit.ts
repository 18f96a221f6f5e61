/**
 * Tool sources (MCP clients, registries, local toolkits) as an `effect/ai` toolkit.
 *
 * @internal
 */
import { LlmBridge, McpSchema, ToolScheduler } from "@mcp-effect/client"
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import type * as Duration from "effect/Duration"
import * as Schema from "effect/Schema"
import * as Semaphore from "effect/Semaphore"
import * as Prompt from "effect/ai/Prompt"
import * as Response from "effect/ai/Response"
import * as Tool from "effect/ai/Tool"
import * as AiToolkit from "effect/ai/Toolkit"
import type * as McpToolkit from "../McpToolkit.js"

type AnyTool = McpToolkit.McpTool<McpToolkit.ResultMode, Tool.FailureMode, unknown>

/** The settings every constructor ends up with. @internal */
export interface Config {
  readonly prefix?: string | undefined
  readonly tools?: ReadonlyArray<LlmBridge.SourceTool> | undefined
  readonly trustAnnotations?: boolean | undefined
  readonly timeout?: Duration.Input | undefined
  readonly resultMode?: McpToolkit.ResultMode | undefined
  readonly failureMode?: Tool.FailureMode | undefined
  readonly transformTool?: ((tool: AnyTool, descriptor: LlmBridge.SourceTool) => AnyTool) | undefined
  readonly strict?: boolean | undefined
  readonly toolConcurrency?: number | undefined
  readonly schema?: LlmBridge.SchemaOptions | undefined
  readonly callIdPrefix?: string | undefined
}

// -----------------------------------------------------------------------------
// The source as configured: a snapshot of tools, a prefix, a time limit
// -----------------------------------------------------------------------------

const timedOut = (name: string): LlmBridge.ToolOutcome => ({
  content: `Tool "${name}" did not finish in time and was cancelled.`,
  isError: true
})

/**
 * The source with the options applied: `tools` replaces its listing, `prefix` is prepended to every name (and
 * taken off again for the call), `timeout` bounds every run.
 *
 * @internal
 */
export const configure = <E>(source: LlmBridge.ToolSource<E>, config: Config): LlmBridge.ToolSource<E> => {
  const prefix = config.prefix ?? ""
  const snapshot = config.tools
  const timeout = config.timeout
  const list: LlmBridge.ToolSource<E>["list"] = snapshot === undefined
    ? source.list
    : () => Effect.succeed(snapshot)
  return {
    list: (options) =>
      prefix === ""
        ? list(options)
        : Effect.map(list(options), (tools) => tools.map((tool) => ({ ...tool, name: `${prefix}${tool.name}` }))),
    invoke: (name, args, context) => {
      const own = prefix !== "" && name.startsWith(prefix) ? name.slice(prefix.length) : name
      const run = source.invoke(own, args, context)
      return timeout === undefined
        ? run
        : Effect.timeoutOrElse(run, { duration: timeout, orElse: () => Effect.succeed(timedOut(name)) })
    }
  }
}

// -----------------------------------------------------------------------------
// Tools
// -----------------------------------------------------------------------------

/** A failed call in `"error"` mode. @internal */
export class McpToolError extends Schema.TaggedError<McpToolError>()("McpToolError", {
  tool: Schema.String,
  detail: Schema.String,
  result: Schema.optional(McpSchema.CallToolResult),
  cause: Schema.optional(Schema.Defect())
}) {
  override get message(): string {
    return this.detail
  }
}

const textResult = (text: string, isError: boolean): McpSchema.CallToolResult => ({
  content: [{ type: "text", text }],
  ...(isError ? { isError: true } : {})
})

/** A result's content as what the model reads in `"complete"` mode: text and file parts. @internal */
export const toModelOutput = (result: McpSchema.CallToolResult): Array<Prompt.ToolModelOutputPart> => {
  const parts: Array<Prompt.ToolModelOutputPart> = []
  for (const block of result.content) {
    const fields: unknown = block
    const raw = McpSchema.isRecord(fields) ? fields : {}
    const resource = McpSchema.isRecord(raw["resource"]) ? raw["resource"] : undefined
    if ((block.type === "image" || block.type === "audio") && typeof raw["data"] === "string") {
      parts.push(Prompt.filePart({ mediaType: String(raw["mimeType"] ?? "application/octet-stream"), data: raw["data"] }))
    } else if (block.type === "resource" && resource !== undefined && typeof resource["blob"] === "string") {
      const mediaType = typeof resource["mimeType"] === "string" ? resource["mimeType"] : "application/octet-stream"
      parts.push(Prompt.filePart({ mediaType, data: resource["blob"] }))
    } else if (block.type === "text" && typeof raw["text"] === "string") {
      parts.push(Prompt.textPart({ text: raw["text"] }))
    } else {
      parts.push(Prompt.textPart({ text: LlmBridge.renderToolResult({ content: [block] }) }))
    }
  }
  if (parts.length === 0) parts.push(Prompt.textPart({ text: LlmBridge.renderToolResult(result) }))
  return parts
}

/**
 * The annotation of every tool of an `McpToolkit`: the declaration it was made from (the tool as its owner
 * described it, its exposed name, the conversion notes).
 *
 * @internal
 */
export class Descriptor extends Context.Service<Descriptor, LlmBridge.LlmTool>()("@mcp-effect/ai/McpToolkit/Descriptor") {}

const annotateHints = (tool: AnyTool, annotations: McpSchema.ToolAnnotations | undefined): AnyTool => {
  if (annotations === undefined) return tool
  let annotated = tool
  if (typeof annotations.title === "string") annotated = annotated.annotate(Tool.Title, annotations.title)
  if (typeof annotations.readOnlyHint === "boolean") annotated = annotated.annotate(Tool.Readonly, annotations.readOnlyHint)
  if (typeof annotations.destructiveHint === "boolean") {
    annotated = annotated.annotate(Tool.Destructive, annotations.destructiveHint)
  }
  if (typeof annotations.idempotentHint === "boolean") {
    annotated = annotated.annotate(Tool.Idempotent, annotations.idempotentHint)
  }
  if (typeof annotations.openWorldHint === "boolean") annotated = annotated.annotate(Tool.OpenWorld, annotations.openWorldHint)
  return annotated
}

/** One declared tool as an `effect/ai` tool (before `transformTool`). @internal */
export const toAiTool = (declared: LlmBridge.LlmTool, config: Config): AnyTool => {
  const complete = config.resultMode === "complete"
  const success = complete ? McpSchema.CallToolResult : Schema.String
  const spec = {
    // An empty description is no description (the providers leave the field out).
    description: declared.declaration.function.description === "" ? undefined : declared.declaration.function.description,
    parameters: declared.declaration.function.parameters,
    success,
    toModelOutput: complete ? toModelOutput : undefined
  }
  // The identical-looking branches give each failure mode its own failure schema.
  const tool: AnyTool = config.failureMode === "error"
    ? Tool.dynamic(declared.name, { ...spec, failure: McpToolError, failureMode: "error" })
    : Tool.dynamic(declared.name, { ...spec, failure: success, failureMode: "return" })
  const strict = tool.annotate(Tool.Strict, declared.declaration.function.strict ?? false).annotate(Descriptor, declared)
  return config.trustAnnotations === true ? annotateHints(strict, declared.tool.annotations) : strict
}

// -----------------------------------------------------------------------------
// Handlers
// -----------------------------------------------------------------------------

/**
 * A gate for calls that `effect/ai` starts one by one (all at once by default): a call to a read-only idempotent
 * tool takes one of `toolConcurrency` permits, any other call takes them all, so it runs alone.
 *
 * @internal
 */
export const makeGate = (toolConcurrency: number) =>
  Effect.map(
    Semaphore.make(toolConcurrency),
    (semaphore) => (annotations: McpSchema.ToolAnnotations | undefined) =>
      ToolScheduler.isConcurrencySafe(annotations) ? semaphore.withPermits(1) : semaphore.withPermits(toolConcurrency)
  )

const failedContent = (name: string, cause: Cause.Cause<unknown>): string =>
  `Tool "${name}" failed unexpectedly: ${Cause.pretty(cause).split("\n")[0] ?? "unknown failure"}`

/** What a handler answers with, in the configured modes. @internal */
export const answer = (
  name: string,
  outcome: LlmBridge.ToolOutcome,
  config: Config
): Effect.Effect<string | McpSchema.CallToolResult, string | McpSchema.CallToolResult | McpToolError> => {
  const complete = config.resultMode === "complete"
  if (!outcome.isError) return Effect.succeed(complete ? outcome.result ?? textResult(outcome.content, false) : outcome.content)
  if (config.failureMode === "error") {
    return Effect.fail(
      new McpToolError({
        tool: name,
        detail: outcome.content,
        ...(outcome.result === undefined ? {} : { result: outcome.result }),
        ...(outcome.failure === undefined ? {} : { cause: outcome.failure })
      })
    )
  }
  return Effect.fail(complete ? outcome.result ?? textResult(outcome.content, true) : outcome.content)
}

type Handler = (
  params: unknown,
  context: AiToolkit.HandlerContext<AnyTool>
) => Effect.Effect<string | McpSchema.CallToolResult, string | McpSchema.CallToolResult | McpToolError>

/** The handler of one declared tool. @internal */
export const makeHandler = <E>(
  source: LlmBridge.ToolSource<E>,
  declared: LlmBridge.LlmTool,
  config: Config,
  gate: (annotations: McpSchema.ToolAnnotations | undefined) => <A, E1, R>(self: Effect.Effect<A, E1, R>) => Effect.Effect<A, E1, R>,
  nextId: () => string
): Handler => {
  const plain = LlmBridge.toParameters(declared.tool.inputSchema, config.schema).parameters
  const gated = gate(declared.tool.annotations)
  return (params, context) =>
    Effect.suspend((): Effect.Effect<LlmBridge.ToolOutcome> => {
      if (!McpSchema.isRecord(params)) {
        return Effect.succeed({
          content: `Invalid arguments for tool "${declared.name}": expected a JSON object.`,
          isError: true
        })
      }
      const toolCallId = context.toolCallId ?? nextId()
      return source.invoke(declared.tool.name, LlmBridge.stripOptionalNulls(params, plain), { toolCallId })
    }).pipe(
      Effect.catchCause((cause): Effect.Effect<LlmBridge.ToolOutcome> =>
        Cause.hasInterruptsOnly(cause)
          ? Effect.failCause(cause)
          : Effect.succeed({ content: failedContent(declared.name, cause), isError: true, failure: Cause.squash(cause) })
      ),
      gated,
      Effect.flatMap((outcome) => answer(declared.name, outcome, config))
    )
}

// -----------------------------------------------------------------------------
// A batch, seen whole
// -----------------------------------------------------------------------------

/** A tool call of a response (`response.toolCalls`), decoded or encoded. @internal */
export interface CallLike {
  readonly id: string
  readonly name: string
  readonly params: unknown
}

/**
 * Run a response's tool calls as one batch with the bridge's rules (serial unless every call is to a read-only
 * idempotent tool, identical calls run once), answered as tool-result parts in call order.
 *
 * @internal
 */
export const executeBatch = <E>(bridge: LlmBridge.Bridge<E>) =>
(calls: ReadonlyArray<CallLike>): Effect.Effect<Array<Response.ToolResultPart<string, string, string>>> =>
  Effect.map(
    bridge.executeToolCalls(calls.map((call) => ({
      id: call.id,
      type: "function",
      function: { name: call.name, arguments: call.params }
    }))),
    (results) =>
      results.map((result, i) =>
        Response.makePart("tool-result", {
          id: result.tool_call_id,
          name: calls[i]?.name ?? "",
          isFailure: result.is_error,
          result: result.content,
          encodedResult: result.content,
          providerExecuted: false,
          preliminary: false
        })
      )
  )

// -----------------------------------------------------------------------------
// Assembly
// -----------------------------------------------------------------------------

/** What every constructor builds, before its types are narrowed to the modes asked for. @internal */
export interface Built<E> {
  readonly withHandler: AiToolkit.WithHandler<Record<string, AnyTool>>
  readonly toolkit: AiToolkit.Toolkit<Record<string, AnyTool>>
  readonly layer: ReturnType<AiToolkit.Toolkit<Record<string, AnyTool>>["toLayer"]>
  readonly declarations: ReadonlyArray<LlmBridge.LlmTool>
  readonly bridge: LlmBridge.Bridge<E>
}

/** @internal */
export const build = <E>(source: LlmBridge.ToolSource<E>, config: Config): Effect.Effect<Built<E>, E> =>
  Effect.gen(function*() {
    const configured = configure(source, config)
    const bridge = LlmBridge.fromSource(configured, {
      ...(config.schema === undefined ? {} : { schema: config.schema }),
      ...(config.toolConcurrency === undefined ? {} : { toolConcurrency: config.toolConcurrency })
    })
    const declarations = yield* bridge.describeTools({ strict: config.strict ?? false })
    const concurrency = Math.max(1, Math.floor(config.toolConcurrency ?? ToolScheduler.DEFAULT_TOOL_CONCURRENCY))
    const gate = yield* makeGate(concurrency)
    let calls = 0
    const nextId = () => `${config.callIdPrefix ?? "mcp"}_${++calls}`
    const prefix = config.prefix ?? ""
    const tools = declarations.map((declared) => {
      const tool = toAiTool(declared, config)
      if (config.transformTool === undefined) return tool
      const own = prefix !== "" && declared.tool.name.startsWith(prefix)
        ? declared.tool.name.slice(prefix.length)
        : declared.tool.name
      return config.transformTool(tool, { ...declared.tool, name: own })
    })
    const toolkit: AiToolkit.Toolkit<Record<string, AnyTool>> = AiToolkit.make(...tools)
    const handlers: Record<string, Handler> = {}
    for (const declared of declarations) handlers[declared.name] = makeHandler(configured, declared, config, gate, nextId)
    const layer = toolkit.toLayer(handlers)
    const withHandler = yield* toolkit.pipe(Effect.provideContext(yield* toolkit.toHandlers(handlers)))
    return { withHandler, toolkit, layer, declarations, bridge }
  })
