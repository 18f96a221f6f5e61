/**
 * What changed between two fingerprints, in short lines: `description changed (412 → 530 characters)`,
 * `inputSchema: property "path" added; "mode" type string → number; required + "path"`,
 * `annotations.readOnlyHint true → false`. Never a description's text; every line and the list are bounded.
 *
 * @internal
 */
import { getOwn } from "../llm/own.js"
import { cut, type Fingerprint, type SchemaPrint, type TextPrint } from "./fingerprint.js"

/** At most this many lines; past it, one line says how many more. */
const MAX_LINES = 12
/** At most this many items in one schema's line. */
const MAX_ITEMS = 8
/** A line is cut to this many characters. */
const MAX_LINE = 300
/** An item of a schema's line is cut to this many characters. */
const MAX_ITEM = 100

const quoted = (name: string) => JSON.stringify(name)

const keysOf = (record: Readonly<Record<string, unknown>> | undefined) => record === undefined ? [] : Object.keys(record)

/** The description: lengths only (its text is the server's, and may be megabytes). */
const descriptionLine = (before: TextPrint | undefined, after: TextPrint | undefined): string | undefined => {
  if (before?.hash === after?.hash) return undefined
  if (before === undefined) return `description added (${after?.length ?? 0} characters)`
  if (after === undefined) return `description removed (was ${before.length} characters)`
  return before.length === after.length
    ? `description changed (${before.length} characters, other text)`
    : `description changed (${before.length} → ${after.length} characters)`
}

/** The title: a short preview of each (a title is a few words, cut to 60 characters when it is not). */
const titleLine = (before: TextPrint | undefined, after: TextPrint | undefined): string | undefined => {
  if (before?.hash === after?.hash) return undefined
  if (before === undefined) return `title added (${quoted(after?.preview ?? "")})`
  if (after === undefined) return `title removed (was ${quoted(before.preview ?? "")})`
  return `title ${quoted(before.preview ?? "")} → ${quoted(after.preview ?? "")}`
}

/** The items that tell how one schema became another. */
const schemaItems = (before: SchemaPrint, after: SchemaPrint): ReadonlyArray<string> => {
  const items: Array<string> = []
  for (const name of keysOf(after.properties)) {
    const was = getOwn(before.properties, name) as SchemaPrint["properties"][string] | undefined
    const now = after.properties[name]
    if (now === undefined) continue
    if (was === undefined) items.push(`property ${quoted(name)} added`)
    else if (was.type !== now.type) items.push(`${quoted(name)} type ${was.type} → ${now.type}`)
    else if (was.hash !== now.hash) items.push(`${quoted(name)} changed`)
  }
  for (const name of keysOf(before.properties)) {
    if (!Object.hasOwn(after.properties, name)) items.push(`property ${quoted(name)} removed`)
  }
  for (const name of after.required) if (!before.required.includes(name)) items.push(`required + ${quoted(name)}`)
  for (const name of before.required) if (!after.required.includes(name)) items.push(`required − ${quoted(name)}`)
  if (items.length === 0) items.push("other keywords changed")
  return items
}

const schemaLine = (label: string, before: SchemaPrint | undefined, after: SchemaPrint | undefined): string | undefined => {
  if (before?.hash === after?.hash) return undefined
  if (before === undefined) return `${label} added`
  if (after === undefined) return `${label} removed`
  return joinBounded(label, schemaItems(before, after))
}

/** `label: a; b; c`, as many items as fit in a line (at most `MAX_ITEMS`), then how many more there are. */
const joinBounded = (label: string, items: ReadonlyArray<string>): string => {
  const shown: Array<string> = []
  let length = label.length + 2
  for (const [index, item] of items.entries()) {
    const piece = cut(item, MAX_ITEM)
    // Room is kept for the "… N more" that ends a line too full for the rest.
    if (index >= MAX_ITEMS || length + piece.length + 2 > MAX_LINE - 16) {
      return `${label}: ${[...shown, `… ${items.length - index} more`].join("; ")}`
    }
    shown.push(piece)
    length += piece.length + 2
  }
  return `${label}: ${shown.join("; ")}`
}

const annotationLines = (
  before: Readonly<Record<string, string>> | undefined,
  after: Readonly<Record<string, string>> | undefined
): ReadonlyArray<string> => {
  const lines: Array<string> = []
  const was = (key: string) => before === undefined ? undefined : getOwn(before, key) as string | undefined
  const now = (key: string) => after === undefined ? undefined : getOwn(after, key) as string | undefined
  for (const key of keysOf(after)) {
    const previous = was(key)
    const current = now(key)
    if (previous === undefined) lines.push(`annotations.${key} added (${current ?? ""})`)
    else if (previous !== current) lines.push(`annotations.${key} ${previous} → ${current ?? ""}`)
  }
  for (const key of keysOf(before)) {
    if (now(key) === undefined) lines.push(`annotations.${key} removed (was ${was(key) ?? ""})`)
  }
  return lines
}

/** What changed from `before` to `after`, one bounded line per part; empty when the digests agree. */
export const describeChange = (before: Fingerprint, after: Fingerprint): ReadonlyArray<string> => {
  if (before.hash === after.hash) return []
  const lines = [
    titleLine(before.title, after.title),
    descriptionLine(before.description, after.description),
    schemaLine("inputSchema", before.inputSchema, after.inputSchema),
    schemaLine("outputSchema", before.outputSchema, after.outputSchema),
    ...annotationLines(before.annotations, after.annotations)
  ].flatMap((line) => line === undefined ? [] : [cut(line, MAX_LINE)])
  if (lines.length === 0) return ["definition changed"]
  return lines.length > MAX_LINES
    ? [...lines.slice(0, MAX_LINES - 1), `… and ${lines.length - MAX_LINES + 1} more changes`]
    : lines
}
