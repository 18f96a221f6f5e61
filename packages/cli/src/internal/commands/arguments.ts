/**
 * `key=value` arguments turned into a tool's (or prompt's) arguments, each value coerced by the property's
 * type in the input schema: numbers, integers, booleans, `null`, and JSON for objects and arrays. A property
 * the schema does not describe is read as JSON when it parses, as a string otherwise.
 */
import * as Effect from "effect/Effect"
import type { JsonObject } from "@mcp-effect/client/McpSchema"
import { UsageError } from "../errors.js"

type Json = Readonly<Record<string, unknown>>

const isObject = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value)

const typesOf = (schema: unknown): ReadonlyArray<string> => {
  if (!isObject(schema)) return []
  const type = schema["type"]
  if (typeof type === "string") return [type]
  if (Array.isArray(type)) return type.filter((t): t is string => typeof t === "string")
  for (const key of ["anyOf", "oneOf"]) {
    const options = schema[key]
    if (Array.isArray(options)) return options.flatMap(typesOf)
  }
  return []
}

const parseJson = (text: string): { readonly ok: true; readonly value: unknown } | { readonly ok: false } => {
  try {
    return { ok: true, value: JSON.parse(text) }
  } catch {
    return { ok: false }
  }
}

/** One value, by the property's schema; a string explains why it does not fit. */
export const coerceValue = (raw: string, schema: unknown): { readonly value: unknown } | string => {
  const types = typesOf(schema)
  if (types.length === 0) {
    const parsed = parseJson(raw)
    return { value: parsed.ok ? parsed.value : raw }
  }
  if (types.includes("string")) return { value: raw }
  if (types.includes("null") && raw === "null") return { value: null }
  if (types.includes("integer") || types.includes("number")) {
    const n = Number(raw)
    if (raw.trim() !== "" && Number.isFinite(n) && (types.includes("number") || Number.isInteger(n))) return { value: n }
  }
  if (types.includes("boolean")) {
    if (raw === "true" || raw === "false") return { value: raw === "true" }
  }
  if (types.includes("object") || types.includes("array")) {
    const parsed = parseJson(raw)
    if (parsed.ok && (types.includes("array") ? Array.isArray(parsed.value) : isObject(parsed.value))) {
      return { value: parsed.value }
    }
  }
  return `expected ${types.join(" or ")}, got ${JSON.stringify(raw)}`
}

/** Split `key=value` pairs. */
export const pairs = (items: ReadonlyArray<string>): Effect.Effect<ReadonlyArray<readonly [string, string]>, UsageError> =>
  Effect.forEach(items, (item) => {
    const cut = item.indexOf("=")
    return cut <= 0
      ? Effect.fail(new UsageError({ message: `expected key=value, got ${JSON.stringify(item)}` }))
      : Effect.succeed([item.slice(0, cut), item.slice(cut + 1)] as const)
  })

/** The arguments of a call: `--args JSON` first, then each `key=value` over it. */
export const toolArguments = (
  inputSchema: unknown,
  items: ReadonlyArray<string>,
  argsJson: string | undefined
): Effect.Effect<JsonObject, UsageError> =>
  Effect.gen(function*() {
    let base: Json = {}
    if (argsJson !== undefined) {
      const parsed = parseJson(argsJson)
      if (!parsed.ok || !isObject(parsed.value)) {
        return yield* new UsageError({ message: "--args must be a JSON object" })
      }
      base = parsed.value
    }
    const properties = isObject(inputSchema) && isObject(inputSchema["properties"]) ? inputSchema["properties"] : {}
    const result: Record<string, unknown> = { ...base }
    for (const [key, raw] of yield* pairs(items)) {
      const coerced = coerceValue(raw, properties[key])
      if (typeof coerced === "string") return yield* new UsageError({ message: `argument ${key}: ${coerced}` })
      result[key] = coerced.value
    }
    return result as JsonObject
  })
