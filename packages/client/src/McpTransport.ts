/**
 * How the client reaches a server. A transport is a factory of connections: `connect` opens one (spawns a
 * process, or prepares an HTTP endpoint) inside a `Scope`, and closing that scope shuts it down. The client
 * calls `connect` again to restart a server that died.
 *
 * A connection is message-oriented, not byte-oriented:
 *
 * - `send(message, context)` writes one JSON-RPC message. It runs in a `Scope` that lives exactly as long as
 *   the request it carries: a transport whose answers come on a per-request stream (Streamable HTTP) ties that
 *   stream to the scope, so closing it closes the stream, which is how a modern HTTP request is cancelled.
 *   `context` carries what a transport needs beyond the body: the era and protocol version (HTTP headers) and
 *   extra headers (`Mcp-Param-*`).
 * - `incoming` is every frame the server sends, as JSON text, whichever stream it came on (stdout lines, HTTP
 *   bodies, SSE `data`). The client decodes and correlates them, so stdio and HTTP share one JSON-RPC peer.
 * - `ended` says why the connection ended: the server went away, or the client closed it.
 *
 * @since 0.1.0
 */
import type * as CommandExecutor from "@effect/platform/CommandExecutor"
import type * as HttpClient from "@effect/platform/HttpClient"
import * as Context from "effect/Context"
import type * as Duration from "effect/Duration"
import type * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Scope from "effect/Scope"
import type * as Stream from "effect/Stream"
import * as http from "./internal/httpTransport.js"
import * as memory from "./internal/memoryTransport.js"
import * as stdio from "./internal/stdioTransport.js"
import type { McpClosedError, McpServerGoneError, McpTransportError } from "./McpError.js"
import type { JsonObject, OutboundMessage } from "./McpSchema.js"

/**
 * Protocol era of a connection.
 *
 * @since 0.1.0
 * @category models
 */
export type Era = "modern" | "legacy"

/**
 * What a transport is told about the message it sends.
 *
 * @since 0.1.0
 * @category models
 */
export interface SendContext {
  /** The era, once known (the probe itself is sent as modern). */
  readonly era?: Era | undefined
  /** The protocol version the message is sent under. */
  readonly protocolVersion?: string | undefined
  /** Extra transport-level headers for this message (HTTP: `Mcp-Param-*`); stdio ignores them. */
  readonly headers?: Readonly<Record<string, string>> | undefined
}

/**
 * One open connection to a server.
 *
 * @since 0.1.0
 * @category models
 */
export interface Connection {
  readonly kind: "stdio" | "http" | "memory"
  /** Write one message; a request's response stream (if the transport has one) lives in the current scope. */
  readonly send: (
    message: OutboundMessage,
    context: SendContext
  ) => Effect.Effect<void, McpTransportError | McpServerGoneError | McpClosedError, Scope.Scope>
  /** Every frame the server sends, as JSON text. Ends when the connection ends. */
  readonly incoming: Stream.Stream<string>
  /** Completes when the connection has ended, with the reason. */
  readonly ended: Effect.Effect<McpServerGoneError | McpClosedError>
  /** `true` where closing a request's response stream is its cancellation, so no notification is sent. */
  readonly cancelsByClosingStream: (era: Era) => boolean
}

/**
 * @since 0.1.0
 * @category models
 */
export interface Service {
  /** Open a new connection; closing the scope shuts it down. */
  readonly connect: Effect.Effect<Connection, McpTransportError, Scope.Scope>
}

/**
 * @since 0.1.0
 * @category tags
 */
export class McpTransport extends Context.Tag("@mcp-effect/client/McpTransport")<McpTransport, Service>() {}

/**
 * Which of the parent process's environment variables a spawned server inherits.
 *
 * - `"safe"` (default): a small set that programs need to run (`PATH`, `HOME`, `USER`, `SHELL`, `TERM`, locale,
 *   temp dir, ...), so secrets in the parent's environment do not leak to a third-party server.
 * - `"all"`: everything.
 * - `"none"`: nothing but the caller's `env`.
 *
 * @since 0.1.0
 * @category models
 */
export type InheritEnv = "safe" | "all" | "none"

/**
 * How to start a server over stdio. No shell is involved: `command` is executed directly with `args`.
 *
 * @since 0.1.0
 * @category models
 */
export interface StdioOptions {
  readonly command: string
  readonly args?: ReadonlyArray<string> | undefined
  /** Merged over the inherited variables. */
  readonly env?: Readonly<Record<string, string>> | undefined
  readonly inheritEnv?: InheritEnv | undefined
  readonly cwd?: string | undefined
  /** How long to wait for the server to exit after its stdin is closed, and again after SIGTERM (default 2 s). */
  readonly shutdownTimeout?: Duration.DurationInput | undefined
  /** How many bytes of the server's stderr to keep for error reports (default 8 KiB). */
  readonly stderrTailBytes?: number | undefined
}

/**
 * The environment variables a spawned server inherits by default.
 *
 * @since 0.1.0
 * @category constants
 */
export const SAFE_ENV_KEYS: ReadonlyArray<string> = stdio.SAFE_ENV_KEYS

/**
 * The environment a server started with these options gets.
 *
 * @since 0.1.0
 * @category constructors
 */
export const childEnvironment: (options: StdioOptions) => Record<string, string> = stdio.childEnvironment

/**
 * A transport that spawns the server as a child process and frames newline-delimited JSON over its stdio.
 * Shutdown follows the spec: close stdin, wait; SIGTERM, wait; SIGKILL.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerStdio = (options: StdioOptions): Layer.Layer<McpTransport, never, CommandExecutor.CommandExecutor> =>
  Layer.effect(McpTransport, stdio.make(options))

/**
 * The server side of an in-memory connection, for tests.
 *
 * @since 0.1.0
 * @category models
 */
export interface MemoryServer {
  /** Called with every message the client sends. */
  readonly onMessage: (message: JsonObject, peer: MemoryPeer) => Effect.Effect<void>
  /** Called once per connection, e.g. to start unsolicited notifications. */
  readonly onConnect?: ((peer: MemoryPeer) => Effect.Effect<void, never, Scope.Scope>) | undefined
}

/**
 * What an in-memory server can do to its client.
 *
 * @since 0.1.0
 * @category models
 */
export interface MemoryPeer {
  /** Send a JSON value (serialised) or a raw frame (a string, sent as it is). */
  readonly send: (message: unknown) => Effect.Effect<void>
  /** End the connection as if the server had died. */
  readonly die: (reason: string) => Effect.Effect<void>
}

/**
 * An in-memory transport whose server is a function: for tests of the client's logic without processes.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerMemory = (server: MemoryServer): Layer.Layer<McpTransport> =>
  Layer.succeed(McpTransport, memory.make(server))

/**
 * Where and how to reach a Streamable HTTP server.
 *
 * @since 0.1.0
 * @category models
 */
export interface HttpOptions {
  /** The MCP endpoint, e.g. `https://example.com/mcp`. */
  readonly url: string | URL
  /** Sent on every HTTP request (e.g. `Authorization: Bearer …`); the transport's own headers win. */
  readonly headers?: Readonly<Record<string, string>> | undefined
  /**
   * How long to wait for the status and headers of any HTTP response (default: no limit of its own; the
   * request timeout applies). A server that sends its JSON answer only when done needs the whole call's time.
   */
  readonly fetchTimeout?: Duration.DurationInput | undefined
  /** Legacy: open the GET stream for server-initiated messages after initialization (default true). */
  readonly getStream?: boolean | undefined
  /** Legacy SSE resumption: the delay when the server sent no `retry` (default 1 s), doubled per failed try. */
  readonly reconnectDelay?: Duration.DurationInput | undefined
  /** The longest delay between reconnection attempts (default 30 s). */
  readonly maxReconnectDelay?: Duration.DurationInput | undefined
  /** How many times in a row a dropped legacy stream is resumed before giving up (default 3). */
  readonly maxReconnectAttempts?: number | undefined
  /** How long the `DELETE` that ends a legacy session may take when the connection closes (default 2 s). */
  readonly closeTimeout?: Duration.DurationInput | undefined
  /**
   * Authorization seam (e.g. `McpAuth`): asked for extra headers before every HTTP request and handed every
   * 401/403 answer to a POST; when it says so the POST is sent again with fresh headers (at most 3 times).
   */
  readonly authorization?: HttpAuthorization | undefined
}

/**
 * One HTTP request as the authorization seam sees it.
 *
 * @since 0.1.0
 * @category models
 */
export interface HttpAuthRequest {
  readonly method: string
  readonly url: URL
}

/**
 * What a transport asks of an authorization provider. Its failures are `McpTransportError`s (an OAuth failure
 * is carried as their `cause`).
 *
 * @since 0.1.0
 * @category models
 */
export interface HttpAuthorization {
  /** Headers for this request (`Authorization`, `DPoP`); they win over `headers`. */
  readonly headers: (request: HttpAuthRequest) => Effect.Effect<Readonly<Record<string, string>>, McpTransportError>
  /**
   * A 401 or 403 answer to a request sent with `sent` (what `headers` gave it): `true` to send it again.
   */
  readonly onChallenge: (
    request: HttpAuthRequest,
    sent: Readonly<Record<string, string>>,
    response: { readonly status: number; readonly headers: Readonly<Record<string, string>> }
  ) => Effect.Effect<boolean, McpTransportError>
}

/**
 * A transport over Streamable HTTP, for both eras.
 *
 * - Modern: one POST per message with `MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name` (encoded as the spec
 *   says) and the message's own headers (`Mcp-Param-*`); no session, no GET stream, no resumption. Closing a
 *   request's scope aborts its HTTP request, which is its cancellation.
 * - Legacy: `Mcp-Session-Id` from `initialize` on every later request, `MCP-Protocol-Version` after it, the
 *   GET stream, SSE resumption with `Last-Event-ID` and the server's `retry`, `DELETE` on close; cancellation is
 *   `notifications/cancelled`.
 * - A response stream that drops before the response fails the request with `McpServerGoneError` (it is lost,
 *   never re-sent); a 404 to a legacy request carrying the session id ends the connection with
 *   `McpServerGoneError` ("session expired"), so the client re-initializes on a fresh one; other HTTP failures
 *   are `McpTransportError` with the `status` (none when no server answered). A non-2xx answer carrying a
 *   JSON-RPC error is that error (`McpProtocolError` with `httpStatus`).
 *
 * @since 0.1.0
 * @category layers
 */
export const layerHttp = (options: HttpOptions): Layer.Layer<McpTransport, never, HttpClient.HttpClient> =>
  Layer.effect(McpTransport, http.make(options))
