/**
 * The Promise API, all of it: clients, the LLM bridge, local toolkits and registries, for plain Promise code.
 * Every operation of `McpClient` is a Promise-returning method; failures reject with the same tagged error
 * instances (`err instanceof McpTimeoutError`, `err._tag`) as the Effect API fails with. Each client runs on
 * its own `ManagedRuntime`; `close()` disposes of it, which stops the server. This entry's `connectHttp` runs
 * on the runtime's `fetch`; `@mcp-effect/client/node` adds `connectStdio`, `connectHttp` on undici, and the
 * Promise forms of `McpConfig` and `McpFleet` (`NodePromise`).
 *
 * ```ts
 * import { connectHttp, McpPromise } from "@mcp-effect/client"
 * import { Schema } from "effect"
 *
 * const client = await connectHttp({ url: "https://mcp.example.com/mcp" })
 * console.log(await client.era(), (await client.listTools()).map((t) => t.name))
 * const local = await McpPromise.toolkit([
 *   McpPromise.tool({
 *     name: "now",
 *     description: "The current time",
 *     parameters: Schema.Struct({}),
 *     handler: async () => new Date().toISOString()
 *   })
 * ])
 * const registry = await McpPromise.registry()
 * await registry.register("server", client)
 * await registry.register("local", local)
 * const tools = await registry.toolsForLlm()                 // send with the chat request
 * const results = await registry.executeToolCalls([])        // the model's tool calls; never rejects
 * await client.close()
 * ```
 *
 * @since 0.1.0
 */
import type * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import type * as ManagedRuntime from "effect/ManagedRuntime"
import type * as Schema from "effect/Schema"
import * as apps from "./internal/promise/apps.js"
import * as bridge from "./internal/promise/run.js"
import * as toolkits from "./internal/promise/toolkits.js"
import * as client from "./internal/promise/client.js"
import * as connect from "./internal/promise/connect.js"
import * as discovery from "./internal/promise/discovery.js"
import type * as LlmBridge from "./LlmBridge.js"
import type * as McpClient from "./McpClient.js"
import type * as McpDiscovery from "./McpDiscovery.js"
import type { McpDiagnostic } from "./McpDiagnostic.js"
import type { McpClientError } from "./McpError.js"
import type { JsonObject, LoggingLevel, Notification, ToolAnnotations } from "./McpSchema.js"
import type * as ToolRegistry from "./ToolRegistry.js"
import type * as Toolkit from "./Toolkit.js"

// -----------------------------------------------------------------------------
// Models
// -----------------------------------------------------------------------------

/**
 * An `AbortSignal` that cancels the call: the request is cancelled on the wire, and the Promise rejects with
 * the signal's reason.
 *
 * @since 0.1.0
 * @category models
 */
export interface SignalOptions {
  readonly signal?: AbortSignal | undefined
}

/**
 * Per-call options of the Promise API: the Effect API's, plus an `AbortSignal` that cancels the call.
 *
 * @since 0.1.0
 * @category models
 */
export interface PromiseCallOptions extends McpClient.ListOptions, SignalOptions {}

/** Whether a parameter is a call's options (`CallOptions`, `ListOptions`), not a JSON object or a string. */
type IsOptions<P> = string extends keyof NonNullable<P> ? false : "timeout" extends keyof NonNullable<P> ? true : false

/** A parameter list with `signal` added to its options. */
type WithSignal<P extends ReadonlyArray<unknown>> = {
  readonly [I in keyof P]: IsOptions<P[I]> extends true ? (P[I] extends undefined ? P[I] : P[I] & SignalOptions) : P[I]
}

/**
 * The Promise form of an Effect service: each effect becomes a method without arguments, each operation the
 * same operation returning a Promise, its options taking a `signal` too. Members that need a `Scope` or are
 * streams are left out (the Promise client has forms of its own for them).
 *
 * @since 0.3.0
 * @category models
 */
export type Promised<S> = {
  readonly [K in keyof S as S[K] extends Effect.Effect<unknown, unknown, never> ? K
    : S[K] extends (...args: never) => Effect.Effect<unknown, unknown, never> ? K
    : never]: S[K] extends (...args: infer P) => Effect.Effect<infer A, infer _E, never> ? (...args: WithSignal<P>) => Promise<A>
      : S[K] extends Effect.Effect<infer A, infer _E, never> ? () => Promise<A>
      : never
}

/**
 * Options of the Promise `callTool`: `CallOptions`, a `signal`, and the `schema` of a typed call (one that needs
 * no service: the Promise API has none to give).
 *
 * @since 0.3.0
 * @category models
 */
export interface PromiseCallToolOptions extends McpClient.CallOptions, SignalOptions {
  readonly schema?: Schema.Decoder<unknown> | undefined
}

/**
 * A bridge with Promise methods.
 *
 * @since 0.1.0
 * @category models
 */
export interface PromiseBridge<E = McpClientError> {
  readonly toolsForLlm: (
    options?: LlmBridge.ToolsForLlmOptions & SignalOptions
  ) => Promise<ReadonlyArray<LlmBridge.FunctionTool>>
  readonly describeTools: (
    options?: LlmBridge.ToolsForLlmOptions & SignalOptions
  ) => Promise<ReadonlyArray<LlmBridge.LlmTool>>
  /**
   * One result per call, in call order; resolves whatever went wrong and whatever `calls` is (`undefined` from a
   * reply without tool calls gives `[]`); never throws; rejects only on abort, with the signal's reason.
   */
  readonly executeToolCalls: (
    calls: ReadonlyArray<LlmBridge.ToolCall | unknown> | null | undefined | unknown,
    options?: SignalOptions
  ) => Promise<ReadonlyArray<LlmBridge.ToolResult>>
  readonly toolAnnotations: (name: string, options?: SignalOptions) => Promise<ToolAnnotations | undefined>
  /** The Effect bridge underneath. */
  readonly bridge: LlmBridge.Bridge<E>
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
 * The client's operations as Promise methods (`Promised<McpClient.Service>`: `era()`, `listTools()`,
 * `callTool(name, args, { signal })`, ...), with the LLM bridge (`toolsForLlm`, `executeToolCalls`,
 * `toolAnnotations`) built in.
 *
 * @since 0.1.0
 * @category models
 */
export interface PromiseClient extends Omit<Promised<McpClient.Service>, "callTool">, Omit<PromiseBridge, "bridge"> {
  /**
   * Call a tool. With `options.schema` (a schema needing no service), the answer's `structuredContent` decoded
   * with it, or a rejection with `McpToolResultError` saying why not.
   */
  readonly callTool: <O extends PromiseCallToolOptions = PromiseCallToolOptions & { readonly schema?: undefined }>(
    name: string,
    args?: JsonObject,
    options?: O
  ) => Promise<McpClient.CallResultOf<O>>
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
  /** Close the client: stops its server (stdio) or ends its session (HTTP), then disposes of its runtime. */
  readonly close: () => Promise<void>
  /** The Effect client underneath, for mixing both styles. */
  readonly runtime: ManagedRuntime.ManagedRuntime<McpClient.McpClient, McpClientError>
}

/**
 * What a Promise handler is told about the call it serves; `signal` aborts when the call is cancelled (its
 * timeout, or the batch being interrupted).
 *
 * @since 0.1.0
 * @category models
 */
export interface PromiseToolContext extends Toolkit.ToolContext {
  readonly signal: AbortSignal
}

/**
 * How a tool with an async handler is written.
 *
 * @since 0.1.0
 * @category models
 */
export interface PromiseToolDefinition<A, I> {
  readonly name: string
  readonly title?: string | undefined
  readonly description?: string | undefined
  readonly parameters: Schema.Codec<A, I>
  readonly annotations?: ToolAnnotations | undefined
  /** Return (or resolve to) the answer; throw (or reject) to answer with an error. */
  readonly handler: (args: A, context: PromiseToolContext) => unknown
}

/**
 * A registry with Promise methods. `register` takes a Promise client, a Promise bridge, or an Effect
 * provider.
 *
 * @since 0.1.0
 * @category models
 */
export interface PromiseRegistry extends PromiseBridge<ToolRegistry.RegistryError> {
  readonly register: (
    prefix: string,
    provider: PromiseClient | PromiseBridge<ToolRegistry.RegistryError> | ToolRegistry.Provider
  ) => Promise<void>
  readonly unregister: (prefix: string) => Promise<boolean>
  readonly prefixes: () => Promise<ReadonlyArray<string>>
  readonly registry: ToolRegistry.Registry
}

// -----------------------------------------------------------------------------
// Clients
// -----------------------------------------------------------------------------

/**
 * Wrap any client layer as a Promise client. Resolves once the layer is built (the server is started),
 * rejects with the layer's error otherwise.
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromLayer = (
  layer: Layer.Layer<McpClient.McpClient, McpClientError>,
  bridgeOptions?: LlmBridge.ClientBridgeOptions
): Promise<PromiseClient> => client.fromLayer(layer, bridgeOptions)

/**
 * Connect to a Streamable HTTP server (either era) with the runtime's `fetch`: in a browser, a Worker, Bun, Deno
 * or Node. On Node, `connectHttp` from `@mcp-effect/client/node` is the same on undici's dispatcher (faster),
 * with `auth.tokenFile` read and written.
 *
 * @since 0.1.0
 * @category constructors
 */
export const connectHttp: (
  options: McpClient.HttpClientOptions & { readonly toolConcurrency?: number | undefined }
) => Promise<PromiseClient> = connect.connectHttp

// -----------------------------------------------------------------------------
// The LLM bridge
// -----------------------------------------------------------------------------

/**
 * Wrap an Effect bridge. Its effects need no service: they run detached from any client's runtime.
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromBridge = <E>(effectBridge: LlmBridge.Bridge<E>): PromiseBridge<E> => bridge.fromBridge(effectBridge)

/**
 * The bridge of a Promise client (`connectHttp`, `fromLayer`). Its effects run detached from the client's
 * runtime, so `executeToolCalls` still resolves (with `is_error` results) after the client was closed.
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromClient = (
  promiseClient: PromiseClient,
  options?: LlmBridge.ClientBridgeOptions
): Promise<PromiseBridge<McpClientError>> => toolkits.fromClient(promiseClient, options)

/**
 * Define a tool with an async handler.
 *
 * @since 0.1.0
 * @category constructors
 */
export const tool = <A, I>(definition: PromiseToolDefinition<A, I>): Toolkit.Tool<never> => toolkits.tool(definition)

/**
 * A local toolkit of these tools; rejects with `ToolkitError` if it cannot be offered.
 *
 * @since 0.1.0
 * @category constructors
 */
export const toolkit = (
  tools: ReadonlyArray<Toolkit.Tool<never>>,
  options?: LlmBridge.BridgeOptions & Toolkit.ToolkitOptions
): Promise<PromiseBridge<never>> => toolkits.toolkit(tools, options)

/**
 * An empty registry.
 *
 * @since 0.1.0
 * @category constructors
 */
export const registry = (options?: LlmBridge.BridgeOptions): Promise<PromiseRegistry> => toolkits.registry(options)

// -----------------------------------------------------------------------------
// Server Cards
// -----------------------------------------------------------------------------

/**
 * `McpDiscovery.catalog` on the runtime's `fetch`: the servers an origin lists
 * (`/.well-known/ai-catalog.json`, or the earlier `/.well-known/mcp/catalog.json`); rejects with
 * `McpDiscoveryError`.
 *
 * @since 0.3.0
 * @category discovery
 */
export const discoverCatalog = (origin: string | URL, options?: SignalOptions): Promise<McpDiscovery.DiscoveredCatalog> =>
  discovery.catalog(origin, options)

/**
 * `McpDiscovery.card` on the runtime's `fetch`: the Server Card at `url`.
 *
 * @since 0.3.0
 * @category discovery
 */
export const discoverCard = (url: string | URL, options?: SignalOptions): Promise<McpDiscovery.ServerCard> =>
  discovery.card(url, options)

/**
 * `McpDiscovery.endpointCard` on the runtime's `fetch`: the Server Card of an MCP endpoint (`<endpoint>/server-card`).
 *
 * @since 0.3.0
 * @category discovery
 */
export const discoverEndpointCard = (endpoint: string | URL, options?: SignalOptions): Promise<McpDiscovery.ServerCard> =>
  discovery.endpointCard(endpoint, options)

/**
 * `McpDiscovery.serverCard` on the runtime's `fetch`: the card of a catalog's entry (fetched, or given inline).
 *
 * @since 0.3.0
 * @category discovery
 */
export const discoverServerCard = (
  server: McpDiscovery.CatalogServer,
  options?: SignalOptions
): Promise<McpDiscovery.ServerCard> => discovery.serverCard(server, options)

// -----------------------------------------------------------------------------
// MCP Apps
// -----------------------------------------------------------------------------

/**
 * Options of `mountApp`: the Promise client, the tool and its `arguments`, the `sandboxUrl` (the package's
 * `apps-sandbox.html` served from another origin) and the hooks (see `McpApps.Hooks`).
 *
 * @since 0.3.0
 * @category models
 */
export type MountAppOptions = apps.MountAppOptions

/**
 * A mounted App: `result` (the tool call's), `setHostContext`, and `close()`, which tears it down.
 *
 * @since 0.3.0
 * @category models
 */
export type AppHandle = apps.AppHandle

/**
 * Renders a tool's MCP App in `container` (a page's element): calls the tool, shows its App in the spec's
 * double iframe and hands it the input and the result; the App's requests go through the hooks. The client
 * should be connected with `apps: true`. See `BrowserMcpApps.mount` for the Effect form.
 *
 * @since 0.3.0
 * @category constructors
 */
export const mountApp = (container: apps.MountAppContainer, options: MountAppOptions): Promise<AppHandle> =>
  apps.mountApp(container, options)
