/**
 * VS Code's `${input:ID}` references in an entry being imported into a `.mcp.json` (Claude Code's format, which
 * has no `inputs` and so no way to ask for them): each becomes an environment reference, `${ID}` with the id
 * upper-cased and every character a variable name cannot hold made `_` (`${input:api-key}` → `${API_KEY}`), so
 * the entry reads once that variable is set, and the command says which variables those are. A `$${` (a literal
 * `${`) is kept as it is.
 */
import { McpSchema } from "@mcp-effect/client"

/** `$${` (kept) or `${input:ID}`, as the configuration reader reads them. */
const INPUT_REFERENCE = /\$\$\{|\$\{input:([^}]+)\}/g

/** How deep an entry's values are rewritten (an entry's fields are at most an object of strings deep). */
const DEPTH = 8

/** The environment variable that stands for an input: upper case, `[A-Z0-9_]`, not starting with a digit. */
export const variableOf = (id: string): string => {
  const name = id.toUpperCase().replace(/[^A-Z0-9_]/g, "_")
  return /^[0-9]/.test(name) ? `_${name}` : name
}

export interface Rewritten {
  readonly entry: unknown
  /** The inputs replaced, each once, with the variable that now stands for it. */
  readonly replaced: ReadonlyArray<{ readonly id: string; readonly variable: string }>
}

/** The entry with each `${input:ID}` written as `${VARIABLE}`. */
export const asEnvironmentReferences = (entry: unknown): Rewritten => {
  const replaced = new Map<string, string>()
  const rewrite = (value: unknown, depth: number): unknown => {
    if (typeof value === "string") {
      return value.replace(INPUT_REFERENCE, (match, id: string | undefined) => {
        if (id === undefined) return match
        const variable = variableOf(id)
        replaced.set(id, variable)
        return `\${${variable}}`
      })
    }
    if (depth >= DEPTH) return value
    if (Array.isArray(value)) return value.map((item) => rewrite(item, depth + 1))
    // `fromEntries` defines every name (a `__proto__` key stays a key).
    if (McpSchema.isRecord(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, rewrite(v, depth + 1)]))
    return value
  }
  const rewritten = rewrite(entry, 0)
  return { entry: rewritten, replaced: [...replaced].map(([id, variable]) => ({ id, variable })) }
}
