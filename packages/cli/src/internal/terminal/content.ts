/**
 * A server's results as text: content blocks, resource contents, a tool's annotations and parameters, and a
 * JSON value under a label. A tool result's text blocks that only repeat its structured content are left out.
 */
import * as sanitize from "./sanitize.js"

/** A JSON object as a server sent it (a content block, resource contents, a schema). */
export type Record_ = Readonly<Record<string, unknown>>

export const isRecord = (value: unknown): value is Record_ =>
  typeof value === "object" && value !== null && !Array.isArray(value)

const str = (value: unknown) => (typeof value === "string" ? value : "")

/** One content block (tool result, prompt message, resource contents) as text. */
export const blockText = (block: Record_): string => {
  switch (block["type"]) {
    case "text":
      return str(block["text"])
    case "image":
    case "audio":
      return `[${String(block["type"])} ${str(block["mimeType"])}, ${Math.floor((str(block["data"]).length * 3) / 4)} bytes]`
    case "resource_link":
      return `[link ${str(block["uri"])}${block["name"] === undefined ? "" : ` (${str(block["name"])})`}]`
    case "resource": {
      const resource = (block["resource"] ?? {}) as Record_
      return contentsText(resource)
    }
    default:
      return sanitize.json(block)
  }
}

/** The contents of a resource: its text, or a note of its blob. */
export const contentsText = (contents: Record_): string =>
  typeof contents["text"] === "string"
    ? contents["text"]
    : `[blob ${str(contents["uri"])} ${str(contents["mimeType"])}, ${Math.floor((str(contents["blob"]).length * 3) / 4)} bytes]`

/** The short flags of a tool's annotations: ro (read-only), destructive, idempotent, open-world. */
export const annotationFlags = (annotations: Record_ | undefined): string => {
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

/**
 * A tool result's blocks without the text blocks that only repeat its `structuredContent` (the spec asks
 * servers to send both; printing both shows the result twice).
 */
export const distinctBlocks = (
  content: ReadonlyArray<Record_>,
  structured: unknown
): ReadonlyArray<Record_> => {
  if (structured === undefined) return content
  const canonical = JSON.stringify(structured)
  return content.filter((block) => {
    if (block["type"] !== "text" || typeof block["text"] !== "string") return true
    try {
      return JSON.stringify(JSON.parse(block["text"])) !== canonical
    } catch {
      return true
    }
  })
}

const typeOf = (schema: unknown): string => {
  if (!isRecord(schema)) return "any"
  const type = schema["type"]
  if (typeof type === "string") {
    return type === "array" && isRecord(schema["items"]) ? `${typeOf(schema["items"])}[]` : type
  }
  if (Array.isArray(type)) return type.join("|")
  if (Array.isArray(schema["enum"])) return schema["enum"].map((v) => JSON.stringify(v)).join("|")
  for (const key of ["anyOf", "oneOf"]) {
    const options = schema[key]
    if (Array.isArray(options)) return options.map(typeOf).join("|")
  }
  return "any"
}

/** A tool's parameters on one line: `name: type` each, `?` after an optional one. */
export const parameterLine = (inputSchema: unknown): string => {
  if (!isRecord(inputSchema) || !isRecord(inputSchema["properties"])) return ""
  const required = new Set(Array.isArray(inputSchema["required"]) ? inputSchema["required"] : [])
  return Object.entries(inputSchema["properties"])
    .map(([name, schema]) => `${name}${required.has(name) ? "" : "?"}: ${typeOf(schema)}`)
    .join(", ")
}
