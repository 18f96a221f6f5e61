/**
 * Reading a cassette, bounded: the text at most `maxBytes`, each line at most `maxLineBytes`, each value nested
 * at most `maxDepth` deep (a line is measured before it is parsed, and walked with a stack of its own after),
 * so a hostile or broken file is an `McpCassetteError` naming the line, never a hang or an overflow.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import { McpCassetteError } from "../../McpCassetteError.js"
import * as Schema from "effect/Schema"
import { isRecord, type JsonObject, JsonObject as JsonObjectSchema } from "../../McpSchema.js"
import { type Cassette, type Entry, FORMAT, type Header, VERSION } from "./model.js"

/** @internal */
export interface Bounds {
  /** The whole text (default 64 MiB). */
  readonly maxBytes?: number | undefined
  /** One line (default 16 MiB, the largest message a transport takes). */
  readonly maxLineBytes?: number | undefined
  /** Nesting of a line's JSON (default 64). */
  readonly maxDepth?: number | undefined
}

interface Limits {
  readonly maxBytes: number
  readonly maxLineBytes: number
  readonly maxDepth: number
}

/** @internal */
export const DEFAULT_MAX_BYTES = 64 * 1024 * 1024
/** @internal */
export const DEFAULT_MAX_LINE_BYTES = 16 * 1024 * 1024
/** @internal */
export const DEFAULT_MAX_DEPTH = 64

const depthOf = (value: unknown, max: number): number => {
  const stack: Array<{ readonly value: unknown; readonly depth: number }> = [{ value, depth: 0 }]
  let deepest = 0
  while (stack.length > 0) {
    const top = stack.pop()
    if (top === undefined || typeof top.value !== "object" || top.value === null) continue
    if (top.depth > deepest) deepest = top.depth
    if (deepest > max) return deepest
    for (const item of Object.values(top.value)) stack.push({ value: item, depth: top.depth + 1 })
  }
  return deepest
}

const encoder = new TextEncoder()

/** The UTF-8 length of `text`, counted only when its length in UTF-16 units leaves it in doubt (at most 3 bytes each). */
const byteLength = (text: string, max: number): number =>
  text.length > max ? text.length : text.length * 3 <= max ? text.length : encoder.encode(text).length

const fail = (reason: McpCassetteError["reason"], detail: string, path: string | undefined, line?: number) =>
  new McpCassetteError({ reason, detail, ...(path === undefined ? {} : { path }), ...(line === undefined ? {} : { line }) })

const parseLine = (text: string, at: number, path: string | undefined, bounds: Limits) =>
  Effect.gen(function*() {
    if (byteLength(text, bounds.maxLineBytes) > bounds.maxLineBytes) {
      return yield* fail("Bounds", `a line longer than ${bounds.maxLineBytes} bytes`, path, at)
    }
    const value = yield* Effect.try({
      try: (): unknown => JSON.parse(text),
      catch: () => fail("Format", "a line that is not JSON", path, at)
    })
    if (depthOf(value, bounds.maxDepth) > bounds.maxDepth) {
      return yield* fail("Bounds", `a value nested deeper than ${bounds.maxDepth}`, path, at)
    }
    if (!isRecord(value)) return yield* fail("Format", "a line that is not a JSON object", path, at)
    return value
  })

/** Line 1 past its format and version (checked first, for the error that says which). */
const HeaderSchema = Schema.Struct({
  format: Schema.Literal(FORMAT),
  version: Schema.Literal(VERSION),
  recordedAt: Schema.String,
  recorder: Schema.Struct({ name: Schema.String, version: Schema.String }),
  server: Schema.NullOr(JsonObjectSchema),
  era: Schema.NullOr(Schema.Literals(["modern", "legacy"])),
  protocolVersion: Schema.NullOr(Schema.String),
  transport: Schema.Literals(["stdio", "http", "memory"]),
  path: Schema.optional(Schema.String),
  normalised: Schema.Array(Schema.String),
  dropped: Schema.optional(Schema.Number)
})

const EntrySchema = Schema.Struct({
  t: Schema.Number,
  from: Schema.Literals(["client", "server"]),
  message: JsonObjectSchema,
  http: Schema.optional(Schema.Struct({
    method: Schema.optional(Schema.String),
    status: Schema.optional(Schema.Number),
    headers: Schema.optional(Schema.Record(Schema.String, Schema.String))
  })),
  redacted: Schema.optional(Schema.Array(Schema.String))
})

const decodeHeader = Schema.decodeUnknownEffect(HeaderSchema)
const decodeEntry = Schema.decodeUnknownEffect(EntrySchema)

const header = (value: JsonObject, path: string | undefined): Effect.Effect<Header, McpCassetteError> =>
  Effect.gen(function*() {
    if (value["format"] !== FORMAT) {
      return yield* fail("Format", `not a cassette (line 1 has no "format": "${FORMAT}")`, path, 1)
    }
    if (value["version"] !== VERSION) {
      return yield* fail("Version", `format version ${JSON.stringify(value["version"])}; this reader knows ${VERSION}`, path, 1)
    }
    return yield* decodeHeader(value).pipe(
      Effect.mapError((error) => fail("Format", `a header that is not one: ${error.message}`, path, 1))
    )
  })

const entry = (value: JsonObject, at: number, path: string | undefined): Effect.Effect<Entry, McpCassetteError> =>
  Effect.gen(function*() {
    const decoded = yield* decodeEntry(value).pipe(
      Effect.mapError((error) => fail("Format", `a message line that is not one: ${error.message}`, path, at))
    )
    if (!Number.isFinite(decoded.t) || decoded.t < 0) {
      return yield* fail("Format", "a message line whose time offset \"t\" is not 0 or more milliseconds", path, at)
    }
    if (decoded.message["jsonrpc"] !== "2.0") {
      return yield* fail("Format", "a message line whose message is not JSON-RPC 2.0", path, at)
    }
    return decoded
  })

/**
 * The cassette in `text` (`path` names it in errors).
 *
 * @internal
 */
export const parse = (text: string, path?: string, options?: Bounds): Effect.Effect<Cassette, McpCassetteError> =>
  Effect.gen(function*() {
    const bounds: Limits = {
      maxBytes: options?.maxBytes ?? DEFAULT_MAX_BYTES,
      maxLineBytes: options?.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES,
      maxDepth: options?.maxDepth ?? DEFAULT_MAX_DEPTH
    }
    if (byteLength(text, bounds.maxBytes) > bounds.maxBytes) {
      return yield* fail("Bounds", `larger than ${bounds.maxBytes} bytes`, path)
    }
    const lines = text.split("\n")
    const first = lines[0] ?? ""
    if (first.trim() === "") return yield* fail("Format", "empty: no header line", path, 1)
    const head = yield* header(yield* parseLine(first, 1, path, bounds), path)
    const entries: Array<Entry> = []
    for (let i = 1; i < lines.length; i++) {
      const line = lines[i] ?? ""
      if (line.trim() === "") continue
      entries.push(yield* entry(yield* parseLine(line, i + 1, path, bounds), i + 1, path))
    }
    return { header: head, entries }
  })
