/**
 * Local toolkits: tools defined in-process (a name, a description, a `Schema` for the arguments, an Effect
 * handler, annotations) behind the same `toolsForLlm` / `executeToolCalls` pair as a remote server, scheduled
 * by the same `ToolScheduler`. A remote server and a local toolkit are interchangeable to the caller, and
 * both can be registered in a `ToolRegistry`.
 *
 * ```ts
 * import { Effect, Schema } from "effect"
 * import { Toolkit } from "@mcp-effect/client"
 *
 * const add = Toolkit.tool({
 *   name: "add",
 *   description: "Add two numbers",
 *   parameters: Schema.Struct({ a: Schema.Finite, b: Schema.Finite }),
 *   annotations: { readOnlyHint: true, idempotentHint: true },
 *   handler: ({ a, b }) => Effect.succeed(String(a + b))
 * })
 *
 * const program = Effect.gen(function*() {
 *   const bridge = yield* Toolkit.bridge(Toolkit.make(add))
 *   const tools = yield* bridge.toolsForLlm()
 *   return yield* bridge.executeToolCalls([
 *     { id: "1", type: "function", function: { name: "add", arguments: "{\"a\":1,\"b\":2}" } }
 *   ])
 * })
 * ```
 *
 * The parameters are `Schema.toJsonSchemaDocument(parameters)` (the JSON form of the schema: what the model
 * sends is decoded with `Schema.toCodecJson(parameters)`; use `Schema.Finite` for a plain JSON number, as
 * `Schema.Number` also admits the strings `"NaN"` and `"Infinity"`), then the same conversion as a server's `inputSchema`
 * (see `LlmBridge`). Arguments are decoded with the schema before the handler runs; a decoding failure is an
 * `is_error` result that says what was wrong. What a handler returns is rendered for the model: a string as it
 * is, a `CallToolResult`-shaped value (`{ content: [...] }`) like a server's answer, anything else as JSON. A
 * handler's failure (any `E`) and its defects become `is_error` results too.
 *
 * @since 0.1.0
 */
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as SchemaAST from "effect/SchemaAST"
import { describeUnknownError, isCallToolResultLike, renderResult } from "./internal/llm/content.js"
import { assignNames } from "./internal/llm/names.js"
import { setOwn } from "./internal/llm/own.js"
import * as LlmBridge from "./LlmBridge.js"
import { isRecord, type JsonObject, type ToolAnnotations } from "./McpSchema.js"

/**
 * What a handler is told about the call it serves.
 *
 * @since 0.1.0
 * @category models
 */
export interface ToolContext {
  /** The tool's name. */
  readonly name: string
  /** The id of the model's tool call. */
  readonly toolCallId: string
}

/**
 * How a tool is written.
 *
 * @since 0.1.0
 * @category models
 */
export interface ToolDefinition<A, I, Out, E, R> {
  readonly name: string
  readonly title?: string | undefined
  readonly description?: string | undefined
  /** The arguments: an object schema (a `Schema.Struct`, usually). */
  readonly parameters: Schema.Codec<A, I>
  readonly annotations?: ToolAnnotations | undefined
  readonly handler: (args: A, context: ToolContext) => Effect.Effect<Out, E, R>
}

/**
 * A local tool, its argument type erased: what a toolkit holds.
 *
 * @since 0.1.0
 * @category models
 */
export interface Tool<out R> {
  readonly name: string
  readonly title?: string | undefined
  readonly description?: string | undefined
  readonly annotations?: ToolAnnotations | undefined
  /** The JSON Schema of the arguments. */
  readonly jsonSchema: Effect.Effect<JsonObject, ToolkitError>
  /** Decode the arguments, run the handler, render what it returned or why it failed. */
  readonly handle: (args: JsonObject, context: ToolContext) => Effect.Effect<LlmBridge.ToolOutcome, never, R>
}

/**
 * @since 0.1.0
 * @category models
 */
export declare namespace Tool {
  /**
   * The services a tool's handler needs.
   *
   * @since 0.1.0
   * @category models
   */
  export type Context<T> = T extends Tool<infer R> ? R : never
}

/**
 * A set of local tools, in the order the model will see them.
 *
 * @since 0.1.0
 * @category models
 */
export interface Toolkit<out R> {
  readonly tools: ReadonlyArray<Tool<R>>
}

/**
 * A toolkit that cannot be offered as it is: two tools with one name, or a parameters schema that has no JSON
 * Schema or is not an object.
 *
 * @since 0.1.0
 * @category errors
 */
export class ToolkitError extends Schema.TaggedError<ToolkitError>()("ToolkitError", {
  reason: Schema.Literals(["DuplicateName", "InvalidSchema", "NotAnObject"]),
  tool: Schema.String,
  detail: Schema.String
}) {
  override get message(): string {
    return `tool ${this.tool}: ${this.detail}`
  }
}

/**
 * @since 0.1.0
 * @category models
 */
export interface ToolkitOptions {
  /** How long one handler may run before its call is answered with a timeout (default: no limit). */
  readonly timeout?: Duration.Input | undefined
}

const render = (value: unknown): LlmBridge.ToolOutcome => {
  if (typeof value === "string") return { content: value === "" ? "(no output)" : value, isError: false }
  if (value === undefined || value === null) return { content: "(no output)", isError: false }
  if (isCallToolResultLike(value)) {
    return { content: renderResult(value), isError: value.isError === true, result: value }
  }
  return { content: JSON.stringify(value) ?? String(value), isError: false }
}

/**
 * `Schema.Struct({})` (a tool without arguments) has the JSON Schema "anything but null" (`{ "not": { "type":
 * "null" } }`), which no model API takes as parameters: offer it as an object.
 */
const emptyStructAsObject = (schema: unknown): unknown => {
  if (!isRecord(schema) || "type" in schema) return schema
  const not = schema["not"]
  if (isRecord(not) && Object.keys(schema).length === 1 && Object.keys(not).length === 1 && not["type"] === "null") {
    return { type: "object", properties: {} }
  }
  if (!Array.isArray(schema["anyOf"])) return schema
  const kinds = schema["anyOf"].map((branch) => (isRecord(branch) ? branch["type"] : undefined))
  return kinds.length === 2 && kinds.includes("object") && kinds.includes("array")
    ? { type: "object", properties: {} }
    : schema
}

/**
 * The first type in the JSON form of a schema that has no JSON form: a declaration (`Schema.instanceOf`,
 * `Schema.declare`) without a JSON codec stays a declaration on the encoded side of `Schema.toCodecJson`, so
 * no argument a model can send decodes to it. Its JSON Schema says "any value", which would promise the model
 * what the tool refuses, so it is looked for here.
 */
const withoutJsonForm = (ast: SchemaAST.AST): SchemaAST.AST | undefined => {
  const seen = new Set<SchemaAST.AST>()
  const visit = (node: SchemaAST.AST): SchemaAST.AST | undefined => {
    if (seen.has(node)) return undefined
    seen.add(node)
    if (SchemaAST.isDeclaration(node)) return node
    if (SchemaAST.isSuspend(node)) return visit(node.thunk())
    const children: ReadonlyArray<SchemaAST.AST> = SchemaAST.isObjects(node)
      ? [...node.propertySignatures.map((p) => p.type), ...node.indexSignatures.map((i) => i.type)]
      : SchemaAST.isArrays(node)
      ? [...node.elements, ...node.rest]
      : SchemaAST.isUnion(node)
      ? node.types
      : []
    for (const child of children) {
      const found = visit(child)
      if (found !== undefined) return found
    }
    return undefined
  }
  return visit(ast)
}

/**
 * `anyOf` of bare types (`[{ "type": "string" }, { "type": "null" }]`, how Effect 4 writes an optional key)
 * as one `type` list (`["string", "null"]`, how the model APIs' examples write it), everywhere.
 */
const compactTypeUnions = (schema: unknown): unknown => {
  if (Array.isArray(schema)) return schema.map(compactTypeUnions)
  if (!isRecord(schema)) return schema
  const out: Record<string, unknown> = {}
  // Own properties only: a property named `__proto__` stays one, rather than setting the prototype.
  for (const [key, value] of Object.entries(schema)) setOwn(out, key, compactTypeUnions(value))
  const branches = out["anyOf"]
  if (!Array.isArray(branches) || "type" in out || branches.length < 2) return out
  const types = branches.map((branch) =>
    isRecord(branch) && Object.keys(branch).length === 1 && typeof branch["type"] === "string" ? branch["type"] : undefined
  )
  if (types.some((type) => type === undefined)) return out
  const { anyOf: _, ...rest } = out
  return { ...rest, type: types }
}

/**
 * The JSON Schema of a parameters schema, its definitions attached as `$defs` (what its `$ref`s point to).
 * Objects are closed (`additionalProperties: false`) where the schema allows it: a model told nothing else
 * invents parameters, and OpenAI's strict function calling requires it.
 */
const jsonSchemaOf = (parameters: Schema.Top): unknown => {
  const opaque = withoutJsonForm(Schema.toEncoded(Schema.toCodecJson(parameters)).ast)
  if (opaque !== undefined) {
    throw new Error("a declared type (Schema.declare, Schema.instanceOf) without a JSON codec has no JSON form")
  }
  const document = Schema.toJsonSchemaDocument(parameters, { onExcessProperty: "error" })
  return compactTypeUnions(
    Object.keys(document.definitions).length === 0
      ? document.schema
      : { ...document.schema, $defs: document.definitions }
  )
}

/**
 * Define a tool.
 *
 * @since 0.1.0
 * @category constructors
 */
export const tool = <A, I, Out, E, R>(definition: ToolDefinition<A, I, Out, E, R>): Tool<R> => {
  const decode = Schema.decodeUnknownEffect(Schema.toCodecJson(definition.parameters), {
    errors: "all",
    onExcessProperty: "ignore"
  })
  const jsonSchema = Effect.try({
    try: (): unknown => jsonSchemaOf(definition.parameters),
    catch: (error) =>
      new ToolkitError({
        reason: "InvalidSchema",
        tool: definition.name,
        detail: `its parameters have no JSON Schema: ${describeUnknownError(error)}`
      })
  }).pipe(
    Effect.map(emptyStructAsObject),
    Effect.flatMap((schema) => {
      const type = isRecord(schema) ? schema["type"] : undefined
      const objectLike = isRecord(schema) && (type === "object" || (type === undefined && "properties" in schema))
      return objectLike
        ? Effect.succeed(schema)
        : Effect.fail(
          new ToolkitError({
            reason: "NotAnObject",
            tool: definition.name,
            detail: `its parameters must be an object schema, got ${JSON.stringify(type ?? "no type")}`
          })
        )
    })
  )
  const handle = (args: JsonObject, context: ToolContext): Effect.Effect<LlmBridge.ToolOutcome, never, R> =>
    decode(args).pipe(
      Effect.matchEffect({
        onFailure: (error) =>
          Effect.succeed<LlmBridge.ToolOutcome>({
            content: `Invalid arguments for tool "${context.name}": ${error.message}`,
            isError: true
          }),
        onSuccess: (decoded) =>
          Effect.suspend(() => definition.handler(decoded, context)).pipe(
            Effect.map(render),
            Effect.catch((error) =>
              Effect.succeed<LlmBridge.ToolOutcome>({
                content: `Tool "${context.name}" failed: ${describeUnknownError(error)}`,
                isError: true,
                failure: error
              })
            )
          )
      })
    )
  return {
    name: definition.name,
    ...(definition.title === undefined ? {} : { title: definition.title }),
    ...(definition.description === undefined ? {} : { description: definition.description }),
    ...(definition.annotations === undefined ? {} : { annotations: definition.annotations }),
    jsonSchema,
    handle
  }
}

/**
 * A toolkit of these tools, in this order.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = <const Tools extends ReadonlyArray<Tool<unknown>>>(
  ...tools: Tools
): Toolkit<Tool.Context<Tools[number]>> => ({ tools: tools as ReadonlyArray<Tool<Tool.Context<Tools[number]>>> })

/**
 * The toolkit as a tool source, its handlers' services taken from the context now. Fails if two tools
 * share a name (also after sanitising) or a schema cannot be turned into an object JSON Schema.
 *
 * @since 0.1.0
 * @category constructors
 */
export const source = <R>(
  toolkit: Toolkit<R>,
  options: ToolkitOptions = {}
): Effect.Effect<LlmBridge.ToolSource<never>, ToolkitError, R> =>
  Effect.gen(function*() {
    const context = yield* Effect.context<R>()
    const seen = new Set<string>()
    for (const entry of toolkit.tools) {
      if (seen.has(entry.name)) {
        return yield* new ToolkitError({ reason: "DuplicateName", tool: entry.name, detail: "two tools have this name" })
      }
      seen.add(entry.name)
    }
    const { collisions } = assignNames(toolkit.tools.map((t) => t.name))
    const collision = collisions[0]
    if (collision !== undefined) {
      return yield* new ToolkitError({
        reason: "DuplicateName",
        tool: collision.names.join(", "),
        detail: `these tools would all be offered as ${collision.exposed}`
      })
    }
    const listed: Array<LlmBridge.SourceTool> = []
    for (const entry of toolkit.tools) {
      const inputSchema = yield* entry.jsonSchema
      listed.push({
        name: entry.name,
        inputSchema,
        ...(entry.title === undefined ? {} : { title: entry.title }),
        ...(entry.description === undefined ? {} : { description: entry.description }),
        ...(entry.annotations === undefined ? {} : { annotations: entry.annotations })
      })
    }
    const byName = new Map(toolkit.tools.map((t) => [t.name, t] as const))
    const names = toolkit.tools.map((t) => t.name)
    const timeout = options.timeout
    const result: LlmBridge.ToolSource<never> = {
      list: () => Effect.succeed(listed),
      invoke: (name, args, invokeContext) => {
        const found = byName.get(name)
        if (found === undefined) {
          return Effect.succeed({
            content: `Unknown tool "${name}". Available tools: ${names.join(", ")}.`,
            isError: true
          })
        }
        const run = found.handle(args, { name, toolCallId: invokeContext.toolCallId }).pipe(
          Effect.provide(context)
        )
        return timeout === undefined ? run : run.pipe(
          Effect.timeoutOrElse({
            duration: timeout,
            orElse: () =>
              Effect.succeed<LlmBridge.ToolOutcome>({
                content: `Tool "${name}" did not finish in time and was cancelled.`,
                isError: true,
                errorKind: "failure"
              })
          })
        )
      }
    }
    return result
  })

/**
 * The toolkit as a bridge (`toolsForLlm`, `executeToolCalls`), scheduled by the `ToolScheduler` in context
 * (or the default one).
 *
 * @since 0.1.0
 * @category constructors
 */
export const bridge = <R>(
  toolkit: Toolkit<R>,
  options: LlmBridge.BridgeOptions & ToolkitOptions = {}
): Effect.Effect<LlmBridge.Bridge<never>, ToolkitError, R> =>
  Effect.flatMap(source(toolkit, options), (local) => LlmBridge.fromSourceEffect(local, options))
