/**
 * The cassette file: versioned NDJSON. Line 1 is the header; every later line is one message, in the order it
 * crossed the wire, with its time offset from the start of the session in milliseconds, which side sent it,
 * what HTTP said about it (status and the headers that matter) and what was removed from it before it was
 * written (`redacted`: the kinds of value; the value itself is replaced by `[redacted]` in place).
 *
 * ```
 * {"format":"mcp-effect/cassette","version":1,"recordedAt":"…","recorder":{…},"server":{…},"era":"legacy",…}
 * {"t":0,"from":"client","message":{"jsonrpc":"2.0","id":1,"method":"initialize",…}}
 * {"t":12,"from":"server","message":{"jsonrpc":"2.0","id":1,"result":{…}},"http":{"status":200,…}}
 * ```
 *
 * @internal
 */
import type { JsonObject } from "../../McpSchema.js"

/** The `format` of line 1. @internal */
export const FORMAT = "mcp-effect/cassette"

/** The format version written; a reader refuses any other. @internal */
export const VERSION = 1

/** What a cassette says about HTTP beside a message. @internal */
export interface HttpInfo {
  /** The HTTP method of the request that carried a client message. */
  readonly method?: string | undefined
  /** The status of the response that carried a server message. */
  readonly status?: number | undefined
  /** The headers that matter (lower-case names), secrets replaced by `[redacted]`. */
  readonly headers?: Readonly<Record<string, string>> | undefined
}

/** Line 1. @internal */
export interface Header {
  readonly format: typeof FORMAT
  readonly version: typeof VERSION
  /** When the session started (ISO 8601). */
  readonly recordedAt: string
  /** The program that recorded it. */
  readonly recorder: { readonly name: string; readonly version: string }
  /** The server's `serverInfo`, as it announced it (`null` when it never did). */
  readonly server: JsonObject | null
  /** `modern` when the server answered `server/discover`, `legacy` when it answered `initialize`. */
  readonly era: "modern" | "legacy" | null
  readonly protocolVersion: string | null
  readonly transport: "stdio" | "http" | "memory"
  /** HTTP: the path the server was reached at (replay serves the same one). */
  readonly path?: string | undefined
  /** The volatile values replaced at record time. */
  readonly normalised: ReadonlyArray<string>
  /** Messages left out because the cassette reached its size bound. */
  readonly dropped?: number | undefined
}

/** One message line. @internal */
export interface Entry {
  /** Milliseconds since the session started. */
  readonly t: number
  readonly from: "client" | "server"
  readonly message: JsonObject
  readonly http?: HttpInfo | undefined
  /** The kinds of secret removed from this line (`authorization header`, `--env value`, ...). */
  readonly redacted?: ReadonlyArray<string> | undefined
}

/** A whole cassette. @internal */
export interface Cassette {
  readonly header: Header
  readonly entries: ReadonlyArray<Entry>
}

/** The NDJSON text of a cassette. @internal */
export const encode = (cassette: Cassette): string =>
  [cassette.header, ...cassette.entries].map((line) => JSON.stringify(line)).join("\n") + "\n"
