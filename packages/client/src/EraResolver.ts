/**
 * Works out which protocol era a server speaks. The client runs it once per connection, on the first call that
 * needs the answer, shares it between concurrent first calls and remembers it for the connection's life.
 *
 * The probe (`auto`): `server/discover` with the full modern `_meta`, under its own `probeTimeout`.
 *
 * - A `DiscoverResult` whose `supportedVersions` overlaps ours: modern, at the newest shared version. If it
 *   lists only legacy versions we speak, the server is legacy for us: `initialize` at the newest of those.
 * - `-32022` UnsupportedProtocolVersion: the server is certainly modern. If `data.supported` names a modern
 *   version we speak, probe again at it; if it names only legacy versions, fall back to `initialize`.
 * - Any other JSON-RPC error, a probe timeout, or a reply that is not a `DiscoverResult`: legacy.
 *   `initialize`, check the version that comes back is one we speak, send `notifications/initialized`.
 * - A dead transport is not an era signal. The connection closing, or the caller cancelling, is raised as it
 *   is. One case is handled deliberately: some legacy servers exit when they get a request they do not know
 *   before `initialize`. When the server process exits during the probe, the resolver restarts it once and
 *   goes straight to `initialize`, without probing again; if the restarted server also dies, or does not
 *   answer `initialize`, that failure is raised. Turn this off with `restartOnProbeExit: false`.
 *
 * Over Streamable HTTP (`transportKind: "http"`; the 2026-07-28 specification, Transports, backwards
 * compatibility) the signals are HTTP ones:
 *
 * - Legacy only on a 4xx without a recognised modern error body (`McpTransportError` with a 4xx `status`, or
 *   a JSON-RPC error that is not modern, e.g. the `-32000` "Bad Request" of a sessionful legacy server), or a
 *   non-modern JSON-RPC error on a 2xx (a stateless legacy server's `-32601`).
 * - Modern on a `DiscoverResult`, on `-32022` (retried at a version of `data.supported`), and on `-32601`
 *   with HTTP 404 (a modern server without `server/discover`: modern at the version asked, capabilities
 *   unknown). `-32020`/`-32021` are modern errors and are raised: there is nothing to fall back to.
 * - Raised, never a fallback: a probe timeout, a 5xx (with or without a JSON-RPC body), 401/403/407/408/429
 *   (authorization and rate limits are not era signals), and a server that cannot be reached or whose
 *   response stream broke.
 *
 * `era: "modern"` skips the probe's fallback (any failure is raised); `era: "legacy"` skips the probe.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import type * as Duration from "effect/Duration"
import type * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as internal from "./internal/eraResolver.js"
import type { McpClientError, McpRequestError } from "./McpError.js"
import type { Implementation, JsonObject, ServerCapabilities } from "./McpSchema.js"
import type { Era } from "./McpTransport.js"

/**
 * What the client knows about the server once the era is settled.
 *
 * @since 0.1.0
 * @category models
 */
export interface EraInfo {
  readonly era: Era
  readonly protocolVersion: string
  readonly serverInfo: Implementation | undefined
  readonly capabilities: ServerCapabilities
  readonly instructions: string | undefined
}

/**
 * Which era to use: probe (`auto`, the default), or insist on one.
 *
 * @since 0.1.0
 * @category models
 */
export type EraPreference = "auto" | "modern" | "legacy"

/**
 * What the resolver may do on the connection it is settling.
 *
 * @since 0.1.0
 * @category models
 */
export interface ProbeContext {
  /** Send a request with the era and version given (the modern `_meta` is added by the caller of `request`). */
  readonly request: (
    method: string,
    params: JsonObject | undefined,
    options: {
      readonly era: Era
      readonly protocolVersion: string
      readonly timeout: Duration.Duration
      readonly limit: "request" | "probe"
      readonly cancellable: boolean
    }
  ) => Effect.Effect<unknown, McpRequestError>
  readonly notify: (
    method: string,
    params: JsonObject | undefined,
    options: { readonly era: Era; readonly protocolVersion: string }
  ) => Effect.Effect<void, McpClientError>
  /** The `params._meta` of a modern request at this version. */
  readonly modernMeta: (protocolVersion: string) => JsonObject
  /** The `initialize` params at this version. */
  readonly initializeParams: (protocolVersion: string) => JsonObject
  /** Restart the server (stdio): a fresh connection; later requests go to it. */
  readonly restart: Effect.Effect<void, McpClientError>
  readonly preference: EraPreference
  /** Which transport the connection uses: HTTP detection reads 4xx bodies, stdio probes with a timeout. */
  readonly transportKind: "stdio" | "http" | "memory"
  readonly probeTimeout: Duration.Duration
  readonly requestTimeout: Duration.Duration
  readonly restartOnProbeExit: boolean
  /**
   * Memory transport only: the real time after which a `server/discover` left unanswered while the client's clock
   * stood still (a `TestClock`) fails with `McpProbeStalledError` instead of hanging.
   */
  readonly probeWatchdog?: Duration.Duration | undefined
}

/**
 * @since 0.1.0
 * @category models
 */
export interface Service {
  readonly resolve: (context: ProbeContext) => Effect.Effect<EraInfo, McpClientError>
}

/**
 * @since 0.1.0
 * @category services
 */
export class EraResolver extends Context.Service<EraResolver, Service>()("@mcp-effect/client/EraResolver") {}

/**
 * The spec's resolver: probe with `server/discover`, fall back to `initialize` only on the allowed signals.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make: Service = { resolve: internal.resolve }

/**
 * @since 0.1.0
 * @category layers
 */
export const layer: Layer.Layer<EraResolver> = Layer.succeed(EraResolver, make)

