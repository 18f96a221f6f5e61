/**
 * The recorder of one session: each message normalised then cleaned of secrets as it passes (nothing raw is
 * kept, even in memory), timed from the session's start on the `Clock` (so a recording under `TestClock` has
 * the test's offsets), bounded in size (past `maxBytes` further messages are counted, not kept). The header is
 * worked out from the session when the cassette is taken: the server's `serverInfo` and era come from its
 * answer to `initialize` or `server/discover`.
 *
 * @internal
 */
import { isRecord, type JsonObject, MetaKey } from "../../McpSchema.js"
import { CLIENT_VERSION } from "../client/context.js"
import { type Cassette, type Entry, FORMAT, type Header, type HttpInfo, VERSION } from "./model.js"
import { type NormaliseOptions, normalisedKinds, Normaliser } from "./normalise.js"
import { DEFAULT_MAX_BYTES, DEFAULT_MAX_LINE_BYTES } from "./read.js"
import { Redactor, type Secret } from "./redaction.js"

const encoder = new TextEncoder()

/** The bytes of one line as the reader counts them: UTF-8, with its newline. */
const lineBytes = (line: unknown): number => encoder.encode(JSON.stringify(line)).length + 1

/** @internal */
export interface RecorderOptions extends NormaliseOptions {
  readonly transport: Header["transport"]
  /** HTTP: the path the server is reached at. */
  readonly path?: string | undefined
  /** Values never written, each with what it is. */
  readonly secrets?: ReadonlyArray<Secret> | undefined
  /** The most bytes (UTF-8) of the file, header line included (default 64 MiB, what the reader takes). */
  readonly maxBytes?: number | undefined
}

/** The HTTP side of one message, as it was on the wire. @internal */
export interface WireHttp {
  readonly method?: string | undefined
  readonly status?: number | undefined
  readonly headers?: Readonly<Record<string, string>> | undefined
}

/** Headers worth keeping: the protocol's own, content negotiation, auth challenges and credentials (masked). */
const KEPT_HEADERS: ReadonlySet<string> = new Set([
  "mcp-session-id", "mcp-protocol-version", "mcp-method", "mcp-name", "last-event-id", "content-type", "accept",
  "www-authenticate", "dpop-nonce", "retry-after", "authorization", "proxy-authorization", "dpop", "cookie",
  "set-cookie", "x-api-key"
])

/** @internal */
export class Recorder {
  private readonly normaliser: Normaliser
  readonly redactor: Redactor
  private readonly entries: Array<Entry> = []
  /** The size of each kept entry's line, as the reader counts it. */
  private readonly sizes: Array<number> = []
  private bytes = 0
  private dropped = 0
  private start: number | undefined
  private startedAt: string | undefined
  private readonly requests = new Map<string, string>()
  private server: JsonObject | null = null
  private era: Header["era"] = null
  private protocolVersion: string | null = null

  constructor(private readonly options: RecorderOptions) {
    this.normaliser = new Normaliser(options)
    this.redactor = new Redactor(options.secrets)
  }

  /**
   * Note one message as it crosses (raw: it is normalised and cleaned here), at `now` (milliseconds on the
   * session's clock). Synchronous: a transport's receiver may not wait.
   */
  readonly record = (from: Entry["from"], message: JsonObject, now: number, http?: WireHttp): void => {
    if (this.start === undefined) {
      this.start = now
      this.startedAt = new Date(now).toISOString()
    }
    if (http?.headers !== undefined && from === "client") this.redactor.noteHeaders(http.headers)
    this.learn(from, message)
    const removed = new Set<string>()
    const kept = this.redactor.message(this.normaliser.message(from, message), removed)
    const httpInfo = http === undefined ? undefined : this.http(http, removed)
    const entry: Entry = {
      t: now - this.start,
      from,
      message: kept,
      ...(httpInfo === undefined ? {} : { http: httpInfo }),
      ...(removed.size === 0 ? {} : { redacted: [...removed] })
    }
    // Counted as the reader counts: UTF-8 bytes of the line and its newline; a line the reader would refuse is
    // not kept (a cassette is never written that cannot be read back).
    const size = lineBytes(entry)
    if (size > DEFAULT_MAX_LINE_BYTES || this.bytes + size > (this.options.maxBytes ?? DEFAULT_MAX_BYTES)) {
      this.dropped++
      return
    }
    this.bytes += size
    this.entries.push(entry)
    this.sizes.push(size)
  }

  private http(http: WireHttp, removed: Set<string>): HttpInfo {
    const headers: Record<string, string> = {}
    for (const [name, value] of Object.entries(http.headers ?? {})) {
      if (KEPT_HEADERS.has(name.toLowerCase())) headers[name.toLowerCase()] = value
    }
    const cleaned = this.redactor.headers(this.normaliser.headers(headers), removed)
    return {
      ...(http.method === undefined ? {} : { method: http.method }),
      ...(http.status === undefined ? {} : { status: http.status }),
      ...(Object.keys(cleaned).length === 0 ? {} : { headers: cleaned })
    }
  }

  /** The era and the server's identity, from the handshake's answer. */
  private learn(from: Entry["from"], message: JsonObject): void {
    const id = JSON.stringify(message["id"])
    // Only the handshake's requests are waited for (a long session's other ids are not kept), each until answered.
    if (from === "client" && (message["method"] === "initialize" || message["method"] === "server/discover")) {
      this.requests.set(id, message["method"])
    }
    if (from !== "server" || typeof message["method"] === "string") return
    const method = this.requests.get(id)
    this.requests.delete(id)
    const result = message["result"]
    if (!isRecord(result)) return
    if (method === "initialize") {
      this.era = "legacy"
      this.server = isRecord(result["serverInfo"]) ? result["serverInfo"] : null
      this.protocolVersion = typeof result["protocolVersion"] === "string" ? result["protocolVersion"] : null
    } else if (method === "server/discover") {
      this.era = "modern"
      const info = result["serverInfo"] ?? (isRecord(result["_meta"]) ? result["_meta"][MetaKey.serverInfo] : undefined)
      this.server = isRecord(info) ? info : null
      const versions = result["supportedVersions"]
      this.protocolVersion = Array.isArray(versions) && typeof versions[0] === "string" ? versions[0] : null
    }
  }

  /**
   * The cassette so far (the header worked out now). The header's line counts in `maxBytes` as the reader
   * counts it: the newest messages that do not fit beside it are left out (counted as dropped), so a written
   * cassette is always readable by the reader's bound.
   */
  readonly cassette = (): Cassette => {
    const max = this.options.maxBytes ?? DEFAULT_MAX_BYTES
    let kept = this.entries.length
    let bytes = this.bytes
    let header = this.header(this.dropped)
    for (let size = lineBytes(header); size + bytes > max && kept > 0; size = lineBytes(header)) {
      bytes -= this.sizes[--kept] ?? 0
      header = this.header(this.dropped + this.entries.length - kept)
    }
    return { header, entries: this.entries.slice(0, kept) }
  }

  private header(dropped: number): Header {
    const removed = new Set<string>()
    const server = this.server === null ? null : this.redactor.message(this.server, removed)
    const header: Header = {
      format: FORMAT,
      version: VERSION,
      // Nothing recorded yet: the time the cassette is taken.
      recordedAt: this.startedAt ?? new Date().toISOString(),
      recorder: { name: "mcp-effect", version: CLIENT_VERSION },
      server,
      era: this.era,
      protocolVersion: this.protocolVersion,
      transport: this.options.transport,
      ...(this.options.path === undefined ? {} : { path: this.options.path }),
      normalised: normalisedKinds(this.options),
      ...(dropped === 0 ? {} : { dropped })
    }
    // A server's identity too long for a line the reader takes is left out rather than written unreadable.
    return lineBytes(header) > DEFAULT_MAX_LINE_BYTES ? { ...header, server: null } : header
  }
}
