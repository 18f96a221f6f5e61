/**
 * The LLM bridge, local toolkits and registries as Promise methods, on the one runner (`promiseRun.ts`).
 *
 * @internal
 */
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as LlmBridge from "../../LlmBridge.js"
import * as McpClient from "../../McpClient.js"
import type { McpClientError } from "../../McpError.js"
import type {
  PromiseBridge,
  PromiseClient,
  PromiseRegistry,
  PromiseToolDefinition,
  SignalOptions
} from "../../McpPromise.js"
import * as ToolRegistry from "../../ToolRegistry.js"
import * as Toolkit from "../../Toolkit.js"
import * as PromiseRun from "../promiseRun.js"

/** Why a signal was aborted: its reason, or a `DOMException` named `AbortError` when it has none. @internal */
export const abortReason = (signal: AbortSignal): unknown => {
  const reason: unknown = signal.reason
  return reason === undefined ? new DOMException("This operation was aborted", "AbortError") : reason
}

/** What a failed run rejects with: the signal's reason when it was aborted, otherwise the error itself. @internal */
export const failureOf = (cause: Cause.Cause<unknown>, signal?: AbortSignal | undefined): unknown =>
  signal?.aborted === true && Cause.hasInterruptsOnly(cause) ? abortReason(signal) : Cause.squash(cause)

/**
 * Runs effects that need no service (the bridges, toolkits and registries): on the empty context, so that a
 * bridge keeps working after the client it came from was closed and its runtime disposed.
 *
 * @internal
 */
export const runDetached: PromiseRun.Run = PromiseRun.make(Context.empty(), failureOf)

/** Run with `signal`, rejecting at once (nothing started) when it is already aborted. @internal */
export const runSignalled = <A, E>(
  run: PromiseRun.Run,
  effect: Effect.Effect<A, E>,
  signal: AbortSignal | undefined
): Promise<A> => signal?.aborted === true ? Promise.reject(abortReason(signal)) : run(effect, signal)

const forLlm = (options: (LlmBridge.ToolsForLlmOptions & SignalOptions) | undefined): LlmBridge.ToolsForLlmOptions =>
  options?.strict === undefined ? {} : { strict: options.strict }

/** @internal */
export const fromBridge = <E>(bridge: LlmBridge.Bridge<E>): PromiseBridge<E> => {
  const run = <A>(effect: Effect.Effect<A, unknown>, options: SignalOptions | undefined): Promise<A> =>
    runSignalled(runDetached, effect, options?.signal)
  return {
    toolsForLlm: (options) => run(bridge.toolsForLlm(forLlm(options)), options),
    describeTools: (options) => run(bridge.describeTools(forLlm(options)), options),
    executeToolCalls: (calls, options) => run(bridge.executeToolCalls(calls), options),
    toolAnnotations: (name, options) => run(Effect.map(bridge.toolAnnotations(name), Option.getOrUndefined), options),
    bridge
  }
}

/** The McpClient service under a Promise client. @internal */
export const serviceOf = (client: PromiseClient): Promise<McpClient.Service> => client.runtime.runPromise(McpClient.McpClient)

/** @internal */
export const fromClient = async (
  client: PromiseClient,
  options: LlmBridge.ClientBridgeOptions = {}
): Promise<PromiseBridge<McpClientError>> => {
  const service = await serviceOf(client)
  return fromBridge(await runDetached(LlmBridge.fromSourceEffect(LlmBridge.clientSource(service, options), options)))
}

/** @internal */
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

/** @internal */
export const toolkit = async (
  tools: ReadonlyArray<Toolkit.Tool<never>>,
  options: LlmBridge.BridgeOptions & Toolkit.ToolkitOptions = {}
): Promise<PromiseBridge<never>> => fromBridge(await runDetached(Toolkit.bridge({ tools }, options)))

const isPromiseClient = (provider: unknown): provider is PromiseClient =>
  typeof provider === "object" && provider !== null && "runtime" in provider && "callTool" in provider

const isPromiseBridge = (provider: unknown): provider is PromiseBridge<ToolRegistry.RegistryError> =>
  typeof provider === "object" && provider !== null && "bridge" in provider && "executeToolCalls" in provider

const providerOf = async (
  provider: PromiseClient | PromiseBridge<ToolRegistry.RegistryError> | ToolRegistry.Provider
): Promise<ToolRegistry.Provider> => {
  if (isPromiseClient(provider)) return LlmBridge.clientSource(await serviceOf(provider))
  if (isPromiseBridge(provider)) return provider.bridge
  return provider
}

/** @internal */
export const registry = async (options: LlmBridge.BridgeOptions = {}): Promise<PromiseRegistry> => {
  const made = await runDetached(ToolRegistry.make(options))
  return {
    ...fromBridge(made),
    register: async (prefix, provider) => runDetached(made.register(prefix, await providerOf(provider))),
    unregister: (prefix) => runDetached(made.unregister(prefix)),
    prefixes: () => runDetached(made.prefixes),
    registry: made
  }
}
