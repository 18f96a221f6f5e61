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

/** A value as JSON for the terminal (`JSON.stringify` with `jsonText`). */
export const json = (value: unknown, indent?: number): string => jsonText(JSON.stringify(value, null, indent) ?? "null")
