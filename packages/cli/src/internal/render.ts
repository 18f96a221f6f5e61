/**
 * Human-readable output: aligned tables, content blocks as text, and JSON for `--json`. Everything goes to
 * stdout through `print` or `printJson`, which show a server's control characters instead of sending them
 * to the terminal (see `sanitize.ts`).
 */
import * as Console from "effect/Console"
import type * as Effect from "effect/Effect"
import * as sanitize from "./sanitize.js"

/** Pretty JSON on stdout (the `--json` output of every command), C1 and bidi controls escaped too. */
export const printJson = (value: unknown): Effect.Effect<void> => Console.log(sanitize.json(value, 2))

/** A line (or lines) of human-readable output on stdout, controls made visible. */
export const print = (text: string): Effect.Effect<void> => Console.log(sanitize.visible(text))

const width = (text: string) => [...text].length

/** At most this many lines per cell when the table is fitted to the terminal; the last ends with `…`. */
const MAX_CELL_LINES = 3
/** No column is shrunk below this (or its header, if narrower). */
const MIN_COLUMN = 10
const GAP = 2

export interface TableOptions {
  /** Every cell whole on one line, however wide the table (`--wide`). */
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
 * widest first) and their cells wrapped in them; `wide` keeps every cell whole on one line. Not at a terminal
 * (a pipe, a file) nothing is cut.
 */
export const table = (
  headers: ReadonlyArray<string>,
  cells: ReadonlyArray<ReadonlyArray<string>>,
  options: TableOptions = {}
): string => {
  if (cells.length === 0) return "(none)"
  // Made visible and on one line before they are measured, so the columns line up with what is shown.
  const rows = cells.map((row) => headers.map((_, i) => sanitize.visible(row[i] ?? "").replace(/\s+/g, " ").trim()))
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
  return [line(headers), line(widths.map((w) => "-".repeat(w))), ...rows.map(render)].join("\n")
}

type Block = Readonly<Record<string, unknown>>

const str = (value: unknown) => (typeof value === "string" ? value : "")

/** One content block (tool result, prompt message, resource contents) as text. */
export const blockText = (block: Block): string => {
  switch (block["type"]) {
    case "text":
      return str(block["text"])
    case "image":
    case "audio":
      return `[${String(block["type"])} ${str(block["mimeType"])}, ${Math.floor((str(block["data"]).length * 3) / 4)} bytes]`
    case "resource_link":
      return `[link ${str(block["uri"])}${block["name"] === undefined ? "" : ` (${str(block["name"])})`}]`
    case "resource": {
      const resource = (block["resource"] ?? {}) as Block
      return contentsText(resource)
    }
    default:
      return sanitize.json(block)
  }
}

/** The contents of a resource: its text, or a note of its blob. */
export const contentsText = (contents: Block): string =>
  typeof contents["text"] === "string"
    ? contents["text"]
    : `[blob ${str(contents["uri"])} ${str(contents["mimeType"])}, ${Math.floor((str(contents["blob"]).length * 3) / 4)} bytes]`

/** The short flags of a tool's annotations: ro (read-only), destructive, idempotent, open-world. */
export const annotationFlags = (annotations: Block | undefined): string => {
  if (annotations === undefined) return ""
  const flags: Array<string> = []
  if (annotations["readOnlyHint"] === true) flags.push("read-only")
  if (annotations["destructiveHint"] === true) flags.push("destructive")
  if (annotations["destructiveHint"] === false && annotations["readOnlyHint"] !== true) flags.push("non-destructive")
  if (annotations["idempotentHint"] === true) flags.push("idempotent")
  if (annotations["openWorldHint"] === true) flags.push("open-world")
  if (annotations["openWorldHint"] === false) flags.push("closed-world")
  return flags.join(",")
}

/** A JSON value indented under a label. */
export const indented = (label: string, value: unknown): string =>
  `  ${label}:\n${sanitize.json(value, 2).split("\n").map((l) => `    ${l}`).join("\n")}`
