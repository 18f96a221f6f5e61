/**
 * The bridge between a tool source and a model: one implementation for remote servers, local toolkits and
 * registries.
 *
 * @internal
 */
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type {
  Bridge,
  BridgeOptions,
  ErrorKind,
  FunctionTool,
  LlmTool,
  ParsedToolCall,
  SchemaOptions,
  SourceTool,
  ToolOutcome,
  ToolResult,
  ToolSource,
  ToolsForLlmOptions
} from "../../LlmBridge.js"
import { isRecord, type JsonObject } from "../../McpSchema.js"
import * as ToolScheduler from "../../ToolScheduler.js"
import { modelVisible } from "../apps/visibility.js"
import { describeUnknownError } from "./content.js"
import { assignNames, canonicalJson } from "./names.js"
import {
  defaultInlineLimits,
  defaultStrictLimits,
  type InlineLimits,
  isModelNote,
  type StrictLimits,
  stripOptionalNulls,
  toParameters,
  toStrict
} from "./schema.js"

// -----------------------------------------------------------------------------
// Tool calls
// -----------------------------------------------------------------------------

const jsonKind = (value: unknown): string =>
  value === null ? "null" : Array.isArray(value) ? "an array" : `a ${typeof value}`

const parseJson = (text: string): { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly error: string } => {
  try {
    return { ok: true, value: JSON.parse(text) }
  } catch (error) {
    return { ok: false, error: error instanceof Error ? error.message : String(error) }
  }
}

/**
 * Read one tool call of a model's reply (OpenAI shape). `arguments` may be a JSON string (the wire form),
 * already an object, empty or absent (no arguments).
 *
 * @internal
 */
export const parseToolCall = (raw: unknown, index: number): ParsedToolCall => {
  const fallbackId = `call_${index}`
  if (!isRecord(raw)) {
    return {
      _tag: "Invalid",
      id: fallbackId,
      name: undefined,
      reason: "Invalid tool call: expected an object with an id, type \"function\" and function { name, arguments }."
    }
  }
  const id = typeof raw["id"] === "string" && raw["id"] !== "" ? raw["id"] : fallbackId
  const fn = raw["function"]
  const name = isRecord(fn) && typeof fn["name"] === "string" && fn["name"] !== "" ? fn["name"] : undefined
  const invalid = (reason: string): ParsedToolCall => ({ _tag: "Invalid", id, name, reason })
  if (raw["type"] !== undefined && raw["type"] !== "function") {
    return invalid(`Invalid tool call: type ${JSON.stringify(raw["type"])} is not supported; only "function" calls run.`)
  }
  if (id === fallbackId) return invalid("Invalid tool call: it has no id.")
  if (!isRecord(fn) || name === undefined) return invalid("Invalid tool call: it names no function.")
  const args = fn["arguments"]
  if (args === undefined || (typeof args === "string" && args.trim() === "")) {
    return { _tag: "Call", id, name, args: {} }
  }
  if (isRecord(args)) return { _tag: "Call", id, name, args }
  if (typeof args !== "string") {
    return invalid(`Invalid arguments for tool "${name}": expected a JSON object, got ${jsonKind(args)}.`)
  }
  const parsed = parseJson(args)
  if (!parsed.ok) {
    return invalid(
      `Invalid arguments for tool "${name}": not valid JSON (${parsed.error}). Send the arguments as one JSON object.`
    )
  }
  if (!isRecord(parsed.value)) {
    return invalid(`Invalid arguments for tool "${name}": expected a JSON object, got ${jsonKind(parsed.value)}.`)
  }
  return { _tag: "Call", id, name, args: parsed.value }
}

const hasOwnId = (raw: unknown): boolean => {
  const id = isRecord(raw) ? raw["id"] : undefined
  return typeof id === "string" && id !== ""
}

const unreadable = (id: string, what: string, error: unknown): ParsedToolCall => ({
  _tag: "Invalid",
  id,
  name: undefined,
  reason: `Invalid tool call: ${what} could not be read (${describeUnknownError(error)}).`
})

/**
 * Read a model's whole list of tool calls, whatever it is: `undefined` or `null` (a reply without tool calls)
 * is no calls; anything else that is not an array is one invalid call; a call that throws while it is read
 * is invalid. Calls without an id of their own get `call_<index>`, made unique against every id of the batch.
 *
 * @internal
 */
export const parseBatch = (calls: unknown): ReadonlyArray<ParsedToolCall> => {
  if (calls === undefined || calls === null) return []
  let items: ReadonlyArray<unknown>
  try {
    if (!Array.isArray(calls)) {
      return [{
        _tag: "Invalid",
        id: "call_0",
        name: undefined,
        reason: `Invalid tool calls: expected a list of tool calls, got ${jsonKind(calls)}.`
      }]
    }
    items = Array.from(calls)
  } catch (error) {
    return [unreadable("call_0", "the list of tool calls", error)]
  }
  const owned = new Set<string>()
  const parsed = items.map((raw, index): { readonly call: ParsedToolCall; readonly ownId: boolean } => {
    try {
      const call = parseToolCall(raw, index)
      const ownId = hasOwnId(raw)
      if (ownId) owned.add(call.id)
      return { call, ownId }
    } catch (error) {
      return { call: unreadable(`call_${index}`, "the call", error), ownId: false }
    }
  })
  const taken = new Set(owned)
  return parsed.map(({ call, ownId }) => {
    if (ownId) return call
    let id = call.id
    for (let n = 1; taken.has(id); n++) id = `${call.id}_${n}`
    taken.add(id)
    return id === call.id ? call : { ...call, id }
  })
}

// -----------------------------------------------------------------------------
// Declarations
// -----------------------------------------------------------------------------

/** @internal */
export const limitsOf = (
  options: SchemaOptions | undefined
): { readonly inline: InlineLimits; readonly strict: StrictLimits } => ({
  inline: {
    maxRefDepth: options?.maxRefDepth ?? defaultInlineLimits.maxRefDepth,
    maxNodes: options?.maxNodes ?? defaultInlineLimits.maxNodes
  },
  strict: {
    maxDepth: options?.strictMaxDepth ?? defaultStrictLimits.maxDepth,
    maxProperties: options?.strictMaxProperties ?? defaultStrictLimits.maxProperties,
    maxEnumValues: options?.strictMaxEnumValues ?? defaultStrictLimits.maxEnumValues
  }
})

/**
 * One tool as a function declaration under `name`.
 *
 * @internal
 */
export const declareTool = (
  tool: SourceTool,
  name: string,
  strict: boolean,
  options?: SchemaOptions
): LlmTool => {
  const limits = limitsOf(options)
  const converted = toParameters(tool.inputSchema, limits.inline)
  const modelNotes = converted.notes.filter(isModelNote).map((n) => n.message)
  const base = tool.description ?? tool.title ?? tool.annotations?.title ?? ""
  const description = modelNotes.length === 0
    ? base
    : `${base}${base === "" ? "" : "\n\n"}Note on the arguments: ${modelNotes.join("; ")}.`
  const notes = converted.notes.map((n) => n.message)
  const declaration = (parameters: JsonObject, flag: boolean | undefined): FunctionTool => ({
    type: "function",
    function: flag === undefined ? { name, description, parameters } : { name, description, parameters, strict: flag }
  })
  if (!strict) {
    return { name, tool, declaration: declaration(converted.parameters, undefined), strict: false, notes }
  }
  const outcome = toStrict(converted.parameters, limits.strict)
  return outcome._tag === "Strict"
    ? {
      name,
      tool,
      declaration: declaration(outcome.parameters, true),
      strict: true,
      notes: [...notes, ...outcome.notes.map((n) => n.message)]
    }
    : {
      name,
      tool,
      declaration: declaration(converted.parameters, false),
      strict: false,
      notes: [...notes, `strict mode is not possible, so the tool is declared non-strict: ${outcome.reasons.join("; ")}`]
    }
}

/**
 * A catalogue under its exposed names. Where two tools would share a name, the first keeps it.
 *
 * @internal
 */
export const declareAll = (
  tools: ReadonlyArray<SourceTool>,
  strict: boolean,
  options?: SchemaOptions
): ReadonlyArray<LlmTool> => {
  const { collisions, exposed } = assignNames(tools.map((t) => t.name))
  const declared: Array<LlmTool> = []
  tools.forEach((tool, i) => {
    const name = exposed[i]
    if (name === undefined) return
    const entry = declareTool(tool, name, strict, options)
    const collision = collisions.find((c) => c.exposed === name)
    declared.push(
      collision === undefined ? entry : {
        ...entry,
        notes: [...entry.notes, `the name ${name} is also claimed by ${collision.names.slice(1).join(", ")}, which are left out`]
      }
    )
  })
  return declared
}

// -----------------------------------------------------------------------------
// Execution
// -----------------------------------------------------------------------------

interface Entry {
  readonly exposed: string
  readonly tool: SourceTool
  parameters: JsonObject | undefined
}

interface Catalogue {
  readonly byName: ReadonlyMap<string, Entry>
  readonly names: ReadonlyArray<string>
}

const catalogueOf = (tools: ReadonlyArray<SourceTool>): Catalogue => {
  const { exposed } = assignNames(tools.map((t) => t.name))
  const byName = new Map<string, Entry>()
  const names: Array<string> = []
  tools.forEach((tool, i) => {
    const name = exposed[i]
    if (name === undefined) return
    const entry: Entry = { exposed: name, tool, parameters: undefined }
    byName.set(name, entry)
    names.push(name)
  })
  // A model that calls a tool by its original name still reaches it.
  tools.forEach((tool, i) => {
    const name = exposed[i]
    const entry = name === undefined ? undefined : byName.get(name)
    if (entry !== undefined && !byName.has(tool.name)) byName.set(tool.name, entry)
  })
  return { byName, names }
}

const parametersOf = (entry: Entry, options: SchemaOptions | undefined): JsonObject => {
  if (entry.parameters === undefined) {
    entry.parameters = toParameters(entry.tool.inputSchema, limitsOf(options).inline).parameters
  }
  return entry.parameters
}

const unknownTool = (name: string, catalogue: Catalogue): ToolOutcome => {
  const shown = catalogue.names.slice(0, 40)
  const more = catalogue.names.length - shown.length
  return {
    content: catalogue.names.length === 0
      ? `Unknown tool "${name}": no tools are available.`
      : `Unknown tool "${name}". Available tools: ${shown.join(", ")}${more > 0 ? ` and ${more} more` : ""}.`,
    isError: true,
    errorKind: "unknown_tool"
  }
}

const errorKindOf = (outcome: ToolOutcome): ErrorKind =>
  outcome.errorKind ?? (outcome.failure !== undefined ? "failure" : "tool_error")

const failedOutcome = (name: string, cause: Cause.Cause<unknown>): ToolOutcome => ({
  content: Cause.hasInterruptsOnly(cause)
    ? `Tool "${name}" was interrupted before it finished.`
    : `Tool "${name}" failed unexpectedly: ${describeUnknownError(Cause.squash(cause))}`,
  isError: true,
  failure: Cause.squash(cause)
})

/**
 * A bridge over a source: declarations, annotations, and the batch executor with the shared scheduler.
 *
 * @internal
 */
export const fromSource = <E>(
  source: ToolSource<E>,
  options: BridgeOptions,
  fallbackScheduler: ToolScheduler.Service
): Bridge<E> => {
  const scheduler = options.scheduler ??
    (options.toolConcurrency === undefined
      ? fallbackScheduler
      : ToolScheduler.make({ toolConcurrency: options.toolConcurrency }))
  const schema = options.schema

  // A tool an MCP App server marks app-only (`_meta.ui.visibility: ["app"]`) is never offered to a model, nor
  // callable by one: the spec makes hosts drop it from the model's list, whichever owner listed it.
  const listForModel = (listOptions?: { readonly refresh?: boolean | undefined }) =>
    Effect.map(source.list(listOptions), (tools) => tools.filter(modelVisible))

  const describeTools = (forLlm?: ToolsForLlmOptions) =>
    Effect.map(listForModel(), (tools) => declareAll(tools, forLlm?.strict ?? options.strict ?? false, schema))

  const loadCatalogue = (refresh: boolean): Effect.Effect<Catalogue | undefined> =>
    listForModel(refresh ? { refresh: true } : undefined).pipe(
      Effect.matchCause({ onFailure: () => undefined, onSuccess: (tools) => catalogueOf(tools) })
    )

  const invoke = (name: string, args: JsonObject, toolCallId: string): Effect.Effect<ToolOutcome> =>
    Effect.suspend(() => source.invoke(name, args, { toolCallId })).pipe(
      Effect.catchCause((cause) => Effect.succeed(failedOutcome(name, cause)))
    )

  const jobOf = (
    call: ParsedToolCall,
    catalogue: Catalogue | undefined
  ): ToolScheduler.Job<ToolOutcome> => {
    if (call._tag === "Invalid") {
      return {
        tool: call.name,
        key: undefined,
        run: Effect.succeed({ content: call.reason, isError: true, errorKind: "invalid_call" as const })
      }
    }
    if (catalogue === undefined) {
      // No catalogue: the call goes out under the name the model used (the batch is serial).
      return { tool: call.name, key: undefined, run: invoke(call.name, call.args, call.id) }
    }
    const entry = catalogue.byName.get(call.name)
    if (entry === undefined) {
      return { tool: call.name, key: undefined, run: Effect.succeed(unknownTool(call.name, catalogue)) }
    }
    const args = stripOptionalNulls(call.args, parametersOf(entry, schema))
    return {
      tool: entry.exposed,
      key: `${entry.exposed}\u0000${canonicalJson(args)}`,
      run: invoke(entry.tool.name, args, call.id)
    }
  }

  const executeToolCalls = (calls: unknown): Effect.Effect<ReadonlyArray<ToolResult>> =>
    Effect.suspend(() => {
      const parsed = parseBatch(calls)
      return parsed.length === 0 ? Effect.succeed([]) : runBatch(parsed)
    })

  const runBatch = (parsed: ReadonlyArray<ParsedToolCall>): Effect.Effect<ReadonlyArray<ToolResult>> => {
    return Effect.gen(function*() {
      let catalogue = yield* loadCatalogue(false)
      const known = catalogue
      if (known !== undefined && parsed.some((call) => call._tag === "Call" && !known.byName.has(call.name))) {
        // A tool the model names may be newer than the catalogue: look once more before calling it unknown.
        catalogue = (yield* loadCatalogue(true)) ?? known
      }
      const current = catalogue
      const jobs = parsed.map((call) => jobOf(call, current))
      const annotations: ToolScheduler.AnnotationLookup | undefined = current === undefined
        ? undefined
        : (name) => current.byName.get(name)?.tool.annotations
      const outcomes = yield* scheduler.run(jobs, annotations)
      return parsed.map((call, i): ToolResult => {
        const outcome: ToolOutcome = outcomes[i] ?? { content: "No answer was produced for this call.", isError: true }
        const result: ToolResult = { tool_call_id: call.id, role: "tool", content: outcome.content, is_error: outcome.isError }
        return outcome.isError ? { ...result, error_kind: errorKindOf(outcome) } : result
      })
    }).pipe(
      Effect.catchCause((cause) =>
        Cause.hasInterruptsOnly(cause)
          ? Effect.failCause(cause)
          : Effect.succeed(parsed.map((call): ToolResult => ({
            tool_call_id: call.id,
            role: "tool",
            content: `The tool call could not be run: ${describeUnknownError(Cause.squash(cause))}`,
            is_error: true,
            error_kind: "failure"
          })))
      )
    )
  }

  const toolAnnotations = (name: string) =>
    Effect.map(listForModel(), (tools) => {
      const entry = catalogueOf(tools).byName.get(name)
      return Option.fromNullishOr(entry?.tool.annotations)
    })

  return {
    source,
    toolsForLlm: (forLlm) => Effect.map(describeTools(forLlm), (tools) => tools.map((t) => t.declaration)),
    describeTools,
    executeToolCalls,
    toolAnnotations
  }
}
