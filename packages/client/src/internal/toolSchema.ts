/**
 * A tool's JSON Schema (2020-12) as an Effect `Schema`, as far as its keywords allow: the keywords Effect's
 * importer cannot express are taken out first (each one named, with where it was), patterns are not applied
 * (a server's regular expression could block the decoder), and what is left is imported with
 * `SchemaRepresentation.fromJsonSchemaDocument`. The schema it gives accepts at least what the tool's schema
 * accepts, except where the importer's own limits say otherwise (then the import fails, saying why).
 *
 * @internal
 */
import * as JsonSchema from "effect/JsonSchema"
import * as Result from "effect/Result"
import type * as Schema from "effect/Schema"
import * as SchemaRepresentation from "effect/SchemaRepresentation"
import { isRecord } from "../McpSchema.js"
import { getOwn, setOwn } from "./llm/own.js"

/** A keyword left out, and where (a JSON Pointer into the tool's schema). @internal */
export interface Unexpressed {
  readonly path: string
  readonly keyword: string
}

/** @internal */
export interface Imported {
  /** Decodes JSON values; made of Effect's built-in schemas, it needs no service. */
  readonly schema: Schema.Decoder<unknown>
  /** What the schema does not check that the tool's schema does. */
  readonly unexpressed: ReadonlyArray<Unexpressed>
}

/** Keywords the importer refuses or does not enforce, always taken out. */
const UNSUPPORTED = new Set([
  "$dynamicRef",
  "$dynamicAnchor",
  "contains",
  "minContains",
  "maxContains",
  "dependentRequired",
  "dependentSchemas",
  "if",
  "then",
  "else",
  "unevaluatedItems",
  "unevaluatedProperties",
  "pattern",
  "patternProperties",
  "format"
])

/** Nesting deeper than this is not walked (and not imported): a server's schema, bounded like every other. */
const MAX_DEPTH = 64

const escape = (key: string) => key.replace(/~/g, "~0").replace(/\//g, "~1")

const isScalar = (value: unknown) => value === null || ["string", "number", "boolean"].includes(typeof value)

/** Whether a keyword's value, as the tool wrote it, is one the importer refuses. */
const refused = (key: string, value: unknown): boolean => {
  if (UNSUPPORTED.has(key)) return true
  if (key === "not") return !(isRecord(value) && Object.keys(value).length === 0)
  if (key === "const") return !isScalar(value)
  if (key === "enum") return !Array.isArray(value) || !value.every(isScalar)
  if (key === "$ref") return typeof value !== "string" || !value.startsWith("#/$defs/")
  return false
}

class TooDeep extends Error {}

const strip = (node: unknown, path: string, depth: number, out: Array<Unexpressed>): unknown => {
  if (depth > MAX_DEPTH) throw new TooDeep(`the schema is nested deeper than ${MAX_DEPTH} at ${path || "/"}`)
  if (Array.isArray(node)) return node.map((item, index) => strip(item, `${path}/${index}`, depth + 1, out))
  if (!isRecord(node)) return node
  const kept: Record<string, unknown> = {}
  for (const key of Object.keys(node)) {
    const value = getOwn(node, key)
    if (refused(key, value)) {
      out.push({ path: path === "" ? "/" : path, keyword: key })
      continue
    }
    setOwn(kept, key, strip(value, `${path}/${escape(key)}`, depth + 1, out))
  }
  return kept
}

/** @internal */
export const fromJsonSchema = (jsonSchema: unknown): Result.Result<Imported, string> => {
  if (!isRecord(jsonSchema) && typeof jsonSchema !== "boolean") return Result.fail("not a JSON Schema (an object)")
  const unexpressed: Array<Unexpressed> = []
  try {
    const stripped = strip(jsonSchema, "", 0, unexpressed)
    const document = JsonSchema.fromSchemaDraft2020_12(stripped as JsonSchema.JsonSchema)
    // The importer builds from Effect's built-in schemas and checks only: no decoding service is needed.
    const schema = SchemaRepresentation.fromJsonSchemaDocument(document, { patterns: "ignore" }) as Schema.Decoder<unknown>
    return Result.succeed({ schema, unexpressed })
  } catch (error) {
    return Result.fail(error instanceof Error ? error.message.split("\n")[0] ?? "" : String(error))
  }
}
