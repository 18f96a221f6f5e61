/**
 * `structuredContent` checked against the tool's `outputSchema`, as the official client does, in every
 * runtime: the validator interprets the schema (`@cfworker/json-schema`, JSON Schema 2020-12, the spec's
 * default dialect) and never generates code, so it runs where `eval`/`new Function` is refused (Workers, a
 * page whose CSP has no `'unsafe-eval'`). Each tool's schema is prepared once and kept while it stays the
 * same; the validator and RE2 are loaded on the first check, so a client whose tools declare no
 * `outputSchema` never loads them, and RE2 (most of the weight) is loaded only for a schema with a pattern.
 *
 * A server's schema cannot freeze or crash the client:
 * - no server pattern runs on the runtime's backtracking engine. A `pattern` becomes a format of our own
 *   whose test is RE2 (`re2js`, linear time); a `patternProperties` key is matched by RE2 against the keys of
 *   the value being checked, and the validator is handed a plain alternation of the keys that matched;
 * - `format` is an annotation (JSON Schema 2020-12's default): it is not checked, so none of the validator's
 *   own format expressions runs on a server's strings;
 * - a schema larger than the bound (or nested deeper than `MAX_DEPTH`) is measured without recursion and
 *   never prepared;
 * - a check evaluates at most `EVALUATIONS_PER_NODE` subschemas per node of the value (plus a floor), so a
 *   `$ref` bomb (each level referring twice to the next) stops instead of running for ever;
 * - whatever the validator throws (a `{"$ref": "#"}` that recurses without end, an unresolved `$ref`) is
 *   caught.
 * Each of these is an `OutputSchemaUnusable`: the result is not checked, and the caller reports it.
 *
 * @internal
 */
import type { OutputUnit, Schema } from "@cfworker/json-schema"
import type { RE2JS } from "re2js"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import { canonicalJson } from "./llm/names.js"
import { type CallToolResult, isRecord } from "../McpSchema.js"

/** The default bound of an `outputSchema`, in bytes of JSON (256 KiB). @internal */
export const DEFAULT_MAX_SCHEMA_BYTES = 256 * 1024

/** How deep a schema may nest (objects and arrays) and still be used. @internal */
export const MAX_DEPTH = 64

/** Subschemas a check may evaluate per node of the checked value, and the floor for a small value. @internal */
export const EVALUATIONS_PER_NODE = 64
const EVALUATIONS_FLOOR = 10_000

/** Patterns longer than this are not compiled (RE2 compiles in time and memory of the pattern's length). */
const MAX_PATTERN_LENGTH = 4096

/** An `outputSchema` the client does not use: the result it came with is not checked. @internal */
export class OutputSchemaUnusable extends Data.TaggedError("OutputSchemaUnusable")<{
  readonly tool: string
  readonly reason: "too-large" | "too-deep" | "compile" | "validate"
  readonly detail: string
}> {
  override get message(): string {
    return `the outputSchema of tool ${this.tool} is not used (${this.reason}): ${this.detail}`
  }
}

/**
 * Why a result does not match (`undefined` when it does, or when the tool declares no schema); a schema that
 * cannot be used fails with `OutputSchemaUnusable`. @internal
 */
export type Check = (
  tool: string,
  outputSchema: unknown,
  result: CallToolResult
) => Effect.Effect<string | undefined, OutputSchemaUnusable>

const clip = (text: string, max: number): string => text.length > max ? `${text.slice(0, max - 1)}…` : text

const describeFailure = (error: unknown): string =>
  clip(error instanceof Error ? `${error.name}: ${error.message}` : String(error), 200)

type CfWorker = typeof import("@cfworker/json-schema")
interface Engines {
  readonly cf: CfWorker
  /** RE2, loaded only for a schema that has a `pattern` or `patternProperties` (it is most of the weight). */
  readonly re2: typeof RE2JS | undefined
}

let validator: Promise<CfWorker> | undefined
let re2: Promise<typeof RE2JS> | undefined
const loadEngines = (patterns: boolean): Effect.Effect<Engines> =>
  Effect.promise(() =>
    Promise.all([
      validator ??= import("@cfworker/json-schema"),
      patterns ? (re2 ??= import("re2js").then((m) => m.RE2JS)) : undefined
    ]).then(([cf, engine]) => ({ cf, re2: engine }))
  )

/** Whether a schema says `pattern` or `patternProperties` anywhere (walked with a stack; its size was bounded). */
const hasPatterns = (schema: unknown): boolean => {
  const stack: Array<unknown> = [schema]
  while (stack.length > 0) {
    const item = stack.pop()
    if (typeof item !== "object" || item === null) continue
    if (!Array.isArray(item) && ("pattern" in item || "patternProperties" in item)) return true
    for (const child of Object.values(item)) stack.push(child)
  }
  return false
}

/**
 * Whether a JSON value is larger than `maxBytes` (its JSON text, near enough) or nests deeper than
 * `MAX_DEPTH`: walked with a stack of its own, stopping at the first bound crossed.
 */
export const measure = (value: unknown, maxBytes: number): "too-large" | "too-deep" | undefined => {
  let bytes = 0
  const stack: Array<{ readonly value: unknown; readonly depth: number }> = [{ value, depth: 0 }]
  for (let top = stack.pop(); top !== undefined; top = stack.pop()) {
    const item = top.value
    if (typeof item !== "object" || item === null) {
      bytes += typeof item === "string" ? item.length + 2 : String(item).length
    } else if (top.depth >= MAX_DEPTH) {
      return "too-deep"
    } else {
      const depth = top.depth + 1
      bytes += 2
      for (const [key, child] of Array.isArray(item) ? item.entries() : Object.entries(item)) {
        bytes += typeof key === "string" ? key.length + 4 : 1
        if (bytes > maxBytes) return "too-large"
        stack.push({ value: child, depth })
      }
    }
    if (bytes > maxBytes) return "too-large"
  }
  return undefined
}

/** What one check runs with: its budget of evaluations, and the keys of the value (for `patternProperties`). */
interface Run {
  left: number
  keys: ReadonlyArray<string> | undefined
  readonly matched: Map<string, string>
}

class BudgetSpent extends Error {
  override readonly name = "BudgetSpent"
}

/** The keywords whose value is a subschema, an array of subschemas, or a map of them (as the validator reads). */
const schemaKeywords = new Set([
  "additionalItems",
  "unevaluatedItems",
  "items",
  "contains",
  "additionalProperties",
  "unevaluatedProperties",
  "propertyNames",
  "not",
  "if",
  "then",
  "else"
])
const schemaArrayKeywords = new Set(["prefixItems", "items", "allOf", "anyOf", "oneOf"])
const schemaMapKeywords = new Set(["$defs", "definitions", "properties", "patternProperties", "dependentSchemas", "dependencies"])

/** The format a `pattern` becomes: checked by RE2, in the validator's table of formats. */
const FORMAT_PREFIX = "mcp-effect/re2:"

const escapeLiteral = (text: string): string => text.replace(/[\\^$.*+?()[\]{}|/]/g, "\\$&")

interface Prepared {
  readonly root: Schema | boolean
  readonly lookup: Record<string, Schema | boolean>
  /** The formats its `pattern`s became, registered again before each check (another client may clear them). */
  readonly formats: ReadonlyMap<string, (value: string) => boolean>
  readonly patternProperties: boolean
  /** Whether it has a pattern of any kind (RE2 is loaded for it). */
  readonly needsRe2: boolean
  readonly run: Run
}

/**
 * The schema as the validator runs it: a copy in which each `pattern` is an RE2 format, `format` is dropped,
 * each `patternProperties` answers with the keys RE2 matched, and each subschema counts its evaluations.
 * Throws (a pattern RE2 does not take, one too long) when the schema cannot be used.
 */
const prepare = (engines: Engines, schema: unknown): Prepared => {
  const formats = new Map<string, (value: string) => boolean>()
  const patterns = new Map<string, RE2JS>()
  const run: Run = { left: 0, keys: undefined, matched: new Map() }
  let patternProperties = false

  const compile = (pattern: string): RE2JS => {
    const found = patterns.get(pattern)
    if (found !== undefined) return found
    if (pattern.length > MAX_PATTERN_LENGTH) throw new Error(`a pattern longer than ${MAX_PATTERN_LENGTH} characters`)
    if (engines.re2 === undefined) throw new Error("RE2 was not loaded for a schema with a pattern")
    const compiled = engines.re2.compile(engines.re2.translateRegExp(pattern))
    patterns.set(pattern, compiled)
    return compiled
  }

  /** The keys of the checked value RE2 matches with `pattern`, as an expression the validator runs in linear time. */
  const keysMatching = (pattern: string, index: number): string => {
    const found = run.matched.get(pattern)
    if (found !== undefined) return found
    const compiled = compile(pattern)
    const keys = (run.keys ?? []).filter((key) => compiled.test(key)).map(escapeLiteral)
    // `(?:index){0}` matches nothing and keeps two patterns that matched the same keys apart.
    const expression = `(?:${index}){0}^(?:${keys.length === 0 ? "[]" : keys.join("|")})$`
    run.matched.set(pattern, expression)
    return expression
  }

  const mapOf = (value: unknown): unknown => {
    if (!isRecord(value)) return value
    const out: Record<string, unknown> = {}
    for (const [key, child] of Object.entries(value)) out[key] = copy(child)
    return out
  }

  const copy = (node: unknown): unknown => {
    if (!isRecord(node)) return node
    const out: Record<string, unknown> = {}
    for (const [key, value] of Object.entries(node)) {
      if (key === "format") continue
      if (key === "pattern" && typeof value === "string") {
        const compiled = compile(value)
        const name = FORMAT_PREFIX + value
        formats.set(name, (input) => compiled.test(input))
        out["format"] = name
      } else if (key === "patternProperties" && isRecord(value)) {
        const original = mapOf(value) as Record<string, unknown>
        const entries = Object.entries(original)
        entries.forEach(([pattern]) => compile(pattern))
        patternProperties = true
        Object.defineProperty(out, key, {
          enumerable: true,
          get: () =>
            run.keys === undefined
              ? original
              : Object.fromEntries(entries.map(([pattern, sub], index) => [keysMatching(pattern, index), sub]))
        })
      } else if (schemaArrayKeywords.has(key) && Array.isArray(value)) {
        out[key] = value.map(copy)
      } else if (schemaKeywords.has(key)) {
        out[key] = copy(value)
      } else if (schemaMapKeywords.has(key)) {
        out[key] = mapOf(value)
      } else {
        out[key] = value
      }
    }
    // The validator reads `$recursiveAnchor` once each time it evaluates a subschema: that read is counted.
    const anchor = node["$recursiveAnchor"]
    Object.defineProperty(out, "$recursiveAnchor", {
      enumerable: false,
      get: () => {
        if (--run.left < 0) throw new BudgetSpent("the check evaluated more subschemas than its budget")
        return anchor
      }
    })
    return out
  }

  const { $schema: _, ...body } = isRecord(schema) ? schema : {}
  const root = (typeof schema === "boolean" ? schema : copy(body)) as Schema | boolean
  return { root, lookup: engines.cf.dereference(root), formats, patternProperties, needsRe2: patterns.size > 0, run }
}

/** Nodes of a JSON value, and (when asked) its keys: what the budget and `patternProperties` need. */
const survey = (value: unknown, withKeys: boolean): { readonly nodes: number; readonly keys: Array<string> | undefined } => {
  let nodes = 0
  const keys = withKeys ? new Set<string>() : undefined
  const stack: Array<unknown> = [value]
  while (stack.length > 0) {
    const item = stack.pop()
    nodes++
    if (typeof item === "object" && item !== null) {
      if (Array.isArray(item)) {
        for (const child of item) stack.push(child)
      } else {
        for (const [key, child] of Object.entries(item)) {
          keys?.add(key)
          stack.push(child)
        }
      }
    }
  }
  return { nodes, keys: keys === undefined ? undefined : [...keys] }
}

/** Keywords that only say a subschema failed: the subschema's own errors say why. */
const applicators = new Set([
  "$ref",
  "$recursiveRef",
  "properties",
  "patternProperties",
  "additionalProperties",
  "unevaluatedProperties",
  "items",
  "prefixItems",
  "additionalItems",
  "unevaluatedItems",
  "allOf",
  "then",
  "else",
  "propertyNames",
  "dependentSchemas"
])

const describeErrors = (errors: ReadonlyArray<OutputUnit>): string =>
  errors.filter((e) => !applicators.has(e.keyword)).slice(0, 5).map((e) => {
    const at = e.instanceLocation.replace(/^#/, "")
    const text = e.keyword === "format" ? "must match pattern" : e.error
    return `${at === "" ? "(root)" : at} ${clip(text, 160)}`
  }).join("; ")

interface Entry {
  readonly schema: unknown
  /** The canonical JSON of the schema; empty when it was too large to be worth one. */
  readonly key: string
  /** `undefined` exactly when there is a `problem`. */
  readonly prepared: Prepared | undefined
  readonly problem: OutputSchemaUnusable | undefined
}

/** A checker with its own cache of prepared schemas, one per tool. @internal */
export const makeChecker = (options: { readonly maxSchemaBytes?: number | undefined } = {}): Check => {
  const maxBytes = options.maxSchemaBytes ?? DEFAULT_MAX_SCHEMA_BYTES
  const entries = new Map<string, Entry>()

  const remember = (tool: string, entry: Entry): Entry => {
    entries.set(tool, entry)
    return entry
  }

  const unusable = (tool: string, schema: unknown, key: string, problem: OutputSchemaUnusable): Entry =>
    remember(tool, { schema, key, prepared: undefined, problem })

  /** The tool's prepared schema: the one kept while the schema is the same, else a new one (bounded, never thrown). */
  const entryOf = (engines: Engines, tool: string, schema: unknown): Entry => {
    const found = entries.get(tool)
    if (found !== undefined && found.schema === schema) return found
    const bound = measure(schema, maxBytes)
    if (bound !== undefined) {
      const detail = bound === "too-large" ? `larger than ${maxBytes} bytes` : `nested deeper than ${MAX_DEPTH}`
      return unusable(tool, schema, "", new OutputSchemaUnusable({ tool, reason: bound, detail }))
    }
    const key = canonicalJson(schema)
    if (found !== undefined && found.key === key) return remember(tool, { ...found, schema })
    try {
      return remember(tool, { schema, key, prepared: prepare(engines, schema), problem: undefined })
    } catch (error) {
      return unusable(tool, schema, key, new OutputSchemaUnusable({ tool, reason: "compile", detail: describeFailure(error) }))
    }
  }

  const check = (engines: Engines, tool: string, entry: Entry, prepared: Prepared, structured: unknown) => {
    const { run } = prepared
    const { keys, nodes } = survey(structured, prepared.patternProperties)
    run.left = EVALUATIONS_FLOOR + EVALUATIONS_PER_NODE * nodes
    run.keys = keys
    run.matched.clear()
    for (const [name, test] of prepared.formats) engines.cf.format[name] = test
    try {
      const outcome = engines.cf.validate(structured, prepared.root, "2020-12", prepared.lookup, false)
      return outcome.valid
        ? undefined
        : `the structuredContent of tool ${tool} does not match its outputSchema: ${describeErrors(outcome.errors)}`
    } catch (error) {
      // A schema that failed once (a recursion without end, a budget spent) is not tried again.
      const problem = new OutputSchemaUnusable({ tool, reason: "validate", detail: describeFailure(error) })
      unusable(tool, entry.schema, entry.key, problem)
      throw problem
    } finally {
      run.keys = undefined
      run.matched.clear()
    }
  }

  return (tool, outputSchema, result) => {
    if (result.isError === true || !isRecord(outputSchema)) return Effect.succeed(undefined)
    if (result.structuredContent === undefined) {
      return Effect.succeed(`tool ${tool} declares an outputSchema but its result has no structuredContent`)
    }
    const structured = result.structuredContent
    const known = entries.get(tool)
    // A schema seen before needs no second look for patterns; a new one is measured before it is walked.
    const patterns = known !== undefined && known.schema === outputSchema
      ? known.prepared?.needsRe2 === true
      : measure(outputSchema, maxBytes) === undefined && hasPatterns(outputSchema)
    return Effect.flatMap(loadEngines(patterns), (engines) => {
      const entry = entryOf(engines, tool, outputSchema)
      if (entry.problem !== undefined) return Effect.fail(entry.problem)
      const prepared = entry.prepared
      if (prepared === undefined) return Effect.succeed(undefined)
      return Effect.try({
        try: () => check(engines, tool, entry, prepared, structured),
        catch: (error) =>
          error instanceof OutputSchemaUnusable
            ? error
            : new OutputSchemaUnusable({ tool, reason: "validate", detail: describeFailure(error) })
      })
    })
  }
}
