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
 * Over Streamable HTTP (`transportKind: "http"`, CLIENT.md §2.5) the signals are HTTP ones:
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
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import type { RequestError } from "./internal/transport/peer.js"
import {
  McpInvalidResponseError,
  type McpProtocolError,
  type McpServerGoneError,
  McpUnsupportedVersionError,
  type McpClientError
} from "./McpError.js"
import {
  decodeWire,
  DiscoverResult,
  ErrorCode,
  field,
  Implementation,
  InitializeResult,
  type JsonObject,
  LEGACY_VERSIONS,
  MetaKey,
  MODERN_VERSIONS,
  type ServerCapabilities,
  UnsupportedVersionData
} from "./McpSchema.js"
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
  ) => Effect.Effect<unknown, RequestError>
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
 * @category tags
 */
export class EraResolver extends Context.Tag("@mcp-effect/client/EraResolver")<EraResolver, Service>() {}

const decodeUnsupported = Schema.decodeUnknownOption(UnsupportedVersionData)
const decodeImplementation = Schema.decodeUnknownOption(Implementation, { onExcessProperty: "preserve" })

const newestShared = (theirs: ReadonlyArray<string>, ours: ReadonlyArray<string>): Option.Option<string> =>
  Option.fromNullable(ours.find((version) => theirs.includes(version)))

const SUPPORTED = [...MODERN_VERSIONS, ...LEGACY_VERSIONS]

const legacy = (context: ProbeContext, version: string = LEGACY_VERSIONS[0] ?? "2025-11-25") =>
  Effect.gen(function*() {
    const raw = yield* context.request("initialize", context.initializeParams(version), {
      era: "legacy",
      protocolVersion: version,
      timeout: context.requestTimeout,
      limit: "request",
      cancellable: false
    })
    const result = yield* decodeWire(InitializeResult)(raw).pipe(
      Effect.mapError((e) => new McpInvalidResponseError({ method: "initialize", reason: e.message, response: raw }))
    )
    if (!LEGACY_VERSIONS.includes(result.protocolVersion)) {
      return yield* new McpUnsupportedVersionError({ offered: [result.protocolVersion], supported: LEGACY_VERSIONS })
    }
    yield* context.notify("notifications/initialized", undefined, {
      era: "legacy",
      protocolVersion: result.protocolVersion
    })
    const info: EraInfo = {
      era: "legacy",
      protocolVersion: result.protocolVersion,
      serverInfo: result.serverInfo,
      capabilities: result.capabilities,
      instructions: result.instructions
    }
    return info
  })

const fromDiscover = (context: ProbeContext, raw: unknown) =>
  Effect.gen(function*() {
    const result = yield* decodeWire(DiscoverResult)(raw).pipe(Effect.option)
    if (Option.isNone(result)) return Option.none<Effect.Effect<EraInfo, McpClientError>>()
    const discovered = result.value
    const modern = newestShared(discovered.supportedVersions, MODERN_VERSIONS)
    if (Option.isSome(modern)) {
      const info: EraInfo = {
        era: "modern",
        protocolVersion: modern.value,
        serverInfo: Option.getOrUndefined(decodeImplementation(field(discovered._meta, MetaKey.serverInfo))),
        capabilities: discovered.capabilities,
        instructions: discovered.instructions
      }
      return Option.some(Effect.succeed(info))
    }
    return Option.some(
      Option.match(newestShared(discovered.supportedVersions, LEGACY_VERSIONS), {
        onNone: () =>
          Effect.fail(new McpUnsupportedVersionError({ offered: discovered.supportedVersions, supported: SUPPORTED })),
        onSome: (version) => legacy(context, version)
      })
    )
  })

const probe = (context: ProbeContext, version: string, attempts: number): Effect.Effect<EraInfo, McpClientError> =>
  context.request("server/discover", { _meta: context.modernMeta(version) }, {
    era: "modern",
    protocolVersion: version,
    timeout: context.probeTimeout,
    limit: "probe",
    cancellable: true
  }).pipe(
    Effect.matchEffect({
      onSuccess: (raw) =>
        fromDiscover(context, raw).pipe(
          Effect.flatMap(Option.getOrElse(() =>
            context.preference === "modern"
              ? Effect.fail(
                new McpInvalidResponseError({ method: "server/discover", reason: "not a DiscoverResult", response: raw })
              )
              : legacy(context)
          ))
        ),
      onFailure: (error): Effect.Effect<EraInfo, McpClientError> => {
        if (context.transportKind === "http") return onHttpProbeFailure(context, error, version, attempts)
        switch (error._tag) {
          case "McpProtocolError":
            return onProbeError(context, error, attempts)
          case "McpTimeoutError":
            return context.preference === "modern" ? Effect.fail(error) : legacy(context)
          case "McpServerGoneError":
            return onProbeExit(context, error)
          default:
            return Effect.fail(error)
        }
      }
    })
  )

const onProbeError = (context: ProbeContext, error: McpProtocolError, attempts: number) => {
  if (error.code === ErrorCode.UnsupportedProtocolVersion) {
    const supported = Option.getOrUndefined(decodeUnsupported(error.data))
    if (supported !== undefined) {
      // Retry at the newest shared modern version. It may be the one just refused: a stateless deployment
      // can route the retry to another instance; one retry settles it.
      const modern = newestShared(supported.supported, MODERN_VERSIONS)
      if (Option.isSome(modern) && attempts < 1 + MODERN_VERSIONS.length) {
        return probe(context, modern.value, attempts + 1)
      }
      const old = newestShared(supported.supported, LEGACY_VERSIONS)
      if (Option.isSome(old)) return legacy(context, old.value)
      return Effect.fail(new McpUnsupportedVersionError({ offered: supported.supported, supported: SUPPORTED }))
    }
  }
  return context.preference === "modern" ? Effect.fail(error) : legacy(context)
}

/** HTTP statuses that say nothing about the era: authorization, rate limits, timeouts. */
const NOT_AN_ERA_SIGNAL: ReadonlySet<number> = new Set([401, 403, 407, 408, 429])

/** A 4xx that says "not a modern endpoint": the legacy fallback's trigger. */
const isLegacyStatus = (status: number | undefined) =>
  status !== undefined && status >= 400 && status < 500 && !NOT_AN_ERA_SIGNAL.has(status)

/** The errors only a modern server sends (a `-32022` is handled before, with its `supported` list). */
const MODERN_CODES: ReadonlySet<number> = new Set([
  ErrorCode.HeaderMismatch,
  ErrorCode.MissingRequiredClientCapability,
  ErrorCode.UnsupportedProtocolVersion
])

/**
 * Streamable HTTP detection (CLIENT.md §2.5): only a 4xx without a recognised modern error (or a non-modern
 * JSON-RPC error on a 2xx, from a stateless legacy server) means legacy. A probe timeout, a 5xx, an
 * authorization challenge, or a server that cannot be reached is an error, never a fallback.
 */
const onHttpProbeFailure = (context: ProbeContext, error: RequestError, version: string, attempts: number) => {
  const fallback = context.preference === "modern" ? Effect.fail(error) : legacy(context)
  switch (error._tag) {
    case "McpProtocolError": {
      const status = error.httpStatus
      if (error.code === ErrorCode.UnsupportedProtocolVersion && decodeUnsupported(error.data)._tag === "Some") {
        return onProbeError(context, error, attempts)
      }
      // A recognised modern error: the server is modern but refuses this request; nothing to fall back to.
      if (MODERN_CODES.has(error.code)) return Effect.fail(error)
      // A 404 carrying -32601 is a modern server without `server/discover` (a legacy 404 has no JSON-RPC body).
      if (error.code === ErrorCode.MethodNotFound && status === 404) return modernWithoutDiscover(version)
      if (status !== undefined && (status >= 500 || NOT_AN_ERA_SIGNAL.has(status))) return Effect.fail(error)
      return fallback
    }
    case "McpTransportError":
      return error.reason === "Http" && isLegacyStatus(error.status) ? fallback : Effect.fail(error)
    default:
      return Effect.fail(error)
  }
}

const modernWithoutDiscover = (version: string) =>
  Effect.logDebug("the server answered server/discover with HTTP 404 and -32601: modern, without discovery").pipe(
    Effect.as<EraInfo>({
      era: "modern",
      protocolVersion: version,
      serverInfo: undefined,
      capabilities: {},
      instructions: undefined
    })
  )

const onProbeExit = (context: ProbeContext, error: McpServerGoneError) =>
  context.restartOnProbeExit && context.preference === "auto"
    ? Effect.logDebug("the server exited on server/discover; restarting it once and using initialize").pipe(
      Effect.zipRight(context.restart),
      Effect.zipRight(legacy(context))
    )
    : Effect.fail(error)

/**
 * The spec's resolver: probe with `server/discover`, fall back to `initialize` only on the allowed signals.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make: Service = {
  resolve: (context) =>
    context.preference === "legacy" ? legacy(context) : probe(context, MODERN_VERSIONS[0] ?? "2026-07-28", 0)
}

/**
 * @since 0.1.0
 * @category layers
 */
export const layer: Layer.Layer<EraResolver> = Layer.succeed(EraResolver, make)

