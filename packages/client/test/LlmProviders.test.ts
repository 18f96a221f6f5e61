/**
 * A Promise front that fits: the bridge's tools and answers type-check against the real `openai`,
 * `@anthropic-ai/sdk` and `ai` request types without a cast (this file is type-checked with the tests), and a
 * scripted round through each provider's shape runs against a real server (no network model): the model's tool
 * calls, our answers in the provider's own message shape, "no such tool" told apart from the tool's own failure.
 */
import type Anthropic from "@anthropic-ai/sdk"
import { connectStdio, LlmProviders, type PromiseClient, type ToolResult } from "@mcp-effect/client/node"
import { AiSdkToolError, mcpToolsForAiSdk } from "@mcp-effect/client/AiSdk"
import { generateText, stepCountIs } from "ai"
import { MockLanguageModelV3 } from "ai/test"
import type OpenAI from "openai"
import { createRequire } from "node:module"
import { afterAll, assert, beforeAll, describe, it } from "vitest"

const official = createRequire(import.meta.url).resolve("@mcp-effect/test-servers/official")

let client: PromiseClient

beforeAll(async () => {
  client = await connectStdio({ command: process.execPath, args: [official] })
})
afterAll(async () => {
  await client.close()
})

const kinds = (results: ReadonlyArray<ToolResult>) => results.map((r) => [r.tool_call_id, r.is_error, r.error_kind])

describe("provider shapes", () => {
  it("OpenAI: tools in the request, tool_calls answered with tool messages", async () => {
    const tools = await client.toolsForLlm()
    const messages: Array<OpenAI.Chat.ChatCompletionMessageParam> = [{ role: "user", content: "add 2 and 40" }]
    const request: OpenAI.Chat.ChatCompletionCreateParamsNonStreaming = {
      model: "gpt-test",
      messages,
      tools: LlmProviders.openAiTools(tools)
    }
    assert.isTrue(request.tools?.some((t) => t.type === "function" && t.function.name === "add"))
    // The model's reply, as the SDK types it.
    const reply: OpenAI.Chat.ChatCompletionMessage = {
      role: "assistant",
      content: null,
      refusal: null,
      tool_calls: [
        { id: "c1", type: "function", function: { name: "add", arguments: "{\"a\":2,\"b\":40}" } },
        { id: "c2", type: "function", function: { name: "nope", arguments: "{}" } },
        { id: "c3", type: "function", function: { name: "fail", arguments: "{}" } }
      ]
    }
    const results = await client.executeToolCalls(reply.tool_calls)
    assert.deepStrictEqual(kinds(results), [["c1", false, undefined], ["c2", true, "unknown_tool"], ["c3", true, "tool_error"]])
    messages.push(reply, ...LlmProviders.openAiToolMessages(results))
    assert.deepStrictEqual(messages.at(1 + 1), { role: "tool", tool_call_id: "c1", content: results[0]?.content ?? "" })
    assert.include(results[0]?.content, "42")
  })

  it("Anthropic: tools in the request, tool_use blocks answered with tool_result blocks (is_error)", async () => {
    const tools = await client.toolsForLlm()
    const request: Anthropic.MessageCreateParamsNonStreaming = {
      model: "claude-test",
      max_tokens: 100,
      messages: [{ role: "user", content: "echo hi" }],
      tools: LlmProviders.anthropicTools(tools)
    }
    const echo = request.tools?.find((t) => "name" in t && t.name === "echo")
    assert(echo !== undefined && "input_schema" in echo)
    assert.strictEqual(echo.input_schema.type, "object")
    const content: Array<Anthropic.ContentBlock> = [
      { type: "text", text: "calling", citations: null },
      { type: "tool_use", id: "t1", name: "echo", input: { text: "hi" }, caller: { type: "direct" } },
      { type: "tool_use", id: "t2", name: "nope", input: {}, caller: { type: "direct" } }
    ]
    const results = await client.executeToolCalls(LlmProviders.anthropicToolCalls(content))
    assert.deepStrictEqual(kinds(results), [["t1", false, undefined], ["t2", true, "unknown_tool"]])
    const next: Array<Anthropic.MessageParam> = [
      { role: "assistant", content },
      { role: "user", content: LlmProviders.anthropicToolResults(results) }
    ]
    assert.deepStrictEqual(next[1]?.content, [
      { type: "tool_result", tool_use_id: "t1", content: "hi", is_error: false },
      { type: "tool_result", tool_use_id: "t2", content: results[1]?.content ?? "", is_error: true }
    ])
  })

  it("Vercel AI SDK: tools: await mcpToolsForAiSdk(client), a scripted model calls them", async () => {
    const usage = {
      inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
      outputTokens: { total: 1, text: 1, reasoning: undefined }
    }
    const model = new MockLanguageModelV3({
      doGenerate: [
        {
          content: [
            { type: "tool-call", toolCallId: "a1", toolName: "add", input: "{\"a\":1,\"b\":2}" },
            { type: "tool-call", toolCallId: "a2", toolName: "fail", input: "{}" }
          ],
          finishReason: { unified: "tool-calls", raw: undefined },
          usage,
          warnings: []
        },
        { content: [{ type: "text", text: "done" }], finishReason: { unified: "stop", raw: undefined }, usage, warnings: [] }
      ]
    })
    const result = await generateText({ model, prompt: "add", tools: await mcpToolsForAiSdk(client), stopWhen: stepCountIs(3) })
    assert.strictEqual(result.text, "done")
    const [first] = result.steps
    assert(first !== undefined)
    assert.deepStrictEqual(first.toolResults.map((r) => [r.toolCallId, r.toolName]), [["a1", "add"]])
    assert.include(String(first.toolResults[0]?.output), "3")
    const failed = first.content.find((part) => part.type === "tool-error")
    assert(failed !== undefined && failed.type === "tool-error")
    assert.strictEqual(failed.toolName, "fail")
    assert(failed.error instanceof AiSdkToolError)
    assert.strictEqual(failed.error.errorKind, "tool_error")
    // The declarations carry the tool's JSON Schema.
    const sent = model.doGenerateCalls[0]?.tools?.find((t) => t.name === "add")
    assert(sent !== undefined && sent.type === "function")
    assert.deepStrictEqual(Object.keys((sent.inputSchema as { properties: object }).properties).sort(), ["a", "b"])
  })
})
