/**
 * Tool names for the model APIs, and the canonical JSON the scheduler compares arguments by.
 *
 * @internal
 */
import { setOwn } from "./own.js"

/**
 * What OpenAI, Anthropic and Gemini all accept as a function name: letters, digits, `_` and `-`, 1 to 64 of
 * them, and a letter or `_` first (Gemini's function declarations refuse a digit or `-` there). @internal
 */
export const VALID_TOOL_NAME = /^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$/

/** The longest name the model APIs accept. @internal */
export const MAX_TOOL_NAME = 64

/** FNV-1a, 32 bits, over the UTF-16 code units: stable across processes and platforms. @internal */
export const stableHash = (text: string): string => {
  let hash = 0x811c9dc5
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i)
    hash = Math.imul(hash, 0x01000193) >>> 0
  }
  return hash.toString(16).padStart(8, "0")
}

/**
 * A name the model APIs accept. A valid name is kept as it is; any other gets its invalid characters replaced
 * by `_`, a `_` in front when it would start with a digit or `-`, is cut to fit, and ends in `_` plus the
 * stable hash of the original, so two different originals never sanitise to the same name through the
 * replacement, the prefix or the cut.
 *
 * @internal
 */
export const sanitizeToolName = (name: string): string => {
  if (VALID_TOOL_NAME.test(name)) return name
  const suffix = `_${stableHash(name)}`
  const cleaned = name.replace(/[^a-zA-Z0-9_-]/g, "_")
  const led = /^[0-9-]/.test(cleaned) ? `_${cleaned}` : cleaned
  return `${led.slice(0, MAX_TOOL_NAME - suffix.length)}${suffix}`
}

/** @internal */
export interface NameCollision {
  readonly exposed: string
  readonly names: ReadonlyArray<string>
}

/** @internal */
export interface AssignedNames {
  /** Parallel to the input: the exposed name, or `undefined` for a name that lost a collision. */
  readonly exposed: ReadonlyArray<string | undefined>
  readonly collisions: ReadonlyArray<NameCollision>
}

/**
 * Sanitise every name of a catalogue. Where two originals end up with one exposed name (a duplicate in the
 * catalogue, or a hash collision), the first keeps it and the others are reported.
 *
 * @internal
 */
export const assignNames = (names: ReadonlyArray<string>): AssignedNames => {
  const owners = new Map<string, Array<string>>()
  const exposed = names.map((name) => {
    const candidate = sanitizeToolName(name)
    const taken = owners.get(candidate)
    if (taken === undefined) {
      owners.set(candidate, [name])
      return candidate
    }
    taken.push(name)
    return undefined
  })
  const collisions: Array<NameCollision> = []
  for (const [name, claimants] of owners) {
    if (claimants.length > 1) collisions.push({ exposed: name, names: claimants })
  }
  return { exposed, collisions }
}

/**
 * JSON with every object's keys sorted, so `{"a":1,"b":2}` and `{"b":2,"a":1}` compare equal.
 *
 * @internal
 */
export const canonicalJson = (value: unknown): string => JSON.stringify(sortKeys(value)) ?? "null"

const sortKeys = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(sortKeys)
  if (typeof value === "object" && value !== null) {
    const sorted: Record<string, unknown> = {}
    const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    for (const [key, item] of entries) setOwn(sorted, key, sortKeys(item))
    return sorted
  }
  return value
}
