/**
 * The bridge's tools and answers in each provider's own shape, typed so that the `openai` and
 * `@anthropic-ai/sdk` request types accept them without a cast (mutable arrays, plain objects):
 *
 * ```ts
 * const tools = await client.toolsForLlm()
 * // OpenAI (Chat Completions)
 * const reply = await openai.chat.completions.create({ model, messages, tools: LlmProviders.openAiTools(tools) })
 * const results = await client.executeToolCalls(reply.choices[0]?.message.tool_calls)
 * messages.push(reply.choices[0].message, ...LlmProviders.openAiToolMessages(results))
 * // Anthropic (Messages)
 * const message = await anthropic.messages.create({ model, max_tokens, messages, tools: LlmProviders.anthropicTools(tools) })
 * const answers = await client.executeToolCalls(LlmProviders.anthropicToolCalls(message.content))
 * messages.push({ role: "assistant", content: message.content }, { role: "user", content: LlmProviders.anthropicToolResults(answers) })
 * ```
 *
 * Each result keeps `error_kind` apart from the provider shape: `"unknown_tool"` (no such tool) is not the
 * tool's own failure (`"tool_error"`, `"failure"`).
 *
 * @since 0.2.0
 */
import type { FunctionTool, ToolCall, ToolResult } from "./LlmBridge.js"
import { isRecord } from "./McpSchema.js"

/**
 * OpenAI's function tool (`ChatCompletionTool`, `ChatCompletionFunctionTool`).
 *
 * @since 0.2.0
 * @category models
 */
export interface OpenAiTool {
  type: "function"
  function: { name: string; description: string; parameters: { [key: string]: unknown }; strict?: boolean }
}

/**
 * OpenAI's tool message (`ChatCompletionToolMessageParam`).
 *
 * @since 0.2.0
 * @category models
 */
export interface OpenAiToolMessage {
  role: "tool"
  tool_call_id: string
  content: string
}

/**
 * Anthropic's tool (`Anthropic.Tool`).
 *
 * @since 0.2.0
 * @category models
 */
export interface AnthropicTool {
  name: string
  description: string
  input_schema: { type: "object"; [key: string]: unknown }
}

/**
 * Anthropic's `tool_result` content block (`ToolResultBlockParam`).
 *
 * @since 0.2.0
 * @category models
 */
export interface AnthropicToolResult {
  type: "tool_result"
  tool_use_id: string
  content: string
  is_error: boolean
}

/**
 * The declarations for OpenAI's `tools`.
 *
 * @since 0.2.0
 * @category OpenAI
 */
export const openAiTools = (tools: ReadonlyArray<FunctionTool>): Array<OpenAiTool> =>
  tools.map(({ function: f }) => ({
    type: "function",
    function: {
      name: f.name,
      description: f.description,
      parameters: { ...f.parameters },
      ...(f.strict === undefined ? {} : { strict: f.strict })
    }
  }))

/**
 * The answers as OpenAI `tool` messages (one per call, in call order).
 *
 * @since 0.2.0
 * @category OpenAI
 */
export const openAiToolMessages = (results: ReadonlyArray<ToolResult>): Array<OpenAiToolMessage> =>
  results.map((result) => ({ role: "tool", tool_call_id: result.tool_call_id, content: result.content }))

/**
 * The declarations for Anthropic's `tools`.
 *
 * @since 0.2.0
 * @category Anthropic
 */
export const anthropicTools = (tools: ReadonlyArray<FunctionTool>): Array<AnthropicTool> =>
  tools.map(({ function: f }) => ({
    name: f.name,
    description: f.description,
    input_schema: { ...f.parameters, type: "object" }
  }))

/**
 * The `tool_use` blocks of an Anthropic message as tool calls for `executeToolCalls` (other blocks are skipped).
 *
 * @since 0.2.0
 * @category Anthropic
 */
export const anthropicToolCalls = (content: ReadonlyArray<unknown>): Array<ToolCall> =>
  content.flatMap((block): Array<ToolCall> =>
    isRecord(block) && block["type"] === "tool_use" && typeof block["id"] === "string" && typeof block["name"] === "string"
      ? [{ id: block["id"], type: "function", function: { name: block["name"], arguments: JSON.stringify(block["input"] ?? {}) } }]
      : []
  )

/**
 * The answers as Anthropic `tool_result` blocks (with `is_error`), for the next user message.
 *
 * @since 0.2.0
 * @category Anthropic
 */
export const anthropicToolResults = (results: ReadonlyArray<ToolResult>): Array<AnthropicToolResult> =>
  results.map((result) => ({
    type: "tool_result",
    tool_use_id: result.tool_call_id,
    content: result.content,
    is_error: result.is_error
  }))
