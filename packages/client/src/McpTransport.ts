/**
 * How the client reaches a server. A transport is a factory of connections: `connect` opens one (spawns a
 * process, or prepares an HTTP endpoint) inside a `Scope`, and closing that scope shuts it down. The client
 * calls `connect` again to restart a server that died.
 *
 * A connection is message-oriented, not byte-oriented:
 *
 * - `send(message, context, scope)` writes one JSON-RPC message. `scope` lives exactly as long as the request
 *   it carries: a transport whose answers come on a per-request stream (Streamable HTTP) ties that stream to
 *   the scope, so closing it closes the stream, which is how a modern HTTP request is cancelled.
 *   Sending a request never waits for its answer. `context` carries what a transport needs beyond the body:
 *   the era and protocol version (HTTP headers) and extra headers (`Mcp-Param-*`).
 * - `receive(receiver)` hands every message the server sends to the client's `Receiver`, decoded from JSON
 *   once, with what the transport knows about it beside it (for HTTP: the status of the response that carried
 *   it, and which request's response body it came in). The client correlates answers with requests; a
 *   transport keeps no map of requests of its own.
 * - `ended` says why the connection ended: the server went away, or the client closed it.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import { loadHttp, loadStdio } from "#transports"
import type * as HttpClient from "effect/http/HttpClient"
import * as Layer from "effect/Layer"
import type * as ChildProcessSpawner from "effect/process/ChildProcessSpawner"
import type * as Scope from "effect/Scope"
import * as environment from "./internal/transport/environment.js"
import * as memory from "./internal/transport/memory.js"
import { httpScope, stdioScope } from "./internal/pinning/scope.js"
import type { McpAuthError } from "./McpAuthError.js"
import type { McpClosedError, McpInvalidResponseError, McpServerGoneError, McpTransportError } from "./McpError.js"
import type { JsonObject, OutboundMessage, RequestId } from "./McpSchema.js"

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
 * What a transport knows about a message beside its JSON.
 *
 * @since 0.1.0
 * @category models
 */
export interface MessageMeta {
  /** HTTP: the status of the response whose body carried the message. */
  readonly httpStatus?: number | undefined
  /**
   * HTTP: the request whose response body carried the message. An error without an id there is that
   * request's answer.
   */
  readonly inReplyTo?: RequestId | undefined
}

/**
 * Where a connection hands what the server sends. Called synchronously on the transport's reader, in arrival
 * order; it must not block.
 *
 * @since 0.1.0
 * @category models
 */
export interface Receiver {
  /** One JSON-RPC message, parsed once (a batch is handed over message by message). */
  readonly message: (message: unknown, meta?: MessageMeta) => void
  /** A frame that is not JSON. */
  readonly malformed: (frame: string, reason: string) => void
  /**
   * The answer to this request will never come: its HTTP request failed, its response stream broke, or it was
   * past `maxMessageBytes` and was dropped (`McpInvalidResponseError`).
   */
  readonly failed: (
    requestId: RequestId,
    error: McpTransportError | McpAuthError | McpServerGoneError | McpInvalidResponseError
  ) => void
}

/**
 * One open connection to a server.
 *
 * @since 0.1.0
 * @category models
 */
export interface Connection {
  readonly kind: "stdio" | "http" | "memory"
  /**
   * Write one message. A request's response stream (if the transport has one) lives in `scope` (the
   * connection's own when none is given): closing it aborts the request.
   */
  readonly send: (
    message: OutboundMessage,
    context: SendContext,
    scope?: Scope.Scope
  ) => Effect.Effect<void, McpTransportError | McpAuthError | McpServerGoneError | McpClosedError>
  /**
   * Start handing what the server sends to `receiver` (called once; a reader it needs lives in the scope).
   * Everything received before the connection ends is handed over before `ended` completes.
   */
  readonly receive: (receiver: Receiver) => Effect.Effect<void, never, Scope.Scope>
  /** Completes when the connection has ended, with the reason. */
  readonly ended: Effect.Effect<McpServerGoneError | McpClosedError>
  /** `true` where closing a request's response stream is its cancellation, so no notification is sent. */
  readonly cancelsByClosingStream: (era: Era) => boolean
  /**
   * `false` when `send` never uses a request's scope (stdio, memory), so the client makes none per request
   * (default `true`).
   */
  readonly scopedSend?: boolean | undefined
  /**
   * stdio: while the server has not written a byte on stdout, the tail of its stderr (cleaned of secrets);
   * `undefined` once it has. A request that times out with such a server says so (`McpTimeoutError.silentServer`).
   */
  readonly silentStderr?: Effect.Effect<string | undefined> | undefined
  /** Memory transport: the probe's real-time watchdog (see `MemoryOptions`). */
  readonly probeWatchdog?: Duration.Duration | undefined
  /**
   * HTTP with an authorizer: the client hands over its deadlines of the connection, which the authorizer
   * holds while it signs in (see `HttpAuthorizer.holdDuring`), for the life of the scope.
   */
  readonly holdDeadlines?: ((holds: DeadlineHolds) => Effect.Effect<void, never, Scope.Scope>) | undefined
}

/**
 * The client's deadlines of one connection, as something that is not the requests' own work may hold them:
 * between `pause` and `resume` no request, probe or call budget of the connection times out, and afterwards
 * each has the time it had left. Holds nest; every `pause` is matched by one `resume`.
 *
 * @since 0.1.0
 * @category models
 */
export interface DeadlineHolds {
  readonly pause: () => void
  readonly resume: () => void
}

/**
 * @since 0.1.0
 * @category models
 */
export interface Service {
  /** Open a new connection; closing the scope shuts it down. */
  readonly connect: Effect.Effect<Connection, McpTransportError, Scope.Scope>
  /**
   * What the client was told to connect to, in words the server cannot choose: a stdio server's command line,
   * an HTTP endpoint's origin and path (never credentials or a query). Tool pinning's default scope (see
   * `McpPinning`); a transport without one leaves pinning to `pinning.scope`.
   */
  readonly identity?: string | undefined
}

/**
 * @since 0.1.0
 * @category services
 */
export class McpTransport extends Context.Service<McpTransport, Service>()("@mcp-effect/client/McpTransport") {}

/**
 * Which of the parent process's environment variables a spawned server inherits.
 *
 * - `"safe"` (default): a small set that programs need to run (`PATH`, `HOME`, `USER`, `SHELL`, `TERM`, locale,
 *   temp dir, ...) and to reach the network as the user does (the proxy variables `HTTPS_PROXY`, `HTTP_PROXY`,
 *   `ALL_PROXY`, `NO_PROXY` in either case, the certificate variables `NODE_EXTRA_CA_CERTS`, `SSL_CERT_FILE`,
 *   `SSL_CERT_DIR`, `REQUESTS_CA_BUNDLE`, `CURL_CA_BUNDLE`, and npm's registry, cafile and proxy settings, so that
 *   an `npx -y` or `uvx` server can fetch its package), so secrets in the parent's environment do not leak to a
 *   third-party server. The password of a URL in the server's environment (`http://user:password@proxy`) is
 *   kept out of errors and stderr tails, as `secrets` are.
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
  /**
   * How errors name the server (default: the command line). `McpConfig` gives the entry's command line as
   * written, so what a `${VAR}` stood for is not repeated in errors.
   */
  readonly description?: string | undefined
  /**
   * Values that never reach an error: wherever the server's JSON-RPC errors (message and data), a line it
   * writes that is not JSON, its stderr tail, or the error of a command that cannot start would show one (also
   * percent- or base64-encoded), `[redacted]` is shown instead. `McpConfig` gives what an entry's `${VAR}`
   * references stood for. Values shorter than 6 characters are not looked for.
   */
  readonly secrets?: ReadonlyArray<string> | undefined
  /** Merged over the inherited variables. */
  readonly env?: Readonly<Record<string, string>> | undefined
  readonly inheritEnv?: InheritEnv | undefined
  readonly cwd?: string | undefined
  /** How long to wait for the server to exit after its stdin is closed, and again after SIGTERM (default 2 s). */
  readonly shutdownTimeout?: Duration.Input | undefined
  /** How many bytes of the server's stderr to keep for error reports (default 8 KiB). */
  readonly stderrTailBytes?: number | undefined
  /**
   * The largest message the server may send, in bytes (default 16 MiB). A longer stdout line is dropped while
   * it streams past (never held in memory), with a diagnostic, and the request it answers fails with
   * `McpInvalidResponseError`.
   */
  readonly maxMessageBytes?: number | undefined
  /**
   * How many bytes may wait to be written to a server that does not read its stdin (default 64 MiB). Writes
   * honour the pipe's backpressure; a message that would go past this fails at once with `McpTransportError`
   * (`Write`), and a request that timed out or was interrupted before it was written is never written.
   */
  readonly maxQueuedBytes?: number | undefined
}



/**
 * The environment variables a spawned server inherits by default.
 *
 * @since 0.1.0
 * @category constants
 */
export const SAFE_ENV_KEYS: ReadonlyArray<string> = environment.SAFE_ENV_KEYS

/**
 * The environment a server started with these options gets.
 *
 * @since 0.1.0
 * @category constructors
 */
export const childEnvironment: (options: StdioOptions) => Record<string, string> = environment.childEnvironment

/**
 * A transport that spawns the server as a child process (`effect/process`: provide a `ChildProcessSpawner`, e.g.
 * `NodeServices.layer`) and frames newline-delimited JSON over its stdio. The server runs in a process group
 * of its own, which the spawner owns. Shutdown follows the spec: close stdin, wait; SIGTERM to the group, wait;
 * SIGKILL; then whatever is left of the group (children of a server that exited by itself) is ended the same
 * way. That happens when the scope closes: run the program with `NodeRuntime.runMain` (or another `runMain`),
 * which closes it when this process is told to stop. (`NodeMcpClient.layerStdio` also ends its servers' groups
 * on a signal that nothing else handles, and on exit.)
 *
 * @since 0.1.0
 * @category layers
 */
export const layerStdio = (
  options: StdioOptions
): Layer.Layer<McpTransport, never, ChildProcessSpawner.ChildProcessSpawner> =>
  Layer.effect(
    McpTransport,
    Effect.flatMap(Effect.promise(loadStdio), (stdio) =>
      Effect.map(stdio.make(options), (service) => ({ ...service, identity: stdioScope(options.command, options.args) })))
  )

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
 * Options of the in-memory transport.
 *
 * @since 0.1.0
 * @category models
 */
export interface MemoryOptions {
  /**
   * The real-time watchdog of the era probe (default 3 seconds). A server that ignores `server/discover` would
   * make a test under `TestClock` hang: the probe timeout runs on the test's clock. When this much real time
   * passes without an answer while the client's clock has not moved, the probe fails with
   * `McpProbeStalledError`, which says how to fix the server. Under the live clock it never fires (the probe
   * timeout does). `Duration.infinity` turns it off.
   */
  readonly probeWatchdog?: Duration.Input | undefined
}

/**
 * An in-memory transport whose server is a function: for tests of the client's logic without processes.
 * A server that ignores `server/discover` fails the probe with `McpProbeStalledError` under `TestClock` (see
 * `MemoryOptions.probeWatchdog`) rather than hanging.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerMemory = (server: MemoryServer, options?: MemoryOptions): Layer.Layer<McpTransport> =>
  Layer.succeed(McpTransport, memory.make(server, options))

/**
 * One HTTP request the HTTP transport is about to make (every request it makes goes through one place).
 *
 * @since 0.1.0
 * @category models
 */
export interface HttpRequestInfo {
  readonly method: "GET" | "POST" | "DELETE"
  readonly url: URL
  /** The JSON-RPC method a POST carries (absent for a response to a server request). */
  readonly mcpMethod?: string | undefined
  /** 0 the first time; 1, 2, 3 each time it is sent again because `onChallenge` answered `"retry"`. */
  readonly attempt: number
}

/**
 * A 401 or 403 answer, shown to the `HttpAuthorizer`.
 *
 * @since 0.1.0
 * @category models
 */
export interface HttpChallenge {
  readonly status: number
  /** The response's headers (lower-case names), e.g. `www-authenticate`. */
  readonly headers: Readonly<Record<string, string>>
  readonly request: HttpRequestInfo
  /** The headers the authorizer gave the refused request (tells a stale credential from the current one). */
  readonly sent?: Readonly<Record<string, string>> | undefined
}

/**
 * The head of an HTTP response, shown to `HttpAuthorizer.onResponse`.
 *
 * @since 0.2.0
 * @category models
 */
export interface HttpResponseHead {
  readonly status: number
  /** The response's headers (lower-case names). */
  readonly headers: Readonly<Record<string, string>>
  readonly request: HttpRequestInfo
}

/**
 * The seam for authorization over HTTP (no authorization logic of its own here): asked for extra headers
 * before every HTTP request the transport makes, and handed every 401/403 answer to decide whether that
 * request is sent once more (with fresh headers) or fails as it is (`McpTransportError` with the `status`).
 * Its headers go over `HttpOptions.headers`; the transport's own (`Mcp-*`, `Accept`, `Content-Type`) win.
 * A failure of either function fails the request with that error (`McpAuth`'s is an `McpAuthError`).
 *
 * @since 0.1.0
 * @category models
 */
export interface HttpAuthorizer {
  readonly headers: (
    request: HttpRequestInfo
  ) => Effect.Effect<Readonly<Record<string, string>>, McpTransportError | McpAuthError>
  readonly onChallenge: (challenge: HttpChallenge) => Effect.Effect<"retry" | "fail", McpTransportError | McpAuthError>
  /**
   * Optional: told the head of every HTTP response of the server, whatever its status, as it comes (e.g. to
   * keep a `DPoP-Nonce` for the next request). Synchronous and cheap: it runs on the response path.
   */
  readonly onResponse?: ((response: HttpResponseHead) => void) | undefined
  /**
   * Optional: hold the connection's deadlines (`holds.pause` ... `holds.resume`) while the authorizer works on
   * time of its own, such as a person signing in in a browser, so that it is not charged to the request that
   * met the challenge (nor to the era probe). Called once per connection, for the life of the scope; the
   * authorizer bounds that time itself.
   */
  readonly holdDuring?: ((holds: DeadlineHolds) => Effect.Effect<void, never, Scope.Scope>) | undefined
}

/**
 * Where and how to reach a Streamable HTTP server.
 *
 * @since 0.1.0
 * @category models
 */
export interface HttpOptions {
  /** The MCP endpoint, e.g. `https://example.com/mcp`. */
  readonly url: string | URL
  /**
   * Sent on every HTTP request (e.g. `Authorization: Bearer …`, `X-Api-Key: …`); the transport's own headers win.
   * Their values are secrets (see `secrets`), except those of `Accept`, `Content-Type` and `User-Agent`.
   */
  readonly headers?: Readonly<Record<string, string>> | undefined
  /**
   * Values that never reach an error: wherever the server's JSON-RPC errors (message and data), an HTTP error
   * body, or a failure to reach it would show one (also percent- or base64-encoded), `[redacted]` is shown
   * instead, as for the credentials sent (`Authorization`, `DPoP`, cookies) and the values of `headers`.
   * `McpConfig` gives what an entry's `${VAR}` references stood for. Values shorter than 6 characters are not
   * looked for.
   */
  readonly secrets?: ReadonlyArray<string> | undefined
  /** Asked for headers before every HTTP request and told of every 401/403 (see `HttpAuthorizer`). */
  readonly authorizer?: HttpAuthorizer | undefined
  /**
   * How long to wait for the status and headers of any HTTP response (default: no limit of its own; the
   * request timeout applies). A server that sends its JSON answer only when done needs the whole call's time.
   */
  readonly fetchTimeout?: Duration.Input | undefined
  /** Legacy: open the GET stream for server-initiated messages after initialization (default true). */
  readonly getStream?: boolean | undefined
  /** Legacy SSE resumption: the delay when the server sent no `retry` (default 1 s), doubled per failed try. */
  readonly reconnectDelay?: Duration.Input | undefined
  /** The longest delay between reconnection attempts (default 30 s). */
  readonly maxReconnectDelay?: Duration.Input | undefined
  /**
   * The shortest delay before any reconnection, whatever the server's `retry` says (default 500 ms): a server
   * that sends `retry: 0` and closes cannot make the client reconnect in a loop.
   */
  readonly minReconnectDelay?: Duration.Input | undefined
  /** At most this many reconnections of the legacy streams in any minute (default 30); past it they wait. */
  readonly maxReconnectsPerMinute?: number | undefined
  /**
   * The largest message the server may send, in bytes (default 16 MiB), for JSON bodies and SSE events alike:
   * past it the read stops, a diagnostic is reported and the request it answers fails with
   * `McpInvalidResponseError`.
   */
  readonly maxMessageBytes?: number | undefined
  /** How many times in a row a dropped legacy stream is resumed before giving up (default 3). */
  readonly maxReconnectAttempts?: number | undefined
  /** How long the `DELETE` that ends a legacy session may take when the connection closes (default 2 s). */
  readonly closeTimeout?: Duration.Input | undefined
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
  Layer.effect(
    McpTransport,
    Effect.flatMap(Effect.promise(loadHttp), (http) =>
      Effect.map(http.make(options), (service) => ({ ...service, identity: httpScope(options.url) })))
  )
