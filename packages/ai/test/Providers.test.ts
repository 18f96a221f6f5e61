/**
 * The toolkit is accepted by the real providers' models: this file is type-checked by `npm run check`, and the
 * programs are built (not run: no network) by the test.
 */
import { LanguageModel } from "@effect/ai"
import { AnthropicClient, AnthropicLanguageModel } from "@effect/ai-anthropic"
import { OpenAiClient, OpenAiLanguageModel } from "@effect/ai-openai"
import { McpToolkit } from "@mcp-effect/ai"
import { McpTestServer } from "@mcp-effect/client"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"

const server = McpTestServer.make({
  tools: [McpTestServer.tool({ name: "echo", handler: (args) => Effect.succeed(JSON.stringify(args)) })]
})

const ask = Effect.gen(function*() {
  const mcp = yield* McpToolkit.make({ prefix: "demo", strict: true })
  const response = yield* LanguageModel.generateText({ prompt: "Say hi through echo", toolkit: mcp.toolkit }).pipe(
    Effect.provide(mcp.layer)
  )
  return response.toolResults.map((result) => ({ name: result.name, failed: result.isFailure, text: result.result }))
})

const openAi: Effect.Effect<
  ReadonlyArray<{ readonly name: string; readonly failed: boolean; readonly text: string }>,
  unknown
> = ask.pipe(
  Effect.provide(OpenAiLanguageModel.model("gpt-4.1")),
  Effect.provide(OpenAiClient.layer({ apiKey: Redacted.make("sk-test") })),
  Effect.provide(Layer.mergeAll(server.layer(), NodeHttpClient.layerUndici))
)

const anthropic: Effect.Effect<
  ReadonlyArray<{ readonly name: string; readonly failed: boolean; readonly text: string }>,
  unknown
> = ask.pipe(
  Effect.provide(AnthropicLanguageModel.model("claude-sonnet-4-5")),
  Effect.provide(AnthropicClient.layer({ apiKey: Redacted.make("sk-ant-test") })),
  Effect.provide(Layer.mergeAll(server.layer(), NodeHttpClient.layerUndici))
)

describe("providers", () => {
  it("OpenAI and Anthropic models accept the toolkit (type-checked; built, not run)", () => {
    assert.isTrue(Effect.isEffect(openAi))
    assert.isTrue(Effect.isEffect(anthropic))
  })
})
