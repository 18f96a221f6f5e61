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
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as ExecutionStrategy from "effect/ExecutionStrategy"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as PubSub from "effect/PubSub"
import * as Schema from "effect/Schema"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as EraResolver from "./EraResolver.js"
import * as InputFulfiller from "./InputFulfiller.js"
import * as Peer from "./internal/peer.js"
import type { McpDiagnostic } from "./McpDiagnostic.js"
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
  GetPromptResult,
  type Implementation,
  InputRequiredResult,
  isRecord,
  type JsonObject,
  ListPromptsResult,
  ListResourcesResult,
  ListResourceTemplatesResult,
  ListToolsResult,
  MetaKey,
  type Notification,
  type Prompt,
  ReadResourceResult,
  type Resource,
  type ResourceTemplate,
  type ServerCapabilities,
  type Tool
} from "./McpSchema.js"
import * as McpTransport from "./McpTransport.js"

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
  /** Every notification the server sends. */
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
  McpTransport.McpTransport | EraResolver.EraResolver | InputFulfiller.InputFulfiller | Scope.Scope
> =>
  Effect.gen(function*() {
    const transport = yield* McpTransport.McpTransport
    const resolver = yield* EraResolver.EraResolver
    const fulfiller = yield* InputFulfiller.InputFulfiller
    const clientScope = yield* Effect.scope

    const probeTimeout = Duration.decode(options.probeTimeout ?? "5 seconds")
    const requestTimeout = Duration.decode(options.requestTimeout ?? "60 seconds")
    const maxPages = options.maxPages ?? 100
    const maxInputRounds = options.maxInputRounds ?? 8
    const clientInfo: Implementation = {
      name: options.clientName ?? "mcp-effect-client",
      version: options.clientVersion ?? CLIENT_VERSION
    }

    const notifications = yield* PubSub.sliding<Notification>(options.notificationBuffer ?? 1024)
    const diagnostics = yield* PubSub.sliding<McpDiagnostic>(256)
    const report = (diagnostic: McpDiagnostic) =>
      PubSub.publish(diagnostics, diagnostic).pipe(
        Effect.zipRight(Effect.logDebug("mcp client diagnostic", diagnostic)),
        Effect.asVoid
      )

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
          onNotification: (notification) => PubSub.publish(notifications, notification).pipe(Effect.asVoid),
          onDiagnostic: report,
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
      const opened: Link = { scope, connectionScope, peer, era, started: false }
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

    const session: Effect.Effect<Session, McpClientError> = Effect.gen(function*() {
      const current = yield* currentLink
      if (!current.started) {
        current.started = true
        yield* resolver.resolve(probeContext(current)).pipe(
          Effect.onExit((exit) =>
            Exit.isInterrupted(exit)
              ? Deferred.fail(current.era, new McpClosedError({ reason: "closed while settling the era" }))
              : Deferred.done(current.era, exit)
          ),
          Effect.forkIn(current.scope)
        )
      }
      const info = yield* Deferred.await(current.era)
      return { link: current, info }
    })

    const info = Effect.map(session, (s) => s.info)

    // --- requests ------------------------------------------------------------------------------------------

    const timeoutOf = (callOptions: CallOptions | undefined) =>
      callOptions?.timeout === undefined ? requestTimeout : Duration.decode(callOptions.timeout)

    const send = (current: Session, method: string, params: JsonObject | undefined, callOptions?: CallOptions) =>
      current.link.peer.request(method, envelope(current.info, params, callOptions?.meta), {
        timeout: timeoutOf(callOptions),
        context: { era: current.info.era, protocolVersion: current.info.protocolVersion }
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

    interface Round {
      readonly round: number
      readonly retry: JsonObject | undefined
      readonly result: unknown
    }

    /** Send, serve `input_required` rounds (modern), and return the final raw result. */
    const requestWithInput = (method: string, params: JsonObject, callOptions?: CallOptions) =>
      withOverall(
        Effect.gen(function*() {
          const current = yield* session
          const first: Round = { round: 0, retry: undefined, result: undefined }
          const last = yield* Effect.iterate(first, {
            while: (state) => state.result === undefined,
            body: (state) =>
              Effect.gen(function*() {
                const raw = yield* send(current, method, { ...params, ...state.retry }, callOptions)
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
                const next: Round = { round: state.round + 1, retry, result: undefined }
                return next
              })
          })
          return last.result
        }),
        method,
        callOptions
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

    const requestComplete = (method: string, params: JsonObject | undefined, callOptions?: CallOptions) =>
      Effect.flatMap(session, (current) => send(current, method, params, callOptions)).pipe(
        Effect.flatMap((raw) => complete(method, raw))
      )

    const listAll = <Item, Page extends { readonly nextCursor?: string | undefined }, I>(
      method: string,
      schema: Schema.Schema<Page, I>,
      items: (page: Page) => ReadonlyArray<Item>,
      callOptions: ListOptions | undefined
    ) =>
      Effect.gen(function*() {
        const decode = decodeAs(schema, method)
        const all: Array<Item> = []
        let cursor: string | undefined = undefined
        let pages = 0
        do {
          if (pages >= maxPages) return yield* new McpPaginationLimitError({ method, pages: maxPages })
          const raw: unknown = yield* requestComplete(method, cursor === undefined ? undefined : { cursor }, callOptions)
          const page: Page = yield* decode(raw)
          all.push(...items(page))
          cursor = page.nextCursor
          pages++
        } while (cursor !== undefined)
        return all as ReadonlyArray<Item>
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

    const service: Service = {
      era: Effect.map(info, (i) => i.era),
      info,
      serverInfo: Effect.map(info, (i) => i.serverInfo),
      serverCapabilities: Effect.map(info, (i) => i.capabilities),
      instructions: Effect.map(info, (i) => i.instructions),
      listTools: (listOptions) => listAll("tools/list", ListToolsResult, (page) => page.tools, listOptions),
      callTool: (name, args, callOptions) =>
        requestWithInput("tools/call", args === undefined ? { name } : { name, arguments: args }, callOptions).pipe(
          Effect.flatMap(decodeAs(CallToolResult, "tools/call"))
        ),
      listPrompts: (listOptions) => listAll("prompts/list", ListPromptsResult, (page) => page.prompts, listOptions),
      getPrompt: (name, args, callOptions) =>
        requestWithInput("prompts/get", args === undefined ? { name } : { name, arguments: args }, callOptions).pipe(
          Effect.flatMap(decodeAs(GetPromptResult, "prompts/get"))
        ),
      listResources: (listOptions) =>
        listAll("resources/list", ListResourcesResult, (page) => page.resources, listOptions),
      listResourceTemplates: (listOptions) =>
        listAll("resources/templates/list", ListResourceTemplatesResult, (page) => page.resourceTemplates, listOptions),
      readResource: (uri, callOptions) =>
        requestWithInput("resources/read", { uri }, callOptions).pipe(
          Effect.flatMap(decodeAs(ReadResourceResult, "resources/read"))
        ),
      complete: (ref, argument, context, callOptions) =>
        requestComplete(
          "completion/complete",
          context === undefined ? { ref, argument } : { ref, argument, context },
          callOptions
        ).pipe(Effect.flatMap(decodeAs(CompleteResult, "completion/complete"))),
      request: (method, params, callOptions) =>
        INPUT_METHODS.has(method)
          ? requestWithInput(method, params ?? {}, callOptions)
          : requestComplete(method, params, callOptions),
      notifyRootsChanged: Effect.flatMap(session, (current) =>
        current.info.era === "legacy" && fulfiller.rootsListChanged
          ? current.link.peer.notify("notifications/roots/list_changed", undefined, {
            era: "legacy",
            protocolVersion: current.info.protocolVersion
          })
          : Effect.void),
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
 * The client, with its era resolver and input fulfiller left to the caller.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerWithoutDependencies = (
  options: ClientOptions = {}
): Layer.Layer<
  McpClient,
  McpClientError,
  McpTransport.McpTransport | EraResolver.EraResolver | InputFulfiller.InputFulfiller
> => Layer.scoped(McpClient, make(options))

/**
 * The client over the transport in context, with the spec's era resolver and a fulfiller for the hooks in
 * `options`.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (options: ClientOptions = {}): Layer.Layer<McpClient, McpClientError, McpTransport.McpTransport> =>
  layerWithoutDependencies(options).pipe(
    Layer.provide(EraResolver.layer),
    Layer.provide(InputFulfiller.layer(options))
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
