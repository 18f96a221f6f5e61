/**
 * The era resolver's implementation: the probe, its fallbacks over stdio and over HTTP, and the legacy
 * handshake.
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import type { RequestError } from "./transport/peer.js"
import {
  McpInvalidResponseError,
  type McpProtocolError,
  type McpServerGoneError,
  McpUnsupportedVersionError,
  type McpClientError
} from "../McpError.js"
import {
  decodeWire,
  DiscoverResult,
  ErrorCode,
  field,
  Implementation,
  InitializeResult,
  LEGACY_VERSIONS,
  MetaKey,
  MODERN_VERSIONS,
  UnsupportedVersionData
} from "../McpSchema.js"
import type { EraInfo, ProbeContext } from "../EraResolver.js"
import { watch } from "./probeWatchdog.js"

const decodeUnsupported = Schema.decodeUnknownOption(UnsupportedVersionData)
const decodeImplementation = Schema.decodeUnknownOption(Implementation)
const decodeInitializeResult = decodeWire(InitializeResult)
const decodeDiscoverResult = decodeWire(DiscoverResult)

const newestShared = (theirs: ReadonlyArray<string>, ours: ReadonlyArray<string>): Option.Option<string> =>
  Option.fromNullishOr(ours.find((version) => theirs.includes(version)))

const SUPPORTED = [...MODERN_VERSIONS, ...LEGACY_VERSIONS]

/** How many times one settlement may go to the modern probe (the first, and retries at `-32022`'s versions). */
const MAX_PROBES = 1 + MODERN_VERSIONS.length

const legacy = (
  context: ProbeContext,
  version: string = LEGACY_VERSIONS[0] ?? "2025-11-25",
  attempts = MAX_PROBES
): Effect.Effect<EraInfo, McpClientError> =>
  // Suspended: the request must go to the connection current when it runs (after a restart, the new one).
  Effect.suspend(() =>
    context.request("initialize", context.initializeParams(version), {
      era: "legacy",
      protocolVersion: version,
      timeout: context.requestTimeout,
      limit: "request",
      cancellable: false
    })
  ).pipe(
    Effect.matchEffect({
      onFailure: (error) => backToModern(context, error, attempts) ?? Effect.fail(error),
      onSuccess: (raw) => initialized(context, raw)
    })
  )

/**
 * The fallback was wrong when `initialize` gets `-32022` naming a modern version we speak: the server is modern
 * (e.g. it started slower than the probe timeout). Back to the modern path at that version, within the bound.
 */
const backToModern = (context: ProbeContext, error: RequestError, attempts: number) => {
  if (error._tag !== "McpProtocolError" || error.code !== ErrorCode.UnsupportedProtocolVersion) return undefined
  if (attempts >= MAX_PROBES || context.preference === "legacy") return undefined
  const supported = Option.getOrUndefined(decodeUnsupported(error.data))
  const modern = supported === undefined ? Option.none<string>() : newestShared(supported.supported, MODERN_VERSIONS)
  return Option.isSome(modern) ? probe(context, modern.value, attempts + 1) : undefined
}

const initialized = (context: ProbeContext, raw: unknown) =>
  Effect.gen(function*() {
    const result = yield* decodeInitializeResult(raw).pipe(
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
    const result = yield* decodeDiscoverResult(raw).pipe(Effect.option)
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

const discover = (context: ProbeContext, version: string) => {
  const request = context.request("server/discover", { _meta: context.modernMeta(version) }, {
    era: "modern",
    protocolVersion: version,
    timeout: context.probeTimeout,
    limit: "probe",
    cancellable: true
  })
  return context.transportKind === "memory" ? watch(request, context.probeWatchdog, context.probeTimeout) : request
}

const probe = (context: ProbeContext, version: string, attempts: number): Effect.Effect<EraInfo, McpClientError> =>
  discover(context, version).pipe(
    Effect.matchEffect({
      onSuccess: (raw) =>
        fromDiscover(context, raw).pipe(
          Effect.flatMap(Option.getOrElse(() =>
            context.preference === "modern"
              ? Effect.fail(
                new McpInvalidResponseError({ method: "server/discover", reason: "not a DiscoverResult", response: raw })
              )
              : legacy(context, undefined, attempts)
          ))
        ),
      onFailure: (error): Effect.Effect<EraInfo, McpClientError> => {
        if (error._tag === "McpProbeStalledError") return Effect.fail(error)
        if (context.transportKind === "http") return onHttpProbeFailure(context, error, version, attempts)
        switch (error._tag) {
          case "McpProtocolError":
            return onProbeError(context, error, attempts)
          case "McpTimeoutError":
            return context.preference === "modern" ? Effect.fail(error) : legacy(context, undefined, attempts)
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
      if (Option.isSome(modern) && attempts < MAX_PROBES) {
        return probe(context, modern.value, attempts + 1)
      }
      const old = newestShared(supported.supported, LEGACY_VERSIONS)
      if (Option.isSome(old)) return legacy(context, old.value)
      return Effect.fail(new McpUnsupportedVersionError({ offered: supported.supported, supported: SUPPORTED }))
    }
  }
  return context.preference === "modern" ? Effect.fail(error) : legacy(context, undefined, attempts)
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
 * Streamable HTTP detection (the 2026-07-28 specification, Transports, backwards compatibility): only a 4xx without a recognised modern error (or a non-modern
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
      Effect.andThen(context.restart),
      Effect.andThen(legacy(context))
    )
    : Effect.fail(error)

/** @internal */
export const resolve = (context: ProbeContext): Effect.Effect<EraInfo, McpClientError> =>
  context.preference === "legacy" ? legacy(context) : probe(context, MODERN_VERSIONS[0] ?? "2026-07-28", 0)
