/**
 * The MCP client: one server, whichever protocol era it speaks.
 *
 * ```ts
 * import { Effect } from "effect"
 * import { McpClient } from "@mcp-effect/client"
 *
 * const program = Effect.gen(function*() {
 *   const client = yield* McpClient.McpClient
 *   const tools = yield* client.listTools()
 *   const result = yield* client.callTool("echo", { text: "hi" })
 *   return { era: yield* client.era, tools: tools.map((t) => t.name), result }
 * })
 *
 * program.pipe(Effect.provide(McpClient.layerStdio({ command: "my-server" })), Effect.runPromise)
 * ```
 *
 * The era is probed on the first call that needs it (see `EraResolver`), once per connection. Modern requests
 * carry the full `_meta` envelope; legacy requests go over the `initialize`d session. Multi round-trip
 * (`input_required`) results are served through the `InputFulfiller` and retried under a fresh id until the
 * final result, bounded by `maxInputRounds`.
 *
 * @since 0.1.0
 */
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as ExecutionStrategy from "effect/ExecutionStrategy"
import * as Exit from "effect/Exit"
import * as FiberSet from "effect/FiberSet"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as PubSub from "effect/PubSub"
import * as Queue from "effect/Queue"
import * as Schedule from "effect/Schedule"
import * as Schema from "effect/Schema"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as EraResolver from "./EraResolver.js"
import * as InputFulfiller from "./InputFulfiller.js"
import * as McpAuth from "./McpAuth.js"
import { runLeaf } from "./internal/hooks.js"
import * as mcpHeaders from "./internal/mcpHeaders.js"
import * as Peer from "./internal/peer.js"
import { McpDiagnostic } from "./McpDiagnostic.js"
import {
  McpClosedError,
  type McpClientError,
  McpInputLoopExceededError,
  McpInputRefusedError,
  McpInvalidResponseError,
  McpPaginationLimitError,
  McpTimeoutError
} from "./McpError.js"
import {
  CallToolResult,
  CompleteResult,
  type CompletionReference,
  decodeWire,
  ErrorCode,
  field,
  GetPromptResult,
  type Implementation,
  InputRequiredResult,
  isRecord,
  type JsonObject,
  ListPromptsResult,
  ListResourcesResult,
  ListResourceTemplatesResult,
  ListToolsResult,
  LoggingLevel,
  LoggingMessageParams,
  MetaKey,
  type Notification,
  ProgressParams,
  type Prompt,
  ReadResourceResult,
  type RequestId,
  type Resource,
  type ResourceTemplate,
  type ServerCapabilities,
  type Tool
} from "./McpSchema.js"
import * as McpTransport from "./McpTransport.js"
import * as ResultCache from "./ResultCache.js"
import type { Cacheable } from "./ResultCache.js"

// -----------------------------------------------------------------------------
// Options
// -----------------------------------------------------------------------------

/**
 * How the client behaves. Durations accept any `Duration.DurationInput`; plain numbers are milliseconds.
 *
 * @since 0.1.0
 * @category models
 */
export interface ClientOptions extends InputFulfiller.InputHooks {
  /** `clientInfo.name` (default `"mcp-effect-client"`). */
  readonly clientName?: string | undefined
  /** `clientInfo.version` (default this package's version). */
  readonly clientVersion?: string | undefined
  /** Budget of the `server/discover` probe, separate from the request timeout (default 5 s). */
  readonly probeTimeout?: Duration.DurationInput | undefined
  /** Default timeout of every request (default 60 s); each call can override it. */
  readonly requestTimeout?: Duration.DurationInput | undefined
  /** `auto` (default) probes; `modern` or `legacy` insists on one era. */
  readonly era?: EraResolver.EraPreference | undefined
  /** Restart a server that exits during the probe once and go legacy (default true; see `EraResolver`). */
  readonly restartOnProbeExit?: boolean | undefined
  /** Start a fresh connection on the next call after the server died (default true). */
  readonly restartOnExit?: boolean | undefined
  /** How many pages a list call follows before failing with `McpPaginationLimitError` (default 100). */
  readonly maxPages?: number | undefined
  /** How many `input_required` retries one call may take (default 8). */
  readonly maxInputRounds?: number | undefined
  /** How many notifications a slow `notifications` subscriber may fall behind before it loses the oldest. */
  readonly notificationBuffer?: number | undefined
  /**
   * Ask for log messages at this level and above. Legacy: `logging/setLevel` once after `initialize` (if the
   * server has the `logging` capability). Modern: `io.modelcontextprotocol/logLevel` in every request's
   * `_meta`; without it a modern server sends no log messages at all, so `onLog` never fires.
   */
  readonly logLevel?: LoggingLevel | undefined
  /** Called with every `notifications/message` (a leaf: see `onProgress`). */
  readonly onLog?: ((message: LogMessage) => unknown) | undefined
  /**
   * Asks for progress on every call and receives it. Each request gets a fresh progress token (never the
   * JSON-RPC id, which a retried round changes), forgotten the moment the call answers: a late report, or one
   * quoting a token nobody holds, is dropped. The hook runs on the reader and is treated as a leaf: a
   * synchronous hook runs in order before the answer it belongs to; whatever it returns asynchronously runs
   * on a fiber of its own; its failure becomes a diagnostic.
   */
  readonly onProgress?: ((progress: ProgressReport) => unknown) | undefined
  /** Progress resets the request timeout, up to `maxTotalTimeout` (default false). */
  readonly resetTimeoutOnProgress?: boolean | undefined
  /** The hard limit of a request whose timeout progress resets (default 10 minutes). */
  readonly maxTotalTimeout?: Duration.DurationInput | undefined
  /**
   * Modern servers send list changes only on a `subscriptions/listen` stream: with this set, the client keeps
   * one open for the lists the server says can change, so cached lists are evicted the moment they change.
   */
  readonly watchListChanges?: boolean | undefined
  /** Which server this is, for a `ResultCache` shared by several clients (default: unique to this client). */
  readonly cacheNamespace?: string | undefined
  /** The authorization context, for a shared `ResultCache`: private entries never cross it (default: unique). */
  readonly authContext?: string | undefined
}

/**
 * What `onProgress` is called with. `total` and `message` are there only when the server sent them.
 *
 * @since 0.1.0
 * @category models
 */
export interface ProgressReport {
  /** The LLM tool call the request serves, when it came from the LLM bridge. */
  readonly toolCallId?: string
  readonly progress: number
  readonly total?: number
  readonly message?: string
}

/**
 * What `onLog` is called with: the params of a `notifications/message`.
 *
 * @since 0.1.0
 * @category models
 */
export interface LogMessage {
  readonly level: LoggingLevel
  readonly logger?: string | undefined
  readonly data: unknown
}

/**
 * What a `subscriptions/listen` stream carries: the notification types asked for (all optional).
 *
 * @since 0.1.0
 * @category models
 */
export interface SubscriptionFilter {
  readonly toolsListChanged?: boolean | undefined
  readonly promptsListChanged?: boolean | undefined
  readonly resourcesListChanged?: boolean | undefined
  readonly resourceSubscriptions?: ReadonlyArray<string> | undefined
}

/**
 * An open subscription: what the server agreed to send, and the notifications as they come.
 *
 * @since 0.1.0
 * @category models
 */
export interface Subscription {
  readonly acknowledged: SubscriptionFilter
  readonly notifications: Stream.Stream<Notification>
}

/**
 * Per-call options.
 *
 * @since 0.1.0
 * @category models
 */
export interface CallOptions {
  /** This call's request timeout (each round of a multi round-trip call gets it afresh). */
  readonly timeout?: Duration.DurationInput | undefined
  /** A budget for the whole call, every round included. */
  readonly overallTimeout?: Duration.DurationInput | undefined
  /** Merged into `params._meta` (the modern envelope's reserved keys always win). */
  readonly meta?: JsonObject | undefined
  /** The LLM tool call this request serves: reported as `toolCallId` to `onProgress`. */
  readonly toolCallId?: string | undefined
  /** A progress token of the caller's own: its reports arrive on `notifications`, not on `onProgress`. */
  readonly progressToken?: RequestId | undefined
}

/**
 * @since 0.1.0
 * @category models
 */
export interface ListOptions extends CallOptions {
  /** Bypass any cached answer and fetch again (the fresh answer is stored). */
  readonly refresh?: boolean | undefined
}

/**
 * Options of `layerStdio`/`connectStdio`: the server command and the client's behaviour.
 *
 * @since 0.1.0
 * @category models
 */
export interface StdioClientOptions extends ClientOptions, McpTransport.StdioOptions {}

/**
 * @since 0.1.0
 * @category constants
 */
export const CLIENT_VERSION = "0.1.0"

// -----------------------------------------------------------------------------
// Service
// -----------------------------------------------------------------------------

/**
 * @since 0.1.0
 * @category models
 */
export interface Service {
  /** The server's era; probed on first use. */
  readonly era: Effect.Effect<McpTransport.Era, McpClientError>
  /** Everything learnt when the era was settled. */
  readonly info: Effect.Effect<EraResolver.EraInfo, McpClientError>
  readonly serverInfo: Effect.Effect<Implementation | undefined, McpClientError>
  readonly serverCapabilities: Effect.Effect<ServerCapabilities, McpClientError>
  readonly instructions: Effect.Effect<string | undefined, McpClientError>
  readonly listTools: (options?: ListOptions) => Effect.Effect<ReadonlyArray<Tool>, McpClientError>
  readonly callTool: (
    name: string,
    args?: JsonObject,
    options?: CallOptions
  ) => Effect.Effect<CallToolResult, McpClientError>
  readonly listPrompts: (options?: ListOptions) => Effect.Effect<ReadonlyArray<Prompt>, McpClientError>
  readonly getPrompt: (
    name: string,
    args?: Readonly<Record<string, string>>,
    options?: CallOptions
  ) => Effect.Effect<GetPromptResult, McpClientError>
  readonly listResources: (options?: ListOptions) => Effect.Effect<ReadonlyArray<Resource>, McpClientError>
  readonly listResourceTemplates: (
    options?: ListOptions
  ) => Effect.Effect<ReadonlyArray<ResourceTemplate>, McpClientError>
  readonly readResource: (uri: string, options?: ListOptions) => Effect.Effect<ReadResourceResult, McpClientError>
  readonly complete: (
    ref: CompletionReference,
    argument: { readonly name: string; readonly value: string },
    context?: { readonly arguments?: Readonly<Record<string, string>> },
    options?: CallOptions
  ) => Effect.Effect<CompleteResult, McpClientError>
  /** Any request, with the era's envelope; the result is checked for `resultType` but not decoded. */
  readonly request: (method: string, params?: JsonObject, options?: CallOptions) => Effect.Effect<unknown, McpClientError>
  /** Tell a legacy server that the roots changed (needs `onListRoots`); a no-op for modern servers. */
  readonly notifyRootsChanged: Effect.Effect<void, McpClientError>
  /**
   * Open a subscription (modern: `subscriptions/listen`, acknowledged before this succeeds, re-established
   * after the server restarts; legacy: the unsolicited notifications, with `resources/subscribe` for the
   * URIs). It lasts as long as the scope.
   */
  readonly listen: (filter: SubscriptionFilter) => Effect.Effect<Subscription, McpClientError, Scope.Scope>
  /**
   * Every notification the server sends. Each subscriber has a buffer of `notificationBuffer` (default 1024):
   * one that falls further behind loses the oldest notifications, and the connection is never held up.
   */
  readonly notifications: Stream.Stream<Notification>
  /** What the client noticed that failed no call (bad frames, late answers, refused requests). */
  readonly diagnostics: Stream.Stream<McpDiagnostic>
  /** Shut the connection down; later calls fail with `McpClosedError`. */
  readonly close: Effect.Effect<void>
}

/**
 * @since 0.1.0
 * @category tags
 */
export class McpClient extends Context.Tag("@mcp-effect/client/McpClient")<McpClient, Service>() {}

// -----------------------------------------------------------------------------
// Implementation
// -----------------------------------------------------------------------------

/** Methods a modern server may answer with `input_required`. */
const INPUT_METHODS: ReadonlySet<string> = new Set(["tools/call", "resources/read", "prompts/get"])

interface Link {
  readonly scope: Scope.CloseableScope
  connectionScope: Scope.CloseableScope
  peer: Peer.Peer
  readonly era: Deferred.Deferred<EraResolver.EraInfo, McpClientError>
  started: boolean
  /** The settled session, once the era is known: the fast path of every call after the first. */
  settled: Session | undefined
}

interface Session {
  readonly link: Link
  readonly info: EraResolver.EraInfo
}

const decodeAs = <A, I>(schema: Schema.Schema<A, I>, method: string) => {
  const decode = decodeWire(schema)
  return (raw: unknown): Effect.Effect<A, McpInvalidResponseError> =>
    decode(raw).pipe(
      Effect.mapError((e) => new McpInvalidResponseError({ method, reason: e.message, response: raw }))
    )
}

const decodeInputRequired = decodeAs(InputRequiredResult, "input_required")
const decodeCallToolResult = decodeAs(CallToolResult, "tools/call")
const decodeGetPromptResult = decodeAs(GetPromptResult, "prompts/get")
const decodeReadResourceResult = decodeAs(ReadResourceResult, "resources/read")
const decodeCompleteResult = decodeAs(CompleteResult, "completion/complete")
const decodeProgress = Schema.decodeUnknownOption(ProgressParams)
const decodeLog = Schema.decodeUnknownOption(LoggingMessageParams)
const decodeFilter = Schema.decodeUnknownOption(
  Schema.Struct({
    toolsListChanged: Schema.optional(Schema.Boolean),
    promptsListChanged: Schema.optional(Schema.Boolean),
    resourcesListChanged: Schema.optional(Schema.Boolean),
    resourceSubscriptions: Schema.optional(Schema.Array(Schema.String))
  })
)

/** The cache key params of a `resources/read`. */
const readKey = (uri: string) => JSON.stringify(uri)

/** The wire form of a filter: only the fields that are set. */
const filterParams = (filter: SubscriptionFilter): JsonObject =>
  Object.fromEntries(Object.entries(filter).filter(([, value]) => value !== undefined && value !== false))

interface CacheablePage {
  readonly nextCursor?: string | undefined
  readonly ttlMs?: number | undefined
  readonly cacheScope?: "public" | "private" | undefined
}

let instances = 0

/** Internal signal of `listAll`: a cursor stopped working, so the walk starts over. */
class StaleCursor extends Data.TaggedError("StaleCursor")<{}> {}

/**
 * Build a client over the transport in context. The first connection is opened at once (a server that
 * cannot be started fails here); the era is settled on the first call that needs it.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (
  options: ClientOptions = {}
): Effect.Effect<
  Service,
  McpClientError,
  | McpTransport.McpTransport
  | EraResolver.EraResolver
  | InputFulfiller.InputFulfiller
  | ResultCache.ResultCache
  | Scope.Scope
> =>
  Effect.gen(function*() {
    const transport = yield* McpTransport.McpTransport
    const resolver = yield* EraResolver.EraResolver
    const fulfiller = yield* InputFulfiller.InputFulfiller
    const cache = yield* ResultCache.ResultCache
    const clientScope = yield* Effect.scope

    const probeTimeout = Duration.decode(options.probeTimeout ?? "5 seconds")
    const requestTimeout = Duration.decode(options.requestTimeout ?? "60 seconds")
    const maxTotalTimeout = Duration.decode(options.maxTotalTimeout ?? "10 minutes")
    const maxPages = options.maxPages ?? 100
    const maxInputRounds = options.maxInputRounds ?? 8
    const clientInfo: Implementation = {
      name: options.clientName ?? "mcp-effect-client",
      version: options.clientVersion ?? CLIENT_VERSION
    }
    const instanceId = `client-${++instances}`
    const namespace = options.cacheNamespace ?? instanceId
    const authContext = options.authContext ?? instanceId

    const notifications = yield* PubSub.sliding<Notification>(options.notificationBuffer ?? 1024)
    const diagnostics = yield* PubSub.sliding<McpDiagnostic>(256)
    const hookFibers = yield* FiberSet.make()
    const report = (diagnostic: McpDiagnostic) =>
      PubSub.publish(diagnostics, diagnostic).pipe(
        Effect.zipRight(Effect.logDebug("mcp client diagnostic", diagnostic)),
        Effect.asVoid
      )

    // --- progress ------------------------------------------------------------------------------------------

    interface Tracked {
      readonly toolCallId: string | undefined
      lastReport: number
    }
    const progressTokens = new Map<string, Tracked>()
    const tokensByRequest = new Map<RequestId, string>()
    const callerTokens = new Set<string>()
    let nextToken = 0
    const tokenKey = (token: RequestId) => `${typeof token}:${token}`

    const onProgressNotification = (params: JsonObject | undefined) =>
      Effect.gen(function*() {
        const decoded = decodeProgress(params)
        if (Option.isNone(decoded)) {
          return yield* report(
            McpDiagnostic.DroppedNotification({ method: "notifications/progress", reason: "malformed params" })
          )
        }
        const { message, progress, progressToken, total } = decoded.value
        const key = tokenKey(progressToken)
        const tracked = progressTokens.get(key)
        if (tracked === undefined) {
          if (callerTokens.has(key)) return
          return yield* report(McpDiagnostic.DroppedNotification({
            method: "notifications/progress",
            reason: `no request in flight holds progress token ${JSON.stringify(progressToken)}`
          }))
        }
        tracked.lastReport = yield* Clock.currentTimeMillis
        if (options.onProgress === undefined) return
        const payload: { -readonly [K in keyof ProgressReport]: ProgressReport[K] } = { progress }
        if (tracked.toolCallId !== undefined) payload.toolCallId = tracked.toolCallId
        if (total !== undefined) payload.total = total
        if (message !== undefined) payload.message = message
        yield* runLeaf(hookFibers, "onProgress", options.onProgress, payload as ProgressReport, report)
      })

    // --- subscriptions -------------------------------------------------------------------------------------

    interface Route {
      readonly queue: Queue.Queue<Notification>
      readonly acknowledged: (granted: SubscriptionFilter) => Effect.Effect<void>
      readonly ended: Deferred.Deferred<void>
    }
    const routes = new Map<string, Route>()

    const onSubscriptionNotification = (notification: Notification, route: Route) => {
      if (notification.method === "notifications/subscriptions/acknowledged") {
        const granted = Option.getOrElse(decodeFilter(field(notification.params, "notifications")), () => ({}))
        return route.acknowledged(granted)
      }
      return Queue.offer(route.queue, notification).pipe(Effect.asVoid)
    }

    // --- notifications -------------------------------------------------------------------------------------

    const invalidate = (method: string, params?: string) => cache.invalidate({ namespace, method, params })

    const route = (notification: Notification): Effect.Effect<void> => {
      const params = notification.params
      const subscriptionId = field(field(params, "_meta"), MetaKey.subscriptionId)
      const subscription = typeof subscriptionId === "string" || typeof subscriptionId === "number"
        ? routes.get(tokenKey(subscriptionId))
        : undefined
      const forSubscription = subscription === undefined
        ? Effect.void
        : onSubscriptionNotification(notification, subscription)
      switch (notification.method) {
        case "notifications/progress":
          return onProgressNotification(params)
        case "notifications/message": {
          const hook = options.onLog
          if (hook === undefined) return Effect.void
          return Option.match(decodeLog(params), {
            onNone: () =>
              report(McpDiagnostic.DroppedNotification({ method: notification.method, reason: "malformed params" })),
            onSome: (message) => runLeaf(hookFibers, "onLog", hook, message, report)
          })
        }
        case "notifications/tools/list_changed":
          return Effect.zipRight(invalidate("tools/list"), forSubscription)
        case "notifications/prompts/list_changed":
          return Effect.zipRight(invalidate("prompts/list"), forSubscription)
        case "notifications/resources/list_changed":
          return invalidate("resources/list").pipe(
            Effect.zipRight(invalidate("resources/templates/list")),
            Effect.zipRight(forSubscription)
          )
        case "notifications/resources/updated": {
          const uri = field(params, "uri")
          return typeof uri === "string"
            ? Effect.zipRight(invalidate("resources/read", readKey(uri)), forSubscription)
            : forSubscription
        }
        case "notifications/cancelled": {
          // A server ends a listen stream by cancelling the listen request.
          const requestId = field(params, "requestId")
          const ended = typeof requestId === "string" || typeof requestId === "number"
            ? routes.get(tokenKey(requestId))
            : undefined
          return ended === undefined ? Effect.void : Deferred.succeed(ended.ended, undefined).pipe(Effect.asVoid)
        }
        default:
          return forSubscription
      }
    }

    const onNotification = (notification: Notification) =>
      PubSub.publish(notifications, notification).pipe(Effect.zipRight(route(notification)))

    // --- connections ---------------------------------------------------------------------------------------

    let link: Link | undefined
    let closed = false
    const lock = yield* Effect.makeSemaphore(1)

    const replyContext = (era: Deferred.Deferred<EraResolver.EraInfo, McpClientError>) =>
      Deferred.poll(era).pipe(
        Effect.flatMap((done) =>
          done._tag === "None"
            ? Effect.succeed<McpTransport.SendContext>({ era: "legacy" })
            : done.value.pipe(
              Effect.map((info): McpTransport.SendContext => ({
                era: info.era,
                protocolVersion: info.protocolVersion
              })),
              Effect.orElseSucceed((): McpTransport.SendContext => ({ era: "legacy" }))
            )
        )
      )

    const openPeer = (scope: Scope.Scope, era: Deferred.Deferred<EraResolver.EraInfo, McpClientError>) =>
      Effect.gen(function*() {
        const connection = yield* transport.connect
        return yield* Peer.make({
          connection,
          onRequest: (method, params, context) =>
            fulfiller.fulfil({ method, params }, context.era ?? "legacy", report).pipe(
              Effect.mapError((refusal) => new Peer.RpcErrorResponse({ code: refusal.code, message: refusal.message }))
            ),
          onNotification,
          onDiagnostic: report,
          // A request's progress token is forgotten the moment its answer is read, so a report that comes
          // after the answer is dropped even before the caller resumes.
          onAnswered: (id) => {
            const key = tokensByRequest.get(id)
            if (key === undefined) return
            tokensByRequest.delete(id)
            progressTokens.delete(key)
          },
          replyContext: replyContext(era)
        })
      }).pipe(Scope.extend(scope))

    const openLink = Effect.gen(function*() {
      const scope = yield* Scope.fork(clientScope, ExecutionStrategy.sequential)
      const connectionScope = yield* Scope.fork(scope, ExecutionStrategy.sequential)
      const era = yield* Deferred.make<EraResolver.EraInfo, McpClientError>()
      const peer = yield* openPeer(connectionScope, era).pipe(
        Effect.tapError(() => Scope.close(scope, Exit.void))
      )
      const opened: Link = { scope, connectionScope, peer, era, started: false, settled: undefined }
      return opened
    })

    const restartLink = (current: Link) =>
      Effect.gen(function*() {
        yield* Scope.close(current.connectionScope, Exit.void)
        current.connectionScope = yield* Scope.fork(current.scope, ExecutionStrategy.sequential)
        current.peer = yield* openPeer(current.connectionScope, current.era)
      })

    const currentLink: Effect.Effect<Link, McpClientError> = lock.withPermits(1)(
      Effect.gen(function*() {
        if (closed) return yield* new McpClosedError({ reason: "close() was called" })
        if (link !== undefined) {
          if (!(yield* link.peer.isEnded)) return link
          const reason = yield* link.peer.ended
          if (options.restartOnExit === false || reason._tag === "McpClosedError") return yield* reason
          yield* Scope.close(link.scope, Exit.void)
        }
        link = yield* openLink
        return link
      })
    )

    // --- envelopes -----------------------------------------------------------------------------------------

    const modernMeta = (protocolVersion: string, extra?: JsonObject): JsonObject => ({
      ...extra,
      ...(options.logLevel === undefined ? {} : { [MetaKey.logLevel]: options.logLevel }),
      [MetaKey.protocolVersion]: protocolVersion,
      [MetaKey.clientInfo]: clientInfo,
      [MetaKey.clientCapabilities]: fulfiller.capabilities("modern")
    })

    const envelope = (info: EraResolver.EraInfo, params: JsonObject | undefined, meta: JsonObject | undefined) => {
      const callerMeta = isRecord(params?.["_meta"]) ? { ...params["_meta"], ...meta } : meta
      if (info.era === "modern") return { ...params, _meta: modernMeta(info.protocolVersion, callerMeta) }
      if (callerMeta === undefined || Object.keys(callerMeta).length === 0) {
        if (params === undefined) return undefined
        const { _meta: _, ...rest } = params
        return rest
      }
      return { ...params, _meta: callerMeta }
    }

    // --- era -----------------------------------------------------------------------------------------------

    const probeContext = (current: Link): EraResolver.ProbeContext => ({
      request: (method, params, requestOptions) =>
        current.peer.request(method, params, {
          timeout: requestOptions.timeout,
          limit: requestOptions.limit,
          cancellable: requestOptions.cancellable,
          context: { era: requestOptions.era, protocolVersion: requestOptions.protocolVersion }
        }),
      notify: (method, params, notifyOptions) => current.peer.notify(method, params, notifyOptions),
      modernMeta: (version) => modernMeta(version),
      initializeParams: (protocolVersion) => ({
        protocolVersion,
        capabilities: fulfiller.capabilities("legacy"),
        clientInfo
      }),
      restart: restartLink(current),
      preference: options.era ?? "auto",
      transportKind: current.peer.connection.kind,
      probeTimeout,
      requestTimeout,
      restartOnProbeExit: options.restartOnProbeExit ?? true
    })

    /** What the client does once the era is settled: legacy `logging/setLevel`, the list-change watcher. */
    const afterHandshake = (current: Link, info: EraResolver.EraInfo) =>
      Effect.gen(function*() {
        if (info.era === "legacy" && options.logLevel !== undefined && info.capabilities.logging !== undefined) {
          yield* current.peer.request("logging/setLevel", { level: options.logLevel }, {
            timeout: requestTimeout,
            context: { era: "legacy", protocolVersion: info.protocolVersion }
          }).pipe(
            Effect.catchAll((error) => report(McpDiagnostic.RefusedRequest({ method: "logging/setLevel", reason: error.message })))
          )
        }
        if (info.era === "modern" && options.watchListChanges === true) {
          const filter: SubscriptionFilter = {
            toolsListChanged: info.capabilities.tools?.listChanged === true,
            promptsListChanged: info.capabilities.prompts?.listChanged === true,
            resourcesListChanged: info.capabilities.resources?.listChanged === true
          }
          if (Object.values(filter).some((wanted) => wanted === true)) {
            yield* listenModern({ link: current, info }, filter, () => Effect.void).pipe(
              Effect.catchAll((error) => report(McpDiagnostic.RefusedRequest({ method: "subscriptions/listen", reason: error.message }))),
              Effect.forkIn(current.scope)
            )
          }
        }
      })

    const settleSession: Effect.Effect<Session, McpClientError> = Effect.gen(function*() {
      const current = yield* currentLink
      if (!current.started) {
        current.started = true
        yield* resolver.resolve(probeContext(current)).pipe(
          Effect.tap((info) => afterHandshake(current, info)),
          Effect.onExit((exit) =>
            Exit.isInterrupted(exit)
              ? Deferred.fail(current.era, new McpClosedError({ reason: "closed while settling the era" }))
              : Deferred.done(current.era, exit)
          ),
          Effect.forkIn(current.scope)
        )
      }
      const info = yield* Deferred.await(current.era)
      const settled: Session = { link: current, info }
      current.settled = settled
      return settled
    })

    /** The current session: without the lock once the era is settled and the connection is alive. */
    const session: Effect.Effect<Session, McpClientError> = Effect.suspend(() => {
      const settled = link?.settled
      return settled !== undefined && !closed && settled.link === link
        ? Effect.flatMap(settled.link.peer.isEnded, (ended) => ended ? settleSession : Effect.succeed(settled))
        : settleSession
    })

    const info = Effect.map(session, (s) => s.info)

    // --- requests ------------------------------------------------------------------------------------------

    const timeoutOf = (callOptions: CallOptions | undefined) =>
      callOptions?.timeout === undefined ? requestTimeout : Duration.decode(callOptions.timeout)

    /** Fails when no progress has come for `idle`: the timeout that progress resets. */
    const idleWatchdog = (method: string, tracked: Tracked, idle: Duration.Duration) =>
      Effect.gen(function*() {
        const idleMillis = Duration.toMillis(idle)
        while (true) {
          const quiet = (yield* Clock.currentTimeMillis) - tracked.lastReport
          if (quiet >= idleMillis) {
            return yield* new McpTimeoutError({ method, limit: "request", timeoutMillis: idleMillis })
          }
          yield* Effect.sleep(Duration.millis(idleMillis - quiet))
        }
      })

    const send = (
      current: Session,
      method: string,
      params: JsonObject | undefined,
      callOptions?: CallOptions,
      headers?: Readonly<Record<string, string>>
    ) =>
      Effect.gen(function*() {
        const timeout = timeoutOf(callOptions)
        const context: McpTransport.SendContext = {
          era: current.info.era,
          protocolVersion: current.info.protocolVersion,
          headers
        }
        let meta = callOptions?.meta
        let tracked: Tracked | undefined
        let key: string | undefined
        if (callOptions?.progressToken !== undefined) {
          key = tokenKey(callOptions.progressToken)
          callerTokens.add(key)
          meta = { ...meta, progressToken: callOptions.progressToken }
        } else if (options.onProgress !== undefined || options.resetTimeoutOnProgress === true) {
          const token = `mcp-effect-${instanceId}-${++nextToken}`
          key = tokenKey(token)
          tracked = { toolCallId: callOptions?.toolCallId, lastReport: yield* Clock.currentTimeMillis }
          progressTokens.set(key, tracked)
          meta = { ...meta, progressToken: token }
        }
        const resets = tracked !== undefined && options.resetTimeoutOnProgress === true
        let requestId: RequestId | undefined
        const request = current.link.peer.request(method, envelope(current.info, params, meta), {
          timeout: resets ? maxTotalTimeout : timeout,
          context,
          onId: (id) =>
            Effect.sync(() => {
              requestId = id
              if (tracked !== undefined && key !== undefined) tokensByRequest.set(id, key)
            })
        })
        const guarded = resets && tracked !== undefined
          ? Effect.raceFirst(request, idleWatchdog(method, tracked, timeout))
          : request
        return yield* guarded.pipe(
          Effect.ensuring(Effect.sync(() => {
            if (requestId !== undefined) tokensByRequest.delete(requestId)
            if (key === undefined) return
            progressTokens.delete(key)
            callerTokens.delete(key)
          }))
        )
      })

    /** Check `resultType`: absent or `complete` is final; anything else here is invalid. */
    const complete = (method: string, raw: unknown): Effect.Effect<unknown, McpInvalidResponseError> => {
      const resultType = isRecord(raw) ? raw["resultType"] : undefined
      if (resultType === undefined || resultType === "complete") return Effect.succeed(raw)
      return Effect.fail(
        new McpInvalidResponseError({
          method,
          reason: resultType === "input_required"
            ? `input_required is not allowed for ${method}`
            : `unknown resultType ${JSON.stringify(resultType)}`,
          response: raw
        })
      )
    }

    const withOverall = <A, E>(effect: Effect.Effect<A, E>, method: string, callOptions: CallOptions | undefined) =>
      callOptions?.overallTimeout === undefined ? effect : effect.pipe(
        Effect.timeoutFail({
          duration: callOptions.overallTimeout,
          onTimeout: () =>
            new McpTimeoutError({
              method,
              limit: "overall",
              timeoutMillis: Duration.toMillis(Duration.decode(callOptions.overallTimeout ?? 0))
            })
        })
      )

    const serveInputs = (method: string, requests: InputRequiredResult["inputRequests"] & {}) =>
      Effect.forEach(
        Object.entries(requests),
        ([key, request]) =>
          fulfiller.fulfil(request, "modern", report).pipe(
            Effect.map((response) => [key, response] as const),
            Effect.mapError((refusal) =>
              new McpInputRefusedError({ method, inputMethod: refusal.method, key, reason: refusal.message })
            )
          ),
        { concurrency: "unbounded" }
      ).pipe(Effect.map((entries) => Object.fromEntries(entries)))

    interface Round {
      readonly round: number
      readonly retry: JsonObject | undefined
      readonly result: unknown
    }

    /**
     * Send, serve `input_required` rounds (modern) and return the final raw result with the number of retries
     * it took. Each retry is a new request: a fresh id, the full envelope, `inputResponses` keyed like the
     * requests and `requestState` echoed as it came (absent when the server sent none).
     */
    const requestWithInput = (
      method: string,
      params: JsonObject,
      callOptions?: CallOptions,
      headersFor?: (current: Session) => Effect.Effect<Readonly<Record<string, string>> | undefined, McpClientError>
    ) =>
      withOverall(
        Effect.gen(function*() {
          const current = yield* session
          // Headers come from the original params, so every round carries the same ones.
          const headers = headersFor === undefined ? undefined : yield* headersFor(current)
          const first: Round = { round: 0, retry: undefined, result: undefined }
          return yield* Effect.iterate(first, {
            while: (state) => state.result === undefined,
            body: (state) =>
              Effect.gen(function*() {
                const raw = yield* send(current, method, { ...params, ...state.retry }, callOptions, headers)
                const resultType = isRecord(raw) ? raw["resultType"] : undefined
                if (resultType !== "input_required" || current.info.era === "legacy") {
                  return { ...state, result: yield* complete(method, raw) }
                }
                if (state.round >= maxInputRounds) {
                  return yield* new McpInputLoopExceededError({ method, rounds: maxInputRounds })
                }
                const interim = yield* decodeInputRequired(raw)
                const retry: Record<string, unknown> = {}
                if (interim.inputRequests !== undefined) {
                  retry["inputResponses"] = yield* serveInputs(method, interim.inputRequests)
                }
                if (interim.requestState !== undefined) retry["requestState"] = interim.requestState
                if (interim.inputRequests === undefined && interim.requestState === undefined) {
                  return yield* new McpInvalidResponseError({
                    method,
                    reason: "input_required with neither inputRequests nor requestState",
                    response: raw
                  })
                }
                const next: Round = { round: state.round + 1, retry, result: undefined }
                return next
              })
          })
        }),
        method,
        callOptions
      )

    const requestComplete = (current: Session, method: string, params: JsonObject | undefined, callOptions?: CallOptions) =>
      send(current, method, params, callOptions).pipe(Effect.flatMap((raw) => complete(method, raw)))

    /** A cacheable request: through the `ResultCache` for modern servers, straight to the wire for legacy ones. */
    const cacheable = <A>(
      current: Session,
      method: string,
      params: string,
      fetch: Effect.Effect<Cacheable<A>, McpClientError>,
      callOptions: ListOptions | undefined
    ): Effect.Effect<A, McpClientError> =>
      current.info.era === "legacy"
        ? Effect.map(fetch, (result) => result.value)
        : cache.get({ namespace, authContext, method, params }, fetch, { refresh: callOptions?.refresh })

    const listAll = <Item, Page extends CacheablePage, I>(
      method: string,
      schema: Schema.Schema<Page, I>,
      items: (page: Page) => ReadonlyArray<Item>,
      callOptions: ListOptions | undefined
    ): Effect.Effect<ReadonlyArray<Item>, McpClientError> => {
      const decode = decodeAs(schema, method)
      /** Fails with `StaleCursor` when a cursor stops working (modern): the pages before it may be stale. */
      const walk = (refresh: boolean | undefined) =>
        Effect.gen(function*() {
          const current = yield* session
          const all: Array<Item> = []
          let cursor: string | undefined = undefined
          let pages = 0
          do {
            if (pages >= maxPages) return yield* new McpPaginationLimitError({ method, pages: maxPages })
            const params: JsonObject | undefined = cursor === undefined ? undefined : { cursor }
            const fetch = requestComplete(current, method, params, callOptions).pipe(
              Effect.flatMap(decode),
              Effect.map((value) => ({ value, ttlMs: value.ttlMs, cacheScope: value.cacheScope }))
            )
            const page: Page = yield* cacheable(current, method, JSON.stringify(cursor ?? null), fetch, {
              ...callOptions,
              refresh
            }).pipe(
              Effect.catchIf(
                (error) =>
                  cursor !== undefined && refresh !== true && current.info.era === "modern" &&
                  error._tag === "McpProtocolError" && error.code === ErrorCode.InvalidParams,
                () => new StaleCursor()
              )
            )
            all.push(...items(page))
            cursor = page.nextCursor
            pages++
          } while (cursor !== undefined)
          return all
        })
      // A cursor that stopped working: drop every cached page of the list and start over, once.
      return walk(callOptions?.refresh).pipe(
        Effect.catchTag("StaleCursor", () =>
          invalidate(method).pipe(
            Effect.zipRight(walk(true)),
            // A refreshed walk reports a dead cursor as the protocol error it is, never as StaleCursor.
            Effect.catchTag("StaleCursor", (e) => Effect.die(e))
          ))
      )
    }

    // --- tools over HTTP: x-mcp-header -----------------------------------------------------------------

    /** Modern Streamable HTTP must mirror `x-mcp-header` arguments into headers and hide tools that misuse it. */
    const mirrorsHeaders = (current: Session) =>
      current.info.era === "modern" && current.link.peer.connection.kind === "http"

    const catalogue = new Map<string, Tool>()

    const listTools = (listOptions: ListOptions | undefined) =>
      Effect.gen(function*() {
        const current = yield* session
        const tools = yield* listAll("tools/list", ListToolsResult, (page) => page.tools, listOptions)
        if (!mirrorsHeaders(current)) return tools
        const valid: Array<Tool> = []
        for (const tool of tools) {
          const invalid = mcpHeaders.invalidToolHeaders(tool)
          if (invalid === undefined) {
            valid.push(tool)
            catalogue.set(tool.name, tool)
          } else {
            catalogue.delete(tool.name)
            yield* Effect.logWarning(`MCP tool ${tool.name} left out: ${invalid}`)
            yield* report(McpDiagnostic.InvalidTool({ name: tool.name, reason: invalid }))
          }
        }
        return valid as ReadonlyArray<Tool>
      })

    const toolHeaders = (name: string, args: JsonObject | undefined, refresh: boolean) => (current: Session) =>
      Effect.gen(function*() {
        if (!mirrorsHeaders(current)) return undefined
        if (refresh || !catalogue.has(name)) {
          // Without a catalogue no header can be mirrored: the call goes without, and a server that needs
          // them answers -32020, which retries once after a fresh listing.
          yield* listTools({ refresh }).pipe(
            Effect.catchAll((error) =>
              report(McpDiagnostic.RefusedRequest({ method: "tools/list", reason: `no catalogue for x-mcp-header: ${error.message}` }))
            )
          )
        }
        const tool = catalogue.get(name)
        return tool === undefined ? undefined : mcpHeaders.paramHeaders(tool, args)
      })

    const callTool = (name: string, args: JsonObject | undefined, callOptions: CallOptions | undefined) => {
      const params = args === undefined ? { name } : { name, arguments: args }
      const call = (refresh: boolean) => requestWithInput("tools/call", params, callOptions, toolHeaders(name, args, refresh))
      return call(false).pipe(
        // A header mismatch may mean the schema changed: list the tools again and retry once.
        Effect.catchIf(
          (error) => error._tag === "McpProtocolError" && error.code === ErrorCode.HeaderMismatch,
          () => call(true)
        ),
        Effect.flatMap((last) => decodeCallToolResult(last.result))
      )
    }

    // --- listen --------------------------------------------------------------------------------------------

    const listenModern = (
      current: Session,
      filter: SubscriptionFilter,
      onAcknowledged: (granted: SubscriptionFilter) => Effect.Effect<void>,
      queue?: Queue.Queue<Notification>
    ) =>
      Effect.gen(function*() {
        const ended = yield* Deferred.make<void>()
        const sink = queue ?? (yield* Queue.sliding<Notification>(options.notificationBuffer ?? 1024))
        let routeKey: string | undefined
        const request = current.link.peer.request(
          "subscriptions/listen",
          envelope(current.info, { notifications: filterParams(filter) }, undefined),
          {
            timeout: Duration.infinity,
            context: { era: current.info.era, protocolVersion: current.info.protocolVersion },
            onId: (id) =>
              Effect.sync(() => {
                routeKey = tokenKey(id)
                routes.set(routeKey, { queue: sink, acknowledged: onAcknowledged, ended })
              })
          }
        )
        return yield* Effect.raceFirst(request, Deferred.await(ended)).pipe(
          Effect.asVoid,
          Effect.ensuring(Effect.sync(() => {
            if (routeKey !== undefined) routes.delete(routeKey)
          }))
        )
      })

    const listen = (filter: SubscriptionFilter): Effect.Effect<Subscription, McpClientError, Scope.Scope> =>
      Effect.gen(function*() {
        const first = yield* session
        const queue = yield* Effect.acquireRelease(
          Queue.sliding<Notification>(options.notificationBuffer ?? 1024),
          Queue.shutdown
        )
        if (first.info.era === "legacy") return yield* listenLegacy(first, filter, queue)

        const acknowledged = yield* Deferred.make<SubscriptionFilter, McpClientError>()
        const onAcknowledged = (granted: SubscriptionFilter) =>
          Deferred.succeed(acknowledged, granted).pipe(Effect.asVoid)
        // Re-established whenever the connection drops (a restarted server keeps no subscription state);
        // what it covered may have changed unseen, so the caches it covered are dropped first.
        const covered = Effect.all([
          filter.toolsListChanged === true ? invalidate("tools/list") : Effect.void,
          filter.promptsListChanged === true ? invalidate("prompts/list") : Effect.void,
          filter.resourcesListChanged === true ? invalidate("resources/list") : Effect.void
        ], { discard: true })
        const once = Effect.flatMap(session, (current) => listenModern(current, filter, onAcknowledged, queue))
        yield* once.pipe(
          Effect.tapError((error) => error._tag === "McpServerGoneError" ? covered : Effect.void),
          Effect.retry({
            while: (error) => error._tag === "McpServerGoneError",
            schedule: Schedule.exponential("100 millis").pipe(Schedule.union(Schedule.spaced("5 seconds")))
          }),
          Effect.tapErrorCause((cause) => Deferred.failCause(acknowledged, cause)),
          Effect.ensuring(Queue.shutdown(queue)),
          Effect.forkScoped
        )
        const granted = yield* Deferred.await(acknowledged)
        const subscription: Subscription = { acknowledged: granted, notifications: Stream.fromQueue(queue) }
        return subscription
      })

    const listenLegacy = (current: Session, filter: SubscriptionFilter, queue: Queue.Queue<Notification>) =>
      Effect.gen(function*() {
        const caps = current.info.capabilities
        const uris = caps.resources?.subscribe === true ? filter.resourceSubscriptions ?? [] : []
        const context = { era: "legacy" as const, protocolVersion: current.info.protocolVersion }
        for (const uri of uris) {
          yield* Effect.acquireRelease(
            current.link.peer.request("resources/subscribe", { uri }, { timeout: requestTimeout, context }),
            () =>
              current.link.peer.request("resources/unsubscribe", { uri }, { timeout: requestTimeout, context }).pipe(
                Effect.ignore
              )
          )
        }
        const granted: SubscriptionFilter = {
          ...(filter.toolsListChanged === true && caps.tools?.listChanged === true ? { toolsListChanged: true } : {}),
          ...(filter.promptsListChanged === true && caps.prompts?.listChanged === true
            ? { promptsListChanged: true }
            : {}),
          ...(filter.resourcesListChanged === true && caps.resources?.listChanged === true
            ? { resourcesListChanged: true }
            : {}),
          ...(uris.length > 0 ? { resourceSubscriptions: uris } : {})
        }
        const wanted = (notification: Notification) => {
          switch (notification.method) {
            case "notifications/tools/list_changed":
              return granted.toolsListChanged === true
            case "notifications/prompts/list_changed":
              return granted.promptsListChanged === true
            case "notifications/resources/list_changed":
              return granted.resourcesListChanged === true
            case "notifications/resources/updated": {
              const uri = field(notification.params, "uri")
              return typeof uri === "string" && uris.some((subscribed) => uri.startsWith(subscribed))
            }
            default:
              return false
          }
        }
        yield* Stream.fromPubSub(notifications).pipe(
          Stream.filter(wanted),
          Stream.runForEach((notification) => Queue.offer(queue, notification)),
          Effect.forkScoped
        )
        const subscription: Subscription = { acknowledged: granted, notifications: Stream.fromQueue(queue) }
        return subscription
      })

    const close = lock.withPermits(1)(
      Effect.suspend(() => {
        closed = true
        const current = link
        link = undefined
        return current === undefined ? Effect.void : Scope.close(current.scope, Exit.void)
      })
    )
    yield* Effect.addFinalizer(() => close)

    // The first connection is opened now, so a server that cannot be started fails the layer.
    yield* currentLink

    const withSession = <A>(f: (current: Session) => Effect.Effect<A, McpClientError>) => Effect.flatMap(session, f)

    const service: Service = {
      era: Effect.map(info, (i) => i.era),
      info,
      serverInfo: Effect.map(info, (i) => i.serverInfo),
      serverCapabilities: Effect.map(info, (i) => i.capabilities),
      instructions: Effect.map(info, (i) => i.instructions),
      listTools,
      callTool,
      listPrompts: (listOptions) => listAll("prompts/list", ListPromptsResult, (page) => page.prompts, listOptions),
      getPrompt: (name, args, callOptions) =>
        requestWithInput("prompts/get", args === undefined ? { name } : { name, arguments: args }, callOptions).pipe(
          Effect.flatMap((last) => decodeGetPromptResult(last.result))
        ),
      listResources: (listOptions) =>
        listAll("resources/list", ListResourcesResult, (page) => page.resources, listOptions),
      listResourceTemplates: (listOptions) =>
        listAll("resources/templates/list", ListResourceTemplatesResult, (page) => page.resourceTemplates, listOptions),
      readResource: (uri, callOptions) =>
        withSession((current) =>
          cacheable(
            current,
            "resources/read",
            readKey(uri),
            requestWithInput("resources/read", { uri }, callOptions).pipe(
              Effect.flatMap((last) =>
                decodeReadResourceResult(last.result).pipe(
                  // A result reached through input rounds is never cached.
                  Effect.map((value) => ({
                    value,
                    ttlMs: last.round === 0 ? value.ttlMs : 0,
                    cacheScope: value.cacheScope
                  }))
                )
              )
            ),
            callOptions
          )
        ),
      complete: (ref, argument, context, callOptions) =>
        withSession((current) =>
          requestComplete(
            current,
            "completion/complete",
            context === undefined ? { ref, argument } : { ref, argument, context },
            callOptions
          )
        ).pipe(Effect.flatMap(decodeCompleteResult)),
      request: (method, params, callOptions) =>
        INPUT_METHODS.has(method)
          ? requestWithInput(method, params ?? {}, callOptions).pipe(Effect.map((last) => last.result))
          : withSession((current) => requestComplete(current, method, params, callOptions)),
      notifyRootsChanged: withSession((current) =>
        current.info.era === "legacy" && fulfiller.rootsListChanged
          ? current.link.peer.notify("notifications/roots/list_changed", undefined, {
            era: "legacy",
            protocolVersion: current.info.protocolVersion
          })
          : Effect.void
      ),
      listen,
      notifications: Stream.fromPubSub(notifications),
      diagnostics: Stream.fromPubSub(diagnostics),
      close
    }
    return service
  })

// -----------------------------------------------------------------------------
// Layers
// -----------------------------------------------------------------------------

/**
 * The client, with its era resolver, input fulfiller and result cache left to the caller (e.g. one
 * `ResultCache` shared by several clients).
 *
 * @since 0.1.0
 * @category layers
 */
export const layerWithoutDependencies = (
  options: ClientOptions = {}
): Layer.Layer<
  McpClient,
  McpClientError,
  McpTransport.McpTransport | EraResolver.EraResolver | InputFulfiller.InputFulfiller | ResultCache.ResultCache
> => Layer.scoped(McpClient, make(options))

/**
 * The client over the transport in context, with the spec's era resolver, a fulfiller for the hooks in
 * `options` and a result cache of its own.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (options: ClientOptions = {}): Layer.Layer<McpClient, McpClientError, McpTransport.McpTransport> =>
  layerWithoutDependencies(options).pipe(
    Layer.provide(EraResolver.layer),
    Layer.provide(InputFulfiller.layer(options)),
    Layer.provide(ResultCache.layer())
  )

/**
 * The client with default options over the transport in context.
 *
 * @since 0.1.0
 * @category layers
 */
export const McpClientLive: Layer.Layer<McpClient, McpClientError, McpTransport.McpTransport> = layer()

/**
 * A client of a server spawned over stdio: the one-call layer.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerStdio = (options: StdioClientOptions): Layer.Layer<McpClient, McpClientError> =>
  layer(options).pipe(
    Layer.provide(McpTransport.layerStdio(options)),
    Layer.provide(NodeContext.layer)
  )

/**
 * Options of `layerHttp`/`connectHttp`: the server's URL and the client's behaviour.
 *
 * @since 0.1.0
 * @category models
 */
export interface HttpClientOptions extends ClientOptions, McpTransport.HttpOptions {
  /** OAuth authorization (see `McpAuth`). */
  readonly auth?: McpAuth.AuthOptions | undefined
}

/**
 * A client of a Streamable HTTP server (either era), on Node's undici HTTP client.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerHttp = (options: HttpClientOptions): Layer.Layer<McpClient, McpClientError> =>
  layer(options).pipe(
    Layer.provide(
      options.auth === undefined
        ? McpTransport.layerHttp(options)
        : McpAuth.layerHttp(options).pipe(Layer.provide(McpAuth.layer(options.auth)))
    ),
    Layer.provide(NodeHttpClient.layerUndici)
  )

// -----------------------------------------------------------------------------
// Accessors
// -----------------------------------------------------------------------------

/**
 * @since 0.1.0
 * @category accessors
 */
export const listTools = (options?: ListOptions) => Effect.flatMap(McpClient, (client) => client.listTools(options))

/**
 * @since 0.1.0
 * @category accessors
 */
export const callTool = (name: string, args?: JsonObject, options?: CallOptions) =>
  Effect.flatMap(McpClient, (client) => client.callTool(name, args, options))

/**
 * @since 0.1.0
 * @category accessors
 */
export const era = Effect.flatMap(McpClient, (client) => client.era)
