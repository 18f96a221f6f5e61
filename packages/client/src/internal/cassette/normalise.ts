/**
 * Volatile values out of a session, at record time, so that two recordings of the same session are the same
 * file and a replay can answer a client whose values differ: JSON-RPC ids (the client's requests become
 * 1, 2, 3…, the server's `s1`, `s2`…, answers follow their request), progress tokens (`progress-1`…),
 * `Mcp-Session-Id` (`session-1`…), trace fields and the client's identity in `_meta`, DPoP proofs and nonces,
 * and, when asked, ISO 8601 timestamps in any string.
 *
 * @internal
 */
import { isRecord, type JsonObject, MetaKey } from "../../McpSchema.js"

/** What stands for a value that was normalised away. @internal */
export const NORMALISED = "[normalised]"

/** `_meta` keys that differ between runs of the same session: W3C trace context. @internal */
export const TRACE_KEYS: ReadonlyArray<string> = ["traceparent", "tracestate", "baggage"]

const TIMESTAMP = /\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:?\d{2})\b/g

/** @internal */
export interface NormaliseOptions {
  /** Replace ISO 8601 timestamps in every string with `[timestamp]` (default false). */
  readonly timestamps?: boolean | undefined
}

/** What the header lists as normalised. @internal */
export const normalisedKinds = (options: NormaliseOptions | undefined): ReadonlyArray<string> => [
  "ids",
  "progress tokens",
  "Mcp-Session-Id",
  "_meta trace and client fields",
  "DPoP proofs",
  ...(options?.timestamps === true ? ["timestamps"] : [])
]

/** The most values a numbering remembers: past it the oldest is forgotten (a session may last for ever). */
export const MAX_REMEMBERED = 4096

/**
 * Actual values to stable ones, numbered in order. `of` gives a value seen before its number again (session
 * ids); `fresh` numbers every occurrence anew (request ids and progress tokens, which a client reuses from one
 * connection to the next), `known` finds the newest number of a value, and `forget` drops it (an id once
 * answered). At most `MAX_REMEMBERED` values are kept, the oldest forgotten first: memory stays bounded
 * however long the session.
 */
class Numbering {
  private readonly seen = new Map<string, string | number>()
  private count = 0
  constructor(private readonly make: (n: number) => string | number) {}
  get size(): number {
    return this.seen.size
  }
  of(value: unknown): string | number {
    return this.known(value) ?? this.fresh(value)
  }
  fresh(value: unknown): string | number {
    const stable = this.make(++this.count)
    const key = JSON.stringify(value)
    // Re-inserted, so that the order of the map is the order of use.
    this.seen.delete(key)
    this.seen.set(key, stable)
    for (const oldest of this.seen.keys()) {
      if (this.seen.size <= MAX_REMEMBERED) break
      this.seen.delete(oldest)
    }
    return stable
  }
  known(value: unknown): string | number | undefined {
    return this.seen.get(JSON.stringify(value))
  }
  forget(value: unknown): void {
    this.seen.delete(JSON.stringify(value))
  }
}

/** The `_meta` of a message without trace fields, the client's identity and the progress token replaced. */
const cleanMeta = (meta: JsonObject, token: (value: unknown) => unknown): JsonObject => {
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(meta)) {
    if (TRACE_KEYS.includes(key)) continue
    if (key === MetaKey.clientInfo) out[key] = NORMALISED
    else if (key === "progressToken") out[key] = token(value)
    else out[key] = value
  }
  return out
}

const withParams = (message: JsonObject, params: JsonObject): JsonObject => ({ ...message, params })

/** Deeper than this a value is left as it is: the redactor, next, replaces it whole (a server's message may nest without end). */
const MAX_DEPTH = 64

const stamps = (value: unknown, depth = 0): unknown => {
  if (typeof value === "string") return value.replace(TIMESTAMP, "[timestamp]")
  if (depth >= MAX_DEPTH) return value
  if (Array.isArray(value)) return value.map((item) => stamps(item, depth + 1))
  if (isRecord(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, stamps(v, depth + 1)]))
  return value
}

/**
 * The normaliser of one recording: its numberings live as long as the session.
 *
 * @internal
 */
export class Normaliser {
  private readonly clientIds = new Numbering((n) => n)
  private readonly serverIds = new Numbering((n) => `s${n}`)
  private readonly tokens = new Numbering((n) => `progress-${n}`)
  private readonly sessions = new Numbering((n) => `session-${n}`)
  constructor(private readonly options: NormaliseOptions = {}) {}

  /** How many values the numberings remember (bounded by `MAX_REMEMBERED` each). */
  get remembered(): number {
    return this.clientIds.size + this.serverIds.size + this.tokens.size + this.sessions.size
  }

  /** A message, as the cassette keeps it. */
  message(from: "client" | "server", message: JsonObject): JsonObject {
    const out = this.params(from, this.id(from, message))
    return this.options.timestamps === true ? (stamps(out) as JsonObject) : out
  }

  /** HTTP headers, as the cassette keeps them (credentials are the redactor's). */
  headers(headers: Readonly<Record<string, string>>): Record<string, string> {
    const out: Record<string, string> = {}
    for (const [name, value] of Object.entries(headers)) {
      const lower = name.toLowerCase()
      if (lower === "mcp-session-id") out[lower] = String(this.sessions.of(value))
      else if (lower === "dpop-nonce") out[lower] = NORMALISED
      else out[lower] = value
    }
    return out
  }

  private id(from: "client" | "server", message: JsonObject): JsonObject {
    if (!("id" in message) || message["id"] === null) return message
    const isRequest = typeof message["method"] === "string"
    // A request gets the next number of its side; an answer takes its request's (the other side's).
    const own = from === "client" ? this.clientIds : this.serverIds
    const other = from === "client" ? this.serverIds : this.clientIds
    const id = isRequest ? own.fresh(message["id"]) : other.known(message["id"]) ?? message["id"]
    // An answered request's id is not needed again (a client may reuse it: it is numbered anew then).
    if (!isRequest) other.forget(message["id"])
    return { ...message, id }
  }

  private params(from: "client" | "server", message: JsonObject): JsonObject {
    const params = message["params"]
    if (!isRecord(params)) return message
    let out: JsonObject = params
    // A request's token is numbered anew; a progress notification takes the newest number of its token.
    const token = from === "client" && "id" in message
      ? (t: unknown) => this.tokens.fresh(t)
      : (t: unknown) => this.tokens.known(t) ?? t
    if (isRecord(out["_meta"])) out = { ...out, _meta: cleanMeta(out["_meta"], token) }
    if (message["method"] === "notifications/progress" && "progressToken" in out) {
      out = { ...out, progressToken: token(out["progressToken"]) }
    }
    if (from === "client" && message["method"] === "initialize" && isRecord(out["clientInfo"])) {
      out = { ...out, clientInfo: { name: NORMALISED, version: NORMALISED } }
    }
    return out === params ? message : withParams(message, out)
  }
}
