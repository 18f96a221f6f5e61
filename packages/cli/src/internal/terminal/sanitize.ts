/**
 * What a server says never reaches the terminal as control: every server-supplied string is shown with its
 * control characters made visible before it is printed. A terminal acts on C0 controls (ESC starts the
 * sequences that write the clipboard, clear the screen, move the cursor, open hyperlinks; CR overwrites a
 * line), on C1 controls (U+0080–U+009F: CSI, OSC and their kin in one character) and, where text is laid out
 * by the bidi algorithm, on the bidi controls, which reorder what is shown.
 */

/** C0 but newline and tab, DEL, C1, and the bidi controls (embeddings, overrides, isolates, marks, ALM). */
const CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g

/** What JSON text leaves raw that a terminal acts on: DEL, C1 and the bidi controls (JSON escapes C0). */
const RAW_IN_JSON = /[\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g

const hex = (c: string, width: number) => (c.codePointAt(0) ?? 0).toString(16).padStart(width, "0")

/**
 * A server string for the terminal: each control as an escape, `\x1b` (C0, DEL, C1) or `\u202e` (bidi);
 * newlines and tabs stay.
 */
export const visible = (text: string): string =>
  text.replace(CONTROLS, (c) => (c.charCodeAt(0) <= 0x9f ? `\\x${hex(c, 2)}` : `\\u${hex(c, 4)}`))

/**
 * JSON text for the terminal: C1 and bidi controls escaped as `\uXXXX` too. They can only occur inside
 * strings, where the escape means the same character, so the JSON still parses to the same value.
 */
export const jsonText = (json: string): string => json.replace(RAW_IN_JSON, (c) => `\\u${hex(c, 4)}`)

/**
 * How deep a server's value is shown. A result or a schema nested deeper (a hostile server's 100,000 levels)
 * would overflow the stack of `JSON.stringify` and of every walk over it: below this depth it is cut.
 */
export const MAX_DEPTH = 64

/** What stands where a value was cut (a string, so the JSON shown stays valid JSON). */
export const DEEPER = `… nested deeper than ${MAX_DEPTH} levels`

const isContainer = (value: unknown): value is object => typeof value === "object" && value !== null

/** Whether a value nests deeper than `maxDepth`: walked with a stack of its own, stopping at the first. */
const deeperThan = (value: unknown, maxDepth: number): boolean => {
  const stack: Array<{ readonly value: unknown; readonly depth: number }> = [{ value, depth: 0 }]
  for (let top = stack.pop(); top !== undefined; top = stack.pop()) {
    if (!isContainer(top.value)) continue
    if (top.depth >= maxDepth) return true
    for (const child of Object.values(top.value)) stack.push({ value: child, depth: top.depth + 1 })
  }
  return false
}

const define = (target: object, key: string | number, value: unknown) =>
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true })

/**
 * The value as it is, or (when it nests deeper than `maxDepth`) a copy whose parts below that depth are
 * `DEEPER`; the copy is built with a stack of its own, not by recursion.
 */
export const bounded = (value: unknown, maxDepth: number = MAX_DEPTH): unknown => {
  if (!deeperThan(value, maxDepth)) return value
  const root: { value?: unknown } = {}
  const stack: Array<{ readonly value: unknown; readonly depth: number; readonly into: object; readonly key: string | number }> = [
    { value, depth: 0, into: root, key: "value" }
  ]
  for (let top = stack.pop(); top !== undefined; top = stack.pop()) {
    const { depth, into, key } = top
    if (!isContainer(top.value)) {
      define(into, key, top.value)
    } else if (depth >= maxDepth) {
      define(into, key, DEEPER)
    } else {
      const copy: object = Array.isArray(top.value) ? [] : {}
      define(into, key, copy)
      for (const [childKey, child] of Object.entries(top.value)) {
        // The keys in their order now; each value when its turn comes.
        define(copy, childKey, undefined)
        stack.push({ value: child, depth: depth + 1, into: copy, key: childKey })
      }
    }
  }
  return root.value
}

/** A value as JSON for the terminal (`JSON.stringify` with `jsonText`), to a bounded depth (`bounded`). */
export const json = (value: unknown, indent?: number): string =>
  jsonText(JSON.stringify(bounded(value), null, indent) ?? "null")
