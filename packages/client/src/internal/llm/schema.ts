/**
 * A tool's `inputSchema` made acceptable to the model APIs: same-document references inlined, the root an
 * object schema, and (where the schema allows it) the OpenAI strict-mode form.
 *
 * @internal
 */
import { isRecord, type JsonObject } from "../../McpSchema.js"
import { getOwn, setOwn } from "./own.js"

// -----------------------------------------------------------------------------
// Notes
// -----------------------------------------------------------------------------

/**
 * Something the conversion changed. `model` notes are also told to the model in the tool's description,
 * because they change what the model may send.
 *
 * @internal
 */
export interface SchemaNote {
  readonly kind: "external-ref" | "recursive-ref" | "unresolved-ref" | "truncated" | "root" | "strict"
  readonly message: string
}

/** @internal */
export const isModelNote = (note: SchemaNote): boolean => note.kind !== "strict"

// -----------------------------------------------------------------------------
// Inlining
// -----------------------------------------------------------------------------

/** @internal */
export interface InlineLimits {
  /** How many references may be expanded inside one another (default 16). */
  readonly maxRefDepth: number
  /** How many schema nodes the inlined schema may have before references stop being expanded (default 2000). */
  readonly maxNodes: number
}

/** @internal */
export const defaultInlineLimits: InlineLimits = { maxRefDepth: 16, maxNodes: 2000 }

/** Keywords whose value is one subschema (or, for `items`, possibly an array of them). */
const SINGLE = new Set([
  "additionalProperties",
  "items",
  "additionalItems",
  "not",
  "if",
  "then",
  "else",
  "contains",
  "propertyNames",
  "unevaluatedProperties",
  "unevaluatedItems"
])
/** Keywords whose value maps names to subschemas. */
const MAPS = new Set(["properties", "patternProperties", "dependentSchemas", "dependencies"])
/** Keywords whose value is an array of subschemas. */
const ARRAYS = new Set(["allOf", "anyOf", "oneOf", "prefixItems"])
/** Keywords that only make sense while references exist, or that the model APIs reject. */
const DROPPED = new Set([
  "$defs",
  "definitions",
  "$schema",
  "$id",
  "$anchor",
  "$dynamicAnchor",
  "$recursiveAnchor",
  "$vocabulary",
  "$comment"
])
/** Keywords that describe rather than constrain. */
const ANNOTATIONS = new Set([
  "title",
  "description",
  "default",
  "examples",
  "deprecated",
  "readOnly",
  "writeOnly",
  "$comment"
])

interface InlineState {
  readonly root: unknown
  readonly rootId: string | undefined
  readonly anchors: ReadonlyMap<string, unknown>
  readonly limits: InlineLimits
  readonly notes: Array<SchemaNote>
  nodes: number
}

const note = (notes: Array<SchemaNote>, entry: SchemaNote) => {
  if (!notes.some((n) => n.kind === entry.kind && n.message === entry.message)) notes.push(entry)
}

const collectAnchors = (node: unknown, anchors: Map<string, unknown>, depth: number) => {
  if (depth > 64) return
  if (Array.isArray(node)) {
    for (const item of node) collectAnchors(item, anchors, depth + 1)
    return
  }
  if (!isRecord(node)) return
  const anchor = node["$anchor"]
  if (typeof anchor === "string" && !anchors.has(anchor)) anchors.set(anchor, node)
  const id = node["$id"]
  if (typeof id === "string" && id.startsWith("#") && !anchors.has(id.slice(1))) anchors.set(id.slice(1), node)
  for (const value of Object.values(node)) collectAnchors(value, anchors, depth + 1)
}

const decodeFragment = (fragment: string): string | undefined => {
  try {
    return decodeURIComponent(fragment)
  } catch {
    return undefined
  }
}

/** The same-document fragment a reference points at (without `#`), or `undefined` for an external one. */
const localFragment = (ref: string, rootId: string | undefined): string | undefined => {
  const hash = ref.indexOf("#")
  const base = hash === -1 ? ref : ref.slice(0, hash)
  const fragment = hash === -1 ? "" : ref.slice(hash + 1)
  if (base === "") return fragment
  if (rootId !== undefined) {
    const rootBase = rootId.split("#")[0] ?? ""
    if (base === rootBase || rootBase.endsWith(`/${base}`)) return fragment
  }
  return undefined
}

const NOT_FOUND: unique symbol = Symbol("NOT_FOUND")

const resolveFragment = (state: InlineState, fragment: string): unknown => {
  const decoded = decodeFragment(fragment)
  if (decoded === undefined) return NOT_FOUND
  if (decoded === "") return state.root
  if (!decoded.startsWith("/")) return state.anchors.has(decoded) ? state.anchors.get(decoded) : NOT_FOUND
  let node: unknown = state.root
  for (const raw of decoded.slice(1).split("/")) {
    const part = raw.replace(/~1/g, "/").replace(/~0/g, "~")
    if (Array.isArray(node)) {
      const index = Number(part)
      if (!Number.isInteger(index) || index < 0 || index >= node.length) return NOT_FOUND
      node = node[index]
    } else if (isRecord(node) && Object.prototype.hasOwnProperty.call(node, part)) {
      node = node[part]
    } else {
      return NOT_FOUND
    }
  }
  return node
}

const appendDescription = (description: unknown, text: string): string =>
  typeof description === "string" && description.trim() !== "" ? `${description} (${text})` : `(${text})`

/** Any value: what a reference that cannot be expanded becomes. Constraints next to the reference stay. */
const permissive = (siblings: JsonObject, text: string): JsonObject => ({
  ...siblings,
  description: appendDescription(siblings["description"], text)
})

const onlyAnnotations = (schema: JsonObject): boolean => Object.keys(schema).every((key) => ANNOTATIONS.has(key))

/** Keywords whose boolean value is an ordinary setting (`additionalProperties: false`), not a schema to expand. */
const BOOLEAN_OK = new Set(["additionalProperties", "unevaluatedProperties", "additionalItems", "unevaluatedItems"])

const walkSchema = (node: unknown, stack: ReadonlyArray<string>, state: InlineState): unknown => {
  // Boolean schemas in schema positions: `true` is any value, `false` none (the model APIs want objects).
  if (node === true) return {}
  if (node === false) return { not: {} }
  if (!isRecord(node)) return node
  state.nodes++
  const ref = node["$ref"]
  if (typeof ref === "string") return walkRef(node, ref, stack, state)
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(node)) {
    if (DROPPED.has(key)) continue
    if (key === "$dynamicRef" || key === "$recursiveRef") {
      note(state.notes, { kind: "unresolved-ref", message: `${key} ${JSON.stringify(value)} is not supported` })
      continue
    }
    if (typeof value === "boolean" && BOOLEAN_OK.has(key)) {
      setOwn(out, key, value)
    } else if (SINGLE.has(key)) {
      setOwn(out, key, Array.isArray(value) ? value.map((item) => walkSchema(item, stack, state)) : walkSchema(value, stack, state))
    } else if (MAPS.has(key) && isRecord(value)) {
      // Property names are the server's: `__proto__` among them stays an own property.
      const mapped: Record<string, unknown> = {}
      for (const [name, sub] of Object.entries(value)) {
        setOwn(mapped, name, Array.isArray(sub) ? sub : walkSchema(sub, stack, state))
      }
      setOwn(out, key, mapped)
    } else if (ARRAYS.has(key) && Array.isArray(value)) {
      setOwn(out, key, value.map((item) => walkSchema(item, stack, state)))
    } else {
      setOwn(out, key, value)
    }
  }
  return out
}

const walkRef = (node: JsonObject, ref: string, stack: ReadonlyArray<string>, state: InlineState): unknown => {
  const { $ref: _, ...rest } = node
  const siblingsRaw = walkSchema(rest, stack, state)
  const siblings: JsonObject = isRecord(siblingsRaw) ? siblingsRaw : {}
  const fragment = localFragment(ref, state.rootId)
  if (fragment === undefined) {
    note(state.notes, {
      kind: "external-ref",
      message: `the external reference ${ref} was not fetched; any value is accepted there`
    })
    return permissive(siblings, `any value: its schema ${ref} is external and was not fetched`)
  }
  const key = `#${fragment}`
  if (stack.includes(key)) {
    note(state.notes, {
      kind: "recursive-ref",
      message: `the recursive reference ${ref} was cut after one level; any value is accepted below it`
    })
    return permissive(siblings, `recursive: a value shaped like the enclosing ${refLabel(ref)}, not checked here`)
  }
  if (stack.length >= state.limits.maxRefDepth || state.nodes > state.limits.maxNodes) {
    note(state.notes, {
      kind: "truncated",
      message: `the schema is too large or deep to inline fully (limits: ${state.limits.maxRefDepth} nested references, ${state.limits.maxNodes} nodes); any value is accepted where it was cut`
    })
    return permissive(siblings, "not checked: the schema nests too deeply to show here")
  }
  const target = resolveFragment(state, fragment)
  if (target === NOT_FOUND) {
    note(state.notes, { kind: "unresolved-ref", message: `the reference ${ref} points at nothing; any value is accepted there` })
    return permissive(siblings, `any value: ${ref} could not be resolved`)
  }
  const resolved = walkSchema(target, [...stack, key], state)
  if (Object.keys(siblings).length === 0) return resolved
  if (!isRecord(resolved)) return siblings
  if (onlyAnnotations(siblings)) return { ...resolved, ...siblings }
  return { allOf: [resolved, siblings] }
}

const refLabel = (ref: string): string => {
  const last = ref.split("/").pop() ?? ref
  return last === "" || last === "#" ? "schema" : last
}

/**
 * Expand every same-document `$ref` (JSON Pointer or `$anchor`), within the limits. An external reference is
 * never fetched: it becomes "any value" with a note, as does a reference that is recursive (after one level),
 * unresolvable, or past the limits.
 *
 * @internal
 */
export const inlineRefs = (
  schema: unknown,
  limits: InlineLimits = defaultInlineLimits
): { readonly schema: unknown; readonly notes: ReadonlyArray<SchemaNote> } => {
  const anchors = new Map<string, unknown>()
  collectAnchors(schema, anchors, 0)
  const id = isRecord(schema) ? schema["$id"] : undefined
  const state: InlineState = {
    root: schema,
    rootId: typeof id === "string" && !id.startsWith("#") ? id : undefined,
    anchors,
    limits,
    notes: [],
    nodes: 0
  }
  return { schema: walkSchema(schema, [], state), notes: state.notes }
}

// -----------------------------------------------------------------------------
// The root
// -----------------------------------------------------------------------------

const typesOf = (schema: JsonObject): ReadonlyArray<string> | undefined => {
  const type = schema["type"]
  if (typeof type === "string") return [type]
  if (Array.isArray(type)) return type.filter((t): t is string => typeof t === "string")
  return undefined
}

const isObjectLike = (schema: unknown): boolean => {
  if (!isRecord(schema)) return false
  const types = typesOf(schema)
  if (types !== undefined) return types.includes("object")
  if (schema["anyOf"] !== undefined || schema["oneOf"] !== undefined || schema["allOf"] !== undefined) return false
  return "properties" in schema || "required" in schema || "additionalProperties" in schema
}

/** The branches, if there are some and every one is an object schema. */
const objectSchemas = (value: unknown): ReadonlyArray<JsonObject> | undefined => {
  if (!Array.isArray(value) || value.length === 0) return undefined
  const objects = value.filter(isRecord)
  return objects.length === value.length && objects.every(isObjectLike) ? objects : undefined
}

const stringArray = (value: unknown): ReadonlyArray<string> =>
  Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : []

const propertiesOf = (schema: JsonObject): JsonObject => {
  const properties = schema["properties"]
  return isRecord(properties) ? properties : {}
}

/**
 * One object schema out of several: `all` (allOf) requires what any branch requires and combines the
 * constraints of a property several branches declare; `any` (anyOf/oneOf) offers every branch's properties
 * and requires only what every branch requires.
 */
const mergeObjects = (branches: ReadonlyArray<JsonObject>, mode: "all" | "any"): JsonObject => {
  const properties: Record<string, unknown> = {}
  for (const branch of branches) {
    for (const [name, sub] of Object.entries(propertiesOf(branch))) {
      const existing = getOwn(properties, name)
      if (existing === undefined) setOwn(properties, name, sub)
      else if (mode === "all") setOwn(properties, name, { allOf: [existing, sub] })
    }
  }
  const requiredSets = branches.map((b) => new Set(stringArray(b["required"])))
  const required = mode === "all"
    ? [...new Set(requiredSets.flatMap((s) => [...s]))]
    : Object.keys(properties).filter((name) => requiredSets.every((s) => s.has(name)))
  const closed = branches.map((b) => b["additionalProperties"] === false)
  const merged: Record<string, unknown> = { type: "object", properties }
  if (required.length > 0) merged["required"] = required
  if (mode === "all" ? closed.some(Boolean) : closed.every(Boolean)) merged["additionalProperties"] = false
  return merged
}

const withoutKeys = (schema: JsonObject, keys: ReadonlyArray<string>): JsonObject => {
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(schema)) if (!keys.includes(key)) setOwn(out, key, value)
  return out
}

const ANY_OBJECT: JsonObject = { type: "object", properties: {} }

const rootObject = (schema: unknown, notes: Array<SchemaNote>, depth: number): JsonObject => {
  if (schema === true) return ANY_OBJECT
  if (isRecord(schema) && onlyAnnotations(schema)) return { ...schema, ...ANY_OBJECT }
  if (!isRecord(schema) || depth > 8) {
    note(notes, { kind: "root", message: "the input schema is not a JSON Schema object; any arguments are accepted" })
    return ANY_OBJECT
  }
  if (isObjectLike(schema)) {
    const types = typesOf(schema)
    if (types !== undefined && types.length > 1) {
      note(notes, {
        kind: "root",
        message: `the input schema allows ${types.join(", ")}; only an object can be sent as arguments`
      })
    }
    return { ...schema, type: "object", properties: propertiesOf(schema) }
  }
  const allOf = schema["allOf"]
  if (Array.isArray(allOf)) {
    const objects = objectSchemas(allOf)
    if (objects !== undefined) {
      return rootObject({ ...withoutKeys(schema, ["allOf"]), ...mergeObjects(objects, "all") }, notes, depth + 1)
    }
  }
  for (const key of ["anyOf", "oneOf"] as const) {
    const alternatives = objectSchemas(schema[key])
    if (alternatives !== undefined) {
      note(notes, {
        kind: "root",
        message: `the input schema's ${key} alternatives were merged into one object: every alternative's properties are offered, only those all of them require are required`
      })
      return rootObject({ ...withoutKeys(schema, [key]), ...mergeObjects(alternatives, "any") }, notes, depth + 1)
    }
  }
  const types = typesOf(schema)
  note(notes, {
    kind: "root",
    message: types === undefined
      ? "the input schema is not an object schema; any arguments are accepted"
      : `the input schema is of type ${types.join(", ")}, not an object; any arguments are accepted`
  })
  return typeof schema["description"] === "string" ? { ...ANY_OBJECT, description: schema["description"] } : ANY_OBJECT
}

/**
 * The parameters to show a model: references inlined, the root an object schema with `properties`.
 *
 * @internal
 */
export const toParameters = (
  inputSchema: unknown,
  limits: InlineLimits = defaultInlineLimits
): { readonly parameters: JsonObject; readonly notes: ReadonlyArray<SchemaNote> } => {
  const inlined = inlineRefs(inputSchema, limits)
  const notes = [...inlined.notes]
  const parameters = rootObject(inlined.schema, notes, 0)
  return { parameters, notes }
}

// -----------------------------------------------------------------------------
// Strict mode
// -----------------------------------------------------------------------------

/** @internal */
export interface StrictLimits {
  /** Object nesting depth (OpenAI: 10). */
  readonly maxDepth: number
  /** Properties in the whole schema (OpenAI: 5000). */
  readonly maxProperties: number
  /** Values of one enum (OpenAI: 1000). */
  readonly maxEnumValues: number
}

/** @internal */
export const defaultStrictLimits: StrictLimits = { maxDepth: 10, maxProperties: 5000, maxEnumValues: 1000 }

/** @internal */
export type StrictOutcome =
  | { readonly _tag: "Strict"; readonly parameters: JsonObject; readonly notes: ReadonlyArray<SchemaNote> }
  | { readonly _tag: "NotStrict"; readonly reasons: ReadonlyArray<string> }

const STRICT_TYPES = new Set(["string", "number", "integer", "boolean", "object", "array", "null"])
const STRICT_FORMATS = new Set(["date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"])
const NUMBER_KEYWORDS = ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"] as const
/** Dropped without a word: they describe, they do not constrain. */
const SILENT = new Set(["title", "examples", "deprecated", "readOnly", "writeOnly", "$comment", "unevaluatedItems"])
/** Constraints strict mode cannot express: removed, and told to the model in the description instead. */
const MOVED = new Set([
  "default",
  "minLength",
  "maxLength",
  "uniqueItems",
  "minProperties",
  "maxProperties",
  "contentEncoding",
  "contentMediaType",
  "contains",
  "minContains",
  "maxContains",
  "propertyNames",
  "dependentRequired",
  "dependencies",
  "not",
  "if",
  "then",
  "else"
])
/** Handled explicitly below. */
const HANDLED = new Set([
  "type",
  "description",
  "properties",
  "required",
  "additionalProperties",
  "items",
  "enum",
  "const",
  "anyOf",
  "oneOf",
  "allOf",
  "pattern",
  "format",
  "minItems",
  "maxItems",
  "patternProperties",
  "prefixItems",
  "additionalItems",
  "dependentSchemas",
  "unevaluatedProperties",
  ...NUMBER_KEYWORDS
])

interface StrictState {
  readonly limits: StrictLimits
  readonly failures: Array<string>
  readonly notes: Array<SchemaNote>
  properties: number
}

const jsonType = (value: unknown): string =>
  value === null
    ? "null"
    : Array.isArray(value)
    ? "array"
    : typeof value === "number"
    ? (Number.isInteger(value) ? "integer" : "number")
    : typeof value

const isPrimitive = (value: unknown): boolean =>
  value === null || typeof value === "string" || typeof value === "number" || typeof value === "boolean"

const describeConstraint = (key: string, value: unknown): string => {
  switch (key) {
    case "not":
      return "must not match a further constraint"
    case "if":
    case "then":
    case "else":
      return "further conditional constraints apply"
    default:
      return `${key}: ${JSON.stringify(value)}`
  }
}

const inferTypes = (schema: JsonObject): ReadonlyArray<string> | undefined => {
  const declared = typesOf(schema)
  if (declared !== undefined) return declared
  if ("properties" in schema || "additionalProperties" in schema || "required" in schema) return ["object"]
  if ("items" in schema || "prefixItems" in schema) return ["array"]
  const values = Array.isArray(schema["enum"]) ? schema["enum"] : "const" in schema ? [schema["const"]] : undefined
  if (values === undefined) return undefined
  const types = [...new Set(values.map(jsonType))]
  // An integer enum value is also a number; keep the wider one when both appear.
  return types.includes("number") ? types.filter((t) => t !== "integer") : types
}

/** The same schema, also accepting `null`: how strict mode says "optional". */
const nullable = (schema: JsonObject): JsonObject => {
  const anyOf = schema["anyOf"]
  if (Array.isArray(anyOf)) {
    return anyOf.some((b) => isRecord(b) && b["type"] === "null") ? schema : { ...schema, anyOf: [...anyOf, { type: "null" }] }
  }
  const type = schema["type"]
  const withNull = typeof type === "string"
    ? (type === "null" ? type : [type, "null"])
    : Array.isArray(type)
    ? (type.includes("null") ? type : [...type, "null"])
    : undefined
  if (withNull === undefined) return { anyOf: [schema, { type: "null" }] }
  const out: Record<string, unknown> = { ...schema, type: withNull }
  const values = schema["enum"]
  if (Array.isArray(values) && !values.includes(null)) out["enum"] = [...values, null]
  if ("const" in schema) {
    delete out["const"]
    out["enum"] = [schema["const"], null]
  }
  return out
}

const strictSchema = (
  input: unknown,
  path: string,
  depth: number,
  state: StrictState,
  isRoot: boolean
): JsonObject => {
  const fail = (reason: string): JsonObject => {
    state.failures.push(`${path} ${reason}`)
    return {}
  }
  if (!isRecord(input)) return fail("is not a schema object")
  if (depth > state.limits.maxDepth) return fail(`nests deeper than ${state.limits.maxDepth} levels`)
  let schema: JsonObject = input

  const allOf = schema["allOf"]
  if (Array.isArray(allOf)) {
    const rest = withoutKeys(schema, ["allOf"])
    const objects = objectSchemas(allOf)
    if (objects !== undefined && (isObjectLike(rest) || typesOf(rest) === undefined)) {
      const merged = mergeObjects(isObjectLike(rest) ? [rest, ...objects] : objects, "all")
      schema = { ...withoutKeys(rest, ["properties", "required", "additionalProperties"]), ...merged }
    } else if (allOf.length === 1 && isRecord(allOf[0])) {
      const only = allOf[0]
      const clash = Object.keys(only).filter((k) => Object.hasOwn(rest, k) && !ANNOTATIONS.has(k))
      if (clash.length > 0) return fail(`has an allOf that cannot be merged (${clash.join(", ")} on both sides)`)
      schema = { ...only, ...rest }
    } else {
      return fail("has an allOf that is not a combination of objects")
    }
  }

  const oneOf = schema["oneOf"]
  const anyOf = schema["anyOf"] ?? oneOf
  if (Array.isArray(anyOf)) {
    if (oneOf !== undefined) {
      note(state.notes, { kind: "strict", message: `${path}: oneOf is offered as anyOf (exclusivity is not enforced)` })
    }
    const others = Object.keys(schema).filter((k) => k !== "anyOf" && k !== "oneOf" && !ANNOTATIONS.has(k))
    if (others.length > 0) return fail(`combines anyOf/oneOf with ${others.join(", ")}`)
    if (isRoot) return fail("is a union at the root")
    const out: Record<string, unknown> = {
      anyOf: anyOf.map((branch, i) => strictSchema(branch, `${path}|${i}`, depth, state, false))
    }
    if (typeof schema["description"] === "string") out["description"] = schema["description"]
    return out
  }

  const types = inferTypes(schema)
  if (types === undefined || types.length === 0) return fail("accepts any value (no type)")
  const unknown = types.filter((t) => !STRICT_TYPES.has(t))
  if (unknown.length > 0) return fail(`has unsupported type ${unknown.join(", ")}`)

  const out: Record<string, unknown> = { type: types.length === 1 ? types[0] : types }
  const moved: Array<string> = []

  for (const [key, value] of Object.entries(schema)) {
    if (HANDLED.has(key) || SILENT.has(key)) continue
    if (MOVED.has(key)) moved.push(describeConstraint(key, value))
    else note(state.notes, { kind: "strict", message: `${path}: the keyword ${key} was removed` })
  }

  if (types.includes("object")) {
    const properties = propertiesOf(schema)
    const names = Object.keys(properties)
    const additional = schema["additionalProperties"]
    const patterns = schema["patternProperties"]
    if (isRecord(patterns) && Object.keys(patterns).length > 0) return fail("has patternProperties (keys of any name)")
    if (additional === true || isRecord(additional)) return fail("accepts additional properties of any name (a map)")
    if (isRecord(schema["dependentSchemas"])) return fail("has dependentSchemas")
    if (names.length === 0 && additional !== false && !isRoot) return fail("is an object with no declared properties")
    if (names.length === 0 && additional !== false && isRoot) {
      note(state.notes, { kind: "strict", message: "the root declares no properties: the tool is offered without arguments" })
    }
    state.properties += names.length
    const required = new Set(stringArray(schema["required"]))
    const strictProperties: Record<string, unknown> = {}
    for (const name of names) {
      const child = strictSchema(properties[name], `${path}.${name}`, depth + 1, state, false)
      setOwn(strictProperties, name, required.has(name) ? child : nullable(child))
    }
    out["properties"] = strictProperties
    out["required"] = names
    out["additionalProperties"] = false
  }

  if (types.includes("array")) {
    const items = schema["items"]
    if (Array.isArray(items) || Array.isArray(schema["prefixItems"])) return fail("is a tuple (positional items)")
    if (items === undefined) return fail("is an array whose items have no schema")
    out["items"] = strictSchema(items, `${path}[]`, depth + 1, state, false)
    for (const key of ["minItems", "maxItems"] as const) {
      if (typeof schema[key] === "number") out[key] = schema[key]
    }
  }

  if (types.includes("number") || types.includes("integer")) {
    for (const key of NUMBER_KEYWORDS) {
      if (typeof schema[key] === "number") out[key] = schema[key]
    }
  }

  if (types.includes("string")) {
    if (typeof schema["pattern"] === "string") out["pattern"] = schema["pattern"]
    const format = schema["format"]
    if (typeof format === "string") {
      if (STRICT_FORMATS.has(format)) out["format"] = format
      else moved.push(`format: ${format}`)
    }
  }

  const values = schema["enum"]
  if (Array.isArray(values)) {
    if (values.length > state.limits.maxEnumValues) return fail(`has more than ${state.limits.maxEnumValues} enum values`)
    if (!values.every(isPrimitive)) return fail("has an enum of non-primitive values")
    out["enum"] = values
  }
  if ("const" in schema) {
    if (!isPrimitive(schema["const"])) return fail("has a non-primitive const")
    out["const"] = schema["const"]
  }

  const description = schema["description"]
  if (moved.length > 0) out["description"] = appendDescription(description, moved.join("; "))
  else if (typeof description === "string") out["description"] = description
  return out
}

/**
 * The OpenAI strict-mode form of parameters (already passed through `toParameters`): every object closed
 * (`additionalProperties: false`) with every property required, the optional ones made nullable, and the
 * keywords strict mode does not support removed (constraints among them are written into the description).
 * `NotStrict` with the reasons where the schema cannot be expressed that way.
 *
 * @internal
 */
export const toStrict = (parameters: JsonObject, limits: StrictLimits = defaultStrictLimits): StrictOutcome => {
  const state: StrictState = { limits, failures: [], notes: [], properties: 0 }
  const strict = strictSchema(parameters, "arguments", 1, state, true)
  if (state.properties > limits.maxProperties) {
    state.failures.push(`arguments has more than ${limits.maxProperties} properties in all`)
  }
  return state.failures.length > 0
    ? { _tag: "NotStrict", reasons: state.failures }
    : { _tag: "Strict", parameters: strict, notes: state.notes }
}

// -----------------------------------------------------------------------------
// Arguments
// -----------------------------------------------------------------------------

const acceptsNull = (schema: unknown): boolean => {
  if (!isRecord(schema)) return true
  const types = typesOf(schema)
  if (types !== undefined) return types.includes("null")
  if (Array.isArray(schema["enum"])) return schema["enum"].includes(null)
  if ("const" in schema) return schema["const"] === null
  for (const key of ["anyOf", "oneOf"] as const) {
    const branches = schema[key]
    if (Array.isArray(branches)) return branches.some(acceptsNull)
  }
  const allOf = schema["allOf"]
  if (Array.isArray(allOf)) return allOf.every(acceptsNull)
  return true
}

const stripNulls = (value: unknown, schema: unknown, depth: number): unknown => {
  if (depth > 64 || !isRecord(schema)) return value
  if (Array.isArray(value)) {
    const items = schema["items"]
    return isRecord(items) ? value.map((item) => stripNulls(item, items, depth + 1)) : value
  }
  if (!isRecord(value)) return value
  const properties = propertiesOf(schema)
  const required = new Set(stringArray(schema["required"]))
  const out: Record<string, unknown> = {}
  for (const [name, item] of Object.entries(value)) {
    const property = getOwn(properties, name)
    if (item === null && property !== undefined && !required.has(name) && !acceptsNull(property)) continue
    setOwn(out, name, property === undefined ? item : stripNulls(item, property, depth + 1))
  }
  return out
}

/**
 * Drop every `null` given for an optional property whose schema does not accept `null`: that is how strict
 * mode says "left out", and the tool expects the property to be absent.
 *
 * @internal
 */
export const stripOptionalNulls = (args: JsonObject, parameters: JsonObject): JsonObject => {
  const stripped = stripNulls(args, parameters, 0)
  return isRecord(stripped) ? stripped : args
}
