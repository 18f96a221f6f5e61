/**
 * `structuredContent` checked against the tool's `outputSchema`, as the official client does. The validator
 * of each tool is compiled once (Ajv, JSON Schema 2020-12, the spec's default dialect) and kept while the
 * tool's schema stays the same. Ajv is loaded on the first check, so a client whose tools declare no
 * `outputSchema` never loads it.
 *
 * A server's schema cannot freeze or crash the client: `pattern`s run on RE2 (`re2js`, linear time, no
 * backtracking), a schema larger than the bound (or nested deeper than `MAX_DEPTH`) is measured without
 * recursion and never compiled, and whatever Ajv throws while compiling or validating (an unsupported pattern,
 * a `{"$ref": "#"}` that recurses without end) is caught. Each of these is an `OutputSchemaUnusable`: the
 * result is not checked, and the caller reports it.
 *
 * @internal
 */
import type { Ajv2020, ValidateFunction } from "ajv/dist/2020.js"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import { canonicalJson } from "./llm/names.js"
import { type CallToolResult, isRecord } from "../McpSchema.js"

/** The default bound of an `outputSchema`, in bytes of JSON (256 KiB). @internal */
export const DEFAULT_MAX_SCHEMA_BYTES = 256 * 1024

/** How deep a schema may nest (objects and arrays) and still be compiled. @internal */
export const MAX_DEPTH = 64

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

const describeFailure = (error: unknown): string => {
  const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error)
  return text.length > 200 ? `${text.slice(0, 199)}…` : text
}

/**
 * Ajv's `code.regExp`: patterns compiled by RE2. Ajv keys its compiled patterns by `toString()`, so each
 * one says its own source. A pattern RE2 does not take (lookaround, backreferences) throws, and the schema
 * is not compiled.
 */
const loadEngine = () =>
  import("re2js").then(({ RE2JS }) => {
    const engine = (pattern: string, flags: string) => {
      const compiled = RE2JS.compile(RE2JS.translateRegExp(pattern))
      return { test: (input: string) => compiled.test(input), toString: () => `/${pattern}/${flags}` }
    }
    return Object.assign(engine, { code: "re2js" })
  })

let loaded: Promise<Ajv2020> | undefined
// Through `default` (the CommonJS `module.exports`, which carries `Ajv2020`): Node gives the named export too,
// but a bundle that splits ajv into a chunk of its own (the CLI's, esbuild) exports only `default`.
const loadAjv = Effect.promise(() =>
  loaded ??= Promise.all([import("ajv/dist/2020.js"), loadEngine()]).then(([m, regExp]) =>
    new m.default.Ajv2020({ strict: false, allErrors: true, validateFormats: false, code: { regExp } })
  )
)

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

interface Compiled {
  readonly schema: unknown
  /** The canonical JSON of the schema; empty when it was too large to be worth one. */
  readonly key: string
  /** `undefined` exactly when there is a `problem`. */
  readonly validate: ValidateFunction | undefined
  readonly problem: OutputSchemaUnusable | undefined
}

const describeErrors = (validate: ValidateFunction): string =>
  (validate.errors ?? []).slice(0, 5).map((e) => `${e.instancePath === "" ? "(root)" : e.instancePath} ${e.message ?? "is invalid"}`)
    .join("; ")

/** A checker with its own cache of compiled validators, one per tool. @internal */
export const makeChecker = (options: { readonly maxSchemaBytes?: number | undefined } = {}): Check => {
  const maxBytes = options.maxSchemaBytes ?? DEFAULT_MAX_SCHEMA_BYTES
  const compiled = new Map<string, Compiled>()

  const remember = (tool: string, entry: Compiled): Compiled => {
    compiled.set(tool, entry)
    return entry
  }

  const unusable = (tool: string, schema: unknown, key: string, problem: OutputSchemaUnusable): Compiled =>
    remember(tool, { schema, key, validate: undefined, problem })

  /** The tool's validator: the one kept while the schema is the same, else a new one (bounded, never thrown). */
  const compile = (ajv: Ajv2020, tool: string, schema: unknown): Effect.Effect<Compiled> => {
    const found = compiled.get(tool)
    if (found !== undefined && found.schema === schema) return Effect.succeed(found)
    const bound = measure(schema, maxBytes)
    if (bound !== undefined) {
      const detail = bound === "too-large" ? `larger than ${maxBytes} bytes` : `nested deeper than ${MAX_DEPTH}`
      return Effect.succeed(unusable(tool, schema, "", new OutputSchemaUnusable({ tool, reason: bound, detail })))
    }
    const key = canonicalJson(schema)
    if (found !== undefined && found.key === key) return Effect.succeed(remember(tool, { ...found, schema }))
    const { $schema: _, ...body } = isRecord(schema) ? schema : {}
    return Effect.try({
      try: () => ajv.compile(body),
      catch: (error) => new OutputSchemaUnusable({ tool, reason: "compile", detail: describeFailure(error) })
    }).pipe(Effect.match({
      onFailure: (problem) => unusable(tool, schema, key, problem),
      onSuccess: (validate) => remember(tool, { schema, key, validate, problem: undefined })
    }))
  }

  const validate = (tool: string, entry: Compiled, validator: ValidateFunction, structured: unknown) =>
    Effect.try({
      try: () =>
        validator(structured)
          ? undefined
          : `the structuredContent of tool ${tool} does not match its outputSchema: ${describeErrors(validator)}`,
      catch: (error) => new OutputSchemaUnusable({ tool, reason: "validate", detail: describeFailure(error) })
    }).pipe(
      // A schema that failed once (a recursion without end) is not tried again.
      Effect.tapError((problem) => Effect.sync(() => unusable(tool, entry.schema, entry.key, problem)))
    )

  return (tool, outputSchema, result) => {
    if (result.isError === true || !isRecord(outputSchema)) return Effect.succeed(undefined)
    if (result.structuredContent === undefined) {
      return Effect.succeed(`tool ${tool} declares an outputSchema but its result has no structuredContent`)
    }
    const structured = result.structuredContent
    return loadAjv.pipe(
      Effect.flatMap((ajv) => compile(ajv, tool, outputSchema)),
      Effect.flatMap((entry) =>
        entry.problem !== undefined
          ? Effect.fail(entry.problem)
          : entry.validate === undefined
          ? Effect.succeed(undefined)
          : validate(tool, entry, entry.validate, structured)
      )
    )
  }
}
