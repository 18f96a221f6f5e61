/**
 * The client for plain Promise code. Every operation of `McpClient` as a Promise-returning method; failures
 * reject with the same tagged error instances (`err instanceof McpTimeoutError`, `err._tag`) as the Effect API
 * fails with. Each client runs on its own `ManagedRuntime`; `close()` disposes of it, which stops
 * the server process.
 *
 * ```ts
 * import { connectStdio } from "@mcp-effect/client"
 *
 * const client = await connectStdio({ command: "npx", args: ["-y", "@modelcontextprotocol/server-everything"] })
 * console.log(await client.era(), (await client.listTools()).map((t) => t.name))
 * console.log(await client.callTool("echo", { message: "hi" }))
 * await client.close()
 * ```
 *
 * @since 0.1.0
 */
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as FetchHttpClient from "effect/http/FetchHttpClient"
import * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import type * as EraResolver from "./EraResolver.js"
import * as LlmBridge from "./LlmBridge.js"
import * as LlmPromise from "./LlmPromise.js"
import * as McpClient from "./McpClient.js"
import type * as McpSkills from "./McpSkills.js"
import type { McpDiagnostic } from "./McpDiagnostic.js"
import { type McpClientError, McpClosedError } from "./McpError.js"
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
  Resource,
  ResourceTemplate,
  ServerCapabilities,
  Tool
} from "./McpSchema.js"
import type { Era } from "./McpTransport.js"
import * as PromiseRun from "./internal/promiseRun.js"

/**
 * Per-call options of the Promise API: the Effect API's, plus an `AbortSignal` that cancels the call.
 *
 * @since 0.1.0
 * @category models
 */
export interface PromiseCallOptions extends McpClient.ListOptions {
  readonly signal?: AbortSignal | undefined
}

/**
 * The client's operations as Promise methods, with the LLM bridge (`toolsForLlm`, `executeToolCalls`,
 * `toolAnnotations`) built in.
 *
 * @since 0.1.0
 * @category models
 */
export interface PromiseClient extends Omit<LlmPromise.PromiseBridge, "bridge"> {
  readonly era: () => Promise<Era>
  readonly info: () => Promise<EraResolver.EraInfo>
  readonly serverInfo: () => Promise<Implementation | undefined>
  readonly serverCapabilities: () => Promise<ServerCapabilities>
  readonly instructions: () => Promise<string | undefined>
  readonly listTools: (options?: PromiseCallOptions) => Promise<ReadonlyArray<Tool>>
  readonly callTool: (name: string, args?: JsonObject, options?: PromiseCallOptions) => Promise<CallToolResult>
  readonly listPrompts: (options?: PromiseCallOptions) => Promise<ReadonlyArray<Prompt>>
  readonly getPrompt: (
    name: string,
    args?: Readonly<Record<string, string>>,
    options?: PromiseCallOptions
  ) => Promise<GetPromptResult>
  readonly listResources: (options?: PromiseCallOptions) => Promise<ReadonlyArray<Resource>>
  readonly listResourceTemplates: (options?: PromiseCallOptions) => Promise<ReadonlyArray<ResourceTemplate>>
  readonly readResource: (uri: string, options?: PromiseCallOptions) => Promise<ReadResourceResult>
  readonly complete: (
    ref: CompletionReference,
    argument: { readonly name: string; readonly value: string },
    context?: { readonly arguments?: Readonly<Record<string, string>> },
    options?: PromiseCallOptions
  ) => Promise<CompleteResult>
  readonly request: (method: string, params?: JsonObject, options?: PromiseCallOptions) => Promise<unknown>
  /** `McpClient.listSkills`: every skill the server lists; no file is read. */
  readonly listSkills: (options?: PromiseCallOptions) => Promise<ReadonlyArray<McpSkills.Skill>>
  /** `McpClient.getSkill`: one skill's entry, by the URI of its `SKILL.md`. */
  readonly getSkill: (uri: string, options?: PromiseCallOptions) => Promise<McpSkills.Skill>
  /** `McpClient.listSkillDirectory`: a folder of the skill (its root by default). */
  readonly listSkillDirectory: (
    skill: McpSkills.Skill,
    directory?: string,
    options?: PromiseCallOptions
  ) => Promise<ReadonlyArray<McpSkills.DirectoryEntry>>
  /** `McpClient.readSkillFile`: one file, checked against the listing (rejects with `McpSkillVerificationError`). */
  readonly readSkillFile: (skill: McpSkills.Skill, uri: string, options?: PromiseCallOptions) => Promise<McpSkills.SkillFile>
  /** `McpClient.loadSkill`: the skill's verified `SKILL.md`. */
  readonly loadSkill: (skill: McpSkills.Skill, options?: PromiseCallOptions) => Promise<McpSkills.LoadedSkill>
  readonly notifyRootsChanged: () => Promise<void>
  /** `ping`: resolves when the server answers. */
  readonly ping: (options?: PromiseCallOptions) => Promise<void>
  /** Legacy servers: `logging/setLevel` (a modern server takes the level from the client's `logLevel` option). */
  readonly setLogLevel: (level: LoggingLevel, options?: PromiseCallOptions) => Promise<void>
  /**
   * `McpClient.listen` as an async iterator: list changes and resource updates (`resourceSubscriptions`: the
   * resources to subscribe to, in either era). Resolves once the server acknowledged; `close()` (or leaving a
   * `for await` loop) ends the subscription.
   */
  readonly listen: (filter: McpClient.SubscriptionFilter) => Promise<PromiseSubscription>
  /** Call `listener` for every notification until the returned function is called. */
  readonly onNotification: (listener: (notification: Notification) => void) => () => void
  /** Call `listener` for every diagnostic until the returned function is called. */
  readonly onDiagnostic: (listener: (diagnostic: McpDiagnostic) => void) => () => void
  readonly close: () => Promise<void>
  /** The Effect client underneath, for mixing both styles. */
  readonly runtime: ManagedRuntime.ManagedRuntime<McpClient.McpClient, McpClientError>
}

/**
 * A subscription of the Promise API: iterate it with `for await`; `close()` ends it.
 *
 * @since 0.1.0
 * @category models
 */
export interface PromiseSubscription extends AsyncIterable<Notification> {
  /** What the server agreed to send. */
  readonly acknowledged: McpClient.SubscriptionFilter
  readonly close: () => Promise<void>
}

/**
 * Wrap any client layer as a Promise client. Resolves once the layer is built (the server is started),
 * rejects with the layer's error otherwise.
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromLayer = async (
  layer: Layer.Layer<McpClient.McpClient, McpClientError>,
  bridgeOptions: LlmBridge.ClientBridgeOptions = {}
): Promise<PromiseClient> => {
  const runtime = ManagedRuntime.make(layer)
  const client = await runtime.runPromiseExit(McpClient.McpClient).then(
    Exit.match({
      onSuccess: (client) => client,
      onFailure: async (cause) => {
        await runtime.dispose()
        throw Cause.squash(cause)
      }
    })
  )

  let closing: Promise<void> | undefined
  const runOn = PromiseRun.make(await runtime.context(), LlmPromise.failureOf)
  const run = <A>(effect: Effect.Effect<A, McpClientError | McpSkills.SkillsError>, signal?: AbortSignal): Promise<A> =>
    closing !== undefined
      ? Promise.reject(new McpClosedError({ reason: "close() was called" }))
      : signal?.aborted === true
      ? Promise.reject(LlmPromise.abortReason(signal))
      : runOn(effect, signal)

  const listen = <A>(stream: Stream.Stream<A>) => (listener: (a: A) => void) => {
    const controller = new AbortController()
    void runtime.runPromise(
      Stream.runForEach(stream, (a) => Effect.sync(() => listener(a))),
      { signal: controller.signal }
    ).catch(() => undefined)
    return () => controller.abort()
  }

  // The bridge runs on the default runtime, so executeToolCalls still resolves (is_error) after close().
  const { bridge: _, ...llm } = LlmPromise.fromBridge(LlmBridge.fromClient(client, bridgeOptions))

  return {
    ...llm,
    era: () => run(client.era),
    info: () => run(client.info),
    serverInfo: () => run(client.serverInfo),
    serverCapabilities: () => run(client.serverCapabilities),
    instructions: () => run(client.instructions),
    listTools: (options) => run(client.listTools(options), options?.signal),
    callTool: (name, args, options) => run(client.callTool(name, args, options), options?.signal),
    listPrompts: (options) => run(client.listPrompts(options), options?.signal),
    getPrompt: (name, args, options) => run(client.getPrompt(name, args, options), options?.signal),
    listResources: (options) => run(client.listResources(options), options?.signal),
    listResourceTemplates: (options) => run(client.listResourceTemplates(options), options?.signal),
    readResource: (uri, options) => run(client.readResource(uri, options), options?.signal),
    complete: (ref, argument, context, options) => run(client.complete(ref, argument, context, options), options?.signal),
    request: (method, params, options) => run(client.request(method, params, options), options?.signal),
    listSkills: (options) => run(client.listSkills(options), options?.signal),
    getSkill: (uri, options) => run(client.getSkill(uri, options), options?.signal),
    listSkillDirectory: (skill, directory, options) =>
      run(client.listSkillDirectory(skill, directory, options), options?.signal),
    readSkillFile: (skill, uri, options) => run(client.readSkillFile(skill, uri, options), options?.signal),
    loadSkill: (skill, options) => run(client.loadSkill(skill, options), options?.signal),
    notifyRootsChanged: () => run(client.notifyRootsChanged),
    ping: (options) => run(Effect.asVoid(client.request("ping", {}, options)), options?.signal),
    setLogLevel: (level, options) =>
      run(Effect.asVoid(client.request("logging/setLevel", { level }, options)), options?.signal),
    listen: async (filter) => {
      const scope = await runtime.runPromise(Scope.make())
      const release = () => runtime.runPromise(Scope.close(scope, Exit.void))
      const subscription = await run(Scope.provide(client.listen(filter), scope)).catch(async (error: unknown) => {
        await release()
        throw error
      })
      const iterable = Stream.toAsyncIterableWith(subscription.notifications, await runtime.context())
      let closed: Promise<void> | undefined
      const close = () => (closed ??= release())
      return {
        acknowledged: subscription.acknowledged,
        close,
        [Symbol.asyncIterator]: () => {
          const inner = iterable[Symbol.asyncIterator]()
          return {
            next: () => inner.next(),
            return: async (value?: unknown) => {
              await close()
              return inner.return === undefined ? { done: true as const, value } : inner.return(value)
            }
          }
        }
      }
    },
    onNotification: listen(client.notifications),
    onDiagnostic: listen(client.diagnostics),
    close: () => {
      closing ??= runtime.runPromise(client.close).finally(() => runtime.dispose())
      return closing
    },
    runtime
  }
}

/**
 * The bridge options a `connect*` call carries.
 *
 * @since 0.3.0
 * @category utils
 */
export const bridgeOptionsOf = (
  options: { readonly toolConcurrency?: number | undefined }
): LlmBridge.ClientBridgeOptions => options.toolConcurrency === undefined ? {} : { toolConcurrency: options.toolConcurrency }

/**
 * Connect to a Streamable HTTP server (either era) with the runtime's `fetch`: in a browser, a Worker, Bun, Deno
 * or Node. On Node, `connectHttp` from `@mcp-effect/client/node` is the same on undici's dispatcher (faster),
 * with `auth.tokenFile` read and written.
 *
 * @since 0.1.0
 * @category constructors
 */
export const connectHttp = (
  options: McpClient.HttpClientOptions & { readonly toolConcurrency?: number | undefined }
): Promise<PromiseClient> =>
  fromLayer(McpClient.layerHttp(options).pipe(Layer.provide(FetchHttpClient.layer)), bridgeOptionsOf(options))
