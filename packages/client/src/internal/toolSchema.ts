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
import { MAX_DEPTH, measure } from "./outputSchema.js"

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

/** Keywords whose value maps names (of properties, of definitions) to schemas: the names are never keywords. */
const SCHEMA_MAPS = new Set(["properties", "$defs", "definitions"])

/** Keywords whose value is a schema (or, for `items`, an older draft's array of schemas). */
const SCHEMA_VALUED = new Set(["items", "additionalItems", "additionalProperties", "propertyNames", "contentSchema"])

/** Keywords whose value is an array of schemas. */
const SCHEMA_ARRAYS = new Set(["allOf", "anyOf", "oneOf", "prefixItems"])

/**
 * A schema without the keywords the importer refuses, each named with where it was. Only keywords are looked at:
 * a property (or a definition) named `pattern` or `if` is a name, kept with its schema; `const`, `enum`,
 * `default` and `examples` are values, copied as they are. The caller bounds the depth first (`measure`), so the
 * recursion is bounded too.
 */
const strip = (node: unknown, path: string, out: Array<Unexpressed>, closed: boolean): unknown => {
  if (!isRecord(node)) return node
  const kept: Record<string, unknown> = {}
  const walk = (value: unknown, at: string) => strip(value, at, out, closed)
  for (const key of Object.keys(node)) {
    const value = getOwn(node, key)
    const at = `${path}/${escape(key)}`
    if (refused(key, value)) {
      out.push({ path: path === "" ? "/" : path, keyword: key })
    } else if (SCHEMA_MAPS.has(key) && isRecord(value)) {
      const names: Record<string, unknown> = {}
      for (const name of Object.keys(value)) setOwn(names, name, walk(getOwn(value, name), `${at}/${escape(name)}`))
      setOwn(kept, key, names)
    } else if (SCHEMA_ARRAYS.has(key) && Array.isArray(value) || key === "items" && Array.isArray(value)) {
      setOwn(kept, key, value.map((item: unknown, index) => walk(item, `${at}/${index}`)))
    } else if (SCHEMA_VALUED.has(key)) {
      setOwn(kept, key, walk(value, at))
    } else {
      setOwn(kept, key, value)
    }
  }
  // Closed: an object that names its properties takes those only, whatever its `additionalProperties` said.
  if (closed && isRecord(kept["properties"])) kept["additionalProperties"] = false
  return kept
}

/**
 * How deep the importer would recurse: the schema's nesting with each `$ref` to its `$defs` followed (one level per
 * hop; a `$ref` back into a definition being walked is a cycle, which the importer makes lazy, and counts no
 * further). Each definition is walked once (its depth kept), so a definition referenced many times costs nothing
 * more; the walk stops as soon as it passes `limit`, so its own recursion stays within `limit` levels too.
 */
const expandedDepth = (root: Record<string, unknown>, limit: number): number => {
  const defs = isRecord(root["$defs"]) ? root["$defs"] : {}
  const below = new Map<string, number>()
  const open = new Set<string>()
  const walk = (node: unknown, depth: number): number => {
    if (depth > limit || typeof node !== "object" || node === null) return depth
    let reached = depth
    const ref = isRecord(node) ? node["$ref"] : undefined
    if (typeof ref === "string" && ref.startsWith("#/$defs/")) {
      const name = ref.slice("#/$defs/".length).replace(/~1/g, "/").replace(/~0/g, "~")
      const known = below.get(name)
      if (known !== undefined) {
        reached = depth + known
      } else if (!open.has(name)) {
        open.add(name)
        reached = walk(getOwn(defs, name), depth + 1)
        open.delete(name)
        below.set(name, reached - depth)
      }
    }
    for (const [key, child] of Object.entries(node)) {
      if (reached > limit) break
      if (key !== "$defs") reached = Math.max(reached, walk(child, depth + 1))
    }
    return reached
  }
  return walk(root, 0)
}

/** @internal */
export interface ImportOptions {
  /**
   * Every object that declares `properties` typed closed on them (`additionalProperties: false`), whatever the
   * schema says: for generated input types, where an undeclared key is far more often a typo than intended.
   */
  readonly closed?: boolean | undefined
}

/** @internal */
export const fromJsonSchema = (jsonSchema: unknown, options: ImportOptions = {}): Result.Result<Imported, string> => {
  if (!isRecord(jsonSchema) && typeof jsonSchema !== "boolean") return Result.fail("not a JSON Schema (an object)")
  // Bounded before anything recurses into it: a server's 100,000 levels would overflow every walk below.
  if (measure(jsonSchema, Number.POSITIVE_INFINITY) === "too-deep") return Result.fail(`the schema is nested deeper than ${MAX_DEPTH}`)
  const unexpressed: Array<Unexpressed> = []
  try {
    const stripped = strip(jsonSchema, "", unexpressed, options.closed === true)
    // A chain of `$ref`s nests as deep as it is long, however flat its JSON: bounded before the importer follows it.
    if (isRecord(stripped) && expandedDepth(stripped, MAX_DEPTH) > MAX_DEPTH) {
      return Result.fail(`the schema, its $refs followed, is nested deeper than ${MAX_DEPTH}`)
    }
    const document = JsonSchema.fromSchemaDraft2020_12(stripped as JsonSchema.JsonSchema)
    // The importer builds from Effect's built-in schemas and checks only: no decoding service is needed.
    const schema = SchemaRepresentation.fromJsonSchemaDocument(document, { patterns: "ignore" }) as Schema.Decoder<unknown>
    return Result.succeed({ schema, unexpressed })
  } catch (error) {
    return Result.fail(error instanceof Error ? error.message.split("\n")[0] ?? "" : String(error))
  }
}
