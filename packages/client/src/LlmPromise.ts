/**
 * The LLM bridge for plain Promise code: the same `toolsForLlm` / `executeToolCalls` pair over a Promise
 * client, a local toolkit with async handlers, or a registry of both.
 *
 * ```ts
 * import { connectStdio, LlmPromise } from "@mcp-effect/client"
 * import { Schema } from "effect"
 *
 * const client = await connectStdio({ command: "my-server" })
 * const local = await LlmPromise.toolkit([
 *   LlmPromise.tool({
 *     name: "now",
 *     description: "The current time",
 *     parameters: Schema.Struct({}),
 *     annotations: { readOnlyHint: true, idempotentHint: true },
 *     handler: async () => new Date().toISOString()
 *   })
 * ])
 * const registry = await LlmPromise.registry()
 * await registry.register("server", client)
 * await registry.register("local", local)
 * const tools = await registry.toolsForLlm()           // send with the chat request
 * const toolCalls: ReadonlyArray<unknown> = []          // the model's reply.tool_calls
 * const results = await registry.executeToolCalls(toolCalls) // never rejects
 * ```
 *
 * Failures of `toolsForLlm`, `register`, ... reject with the tagged error itself (`McpClientError`,
 * `ToolRegistryError`, `ToolkitError`), so that `instanceof` and `_tag` work on what a `catch` receives. `executeToolCalls` resolves in every
 * case but an abort through its `signal`.
 *
 * @since 0.1.0
 */
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import type * as Schema from "effect/Schema"
import * as LlmBridge from "./LlmBridge.js"
import * as McpClient from "./McpClient.js"
import type { McpClientError } from "./McpError.js"
import type { PromiseClient } from "./McpPromise.js"
import type { ToolAnnotations } from "./McpSchema.js"
import * as ToolRegistry from "./ToolRegistry.js"
import * as Toolkit from "./Toolkit.js"

/**
 * @since 0.1.0
 * @category models
 */
export interface SignalOptions {
  readonly signal?: AbortSignal | undefined
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
 * How a Promise bridge runs its effects.
 *
 * @since 0.1.0
 * @category models
 */
export type Runner = <A, E>(
  effect: Effect.Effect<A, E>,
  options?: { readonly signal?: AbortSignal | undefined }
) => Promise<Exit.Exit<A, E | unknown>>

const defaultRunner: Runner = (effect, options) =>
  Effect.runPromiseExit(effect, options?.signal === undefined ? undefined : { signal: options.signal })

/**
 * What a Promise rejects with for a failed run: the signal's reason when the run was aborted (a `DOMException`
 * named `AbortError` when `abort()` was given none), otherwise the error itself.
 *
 * @since 0.1.0
 * @category error handling
 */
export const failureOf = (cause: Cause.Cause<unknown>, signal?: AbortSignal | undefined): unknown =>
  signal?.aborted === true && Cause.hasInterruptsOnly(cause) ? abortReason(signal) : Cause.squash(cause)

/**
 * Why a signal was aborted: its reason, or a `DOMException` named `AbortError` when it has none.
 *
 * @since 0.1.0
 * @category error handling
 */
export const abortReason = (signal: AbortSignal): unknown => {
  const reason: unknown = signal.reason
  return reason === undefined ? new DOMException("This operation was aborted", "AbortError") : reason
}

const settleWith = (signal: AbortSignal | undefined) => <A>(exit: Exit.Exit<A, unknown>): A =>
  Exit.match(exit, {
    onSuccess: (a) => a,
    onFailure: (cause) => {
      throw failureOf(cause, signal)
    }
  })

const settle = settleWith(undefined)

const forLlm = (options: (LlmBridge.ToolsForLlmOptions & SignalOptions) | undefined): LlmBridge.ToolsForLlmOptions =>
  options?.strict === undefined ? {} : { strict: options.strict }

/**
 * Wrap an Effect bridge, running its effects with `runner` (default: the default runtime).
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromBridge = <E>(bridge: LlmBridge.Bridge<E>, runner: Runner = defaultRunner): PromiseBridge<E> => {
  const run = <A>(effect: Effect.Effect<A, unknown>, options: SignalOptions | undefined): Promise<A> =>
    Promise.resolve().then(() => {
      const signal = options?.signal
      if (signal?.aborted === true) return Promise.reject(abortReason(signal))
      return runner(effect, signal === undefined ? undefined : { signal }).then(settleWith(signal))
    })
  return {
    toolsForLlm: (options) => run(bridge.toolsForLlm(forLlm(options)), options),
    describeTools: (options) => run(bridge.describeTools(forLlm(options)), options),
    executeToolCalls: (calls, options) => run(bridge.executeToolCalls(calls), options),
    toolAnnotations: (name, options) => run(Effect.map(bridge.toolAnnotations(name), Option.getOrUndefined), options),
    bridge
  }
}

/**
 * The bridge of a Promise client (`connectStdio`, `fromLayer`). Its effects run on the default runtime, so
 * `executeToolCalls` still resolves (with `is_error` results) after the client was closed and its runtime
 * disposed.
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromClient = async (
  client: PromiseClient,
  options: LlmBridge.ClientBridgeOptions = {}
): Promise<PromiseBridge<McpClientError>> => {
  const service = settle(await client.runtime.runPromiseExit(McpClient.McpClient))
  const bridge = settle(await defaultRunner(LlmBridge.fromSourceEffect(LlmBridge.clientSource(service, options), options)))
  return fromBridge(bridge)
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
 * Define a tool with an async handler.
 *
 * @since 0.1.0
 * @category constructors
 */
export const tool = <A, I>(definition: PromiseToolDefinition<A, I>): Toolkit.Tool<never> =>
  Toolkit.tool({
    name: definition.name,
    title: definition.title,
    description: definition.description,
    parameters: definition.parameters,
    annotations: definition.annotations,
    handler: (args, context) =>
      Effect.tryPromise({
        try: async (signal) => await Promise.resolve(definition.handler(args, { ...context, signal })),
        catch: (error) => error
      })
  })

/**
 * A local toolkit of these tools; rejects with `ToolkitError` if it cannot be offered.
 *
 * @since 0.1.0
 * @category constructors
 */
export const toolkit = async (
  tools: ReadonlyArray<Toolkit.Tool<never>>,
  options: LlmBridge.BridgeOptions & Toolkit.ToolkitOptions = {}
): Promise<PromiseBridge<never>> =>
  fromBridge(settle(await defaultRunner(Toolkit.bridge({ tools }, options))))

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

const isPromiseClient = (provider: unknown): provider is PromiseClient =>
  typeof provider === "object" && provider !== null && "runtime" in provider && "callTool" in provider

const isPromiseBridge = (provider: unknown): provider is PromiseBridge<ToolRegistry.RegistryError> =>
  typeof provider === "object" && provider !== null && "bridge" in provider && "executeToolCalls" in provider

/**
 * An empty registry.
 *
 * @since 0.1.0
 * @category constructors
 */
export const registry = async (options: LlmBridge.BridgeOptions = {}): Promise<PromiseRegistry> => {
  const made = settle(await defaultRunner(ToolRegistry.make(options)))
  const providerOf = async (
    provider: PromiseClient | PromiseBridge<ToolRegistry.RegistryError> | ToolRegistry.Provider
  ): Promise<ToolRegistry.Provider> => {
    if (isPromiseClient(provider)) {
      const service = settle(await provider.runtime.runPromiseExit(McpClient.McpClient))
      return LlmBridge.clientSource(service)
    }
    if (isPromiseBridge(provider)) return provider.bridge
    return provider
  }
  return {
    ...fromBridge(made),
    register: async (prefix, provider) => settle(await defaultRunner(made.register(prefix, await providerOf(provider)))),
    unregister: async (prefix) => settle(await defaultRunner(made.unregister(prefix))),
    prefixes: async () => settle(await defaultRunner(made.prefixes)),
    registry: made
  }
}
