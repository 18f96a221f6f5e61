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

const oneLine = (text: string, max: number) => {
  const flat = text.replace(/\s+/g, " ").trim()
  return width(flat) <= max ? flat : `${[...flat].slice(0, max - 1).join("")}…`
}

/** Columns padded to their widest cell; on a terminal the last column is cut to fit its width. */
export const table = (headers: ReadonlyArray<string>, cells: ReadonlyArray<ReadonlyArray<string>>): string => {
  if (cells.length === 0) return "(none)"
  // Made visible before they are measured, so the columns line up with what is shown.
  const rows = cells.map((row) => row.map(sanitize.visible))
  const columns = process.stdout.isTTY === true ? process.stdout.columns : Number.POSITIVE_INFINITY
  const widths = headers.map((header, i) => Math.max(width(header), ...rows.map((row) => width(row[i] ?? ""))))
  const lead = widths.slice(0, -1).reduce((sum, w) => sum + w + 2, 0)
  const last = Math.max(20, columns - lead)
  const rule = Math.min(Math.max(width(headers.at(-1) ?? ""), ...rows.map((row) => width(row.at(-1) ?? ""))), last)
  const line = (cells: ReadonlyArray<string>) =>
    cells.map((cell, i) =>
      i === cells.length - 1 ? oneLine(cell, last) : cell + " ".repeat((widths[i] ?? 0) - width(cell))
    ).join("  ").trimEnd()
  return [line(headers), line(widths.map((w, i) => "-".repeat(i === widths.length - 1 ? rule : w))), ...rows.map(line)].join("\n")
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
