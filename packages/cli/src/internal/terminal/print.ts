/**
 * What the command writes on stdout: lines of text, aligned tables, and JSON for `--json` (a failure too, as
 * `{ "error": ... }`). Everything goes through `print`, `printJson` or `errorJson`, which show a server's
 * control characters instead of sending them to the terminal (see `sanitize.ts`).
 */
import * as Console from "effect/Console"
import type * as Effect from "effect/Effect"
import { isRecord, type Record_ } from "./content.js"
import * as sanitize from "./sanitize.js"

/** Pretty JSON on stdout (the `--json` output of every command), C1 and bidi controls escaped too. */
export const printJson = (value: unknown): Effect.Effect<void> => Console.log(sanitize.json(value, 2))

/** A line (or lines) of human-readable output on stdout, controls made visible. */
export const print = (text: string): Effect.Effect<void> => Console.log(sanitize.visible(text))

const width = (text: string) => [...text].length

/**
 * At most this many characters of a field a server (or a document) supplied are shown, the cut marked with `…`;
 * `--json` shows it whole. A catalog's 600,000-character identifier would otherwise widen every row of its table.
 */
export const MAX_FIELD = 400

/** At most this many rows of a table are shown, and at most `MAX_TABLE` characters in all; then how many were left. */
export const MAX_ROWS = 1000

/** At most this many characters of a table are shown (rows past it are counted, not shown). */
export const MAX_TABLE = 256 * 1024

/** `text` cut to `max` characters (code points), the cut marked with `…`. */
export const clip = (text: string, max: number = MAX_FIELD): string => {
  if (text.length <= max) return text
  // 2 (max + 1) UTF-16 units hold at least max + 1 code points, unless the text ends first.
  const head = text.slice(0, 2 * (max + 1))
  const points = [...head]
  return points.length <= max && head.length === text.length ? text : `${points.slice(0, max - 1).join("")}…`
}

/** At most this many lines per cell when the table is fitted to the terminal; the last ends with `…`. */
const MAX_CELL_LINES = 3
/** No column is shrunk below this (or its header, if narrower). */
const MIN_COLUMN = 10
const GAP = 2

export interface TableOptions {
  /** Every cell on one line, however wide the table (`--wide`); still cut at `MAX_FIELD`. */
  readonly wide?: boolean | undefined
  /** The width to fit: the terminal's by default; not fitted when stdout is not a terminal. */
  readonly columns?: number | undefined
}

/** The cut of a word into pieces of `max` characters at most. */
const pieces = (word: string, max: number): ReadonlyArray<string> => {
  const chars = [...word]
  const out: Array<string> = []
  for (let i = 0; i < chars.length; i += max) out.push(chars.slice(i, i + max).join(""))
  return out
}

/**
 * A cell's text in lines of `max` characters at most: broken at spaces and after commas (a parameter list, the
 * annotation flags), a longer word cut; at most `MAX_CELL_LINES`, the last ending with `…` when text was left.
 */
export const wrap = (text: string, max: number): ReadonlyArray<string> => {
  const lines: Array<string> = []
  let line = ""
  let joiner = ""
  for (const match of text.trim().matchAll(/([^\s,]+,?|,)(\s*)/g)) {
    const token = match[1] ?? ""
    const candidate = line === "" ? token : `${line}${joiner}${token}`
    if (width(candidate) <= max) {
      line = candidate
    } else {
      if (line !== "") lines.push(line)
      const cut = pieces(token, max)
      lines.push(...cut.slice(0, -1))
      line = cut.at(-1) ?? ""
    }
    joiner = (match[2] ?? "") === "" ? "" : " "
  }
  if (line !== "" || lines.length === 0) lines.push(line)
  if (lines.length <= MAX_CELL_LINES) return lines
  const kept = lines.slice(0, MAX_CELL_LINES)
  const last = [...(kept.at(-1) ?? "")]
  kept[MAX_CELL_LINES - 1] = `${last.slice(0, Math.max(0, max - 1)).join("")}…`
  return kept
}

/**
 * The columns' widths within `total`: the first (the name people type) keeps its width up to a third; the
 * others share what is left, each narrow one keeping its width and the wide ones an equal share.
 */
export const fitWidths = (natural: ReadonlyArray<number>, headers: ReadonlyArray<number>, total: number): ReadonlyArray<number> => {
  let room = total - GAP * (natural.length - 1)
  if (natural.reduce((sum, w) => sum + w, 0) <= room) return natural
  const widths = [...natural]
  const floor = (i: number) => Math.min(natural[i] ?? 0, Math.max(MIN_COLUMN, headers[i] ?? 0))
  widths[0] = Math.max(floor(0), Math.min(natural[0] ?? 0, Math.floor(room / 3)))
  room -= widths[0]
  const rest = natural.map((w, i) => ({ w, i })).slice(1).sort((a, b) => a.w - b.w)
  rest.forEach(({ i, w }, k) => {
    const share = Math.floor(room / (rest.length - k))
    widths[i] = Math.max(floor(i), Math.min(w, share))
    room -= widths[i] ?? 0
  })
  return widths
}

const pad = (text: string, to: number) => text + " ".repeat(Math.max(0, to - width(text)))

/**
 * Columns padded to their widest cell. At a terminal the table fits its width: the columns are shrunk (the
 * widest first) and their cells wrapped in them; `wide` keeps every cell on one line. Not at a terminal (a pipe,
 * a file) nothing is wrapped. Everywhere, a cell is cut at `MAX_FIELD` characters and the table at `MAX_ROWS`
 * rows or `MAX_TABLE` characters, a last line saying how many rows were left out: what a server or a published
 * document supplies is bounded when it is shown (`--json` shows it whole).
 */
export const table = (
  headers: ReadonlyArray<string>,
  cells: ReadonlyArray<ReadonlyArray<string>>,
  options: TableOptions = {}
): string => {
  if (cells.length === 0) return "(none)"
  // Cut, made visible and on one line before they are measured, so the columns line up with what is shown.
  const rows = cells.slice(0, MAX_ROWS).map((row) =>
    headers.map((_, i) => sanitize.visible(clip(row[i] ?? "")).replace(/\s+/g, " ").trim())
  )
  const terminal = process.stdout.isTTY === true ? process.stdout.columns : undefined
  const columns = options.wide === true ? Number.POSITIVE_INFINITY : options.columns ?? terminal ?? Number.POSITIVE_INFINITY
  const natural = headers.map((header, i) => Math.max(width(header), ...rows.map((row) => width(row[i] ?? ""))))
  const widths = fitWidths(natural, headers.map(width), columns)
  const line = (parts: ReadonlyArray<string>) =>
    parts.map((part, i) => (i === parts.length - 1 ? part : pad(part, widths[i] ?? 0))).join(" ".repeat(GAP)).trimEnd()
  const render = (row: ReadonlyArray<string>) => {
    const wrapped = row.map((cell, i) => (width(cell) <= (widths[i] ?? 0) ? [cell] : wrap(cell, widths[i] ?? 0)))
    const height = Math.max(...wrapped.map((lines) => lines.length))
    return Array.from({ length: height }, (_, k) => line(wrapped.map((lines) => lines[k] ?? ""))).join("\n")
  }
  const out = [line(headers), line(widths.map((w) => "-".repeat(w)))]
  let size = out[0]?.length ?? 0
  let shown = 0
  for (const row of rows) {
    const rendered = render(row)
    size += rendered.length + 1
    if (size > MAX_TABLE) break
    out.push(rendered)
    shown++
  }
  if (shown < cells.length) out.push(`… and ${cells.length - shown} more (--json lists every one)`)
  return out.join("\n")
}

/** An error's own fields as JSON (errors inside it as `{ tag, message }`), without its stack. */
const fieldsOf = (error: object): Record_ =>
  Object.fromEntries(
    Object.entries(error)
      .filter(([key]) => key !== "_tag" && key !== "stack" && key !== "message")
      .map(([key, value]) => [key, value instanceof Error ? { tag: tagOf(value), message: value.message } : value])
  )

const tagOf = (error: unknown): string =>
  isRecord(error) && typeof error["_tag"] === "string" ? error["_tag"] : error instanceof Error ? error.name : "Error"

/** `{ "error": { "tag", "message", ...fields } }`: what `--json` prints on stdout for a failed command. */
export const errorJson = (error: unknown): string => {
  const message = error instanceof Error ? error.message : String(error)
  const fields = typeof error === "object" && error !== null ? fieldsOf(error) : {}
  let text: string
  try {
    text = JSON.stringify({ error: { tag: tagOf(error), message, ...fields } }, null, 2)
  } catch {
    text = JSON.stringify({ error: { tag: tagOf(error), message } }, null, 2)
  }
  return sanitize.jsonText(text)
}

/** Whether the command line asks for JSON (`--json` before a bare `--`). */
export const wantsJson = (args: ReadonlyArray<string>): boolean => args.includes("--json")
