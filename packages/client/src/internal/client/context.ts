/**
 * What every part of one client shares: its options read once, its services, its hubs.
 */
import packageJson from "../../../package.json" with { type: "json" }
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as FiberSet from "effect/FiberSet"
import * as PubSub from "effect/PubSub"
import type * as Scope from "effect/Scope"
import * as EraResolver from "../../EraResolver.js"
import * as InputFulfiller from "../../InputFulfiller.js"
import type { ClientOptions } from "../../McpClient.js"
import { McpDiagnostic } from "../../McpDiagnostic.js"
import type { Implementation, Notification } from "../../McpSchema.js"
import * as McpTransport from "../../McpTransport.js"
import * as ResultCache from "../../ResultCache.js"
import * as AppsCapability from "../apps/capability.js"
import { EXTENSION_ID as SKILLS_EXTENSION } from "../skills/entry.js"
import * as Telemetry from "../telemetry.js"

/** The package's version (its `package.json`, the one source), told to servers in `clientInfo`. @internal */
export const CLIENT_VERSION: string = packageJson.version

/** @internal */
export interface ClientContext {
  readonly options: ClientOptions
  readonly transport: McpTransport.Service
  readonly resolver: EraResolver.Service
  readonly fulfiller: InputFulfiller.Service
  readonly cache: ResultCache.Service
  readonly scope: Scope.Scope
  readonly probeTimeout: Duration.Duration
  readonly requestTimeout: Duration.Duration
  readonly maxTotalTimeout: Duration.Duration
  readonly maxPages: number
  readonly maxInputRounds: number
  readonly maxInputRequests: number
  readonly notificationBuffer: number
  readonly clientInfo: Implementation
  readonly instanceId: string
  /** Which server this is, for the cache. */
  readonly namespace: string
  /**
   * How many `notifications/tools/list_changed` the server sent: a pinned client re-lists before calling a tool
   * when one came since its last checked listing (the notice does not say which tool changed).
   */
  readonly listChanges: { tools: number }
  readonly authContext: string
  readonly notifications: PubSub.PubSub<Notification>
  readonly diagnostics: PubSub.PubSub<McpDiagnostic>
  /** Fibers of asynchronous hooks (`onProgress`, `onLog`). */
  readonly hookFibers: FiberSet.FiberSet
  readonly report: (diagnostic: McpDiagnostic) => Effect.Effect<void>
  /** Spans and metrics, when the caller asked for them (`tracing: true`); `undefined` otherwise. */
  readonly telemetry: Telemetry.Telemetry | undefined
}

let instances = 0

/** The fulfiller's capabilities, plus the skills extension when the client was asked to declare it. */
const declareSkills = (fulfiller: InputFulfiller.Service, options: ClientOptions): InputFulfiller.Service =>
  options.skills !== true ? fulfiller : {
    ...fulfiller,
    capabilities: (era) => {
      const base = fulfiller.capabilities(era)
      return { ...base, extensions: { ...base.extensions, [SKILLS_EXTENSION]: {} } }
    }
  }

/** @internal */
export const make = (options: ClientOptions) =>
  Effect.gen(function*() {
    const instanceId = `client-${++instances}`
    const diagnostics = yield* PubSub.sliding<McpDiagnostic>(256)
    const context: ClientContext = {
      options,
      transport: yield* McpTransport.McpTransport,
      resolver: yield* EraResolver.EraResolver,
      fulfiller: AppsCapability.declare(declareSkills(yield* InputFulfiller.InputFulfiller, options), options.apps),
      cache: yield* ResultCache.ResultCache,
      scope: yield* Effect.scope,
      probeTimeout: Duration.fromInputUnsafe(options.probeTimeout ?? "5 seconds"),
      requestTimeout: Duration.fromInputUnsafe(options.requestTimeout ?? "60 seconds"),
      maxTotalTimeout: Duration.fromInputUnsafe(options.maxTotalTimeout ?? "10 minutes"),
      maxPages: options.maxPages ?? 100,
      maxInputRounds: options.maxInputRounds ?? 8,
      maxInputRequests: options.maxInputRequests ?? 32,
      notificationBuffer: options.notificationBuffer ?? 1024,
      clientInfo: { name: options.clientName ?? "mcp-effect-client", version: options.clientVersion ?? CLIENT_VERSION },
      instanceId,
      namespace: options.cacheNamespace ?? instanceId,
      listChanges: { tools: 0 },
      authContext: options.authContext ?? instanceId,
      notifications: yield* PubSub.sliding<Notification>(options.notificationBuffer ?? 1024),
      diagnostics,
      hookFibers: yield* FiberSet.make(),
      telemetry: options.tracing === true ? Telemetry.make() : undefined,
      report: (diagnostic) =>
        PubSub.publish(diagnostics, diagnostic).pipe(
          Effect.andThen(Effect.logDebug("mcp client diagnostic", diagnostic))
        )
    }
    return context
  })
