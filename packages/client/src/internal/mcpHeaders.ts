/**
 * The modern Streamable HTTP header rules (2026-07-28): the value encoding of `Mcp-Name` and `Mcp-Param-*`,
 * and the `x-mcp-header` tool-argument mirrors with their validity check.
 */
import type { JsonObject, Tool } from "../McpSchema.js"
import { isRecord } from "../McpSchema.js"

const SENTINEL_PREFIX = "=?base64?"
const SENTINEL_SUFFIX = "?="

/** The schema-extension key that marks a tool input property to be mirrored into a header. */
const X_MCP_HEADER = "x-mcp-header"

/** RFC 9110 §5.6.2 `token` (`1*tchar`). */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/

/** A control character (C0, DEL), CR and LF included. */
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/

const PERMITTED_TYPES: ReadonlySet<string> = new Set(["string", "integer", "boolean"])

/**
 * Keywords whose subschemas are not reachable through `properties` alone: an `x-mcp-header` under any of them
 * makes the tool invalid.
 */
const UNREACHABLE_KEYWORDS: ReadonlyArray<string> = [
  "items",
  "prefixItems",
  "contains",
  "additionalProperties",
  "unevaluatedProperties",
  "unevaluatedItems",
  "propertyNames",
  "patternProperties",
  "dependentSchemas",
  "oneOf",
  "anyOf",
  "allOf",
  "not",
  "if",
  "then",
  "else",
  "$defs",
  "definitions"
]

/** Keywords whose value is a `name → subschema` map. */
const MAP_KEYWORDS: ReadonlySet<string> = new Set(["patternProperties", "dependentSchemas", "$defs", "definitions"])

/** Whether a value must travel Base64-encoded: not visible ASCII/space/tab, padded, empty, or sentinel-shaped. */
const needsEncoding = (value: string): boolean => {
  if (value.length === 0) return true
  if (value.startsWith(SENTINEL_PREFIX) && value.endsWith(SENTINEL_SUFFIX)) return true
  if (/^[ \t]|[ \t]$/.test(value)) return true
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i)
    if (c !== 0x09 && (c < 0x20 || c > 0x7e)) return true
  }
  return false
}

const base64Utf8 = (value: string): string => {
  const bytes = new TextEncoder().encode(value)
  let binary = ""
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000))
  }
  return btoa(binary)
}

/**
 * A header value as the spec wants it on the wire: a safe plain-ASCII value (visible ASCII, space, tab, no
 * surrounding whitespace) as it is; anything else, and any value that looks like the sentinel itself, as
 * `=?base64?<Base64 of the UTF-8 bytes>?=`. The empty string is encoded too (some stacks drop empty headers).
 *
 * @internal
 */
export const encodeHeaderValue = (value: string): string =>
  needsEncoding(value) ? `${SENTINEL_PREFIX}${base64Utf8(value)}${SENTINEL_SUFFIX}` : value

interface Declaration {
  readonly path: ReadonlyArray<string>
  readonly name: string
}

interface Scan {
  /** Every well-formed, reachable declaration (collected even when the tool is invalid). */
  readonly declarations: ReadonlyArray<Declaration>
  /** The first violated constraint. */
  readonly fault: string | undefined
}

const pathName = (path: ReadonlyArray<string>) => path.length === 0 ? "the schema root" : `property "${path.join(".")}"`

/**
 * Walk a tool's `inputSchema`: every `x-mcp-header` found, checked against the spec's constraints. The first
 * violation is the reason; the walk goes on collecting the usable declarations.
 */
const scan = (inputSchema: unknown): Scan => {
  const declarations: Array<Declaration> = []
  const seen = new Map<string, string>()
  let fault: string | undefined
  const fail = (reason: string) => {
    fault ??= reason
  }
  const check = (node: Record<string, unknown>, path: ReadonlyArray<string>, reachable: boolean) => {
    const where = pathName(path)
    if (!reachable || path.length === 0) {
      return fail(`x-mcp-header on ${where} is not reachable from the root through "properties" alone`)
    }
    const name = node[X_MCP_HEADER]
    if (typeof name !== "string" || name.length === 0) return fail(`x-mcp-header on ${where} is empty or not a string`)
    if (CONTROL.test(name)) return fail(`x-mcp-header ${JSON.stringify(name)} on ${where} contains control characters`)
    if (!TOKEN.test(name)) return fail(`x-mcp-header ${JSON.stringify(name)} on ${where} is not an RFC 9110 token`)
    const type = node["type"]
    if (typeof type !== "string" || !PERMITTED_TYPES.has(type)) {
      fail(
        `x-mcp-header ${JSON.stringify(name)} on ${where} is on a property of type ${
          typeof type === "string" ? type : JSON.stringify(type ?? null)
        } (only string, integer and boolean are allowed)`
      )
    }
    const prior = seen.get(name.toLowerCase())
    if (prior !== undefined) {
      return fail(`x-mcp-header ${JSON.stringify(name)} is not unique (case-insensitively equal to ${JSON.stringify(prior)})`)
    }
    seen.set(name.toLowerCase(), name)
    declarations.push({ path, name })
  }
  const visit = (node: unknown, path: ReadonlyArray<string>, reachable: boolean): void => {
    if (!isRecord(node)) return
    if (X_MCP_HEADER in node) check(node, path, reachable)
    const properties = node["properties"]
    if (isRecord(properties)) {
      for (const [key, child] of Object.entries(properties)) visit(child, [...path, key], reachable)
    }
    for (const keyword of UNREACHABLE_KEYWORDS) {
      const sub = node[keyword]
      if (sub === undefined) continue
      const branches = Array.isArray(sub)
        ? sub
        : MAP_KEYWORDS.has(keyword) && isRecord(sub)
        ? Object.values(sub)
        : [sub]
      for (const branch of branches) visit(branch, [...path, `<${keyword}>`], false)
    }
  }
  visit(inputSchema, [], true)
  return { declarations, fault }
}

/**
 * A schema's scan, made once per schema object: the headers of every call of a tool come from it, and a listing
 * that replaces the tool brings a new schema object (decoded anew), so a kept scan is never stale.
 */
const scans = new WeakMap<object, Scan>()
const scanOf = (inputSchema: unknown): Scan => {
  if (!isRecord(inputSchema)) return scan(inputSchema)
  let known = scans.get(inputSchema)
  if (known === undefined) scans.set(inputSchema, known = scan(inputSchema))
  return known
}

/**
 * Why a tool's `x-mcp-header` annotations are invalid (the 2026-07-28 specification, Streamable HTTP, `x-mcp-header`), or `undefined` when they are fine
 * (or absent). An HTTP client must drop such a tool from the `tools/list` it exposes and should log the reason.
 *
 * @internal
 */
export const invalidToolHeaders = (tool: Tool): string | undefined => {
  return scanOf(tool.inputSchema).fault
}

const valueAt = (root: unknown, path: ReadonlyArray<string>): unknown => {
  let node = root
  for (const key of path) {
    if (!isRecord(node)) return undefined
    node = node[key]
  }
  return node
}

const headerText = (value: unknown): string | undefined => {
  if (typeof value === "string") return value
  if (typeof value === "boolean") return value ? "true" : "false"
  if (typeof value === "number") {
    if (!Number.isFinite(value) || (Number.isInteger(value) && !Number.isSafeInteger(value))) return undefined
    return String(value)
  }
  return undefined
}

/**
 * The `Mcp-Param-<Name>` headers of a `tools/call` with these arguments: one per `x-mcp-header` property
 * reachable through `properties`, whose argument value is present and not `null`. A string goes as it is, an
 * integer as its decimal form, a boolean as `true`/`false`, each then encoded with `encodeHeaderValue`. An
 * object, array, non-finite number or unsafe integer has no header form and is left out. A tool with invalid
 * annotations still gets the headers of its well-formed ones.
 *
 * @internal
 */
export const paramHeaders = (tool: Tool, args: JsonObject | undefined): Record<string, string> => {
  const headers: Record<string, string> = {}
  if (args === undefined) return headers
  for (const declaration of scanOf(tool.inputSchema).declarations) {
    const value = valueAt(args, declaration.path)
    if (value === undefined || value === null) continue
    const text = headerText(value)
    if (text !== undefined) headers[`Mcp-Param-${declaration.name}`] = encodeHeaderValue(text)
  }
  return headers
}
