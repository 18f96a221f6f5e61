/**
 * Tool sources (MCP clients, registries, local toolkits) as an `@effect/ai` toolkit.
 *
 * @internal
 */
import * as AiToolkit from "@effect/ai/Toolkit"
import * as Tool from "@effect/ai/Tool"
import { LlmBridge, ToolScheduler } from "@mcp-effect/client"
import type { McpSchema } from "@mcp-effect/client"
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type { McpTool, McpToolkit, Options, Parameters } from "../McpToolkit.js"

/** Any JSON object: every key kept as it came, whatever the declared JSON Schema says. @internal */
export const AnyObject = Schema.Struct({}, Schema.Record({ key: Schema.String, value: Schema.Unknown }))

const parametersSchema = (jsonSchema: McpSchema.JsonObject): Parameters =>
  AnyObject.annotations({ jsonSchema })

/** MCP tool annotations as the `@effect/ai` tool annotations. @internal */
export const annotationsOf = (annotations: McpSchema.ToolAnnotations | undefined): Context.Context<never> => {
  let context = Context.empty() as Context.Context<never>
  if (annotations === undefined) return context
  const add = <I, S>(tag: Context.Tag<I, S>, value: S) => {
    context = Context.merge(context, Context.make(tag, value)) as Context.Context<never>
  }
  if (typeof annotations.title === "string") add(Tool.Title, annotations.title)
  if (typeof annotations.readOnlyHint === "boolean") add(Tool.Readonly, annotations.readOnlyHint)
  if (typeof annotations.destructiveHint === "boolean") add(Tool.Destructive, annotations.destructiveHint)
  if (typeof annotations.idempotentHint === "boolean") add(Tool.Idempotent, annotations.idempotentHint)
  if (typeof annotations.openWorldHint === "boolean") add(Tool.OpenWorld, annotations.openWorldHint)
  return context
}

/** One declared tool as an `@effect/ai` tool. @internal */
export const toAiTool = (declared: LlmBridge.LlmTool): McpTool =>
  Tool.make(declared.name, {
    description: declared.declaration.function.description,
    success: Schema.String,
    failure: Schema.String,
    failureMode: "return"
  }).setParameters(parametersSchema(declared.declaration.function.parameters)).annotateContext(
    annotationsOf(declared.tool.annotations)
  )

const failedContent = (name: string, cause: Cause.Cause<unknown>): string =>
  `Tool "${name}" failed unexpectedly: ${Cause.pretty(cause).split("\n")[0] ?? "unknown failure"}`

/**
 * A batch gate for calls that `@effect/ai` hands over one at a time: a call to a read-only idempotent tool
 * takes one of `toolConcurrency` permits, any other call takes them all, so it runs alone.
 *
 * @internal
 */
export const makeGate = (toolConcurrency: number) =>
  Effect.map(Effect.makeSemaphore(toolConcurrency), (semaphore) =>
  (annotations: McpSchema.ToolAnnotations | undefined) =>
    ToolScheduler.isConcurrencySafe(annotations) ? semaphore.withPermits(1) : semaphore.withPermits(toolConcurrency))

/** @internal */
export const fromSource = <E>(
  source: LlmBridge.ToolSource<E>,
  options: Options = {}
): Effect.Effect<McpToolkit, E> =>
  Effect.gen(function*() {
    const bridge = LlmBridge.fromSource(source, options.schema === undefined ? {} : { schema: options.schema })
    const declared = yield* bridge.describeTools({ strict: options.strict ?? false })
    const concurrency = Math.max(1, Math.floor(options.toolConcurrency ?? ToolScheduler.DEFAULT_TOOL_CONCURRENCY))
    const gate = yield* makeGate(concurrency)
    let calls = 0
    const handlerOf = (entry: LlmBridge.LlmTool) => {
      const plain = LlmBridge.toParameters(entry.tool.inputSchema, options.schema).parameters
      const gated = gate(entry.tool.annotations)
      return (params: { readonly [key: string]: unknown }): Effect.Effect<string, string> =>
        Effect.suspend(() => {
          const toolCallId = `${options.callIdPrefix ?? "mcp"}_${++calls}`
          return source.invoke(entry.tool.name, LlmBridge.stripOptionalNulls(params, plain), { toolCallId })
        }).pipe(
          Effect.catchAllCause((cause): Effect.Effect<LlmBridge.ToolOutcome> =>
            Cause.isInterruptedOnly(cause)
              ? Effect.failCause(cause) as Effect.Effect<never>
              : Effect.succeed({ content: failedContent(entry.name, cause), isError: true })
          ),
          gated,
          Effect.flatMap((outcome) => outcome.isError ? Effect.fail(outcome.content) : Effect.succeed(outcome.content))
        )
    }
    const tools = declared.map(toAiTool)
    const toolkit: AiToolkit.Toolkit<Record<string, McpTool>> = AiToolkit.make(...tools)
    const handlers: Record<string, (params: { readonly [key: string]: unknown }) => Effect.Effect<string, string>> = {}
    for (const entry of declared) handlers[entry.name] = handlerOf(entry)
    const layer = toolkit.toLayer(handlers)
    return { toolkit, layer, tools: declared }
  })
