/**
 * `structuredContent` checked against the tool's `outputSchema`, as the official client does. The validator
 * of each tool is compiled once (Ajv, JSON Schema 2020-12, the spec's default dialect) and kept while the
 * tool's schema stays the same. Ajv is loaded on the first check, so a client whose tools declare no
 * `outputSchema` never loads it.
 *
 * @internal
 */
import type { Ajv2020, ValidateFunction } from "ajv/dist/2020.js"
import * as Effect from "effect/Effect"
import { canonicalJson } from "./llm/names.js"
import { type CallToolResult, isRecord } from "../McpSchema.js"

/** Why a result does not match, or `undefined` when it does (or cannot be checked). @internal */
export type Check = (tool: string, outputSchema: unknown, result: CallToolResult) => Effect.Effect<string | undefined>

let loaded: Promise<Ajv2020> | undefined
// Through `default` (the CommonJS `module.exports`, which carries `Ajv2020`): Node gives the named export too,
// but a bundle that splits ajv into a chunk of its own (the CLI's, esbuild) exports only `default`.
const loadAjv = Effect.promise(() =>
  loaded ??= import("ajv/dist/2020.js").then((m) =>
    new m.default.Ajv2020({ strict: false, allErrors: true, validateFormats: false })
  )
)

interface Compiled {
  readonly schema: unknown
  readonly key: string
  /** `undefined`: the schema does not compile, so nothing is checked against it. */
  readonly validate: ValidateFunction | undefined
  readonly problem: string | undefined
}

const describeErrors = (validate: ValidateFunction): string =>
  (validate.errors ?? []).slice(0, 5).map((e) => `${e.instancePath === "" ? "(root)" : e.instancePath} ${e.message ?? "is invalid"}`)
    .join("; ")

/** A checker with its own cache of compiled validators, one per tool. @internal */
export const makeChecker = (): Check => {
  const compiled = new Map<string, Compiled>()

  const compile = (ajv: Ajv2020, tool: string, schema: unknown): Compiled => {
    const found = compiled.get(tool)
    if (found !== undefined && found.schema === schema) return found
    const key = canonicalJson(schema)
    if (found !== undefined && found.key === key) {
      const again = { ...found, schema }
      compiled.set(tool, again)
      return again
    }
    let entry: Compiled
    try {
      const { $schema: _, ...body } = isRecord(schema) ? schema : {}
      entry = { schema, key, validate: ajv.compile(body), problem: undefined }
    } catch (error) {
      entry = { schema, key, validate: undefined, problem: error instanceof Error ? error.message : String(error) }
    }
    compiled.set(tool, entry)
    return entry
  }

  return (tool, outputSchema, result) => {
    if (result.isError === true || !isRecord(outputSchema)) return Effect.succeed(undefined)
    if (result.structuredContent === undefined) {
      return Effect.succeed(`tool ${tool} declares an outputSchema but its result has no structuredContent`)
    }
    const structured = result.structuredContent
    return Effect.map(loadAjv, (ajv) => {
      const entry = compile(ajv, tool, outputSchema)
      if (entry.validate === undefined) return undefined
      return entry.validate(structured)
        ? undefined
        : `the structuredContent of tool ${tool} does not match its outputSchema: ${describeErrors(entry.validate)}`
    })
  }
}
