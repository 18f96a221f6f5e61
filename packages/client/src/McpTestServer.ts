/**
 * A testing kit: an in-memory MCP server declared in a few lines, provided as a layer, so that code which
 * depends on `McpClient` is tested with `@effect/vitest` and `TestClock` without writing JSON-RPC by hand.
 *
 * ```ts
 * import { Effect } from "effect"
 * import { McpClient, McpTestServer } from "@mcp-effect/client"
 *
 * const server = McpTestServer.make({
 *   era: "modern",
 *   tools: [
 *     McpTestServer.tool({
 *       name: "deploy",
 *       inputSchema: { type: "object", properties: { env: { type: "string" } } },
 *       handler: (args, ctx) =>
 *         Effect.gen(function*() {
 *           yield* ctx.progress(1, { total: 2 })
 *           const answer = yield* ctx.elicit({ message: `Deploy to ${String(args["env"])}?`, requestedSchema: {
 *             type: "object", properties: { ok: { type: "boolean" } }
 *           } })
 *           return answer.action === "accept" ? "deployed" : "cancelled"
 *         })
 *     })
 *   ]
 * })
 *
 * // in a test: Effect.provide(server.layer({ onElicit: () => ({ action: "accept", content: { ok: true } }) }))
 * export const deployed = McpClient.callTool("deploy", { env: "prod" }).pipe(
 *   Effect.provide(server.layer({ onElicit: () => ({ action: "accept", content: { ok: true } }) }))
 * )
 * ```
 *
 * - **Eras.** `era: "modern"` (default) answers `server/discover`; `era: "legacy"` answers it with
 *   `-32601` as a real legacy server does and serves `initialize`. The probe is therefore always answered at
 *   once, and a test under `TestClock` never waits on it: a kit server cannot ignore `server/discover`.
 * - **Handlers** are Effects. A tool handler returns a string (one text block), a `CallToolResult`, or any
 *   other value (sent as JSON text, and as `structuredContent` when it is an object); a failure is a JSON-RPC
 *   error `-32603` with its message.
 * - **Input.** `ctx.elicit`, `ctx.sample`, `ctx.listRoots` ask the client: in the modern era each one is an
 *   `input_required` round (the handler runs again with the answers, earlier ones carried in `requestState`),
 *   in the legacy era a server-to-client request. The same handler tests both eras.
 * - **Notifications.** `ctx.progress` (only when the request carried a progress token), `ctx.log` (modern:
 *   only at or above the request's log level, and only when it set one; legacy: after `logging/setLevel`),
 *   `ctx.notify` anything else.
 * - `server.notify(method, params)` pushes a notification (to the open `subscriptions/listen` requests whose filter
 *   covers it in the modern era: a list change asked for, a resource under a subscribed URI, a granted task; other
 *   methods to every listen; as it is in the legacy era; `resources/subscribe` is accepted).
 * - **Tasks** (modern): a listen asking `taskIds` is granted the ids of the connection's tasks, then told their
 *   current status; each later status change is a `notifications/tasks` (unless `taskNotifications: false`).
 * - `server.received` is every message the client sent, for assertions.
 * - **Cassettes.** `fromCassette(cassette)` is a server that answers from a recorded session
 *   (`McpCassette`): strictly in the recorded order, at the recorded offsets on the test's clock.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as replayTransport from "./internal/cassette/replayTransport.js"
import * as internal from "./internal/testServerTransport.js"
import type * as McpCassette from "./McpCassette.js"
import type { McpCassetteMismatchError } from "./McpCassetteError.js"
import * as McpClient from "./McpClient.js"
import type { McpClientError } from "./McpError.js"
import type { JsonObject, LoggingLevel, ToolAnnotations } from "./McpSchema.js"
import * as McpTransport from "./McpTransport.js"

/**
 * What the client answered to an input request (an elicitation result, a sampling result, a roots list).
 *
 * @since 0.1.0
 * @category models
 */
export type InputResponse = JsonObject

/**
 * What a handler can do while it serves a request.
 *
 * @since 0.1.0
 * @category models
 */
export interface HandlerContext {
  readonly era: McpTransport.Era
  /** The request's `arguments` (tools, prompts). */
  readonly arguments: JsonObject
  /** `notifications/progress` with the request's token; nothing when it carried none. */
  readonly progress: (
    progress: number,
    options?: { readonly total?: number | undefined; readonly message?: string | undefined }
  ) => Effect.Effect<void>
  /** `notifications/message`, honouring the log level the client asked for. */
  readonly log: (level: LoggingLevel, data: unknown) => Effect.Effect<void>
  /** Any other notification. */
  readonly notify: (method: string, params?: JsonObject) => Effect.Effect<void>
  /** Ask for a form elicitation (`mode: "form"` is added). */
  readonly elicit: (params: {
    readonly message: string
    readonly requestedSchema?: JsonObject | undefined
    readonly [key: string]: unknown
  }) => Effect.Effect<InputResponse>
  /** Ask for a sampling (`sampling/createMessage`). */
  readonly sample: (params: JsonObject) => Effect.Effect<InputResponse>
  /** Ask for the client's roots. */
  readonly listRoots: Effect.Effect<InputResponse>
}

/**
 * @since 0.1.0
 * @category models
 */
export interface ToolDefinition {
  readonly name: string
  readonly description?: string | undefined
  readonly inputSchema?: JsonObject | undefined
  readonly outputSchema?: JsonObject | undefined
  readonly annotations?: ToolAnnotations | undefined
  /**
   * The tool runs as a task. Legacy era (2025-11-25 tasks): `"required"` refuses a call without `task`,
   * `"optional"` takes both; the server declares `tasks` and serves `tasks/get`, `tasks/result`, `tasks/cancel`.
   * Modern era (the `io.modelcontextprotocol/tasks` extension): the server advertises the extension and answers
   * `resultType: "task"` to a client that declared it; input rounds go through `tasks/get` and `tasks/update`;
   * each status change is pushed as `notifications/tasks` to the listens granted the task's id (see
   * `taskNotifications`).
   */
  readonly taskSupport?: "optional" | "required" | undefined
  /** Tasks: the poll interval the server suggests, in milliseconds (default 100). */
  readonly pollInterval?: number | undefined
  readonly handler: (args: JsonObject, context: HandlerContext) => Effect.Effect<unknown, unknown>
}

/**
 * @since 0.1.0
 * @category models
 */
export interface ResourceDefinition {
  readonly uri: string
  readonly name?: string | undefined
  readonly mimeType?: string | undefined
  /** The resource's text. */
  readonly read: (context: HandlerContext) => Effect.Effect<string, unknown>
}

/**
 * @since 0.1.0
 * @category models
 */
export interface PromptDefinition {
  readonly name: string
  readonly description?: string | undefined
  readonly arguments?: ReadonlyArray<{ readonly name: string; readonly required?: boolean | undefined }> | undefined
  /** The text of the prompt's one user message. */
  readonly get: (args: JsonObject, context: HandlerContext) => Effect.Effect<string, unknown>
}

/**
 * @since 0.1.0
 * @category models
 */
export interface Definition {
  /** `"modern"` (default) or `"legacy"`. */
  readonly era?: McpTransport.Era | undefined
  readonly name?: string | undefined
  readonly version?: string | undefined
  readonly instructions?: string | undefined
  readonly tools?: ReadonlyArray<ToolDefinition> | undefined
  readonly resources?: ReadonlyArray<ResourceDefinition> | undefined
  readonly prompts?: ReadonlyArray<PromptDefinition> | undefined
  /**
   * Agent Skills to serve (the `io.modelcontextprotocol/skills` extension): `skills/list`, `skills/get`, each
   * file through `resources/read`, with digests and sizes computed from the files.
   */
  readonly skills?: ReadonlyArray<SkillDefinition> | undefined
  /** Declare `directoryRead` and serve `resources/directory/read` for the skills' folders (default false). */
  readonly skillsDirectoryRead?: boolean | undefined
  /** Skills per `skills/list` page (default: all on one page). */
  readonly skillsPageSize?: number | undefined
  /** Modern era: the `ttlMs` of the skills results (`cacheScope: "public"`); none by default. */
  readonly skillsTtlMs?: number | undefined
  /**
   * Modern tasks: grant the task ids a `subscriptions/listen` asks for and push `notifications/tasks` on each
   * status change (default true); `false` grants none, so that clients poll `tasks/get`.
   */
  readonly taskNotifications?: boolean | undefined
}

/**
 * A skill the test server serves, at `skill://[prefix/]name/SKILL.md`.
 *
 * @since 0.1.0
 * @category models
 */
export interface SkillDefinition {
  /** The skill's name: its folder, as `SKILL.md`'s frontmatter should say. */
  readonly name: string
  /** Path segments before the name (`"acme/billing"`); none by default. */
  readonly prefix?: string | undefined
  /** The files by path inside the skill's folder, `SKILL.md` included: text, or bytes (served as a blob). */
  readonly files: Readonly<Record<string, string | Uint8Array>>
  /** List `resources: "dynamic"` instead of a manifest. */
  readonly dynamic?: boolean | undefined
  /**
   * Change the entry that `skills/list` and `skills/get` send (to script a hostile server): it receives the
   * entry computed from the files (frontmatter parsed from `SKILL.md`, a digest and size per file).
   */
  readonly entry?: ((entry: JsonObject) => JsonObject) | undefined
}

/**
 * A declared server.
 *
 * @since 0.1.0
 * @category models
 */
export interface TestServer {
  readonly definition: Definition
  /** The server as a transport, for `McpClient.layer(options)` or anything else that needs one. */
  readonly transport: Layer.Layer<McpTransport.McpTransport>
  /** A client of this server, with these options (hooks, timeouts, ...). */
  readonly layer: (options?: McpClient.ClientOptions) => Layer.Layer<McpClient.McpClient, McpClientError>
  /**
   * Send a notification to every connected client (`notifications/resources/updated`,
   * `notifications/tools/list_changed`, ...): modern, on every open `subscriptions/listen`; legacy, as it is.
   */
  readonly notify: (method: string, params: JsonObject) => Effect.Effect<void>
  /** Every message the client sent, in order. */
  readonly received: Effect.Effect<ReadonlyArray<JsonObject>>
  /** The requests (messages with an id) of one method. */
  readonly requests: (method: string) => Effect.Effect<ReadonlyArray<JsonObject>>
}

/**
 * A tool (an identity, for inference and readability).
 *
 * @since 0.1.0
 * @category constructors
 */
export const tool = (definition: ToolDefinition): ToolDefinition => definition

/**
 * Declare a server.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (definition: Definition): TestServer => {
  const log: Array<JsonObject> = []
  const server = internal.make(definition, (message) => Effect.sync(() => void log.push(message)))
  // Tool pinning's default scope (see `McpPinning`): the name declared here, read once, never what a
  // connection says.
  const identity = definition.name ?? "test-server"
  const transport = Layer.effect(
    McpTransport.McpTransport,
    Effect.map(McpTransport.McpTransport, (service): McpTransport.Service => ({ ...service, identity }))
  ).pipe(Layer.provide(server.layer))
  return {
    definition,
    transport,
    notify: server.broadcast,
    layer: (options = {}) => McpClient.layer(options).pipe(Layer.provide(transport)),
    received: Effect.sync(() => [...log]),
    requests: (method) => Effect.sync(() => log.filter((m) => m["method"] === method && m["id"] !== undefined))
  }
}

/**
 * A client of a server declared on the spot.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (
  definition: Definition,
  options?: McpClient.ClientOptions
): Layer.Layer<McpClient.McpClient, McpClientError> => make(definition).layer(options)

/**
 * A server answering from a cassette.
 *
 * @since 0.3.0
 * @category models
 */
export interface CassetteServer {
  readonly cassette: McpCassette.Cassette
  /** The replay as a transport, for `McpClient.layer(options)` or anything else that needs one. */
  readonly transport: Layer.Layer<McpTransport.McpTransport>
  /** A client of the replay, with these options. */
  readonly layer: (options?: McpClient.ClientOptions) => Layer.Layer<McpClient.McpClient, McpClientError>
  /** Every message the client sent, in order. */
  readonly received: Effect.Effect<ReadonlyArray<JsonObject>>
  /** Every client message that did not match the cassette (each also failed its send), in order. */
  readonly mismatches: Effect.Effect<ReadonlyArray<McpCassetteMismatchError>>
}

/**
 * A server that replays a recorded session (`McpCassette`): under `@effect/vitest` with `TestClock`, the
 * handshake is answered at once and every later message (progress, notifications, answers) comes at its
 * recorded offset as the test moves the clock (`pacing: "fast"`: at once). A request that is not the next
 * recorded one fails with `McpTransportError` whose `cause` is the `McpCassetteMismatchError` (naming the
 * expected request and the difference), and is listed in `mismatches`.
 *
 * @since 0.3.0
 * @category constructors
 */
export const fromCassette = (cassette: McpCassette.Cassette, options?: McpCassette.ReplayOptions): CassetteServer => {
  const log: Array<JsonObject> = []
  const mismatches: Array<McpCassetteMismatchError> = []
  const transport = Layer.succeed(
    McpTransport.McpTransport,
    replayTransport.make(cassette, {
      ...options,
      received: (message) => void log.push(message),
      mismatched: (error) => void mismatches.push(error)
    })
  )
  return {
    cassette,
    transport,
    layer: (clientOptions = {}) => McpClient.layer(clientOptions).pipe(Layer.provide(transport)),
    received: Effect.sync(() => [...log]),
    mismatches: Effect.sync(() => [...mismatches])
  }
}
