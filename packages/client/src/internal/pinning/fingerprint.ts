/**
 * A tool's fingerprint: the SHA-256 of its definition (name, title, description, inputSchema, outputSchema,
 * annotations as canonical JSON), and a bounded summary of each part, kept so that a later change can be told
 * in a few words ("description changed (412 → 530 characters)") without keeping, or repeating, the server's
 * text. Portable: WebCrypto only.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import type { Tool } from "../../McpSchema.js"
import { setOwn } from "../llm/own.js"

/** A text part: its length and digest; the title also keeps a short preview (a title is a few words). */
export interface TextPrint {
  readonly length: number
  readonly hash: string
  readonly preview?: string | undefined
}

/** One property of a JSON Schema: its declared type (or kind) and the digest of its whole schema. */
export interface PropertyPrint {
  readonly type: string
  readonly hash: string
}

/** A JSON Schema: its digest, its first properties and its `required` list. */
export interface SchemaPrint {
  readonly hash: string
  readonly properties: Readonly<Record<string, PropertyPrint>>
  readonly required: ReadonlyArray<string>
  /** More properties than are summarised: a change past them is told as "other keywords changed". */
  readonly truncated: boolean
}

/** @internal */
export interface Fingerprint {
  readonly hash: string
  readonly title?: TextPrint | undefined
  readonly description?: TextPrint | undefined
  readonly inputSchema: SchemaPrint
  readonly outputSchema?: SchemaPrint | undefined
  /** Each annotation's value as canonical JSON, cut short. */
  readonly annotations?: Readonly<Record<string, string>> | undefined
}

/** At most this many properties (and `required` names, and annotations) are summarised per schema. */
const MAX_ENTRIES = 128
/** A property or annotation name in a summary is cut to this many characters. */
const MAX_NAME = 64
/** A type, a preview or an annotation value is cut to this many characters. */
const MAX_VALUE = 60

/**
 * How deep a pinned definition may nest (objects and arrays). Real schemas nest a few levels, a recursive one
 * uses `$ref`; a deeper one cannot be pinned (its tool is quarantined), and no stack is spent on it.
 */
export const MAX_DEPTH = 256

/** A definition that cannot be fingerprinted: its tool is quarantined with this reason. */
export class Unpinnable {
  readonly _tag = "Unpinnable"
  constructor(readonly reason: string) {}
}

const sortedKeys = (value: object): ReadonlyArray<string> =>
  Object.keys(value).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))

/**
 * `value` as canonical JSON (object keys sorted), as `JSON.stringify` writes it; throws `Unpinnable` past
 * `MAX_DEPTH`, before the stack could run out.
 */
const canonicalAt = (value: unknown, depth: number): string | undefined => {
  if (typeof value !== "object" || value === null) return JSON.stringify(value)
  if (depth >= MAX_DEPTH) throw new Unpinnable(`its definition nests deeper than ${MAX_DEPTH} levels`)
  if (Array.isArray(value)) {
    return `[${value.map((item: unknown) => canonicalAt(item, depth + 1) ?? "null").join(",")}]`
  }
  const parts: Array<string> = []
  for (const key of sortedKeys(value)) {
    const item = canonicalAt((value as Readonly<Record<string, unknown>>)[key], depth + 1)
    if (item !== undefined) parts.push(`${JSON.stringify(key)}:${item}`)
  }
  return `{${parts.join(",")}}`
}

/** Canonical JSON of a definition's part (throws `Unpinnable` when it nests too deep). */
export const canonicalJson = (value: unknown): string => canonicalAt(value, 0) ?? "null"

/** `text` cut to `max` characters, never between the two halves of a surrogate pair. */
export const cut = (text: string, max: number): string =>
  text.length <= max ? text : `${text.slice(0, max - 1).replace(/[\uD800-\uDBFF]$/, "")}…`

const hex = (bytes: ArrayBuffer): string =>
  Array.from(new Uint8Array(bytes), (byte) => byte.toString(16).padStart(2, "0")).join("")

/** SHA-256 of `text`, in hex. */
export const sha256 = (text: string): Promise<string> =>
  crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)).then(hex)

const isObject = (value: unknown): value is Readonly<Record<string, unknown>> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/** What a property schema says it is: its `type`, else the keyword that shapes it. */
const typeOf = (schema: unknown): string => {
  if (!isObject(schema)) return typeof schema === "boolean" ? String(schema) : "invalid"
  const type = schema["type"]
  if (typeof type === "string") return cut(type, MAX_VALUE)
  if (Array.isArray(type)) return cut(type.map(String).join(" | "), MAX_VALUE)
  if ("$ref" in schema) return "$ref"
  if ("enum" in schema) return "enum"
  if ("const" in schema) return "const"
  if ("anyOf" in schema || "oneOf" in schema) return "union"
  if ("allOf" in schema) return "allOf"
  return "any"
}

const textPrint = async (text: string | undefined, preview: boolean): Promise<TextPrint | undefined> =>
  text === undefined
    ? undefined
    : { length: text.length, hash: await sha256(text), ...(preview ? { preview: cut(text, MAX_VALUE) } : {}) }

const schemaPrint = async (schema: unknown): Promise<SchemaPrint> => {
  const record = isObject(schema) ? schema : {}
  const rawProperties = isObject(record["properties"]) ? Object.entries(record["properties"]) : []
  const entries = rawProperties.slice(0, MAX_ENTRIES)
  const properties: Record<string, PropertyPrint> = {}
  const printed = await Promise.all(
    entries.map(async ([name, property]) =>
      [cut(name, MAX_NAME), { type: typeOf(property), hash: await sha256(canonicalJson(property)) }] as const
    )
  )
  // Own properties only: a property named `__proto__` is a key like any other.
  for (const [name, print] of printed) setOwn(properties, name, print)
  const required = Array.isArray(record["required"])
    ? record["required"]
      .filter((name): name is string => typeof name === "string")
      .slice(0, MAX_ENTRIES)
      .map((name) => cut(name, MAX_NAME))
    : []
  return {
    hash: await sha256(canonicalJson(schema)),
    properties,
    required,
    truncated: rawProperties.length > MAX_ENTRIES
  }
}

const annotationsPrint = (annotations: unknown): Record<string, string> | undefined => {
  if (!isObject(annotations)) return undefined
  const out: Record<string, string> = {}
  for (const [key, value] of Object.entries(annotations).slice(0, MAX_ENTRIES)) {
    setOwn(out, cut(key, MAX_NAME), cut(canonicalJson(value), MAX_VALUE))
  }
  return out
}

/** The parts of a tool that are pinned: what a model reads and what shapes a call. */
export const pinnedDefinition = (tool: Tool) => ({
  name: tool.name,
  title: tool.title,
  description: tool.description,
  inputSchema: tool.inputSchema,
  outputSchema: tool.outputSchema,
  annotations: tool.annotations
})

/**
 * The tool's fingerprint (its digest and bounded summaries), or `Unpinnable` when its definition cannot be
 * fingerprinted (nested too deep): one such tool costs the listing nothing but itself.
 */
export const fingerprint = (tool: Tool): Effect.Effect<Fingerprint | Unpinnable> =>
  Effect.tryPromise({
    try: () => fingerprintOf(tool),
    catch: (error) => error instanceof Unpinnable ? error : new Unpinnable(`its definition cannot be hashed (${String(error)})`)
  }).pipe(Effect.catch((unpinnable) => Effect.succeed(unpinnable)))

const fingerprintOf = async (tool: Tool): Promise<Fingerprint> => {
  // The whole definition first: a part nested too deep fails here, before anything else is hashed.
  const whole = canonicalJson(pinnedDefinition(tool))
  const [hash, title, description, inputSchema, outputSchema] = await Promise.all([
    sha256(whole),
    textPrint(tool.title, true),
    textPrint(tool.description, false),
    schemaPrint(tool.inputSchema),
    tool.outputSchema === undefined ? Promise.resolve(undefined) : schemaPrint(tool.outputSchema)
  ])
  return { hash, title, description, inputSchema, outputSchema, annotations: annotationsPrint(tool.annotations) }
}
