/**
 * Every way a call can fail, as tagged errors. Each class's `_tag` is its name; `McpClientError` is the union.
 *
 * - `McpProtocolError`: the server answered with a JSON-RPC error (wire `code`, `message`, `data`).
 * - `McpTimeoutError`: no answer within a limit (`request`, `probe` or `overall`); the request was cancelled.
 * - `McpServerGoneError`: the server process exited or the connection dropped (exit code, signal, stderr tail).
 * - `McpClosedError`: the client was closed.
 * - `McpInvalidResponseError`: the server answered something that does not decode.
 * - `McpTransportError`: the transport could not be used (spawn failed, write failed, HTTP failure).
 * - `McpUnsupportedVersionError`: no protocol version both sides speak.
 * - `McpPaginationLimitError`: a list had more pages than the client follows.
 * - `McpInputLoopExceededError`: a modern server kept asking for input past `maxInputRounds`.
 * - `McpInputRefusedError`: a modern server asked for input that was refused and has no refusal shape.
 * - `McpAuthError` (from `McpAuthError.ts`): an OAuth step failed (HTTP with `McpAuth`).
 * - `McpProbeStalledError`: an in-memory test server never answered `server/discover` while the clock stood still
 *   (a `TestClock`), so the probe timeout could not fire.
 * - `McpToolQuarantinedError`: tool pinning (`McpPinning`) holds back a tool whose definition changed since it
 *   was pinned, until the change is approved.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import type { McpAuthError } from "./McpAuthError.js"

/**
 * @since 0.1.0
 * @category type IDs
 */
export const TypeId: unique symbol = Symbol.for("@mcp-effect/client/McpError")

/**
 * @since 0.1.0
 * @category type IDs
 */
export type TypeId = typeof TypeId

/**
 * The server answered a request with a JSON-RPC error.
 *
 * @since 0.1.0
 * @category errors
 */
export class McpProtocolError extends Schema.TaggedError<McpProtocolError>()("McpProtocolError", {
  method: Schema.String,
  code: Schema.Number,
  message: Schema.String,
  data: Schema.optional(Schema.Unknown),
  /** Over HTTP: the status of the HTTP response that carried the error (e.g. 404 with `-32601`). */
  httpStatus: Schema.optional(Schema.Number)
}) {
  readonly [TypeId]: TypeId = TypeId
  /** The error's message exactly as the server sent it (`message` names the method and the code around it). */
  readonly serverMessage: string

  constructor(
    props: {
      readonly method: string
      readonly code: number
      readonly message: string
      readonly data?: unknown
      readonly httpStatus?: number | undefined
    },
    options?: Schema.MakeOptions
  ) {
    const framing = protocolFraming(props.method, props.code)
    const inner = props.message.startsWith(framing.prefix) && props.message.endsWith(framing.suffix)
      ? props.message.slice(framing.prefix.length, props.message.length - framing.suffix.length)
      : props.message
    super({ ...props, message: `${framing.prefix}${inner}${framing.suffix}` }, options)
    this.serverMessage = inner
  }
}

/** `tools/call: Method not found (-32601)`: the parts around the server's message. */
const protocolFraming = (method: string, code: number) => ({ prefix: `${method}: `, suffix: ` (${code})` })

/**
 * A request got no answer within its limit. The request was cancelled on the wire (except `initialize`,
 * which may never be cancelled).
 *
 * @since 0.1.0
 * @category errors
 */
export class McpTimeoutError extends Schema.TaggedError<McpTimeoutError>()("McpTimeoutError", {
  method: Schema.String,
  limit: Schema.Literals(["request", "probe", "overall"]),
  timeoutMillis: Schema.Number,
  /**
   * A stdio server that had not written a byte on stdout when the request timed out: the tail of its stderr
   * (cleaned of secrets; empty when it wrote nothing there either). The message names the usual causes.
   */
  silentServer: Schema.optional(Schema.String)
}) {
  readonly [TypeId]: TypeId = TypeId
  override get message(): string {
    const base = `${this.method} got no answer within the ${this.limit} timeout of ${this.timeoutMillis} ms`
    return this.silentServer === undefined ? base : `${base}; ${silentServerNote(this.silentServer)}`
  }
}

/** The last lines of a stderr tail, as a message quotes them. */
const lastLines = (tail: string, lines = 20, chars = 2000): string =>
  tail.trimEnd().split("\n").slice(-lines).join("\n").slice(-chars)

/**
 * What a timeout says of a stdio server that wrote nothing on stdout: far from the request that timed out, the
 * cause is usually the server's start (a package download, a missing variable). Exported for programs that
 * bound the start themselves (the CLI's `--connect-timeout`) and say the same.
 *
 * @since 0.2.0
 * @category errors
 */
export const silentServerNote = (stderrTail: string): string => {
  const quoted = lastLines(stderrTail)
  return "the server wrote nothing on stdout. Usual causes: a first `npx -y`/`uvx` download that is slow or " +
    "cannot reach its registry (a proxy or certificate variable it needs), or a variable the server needs " +
    "that it was not given (`env`, `--env KEY=VALUE` on the command line)" +
    (quoted === "" ? "; it wrote nothing on stderr either" : `. Its stderr ended with:\n${quoted}`)
}

/**
 * An in-memory server (`McpTransport.layerMemory`) never answered `server/discover`, and the client's clock did
 * not move while real time passed: a `TestClock`, under which the probe timeout cannot fire until the test moves
 * it. Raised by the memory transport's real-time watchdog (once per probe), so such a test fails with this error
 * instead of hanging.
 *
 * @since 0.1.0
 * @category errors
 */
export class McpProbeStalledError extends Schema.TaggedError<McpProbeStalledError>()("McpProbeStalledError", {
  /** The real time the watchdog waited. */
  realMillis: Schema.Number,
  /** The probe timeout that could not fire. */
  probeTimeoutMillis: Schema.Number
}) {
  readonly [TypeId]: TypeId = TypeId
  override get message(): string {
    return `the in-memory server never answered server/discover (waited ${this.realMillis} ms of real time while ` +
      `the client's clock stood still). Under TestClock the probe timeout (${this.probeTimeoutMillis} ms) cannot ` +
      "fire unless the test moves the clock, so the test would hang. Fix the fake server: answer server/discover " +
      "(a modern server), or answer it with the JSON-RPC error -32601 Method not found (a legacy server); or use " +
      "McpTestServer, which does both; or set the client's `era`, or move the clock with TestClock.adjust."
  }
}

/**
 * The server went away: its process exited or its connection dropped. Fails every request in flight.
 *
 * @since 0.1.0
 * @category errors
 */
export class McpServerGoneError extends Schema.TaggedError<McpServerGoneError>()("McpServerGoneError", {
  reason: Schema.String,
  exitCode: Schema.optional(Schema.Number),
  signal: Schema.optional(Schema.String),
  stderrTail: Schema.String
}) {
  readonly [TypeId]: TypeId = TypeId
  override get message(): string {
    const how = this.exitCode !== undefined
      ? ` (exit code ${this.exitCode})`
      : this.signal !== undefined
      ? ` (signal ${this.signal})`
      : ""
    const tail = this.stderrTail.trim()
    return `MCP server gone: ${this.reason}${how}${tail === "" ? "" : `; stderr: ${tail.slice(-500)}`}`
  }
}

/**
 * The client was closed; nothing more can be sent.
 *
 * @since 0.1.0
 * @category errors
 */
export class McpClosedError extends Schema.TaggedError<McpClosedError>()("McpClosedError", {
  reason: Schema.optional(Schema.String)
}) {
  readonly [TypeId]: TypeId = TypeId
  override get message(): string {
    return `MCP client closed${this.reason === undefined ? "" : `: ${this.reason}`}`
  }
}

/**
 * The server's answer does not decode: what was expected and why it failed.
 *
 * @since 0.1.0
 * @category errors
 */
export class McpInvalidResponseError extends Schema.TaggedError<McpInvalidResponseError>()(
  "McpInvalidResponseError",
  {
    method: Schema.String,
    reason: Schema.String,
    response: Schema.optional(Schema.Unknown)
  }
) {
  readonly [TypeId]: TypeId = TypeId
  override get message(): string {
    return `invalid response to ${this.method}: ${this.reason}`
  }
}

/**
 * The transport could not be used: the server could not be spawned, a write failed, an HTTP request failed.
 *
 * @since 0.1.0
 * @category errors
 */
export class McpTransportError extends Schema.TaggedError<McpTransportError>()("McpTransportError", {
  reason: Schema.Literals(["Spawn", "Write", "Http", "Closed", "Auth"]),
  detail: Schema.String,
  /** HTTP status, where an HTTP response was the failure. */
  status: Schema.optional(Schema.Number),
  cause: Schema.optional(Schema.Defect())
}) {
  readonly [TypeId]: TypeId = TypeId
  override get message(): string {
    return `MCP transport failure (${this.reason}): ${this.detail}`
  }
}

/**
 * No protocol version both sides speak.
 *
 * @since 0.1.0
 * @category errors
 */
export class McpUnsupportedVersionError extends Schema.TaggedError<McpUnsupportedVersionError>()(
  "McpUnsupportedVersionError",
  {
    offered: Schema.Array(Schema.String),
    supported: Schema.Array(Schema.String)
  }
) {
  readonly [TypeId]: TypeId = TypeId
  override get message(): string {
    return `the server speaks ${this.offered.join(", ") || "no version"}, this client speaks ${
      this.supported.join(", ")
    }: no version in common`
  }
}

/**
 * A paginated list had more pages than the client follows.
 *
 * @since 0.1.0
 * @category errors
 */
export class McpPaginationLimitError extends Schema.TaggedError<McpPaginationLimitError>()(
  "McpPaginationLimitError",
  {
    method: Schema.String,
    pages: Schema.Number
  }
) {
  readonly [TypeId]: TypeId = TypeId
  override get message(): string {
    return `${this.method} returned more than ${this.pages} pages; stopped following nextCursor`
  }
}

/**
 * A modern server kept answering `input_required` past the client's `maxInputRounds`.
 *
 * @since 0.1.0
 * @category errors
 */
export class McpInputLoopExceededError extends Schema.TaggedError<McpInputLoopExceededError>()(
  "McpInputLoopExceededError",
  {
    method: Schema.String,
    rounds: Schema.Number
  }
) {
  readonly [TypeId]: TypeId = TypeId
  override get message(): string {
    return `${this.method} still asked for input after ${this.rounds} rounds`
  }
}

/**
 * A modern server asked for input the client refused where the protocol has no refusal to send (sampling),
 * so the call was abandoned, as the spec says.
 *
 * @since 0.1.0
 * @category errors
 */
export class McpInputRefusedError extends Schema.TaggedError<McpInputRefusedError>()("McpInputRefusedError", {
  method: Schema.String,
  inputMethod: Schema.String,
  key: Schema.String,
  reason: Schema.String
}) {
  readonly [TypeId]: TypeId = TypeId
  override get message(): string {
    return `${this.method} was abandoned: its input request "${this.key}" (${this.inputMethod}) was refused: ${this.reason}`
  }
}

/**
 * A typed call (`callTool(name, args, { schema })`) whose answer is not the value the schema describes: the tool
 * answered an error (`ToolError`, with its text), sent no `structuredContent` (`NoStructuredContent`), or sent one
 * that does not decode (`Decode`, with the `path` that failed, e.g. `.results[0].title`). A server whose tool
 * changed shape since the schema was written fails here, rather than handing on a wrong value.
 *
 * @since 0.3.0
 * @category errors
 */
export class McpToolResultError extends Schema.TaggedError<McpToolResultError>()("McpToolResultError", {
  tool: Schema.String,
  reason: Schema.Literals(["ToolError", "NoStructuredContent", "Decode"]),
  /** Where the decoding failed (`Decode`), as a JavaScript accessor path (`.a[0].b`); empty at the root. */
  path: Schema.optional(Schema.String),
  detail: Schema.String
}) {
  override get message(): string {
    const where = this.path === undefined ? "" : ` at ${this.path === "" ? "the root" : this.path}`
    return `tool ${this.tool}: ${this.detail}${where}`
  }
}

/**
 * A tool the client will not call: its definition changed since it was pinned and nobody approved the change
 * (`onChanged`, or `McpPinning.approve`), its stored pin is damaged, or pinning cannot check it (see
 * `McpPinning`: it fails closed); `held` says which. A member of `McpClientError`; `McpPinning` has the stores
 * that approve it.
 *
 * @since 0.3.0
 * @category errors
 */
export class McpToolQuarantinedError extends Schema.TaggedError<McpToolQuarantinedError>()("McpToolQuarantinedError", {
  tool: Schema.String,
  scope: Schema.String,
  /** What changed, or why pinning cannot check it, in short bounded lines. */
  changes: Schema.Array(Schema.String),
  /**
   * Why it is held back: `"changed"` (its definition differs from its pin; approving pins the new one),
   * `"damaged"` (its stored pin does not decode; approving pins the definition offered now), `"unchecked"`
   * (pinning cannot check it: the store unreadable, no scope, the name listed twice with different definitions,
   * a definition it cannot fingerprint; approving does not help). Absent, it is taken as `"changed"`.
   */
  held: Schema.optional(Schema.Literals(["changed", "damaged", "unchecked"]))
}) {
  readonly [TypeId]: TypeId = TypeId

  override get message(): string {
    const why = this.changes.join("; ")
    if (this.held === "unchecked") {
      return `tool ${this.tool} (${this.scope}) is quarantined: ${why}. Pinning cannot check it, and approving does not change that`
    }
    // The CLI's form names the pins file and scope: without them it approves nothing.
    return `tool ${this.tool} (${this.scope}) is quarantined: ${why}. ` +
      "Approve it with onChanged or McpPinning.approve (CLI: mcp-effect pins approve NAME --pins FILE --scope SCOPE)"
  }
}

/**
 * Everything a client call can fail with.
 *
 * @since 0.1.0
 * @category errors
 */
export type McpClientError =
  | McpProtocolError
  | McpTimeoutError
  | McpServerGoneError
  | McpClosedError
  | McpInvalidResponseError
  | McpTransportError
  | McpUnsupportedVersionError
  | McpPaginationLimitError
  | McpInputLoopExceededError
  | McpInputRefusedError
  | McpProbeStalledError
  | McpAuthError
  | McpToolQuarantinedError

/**
 * What one request on the wire can fail with (an `EraResolver`'s probe requests among them): no answer in time,
 * an error answer, an answer that is not one, or no connection.
 *
 * @since 0.3.0
 * @category errors
 */
export type McpRequestError =
  | McpProtocolError
  | McpTimeoutError
  | McpServerGoneError
  | McpClosedError
  | McpTransportError
  | McpAuthError
  | McpInvalidResponseError

/**
 * @since 0.1.0
 * @category guards
 */
export const isMcpClientError = (u: unknown): u is McpClientError =>
  typeof u === "object" && u !== null && TypeId in u
