/**
 * Output as people expect it: errors as JSON under `--json`, an empty result (and a word on stderr) for a
 * capability the server lacks, a structured result printed once, a tool's parameters on one line, blobs saved
 * with `--out`, and a connect timeout apart from the call's.
 */
import { McpError } from "@mcp-effect/client"
import type { McpClient, McpClientError } from "@mcp-effect/client"
import * as Console from "effect/Console"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import { writeFileAtomic } from "./files.js"
import { jsonText } from "./sanitize.js"

type Record_ = Readonly<Record<string, unknown>>

const isRecord = (value: unknown): value is Record_ => typeof value === "object" && value !== null && !Array.isArray(value)

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
  return jsonText(text)
}

/** Whether the command line asks for JSON (`--json` before a bare `--`). */
export const wantsJson = (args: ReadonlyArray<string>): boolean => args.includes("--json")

/** The capabilities a listing needs. */
export type Capability = "tools" | "resources" | "prompts"

/**
 * Run `list` if the server declares `capability`; otherwise say so on stderr and give `empty` (the command
 * then prints an empty result and exits 0, as for a server that has the capability and nothing in it).
 */
export const whenCapable = <A, E, R>(
  client: McpClient.Service,
  capability: Capability,
  empty: A,
  list: Effect.Effect<A, E, R>
): Effect.Effect<A, E | McpClientError, R> =>
  Effect.flatMap(client.info, (info) =>
    info.capabilities[capability] === undefined
      ? Effect.as(Console.error(`mcp-effect: the server has no ${capability} (capability not declared)`), empty)
      : list)

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

/** A file that `--out` could not be written to. */
export class OutputError extends Data.TaggedError("OutputError")<{ readonly message: string }> {}

/** The bytes of a resource's contents or a content block: a blob or image/audio data (base64), or text. */
const bytesOf = (item: Record_): Uint8Array | undefined => {
  const base64 = typeof item["blob"] === "string" ? item["blob"] : typeof item["data"] === "string" ? item["data"] : undefined
  if (base64 !== undefined) return Buffer.from(base64, "base64")
  if (isRecord(item["resource"])) return bytesOf(item["resource"])
  return typeof item["text"] === "string" ? Buffer.from(item["text"], "utf8") : undefined
}

/**
 * `--out FILE`: the first blob (or image, audio, embedded resource) of the items, else the first text, written
 * to FILE whole (never through a symbolic link at FILE, nor into what a hard link there shares); says on stderr
 * what was written.
 */
export const saveFirst = (file: string, items: ReadonlyArray<Record_>): Effect.Effect<void, OutputError> => {
  const binary = items.find((item) =>
    typeof item["blob"] === "string" || typeof item["data"] === "string" ||
    (isRecord(item["resource"]) && typeof item["resource"]["blob"] === "string")
  )
  const chosen = binary ?? items.find((item) => bytesOf(item) !== undefined)
  const bytes = chosen === undefined ? undefined : bytesOf(chosen)
  if (bytes === undefined) return Effect.fail(new OutputError({ message: "nothing to save: the result has no blob or text" }))
  return writeFileAtomic(file, bytes).pipe(
    Effect.mapError((error) => new OutputError({ message: error.message })),
    Effect.andThen(Console.error(`mcp-effect: saved ${bytes.length} bytes to ${file}`))
  )
}

/**
 * The server did not finish connecting (start-up and handshake) within the connect timeout. `silentServer`: a
 * stdio server that wrote nothing on stdout by then, the tail of its stderr (the message says the usual causes).
 */
export class ConnectTimeoutError extends Data.TaggedError("ConnectTimeoutError")<{
  readonly seconds: number
  readonly silentServer?: string | undefined
}> {
  override get message(): string {
    const base = `the server did not answer within the connect timeout of ${this.seconds} s (--connect-timeout)`
    return this.silentServer === undefined ? base : `${base}; ${McpError.silentServerNote(this.silentServer)}`
  }
}

/**
 * Connect (the era probe or handshake, through `client.info`) within `seconds`; the calls keep their own limit.
 * `silence`: what the connection says of a stdio server that has written nothing yet.
 */
export const connected = (
  client: McpClient.Service,
  seconds: number,
  silence: Effect.Effect<string | undefined> = Effect.undefined
): Effect.Effect<void, McpClientError | ConnectTimeoutError> =>
  client.info.pipe(
    Effect.timeoutOrElse({
      duration: seconds * 1000,
      orElse: () => Effect.flatMap(silence, (silentServer) => Effect.fail(new ConnectTimeoutError({ seconds, silentServer })))
    }),
    Effect.asVoid
  )
