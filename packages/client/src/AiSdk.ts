/**
 * MCP tools for the Vercel AI SDK (`ai`, an optional peer dependency; this module is not in the package index):
 *
 * ```ts
 * import { connectStdio } from "@mcp-effect/client"
 * import { mcpToolsForAiSdk } from "@mcp-effect/client/AiSdk"
 * import { generateText, stepCountIs } from "ai"
 *
 * const client = await connectStdio({ command: "my-mcp-server", onProgress: console.log })
 * const { text } = await generateText({ model, prompt, tools: await mcpToolsForAiSdk(client), stopWhen: stepCountIs(5) })
 * ```
 *
 * Each tool is an `ai` `dynamicTool` with the tool's JSON Schema (`jsonSchema`); a call runs through the bridge
 * (`executeToolCalls`), so the client's hooks (progress, elicitation and other input rounds) still work, and
 * the AI SDK's abort signal cancels the call on the wire. A tool's error answer is thrown as `AiSdkToolError`
 * (the AI SDK's tool-error part), whose `errorKind` tells "no such tool" from the tool's own failure.
 *
 * @since 0.2.0
 */
import { dynamicTool, jsonSchema, type JSONSchema7, type ToolSet } from "ai"
import type { ErrorKind, ToolResult } from "./LlmBridge.js"
import type { PromiseBridge } from "./McpPromise.js"

/**
 * What `mcpToolsForAiSdk` needs: a Promise client (`connectStdio`, `connectHttp`) or a Promise bridge
 * (`LlmPromise.fromClient`, a registry).
 *
 * @since 0.2.0
 * @category models
 */
export type ToolProvider = Pick<PromiseBridge<unknown>, "toolsForLlm" | "executeToolCalls">

/**
 * A tool call answered with an error, as the AI SDK sees it.
 *
 * @since 0.2.0
 * @category errors
 */
export class AiSdkToolError extends Error {
  override readonly name = "AiSdkToolError"
  constructor(readonly tool: string, readonly errorKind: ErrorKind, message: string) {
    super(message)
  }
}

const answer = (tool: string, result: ToolResult | undefined): string => {
  if (result === undefined) throw new AiSdkToolError(tool, "failure", `no answer for ${tool}`)
  if (result.is_error) throw new AiSdkToolError(tool, result.error_kind ?? "tool_error", result.content)
  return result.content
}

/**
 * The provider's tools as an AI SDK `ToolSet` (`generateText({ tools })`, `streamText({ tools })`).
 *
 * @since 0.2.0
 * @category constructors
 */
export const mcpToolsForAiSdk = async (provider: ToolProvider): Promise<ToolSet> => {
  const tools = await provider.toolsForLlm()
  return Object.fromEntries(tools.map(({ function: declaration }) => [
    declaration.name,
    dynamicTool({
      description: declaration.description,
      // Our parameters are a JSON Schema object already (checked and converted by the bridge); `ai` types
      // JSON Schema with its own JSONSchema7 interface.
      inputSchema: jsonSchema(declaration.parameters as JSONSchema7),
      execute: async (input, { toolCallId, abortSignal }) => {
        const call = { id: toolCallId, type: "function" as const, function: { name: declaration.name, arguments: JSON.stringify(input ?? {}) } }
        const [result] = await provider.executeToolCalls([call], abortSignal === undefined ? undefined : { signal: abortSignal })
        return answer(declaration.name, result)
      }
    })
  ]))
}
