/**
 * The MCP client: one server, whichever protocol era it speaks.
 *
 * ```ts
 * import { Effect } from "effect"
 * import { McpClient, NodeMcpClient } from "@mcp-effect/client"
 *
 * const program = Effect.gen(function*() {
 *   const client = yield* McpClient.McpClient
 *   const tools = yield* client.listTools()
 *   const result = yield* client.callTool("echo", { text: "hi" })
 *   return { era: yield* client.era, tools: tools.map((t) => t.name), result }
 * })
 *
 * program.pipe(Effect.provide(NodeMcpClient.layerStdio({ command: "my-server" })), Effect.runPromise)
 * ```
 *
 * The era is probed on the first call that needs it (see `EraResolver`), once per connection. Modern requests
 * carry the full `_meta` envelope; legacy requests go over the `initialize`d session. Multi round-trip
 * (`input_required`) results are served through the `InputFulfiller` and retried under a fresh id until the
 * final result, bounded by `maxInputRounds`.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import type * as Duration from "effect/Duration"
import type * as HttpClient from "effect/http/HttpClient"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import type * as Stream from "effect/Stream"
import * as EraResolver from "./EraResolver.js"
import * as InputFulfiller from "./InputFulfiller.js"
import * as McpAuth from "./McpAuth.js"
import * as internal from "./internal/client/client.js"
import * as Telemetry from "./internal/telemetry.js"
import type * as Tasks from "./internal/tasks.js"
import * as clientContext from "./internal/client/context.js"
import * as Operations from "./internal/client/operations.js"
import type { McpDiagnostic } from "./McpDiagnostic.js"
import type { McpClientError, McpToolResultError } from "./McpError.js"
import type * as McpPinning from "./McpPinning.js"
import type {
  CallToolResult,
  CompleteResult,
  CompletionReference,
  GetPromptResult,
  Implementation,
  JsonObject,
  LoggingLevel,
  Notification,
  Prompt,
  ReadResourceResult,
  RequestId,
  Resource,
  ResourceTemplate,
  ServerCapabilities,
  Tool
} from "./McpSchema.js"
import type * as McpSkills from "./McpSkills.js"
import * as McpTransport from "./McpTransport.js"
import * as ResultCache from "./ResultCache.js"

// -----------------------------------------------------------------------------
// Results
// -----------------------------------------------------------------------------

/**
 * The types the client's calls give, named here where a caller looks first (`McpClient.CallToolResult`);
 * they are `McpSchema`'s types, which also has their schemas.
 *
 * @since 0.2.0
 * @category models
 */
export type {
  CallToolResult,
  CompleteResult,
  ContentBlock,
  GetPromptResult,
  Implementation,
  Prompt,
  ReadResourceResult,
  Resource,
  ResourceContents,
  ResourceTemplate,
  ServerCapabilities,
  Tool
} from "./McpSchema.js"

// -----------------------------------------------------------------------------
// Options
// -----------------------------------------------------------------------------

/**
 * How the client behaves. Durations accept any `Duration.Input`; plain numbers are milliseconds.
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
  readonly probeTimeout?: Duration.Input | undefined
  /** Default timeout of every request (default 60 s); each call can override it. */
  readonly requestTimeout?: Duration.Input | undefined
  /** `auto` (default) probes; `modern` or `legacy` insists on one era. */
  readonly era?: EraResolver.EraPreference | undefined
  /** Restart a server that exits during the probe once and go legacy (default true; see `EraResolver`). */
  readonly restartOnProbeExit?: boolean | undefined
  /** Start a fresh connection on the next call after the server died (default true). */
  readonly restartOnExit?: boolean | undefined
  /** How many pages a list call follows before failing with `McpPaginationLimitError` (default 100). */
  readonly maxPages?: number | undefined
  /**
   * How many `input_required` retries one call may take (default 8); for a modern task, how many `tasks/update`
   * one task may send. Past it the call fails with `McpInputLoopExceededError` (a task is cancelled).
   */
  readonly maxInputRounds?: number | undefined
  /**
   * How many input requests one `input_required` round may carry (default 32); a round with more fails the
   * call with `McpInvalidResponseError` before any hook runs.
   */
  readonly maxInputRequests?: number | undefined
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
  readonly maxTotalTimeout?: Duration.Input | undefined
  /**
   * The largest `outputSchema` (bytes of JSON) the client compiles to check results against (default 256 KiB).
   * A larger one is not used: the call is answered unchecked, with an `UnusableOutputSchema` diagnostic.
   */
  readonly maxOutputSchemaBytes?: number | undefined
  /**
   * Modern servers send list changes only on a `subscriptions/listen` stream: with this set, the client keeps
   * one open for the lists the server says can change, so cached lists are evicted the moment they change.
   */
  readonly watchListChanges?: boolean | undefined
  /** Which server this is, for a `ResultCache` shared by several clients (default: unique to this client). */
  readonly cacheNamespace?: string | undefined
  /** The authorization context, for a shared `ResultCache`: private entries never cross it (default: unique). */
  readonly authContext?: string | undefined
  /**
   * Trace every operation as an Effect span following the OpenTelemetry semantic conventions for MCP
   * (`mcp.method.name`, `gen_ai.tool.name`, `jsonrpc.request.id`, `mcp.protocol.version`, `network.transport`,
   * `error.type`, ...), with the era probe, each request on the wire (input rounds, retries) and each input
   * request served as child spans, and record durations in the `mcp.client.operation.duration` histogram.
   * Off by default: then the request path carries no span and no metric.
   */
  readonly tracing?: boolean | undefined
  /** Declare the skills extension (`io.modelcontextprotocol/skills`) in the client's capabilities (default false). */
  readonly skills?: boolean | undefined
  /**
   * Host MCP Apps: declare the extension (`io.modelcontextprotocol/ui`, `mimeTypes: ["text/html;profile=mcp-app"]`
   * or the `mimeTypes` given) in both eras, so that servers offer their UI tools (default false). See `McpApps`.
   */
  readonly apps?: boolean | { readonly mimeTypes?: ReadonlyArray<string> | undefined } | undefined
  /**
   * Called when a server accepts a call as a task (a legacy task-augmented `tools/call`, or a modern server's
   * tasks extension), with its id and the server's `ttl`, before the client polls it. The call waits for the
   * effect (e.g. `McpFleet` records the task so that another process can resume it).
   */
  readonly onTaskCreated?: ((task: CreatedTask) => Effect.Effect<void>) | undefined
  /**
   * Called with each status of a task the client follows (either era: the first answer, each `tasks/get`, each
   * notification taken), so that a caller can show the task's `statusMessage` while it runs. A defect of the
   * hook is contained.
   */
  readonly onTaskStatus?: ((status: TaskStatus) => Effect.Effect<void>) | undefined
  /**
   * Tool pinning (off by default; see `McpPinning`): each tool's definition is pinned in `store` (default: in
   * the client's memory) at first sight (trust on first use), and a tool whose definition changes later is
   * quarantined (left out of `listTools`, refused by `callTool` with `McpToolQuarantinedError`) until `onChanged`
   * or the store approves it. Additions, removals and changes are reported as diagnostics (`ToolAdded`,
   * `ToolRemoved`, `ToolChanged`); a store that cannot be read is reported once (`PinStoreUnavailable`) and the
   * tools it cannot check are quarantined unless `onStoreUnavailable: "allow"`.
   */
  readonly pinning?: McpPinning.PinningOptions | undefined
}

/**
 * What `onTaskCreated` is called with: the task's id, the era, the method, the server's `ttl` (milliseconds).
 *
 * @since 0.2.0
 * @category models
 */
export type CreatedTask = Tasks.CreatedTask

/**
 * What `onTaskStatus` is called with: the task's id, the era, its status and `statusMessage`.
 *
 * @since 0.2.0
 * @category models
 */
export type TaskStatus = Tasks.TaskStatus

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
  /**
   * `notifications/tasks` of these tasks (the modern tasks extension): each carries the task's full state, as
   * `tasks/get` would answer. The acknowledgement lists the ids the server agreed to.
   */
  readonly taskIds?: ReadonlyArray<string> | undefined
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
  readonly timeout?: Duration.Input | undefined
  /** A budget for the whole call, every round included. */
  readonly overallTimeout?: Duration.Input | undefined
  /** Merged into `params._meta` (the modern envelope's reserved keys always win). */
  readonly meta?: JsonObject | undefined
  /** The LLM tool call this request serves: reported as `toolCallId` to `onProgress`. */
  readonly toolCallId?: string | undefined
  /** A progress token of the caller's own: its reports arrive on `notifications`, not on `onProgress`. */
  readonly progressToken?: RequestId | undefined
}

/**
 * Options of a typed call: `CallOptions` and the `schema` of the answer's `structuredContent`.
 *
 * @since 0.3.0
 * @category models
 */
export interface TypedCallOptions<A, R = never> extends CallOptions {
  /** What the answer's `structuredContent` decodes to (e.g. a schema made from the tool's `outputSchema`). */
  readonly schema: Schema.Decoder<A, R>
}

/**
 * The options of any call: untyped (`CallOptions`) or typed (`TypedCallOptions`).
 *
 * @since 0.3.0
 * @category models
 */
export interface AnyCallOptions extends CallOptions {
  readonly schema?: Schema.Decoder<unknown, unknown> | undefined
}

/**
 * What a call with options `O` gives: the schema's type when `O` has a `schema`, else the `CallToolResult`.
 *
 * @since 0.3.0
 * @category models
 */
export type CallResultOf<O> = O extends { readonly schema: Schema.Decoder<unknown, unknown> } ? O["schema"]["Type"]
  : CallToolResult

/**
 * What a call with options `O` can fail with: `McpToolResultError` too when it is typed.
 *
 * @since 0.3.0
 * @category models
 */
export type CallErrorOf<O> =
  | McpClientError
  | (O extends { readonly schema: Schema.Decoder<unknown, unknown> } ? McpToolResultError : never)

/**
 * The services a call with options `O` needs: its schema's decoding services.
 *
 * @since 0.3.0
 * @category models
 */
export type CallServicesOf<O> = O extends { readonly schema: Schema.Decoder<unknown, unknown> } ?
  O["schema"]["DecodingServices"]
  : never

/**
 * @since 0.1.0
 * @category models
 */
export interface ListOptions extends CallOptions {
  /** Bypass any cached answer and fetch again (the fresh answer is stored). */
  readonly refresh?: boolean | undefined
}

/**
 * Options of `NodeMcpClient.layerStdio`/`connectStdio`: the server command and the client's behaviour.
 *
 * @since 0.1.0
 * @category models
 */
export interface StdioClientOptions extends ClientOptions, McpTransport.StdioOptions {}

/**
 * The package's version (read from its `package.json`, the one source), sent as `clientInfo.version` unless
 * `clientVersion` says otherwise.
 *
 * @since 0.1.0
 * @category constants
 */
export const CLIENT_VERSION: string = clientContext.CLIENT_VERSION

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
  /**
   * Call a tool. With `options.schema`, the answer's `structuredContent` decoded with it (the schema's `Type`,
   * its decoding services in `R`), or `McpToolResultError` saying why not (the tool answered an error, sent no
   * `structuredContent`, or one that does not decode, with the path).
   */
  readonly callTool: <O extends AnyCallOptions = CallOptions>(
    name: string,
    args?: JsonObject,
    options?: O
  ) => Effect.Effect<CallResultOf<O>, CallErrorOf<O>, CallServicesOf<O>>
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
  /**
   * Every skill the server lists (all pages, cached as far as `ttlMs` allows); empty when the server does not
   * declare the skills extension. No file is read. See `McpSkills`.
   */
  readonly listSkills: (options?: ListOptions) => Effect.Effect<ReadonlyArray<McpSkills.Skill>, McpClientError>
  /** The entry of one skill, by the URI of its `SKILL.md` (`skills/get`). */
  readonly getSkill: (uri: string, options?: ListOptions) => Effect.Effect<McpSkills.Skill, McpSkills.SkillsError>
  /** The children of a folder of the skill (its root by default); needs the server's `directoryRead`. */
  readonly listSkillDirectory: (
    skill: McpSkills.Skill,
    directory?: string,
    options?: ListOptions
  ) => Effect.Effect<ReadonlyArray<McpSkills.DirectoryEntry>, McpSkills.SkillsError>
  /** One file of the skill, checked against the listed size and digest (and, for `SKILL.md`, frontmatter). */
  readonly readSkillFile: (
    skill: McpSkills.Skill,
    uri: string,
    options?: ListOptions
  ) => Effect.Effect<McpSkills.SkillFile, McpSkills.SkillsError>
  /** The skill's verified `SKILL.md` (the only file read). */
  readonly loadSkill: (
    skill: McpSkills.Skill,
    options?: ListOptions
  ) => Effect.Effect<McpSkills.LoadedSkill, McpSkills.SkillsError>
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
 * Every member of `Service`, by name, with its kind: `"effect"` (an effect: `era`, `close`), `"call"` (a
 * function returning an effect: `listTools`, `callTool`), `"scoped"` (one whose effect needs a `Scope`:
 * `listen`), `"stream"` (`notifications`, `diagnostics`). Checked against `Service` by the compiler; the Promise
 * client, a fleet's rate limit and the CLI wrap the client from it, so none of them lists the operations again.
 *
 * @since 0.3.0
 * @category models
 */
export const operations: typeof Operations.operations = Operations.operations

/**
 * @since 0.3.0
 * @category models
 */
export type OperationKind = Operations.OperationKind

/**
 * @since 0.3.0
 * @category models
 */
export type OperationName = Operations.OperationName

/**
 * How `wrapOperations` wraps one operation's effect: given the operation's name and kind, the effect to run in
 * its place, of the same type (or the effect itself, to leave that operation as it is). An effect member
 * (`era`) is wrapped once, when the client is; a call's effect at each call.
 *
 * @since 0.3.0
 * @category models
 */
export type OperationWrap = Operations.Wrap

/**
 * The client with every operation of `operations` through `wrap`: each effect (`era`), each call's effect
 * (`listTools(...)`, `callTool(...)`) and each scoped call's (`listen(...)`); the streams are as they are. A
 * rate limit, a retry or a log line for every request, written once:
 *
 * ```ts
 * import { Effect } from "effect"
 * import { McpClient } from "@mcp-effect/client"
 *
 * const logged = (client: McpClient.Service) =>
 *   McpClient.wrapOperations(client, (effect, name, kind) =>
 *     kind === "call" ? Effect.tap(effect, () => Effect.logDebug(`${name} answered`)) : effect)
 * ```
 *
 * @since 0.3.0
 * @category combinators
 */
export const wrapOperations: (service: Service, wrap: OperationWrap) => Service = Operations.wrapOperations

/**
 * @since 0.1.0
 * @category services
 */
export class McpClient extends Context.Service<McpClient, Service>()("@mcp-effect/client/McpClient") {}

// -----------------------------------------------------------------------------
// Constructors
// -----------------------------------------------------------------------------

/**
 * Build a client over the transport in context. The first connection is opened at once (a server that
 * cannot be started fails here); the era is settled on the first call that needs it.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make: (
  options?: ClientOptions
) => Effect.Effect<
  Service,
  McpClientError,
  | McpTransport.McpTransport
  | EraResolver.EraResolver
  | InputFulfiller.InputFulfiller
  | ResultCache.ResultCache
  | Scope.Scope
> = internal.make

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
> => Layer.effect(McpClient, make(options))

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
 * Options of `layerHttp`/`connectHttp`: the server's URL and the client's behaviour.
 *
 * @since 0.1.0
 * @category models
 */
export interface HttpClientOptions extends ClientOptions, McpTransport.HttpOptions {
  /** OAuth authorization (see `McpAuth`): the transport's `authorizer` is then McpAuth's. */
  readonly auth?: McpAuth.AuthOptions | undefined
}

/**
 * A client of a Streamable HTTP server (either era) on the `HttpClient` in context, on any runtime: a browser,
 * a Worker, Bun or Deno give it `FetchHttpClient.layer` (from `effect/http/FetchHttpClient`). With `auth`,
 * through `McpAuth` (tokens in the `TokenStore` provided, else in memory). On Node, `NodeMcpClient.layerHttp`
 * (`@mcp-effect/client/node`) is the same client on undici's dispatcher, with the token file.
 *
 * @since 0.3.0
 * @category layers
 */
export const layerHttp = (
  options: HttpClientOptions
): Layer.Layer<McpClient, McpClientError, HttpClient.HttpClient> =>
  layer(options).pipe(
    Layer.provide(
      options.auth === undefined
        ? McpTransport.layerHttp(options)
        : McpAuth.layerHttp(options).pipe(Layer.provide(McpAuth.layer(options.auth)))
    )
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
export const callTool = <O extends AnyCallOptions = CallOptions>(
  name: string,
  args?: JsonObject,
  options?: O
): Effect.Effect<CallResultOf<O>, CallErrorOf<O>, McpClient | CallServicesOf<O>> =>
  Effect.flatMap(McpClient, (client) => client.callTool(name, args, options))

/**
 * @since 0.1.0
 * @category accessors
 */
export const era = Effect.flatMap(McpClient, (client) => client.era)

/**
 * The histogram of operation durations (seconds) that a client with `tracing: true` records, tagged with
 * `mcp.method.name` (the semantic conventions' `mcp.client.operation.duration`).
 *
 * @since 0.1.0
 * @category metrics
 */
export const operationDuration = Telemetry.operationDuration
