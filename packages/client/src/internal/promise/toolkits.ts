/**
 * The LLM bridge of a Promise client, local toolkits with async handlers, and registries, as Promise methods.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as LlmBridge from "../../LlmBridge.js"
import * as McpClient from "../../McpClient.js"
import type { McpClientError } from "../../McpError.js"
import type { PromiseBridge, PromiseClient, PromiseRegistry, PromiseToolDefinition } from "../../McpPromise.js"
import * as ToolRegistry from "../../ToolRegistry.js"
import * as Toolkit from "../../Toolkit.js"
import { fromBridge, runDetached } from "./run.js"

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
