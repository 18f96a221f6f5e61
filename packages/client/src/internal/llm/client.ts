/**
 * A client's tools as the LLM bridge's source, and the bridge over a client: a module of its own, which the
 * Promise client loads on the first of its bridge calls (`LlmBridge` re-exports both).
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import type { Bridge, ClientBridgeOptions, ToolOutcome, ToolSource } from "../../LlmBridge.js"
import type * as McpClient from "../../McpClient.js"
import type { McpClientError } from "../../McpError.js"
import * as ToolScheduler from "../../ToolScheduler.js"
import * as internal from "./bridge.js"
import { describeClientError, renderResult } from "./content.js"

/** @internal */
export const clientSource = (
  client: McpClient.Service,
  options: ClientBridgeOptions = {}
): ToolSource<McpClientError> => {
  const render = { maxResourceText: options.maxResourceText }
  const callOptions = (toolCallId: string): McpClient.CallOptions => ({
    toolCallId,
    ...(options.timeout === undefined ? {} : { timeout: options.timeout }),
    ...(options.overallTimeout === undefined ? {} : { overallTimeout: options.overallTimeout }),
    ...(options.meta === undefined ? {} : { meta: options.meta })
  })
  return {
    list: (listOptions) => client.listTools(listOptions?.refresh === true ? { refresh: true } : undefined),
    invoke: (name, args, context) =>
      client.callTool(name, args, callOptions(context.toolCallId)).pipe(
        Effect.map((result): ToolOutcome => ({
          content: renderResult(result, render),
          isError: result.isError === true,
          result
        })),
        Effect.catch((error) =>
          Effect.succeed<ToolOutcome>({ content: describeClientError(name, error), isError: true, failure: error })
        )
      )
  }
}

/** @internal */
export const fromClient = (client: McpClient.Service, options: ClientBridgeOptions = {}): Bridge<McpClientError> =>
  internal.fromSource(clientSource(client, options), options, ToolScheduler.make())
