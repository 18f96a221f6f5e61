/**
 * The toolkit as the real providers see it.
 *
 * Effect 3: this file imported `@effect/ai-openai` / `@effect/ai-anthropic` and type-checked that their models
 * accept the toolkit (`OpenAiLanguageModel.model(...)`, `OpenAiClient.layer(...)`, built, not run).
 *
 * Effect 4: the newest provider builds are 4.0.0-beta.106 (there is no 4.x stable). They are written against
 * the beta layout of `effect`, `effect/unstable/ai/*`, `effect/unstable/http/*`, `effect/unstable/encoding/*`,
 * `effect/unstable/socket/*`, which `effect` 4.0.0 stable moved to `effect/ai`, `effect/http`, ... . Against
 * `effect` 4.1.5 they neither type-check nor load:
 *
 * - type-check (`--skipLibCheck false`): 69 errors in their `.d.ts`, e.g. `OpenAiClient.d.ts: error TS2307:
 *   Cannot find module 'effect/unstable/ai/AiError'`, `OpenAiLanguageModel.d.ts: error TS2304: Cannot find name
 *   'ProviderOptions'`. With `skipLibCheck` every type from those modules is `any`, so a program provided with
 *   `OpenAiLanguageModel.model("gpt-4.1")` has requirements `any` (`Type 'Effect<Answer[], unknown, any>' is not
 *   assignable to type 'Effect<readonly Answer[], unknown, never>'`): nothing is checked.
 * - load: `import("@effect/ai-openai")` fails with `ERR_MODULE_NOT_FOUND: Cannot find module
 *   '.../node_modules/effect/dist/unstable/encoding/Sse.js'` (the same for `@effect/ai-anthropic`).
 *
 * So the first test pins that (it fails once a provider build that loads on this `effect` is installed: then
 * restore the Effect 3 type-level check), and the others check what the providers would send, built exactly as
 * their `prepareTools` does (read in their sources), with `effect` 4.1.5's own `Tool` and structured-output
 * codecs, from a whole `generateText` round through the toolkit.
 */
import { McpToolkit } from "@mcp-effect/ai"
import { McpClient, McpTestServer } from "@mcp-effect/client"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Predicate from "effect/Predicate"
import * as Stream from "effect/Stream"
import { LanguageModel, Response, Tool } from "effect/ai"
import { toCodecAnthropic } from "effect/ai/AnthropicStructuredOutput"
import { toCodecOpenAI } from "effect/ai/OpenAiStructuredOutput"

const server = McpTestServer.make({
  tools: [
    McpTestServer.tool({
      name: "echo",
      inputSchema: { type: "object", properties: { text: { type: "string" }, times: { type: "integer" } }, required: ["text"] },
      handler: (args) => Effect.succeed(JSON.stringify(args))
    }),
    McpTestServer.tool({
      name: "free",
      inputSchema: { type: "object", properties: { anything: {} } },
      handler: () => Effect.succeed("ok")
    })
  ]
})

/** `@effect/ai-openai` 4.0.0-beta.106 `prepareTools`: one Responses API function tool per toolkit tool. */
const openAiTools = (tools: ReadonlyArray<Tool.Any>) =>
  tools.filter((tool) => Tool.isUserDefined(tool) || Tool.isDynamic(tool)).map((tool) => {
    const description = Tool.getDescription(tool)
    return {
      type: "function" as const,
      name: tool.name,
      parameters: Tool.getJsonSchema(tool, { transformer: toCodecOpenAI }),
      strict: Tool.getStrictMode(tool) ?? true,
      ...(Predicate.isNotUndefined(description) ? { description } : undefined)
    }
  })

/** `@effect/ai-anthropic` 4.0.0-beta.106 `prepareTools` (a model with structured outputs). */
const anthropicTools = (tools: ReadonlyArray<Tool.Any>) =>
  tools.filter((tool) => Tool.isUserDefined(tool) || Tool.isDynamic(tool)).map((tool) => {
    const description = Tool.getDescription(tool)
    return {
      name: tool.name,
      input_schema: Tool.getJsonSchema(tool, { transformer: toCodecAnthropic }),
      strict: Tool.getStrictMode(tool) ?? true,
      ...(Predicate.isNotUndefined(description) ? { description } : undefined)
    }
  })

/** A provider stand-in: records the request's tools in the provider's shape, calls echo, then answers. */
const provider = <A>(declare: (tools: ReadonlyArray<Tool.Any>) => A, sent: Array<A>) =>
  Layer.effect(
    LanguageModel.LanguageModel,
    LanguageModel.make({
      generateText: (options) =>
        Effect.sync((): Array<Response.PartEncoded> => {
          sent.push(declare(options.tools))
          return [
            Response.makePart("tool-call", {
              id: "call_1",
              name: "demo__echo",
              params: { text: "hi", times: null },
              providerExecuted: false
            })
          ]
        }),
      streamText: () => Stream.empty
    })
  )

const ask = Effect.gen(function*() {
  const client = yield* McpClient.McpClient
  const toolkit = yield* McpToolkit.toolkit(client, { prefix: "demo__", strict: true })
  const response = yield* LanguageModel.generateText({ prompt: "Say hi through echo", toolkit })
  return response.toolResults.map((result) => ({ name: result.name, failed: result.isFailure, text: result.result }))
})

const echoStrict = {
  type: "object",
  properties: { text: { type: "string" }, times: { type: ["integer", "null"] } },
  required: ["text", "times"],
  additionalProperties: false
}

describe("providers", () => {
  it.effect("the provider builds on npm (4.0.0-beta.106) do not load on effect 4.1.5 (effect/unstable/* is gone)", () =>
    Effect.gen(function*() {
      const loaders: ReadonlyArray<() => Promise<unknown>> = [
        () => import("@effect/ai-openai"),
        () => import("@effect/ai-anthropic")
      ]
      for (const load of loaders) {
        const error = yield* Effect.flip(Effect.tryPromise({ try: load, catch: (cause: unknown) => cause }))
        assert(error instanceof Error, "a provider build loads now: restore the type-level check of Effect 3")
        assert.match(error.message, /effect\/dist\/unstable\//)
      }
    }))

  it.effect("OpenAI: the function tools the provider would send, strict where the schema allows", () =>
    Effect.gen(function*() {
      const sent: Array<ReturnType<typeof openAiTools>> = []
      const results = yield* ask.pipe(Effect.provide(Layer.mergeAll(server.layer(), provider(openAiTools, sent))))
      assert.deepStrictEqual(sent[0], [
        { type: "function", name: "demo__echo", parameters: echoStrict, strict: true },
        {
          type: "function",
          name: "demo__free",
          parameters: { type: "object", properties: { anything: {} } },
          strict: false
        }
      ])
      // The null a strict model sends for the optional `times` is removed before the call.
      assert.deepStrictEqual(results, [{ name: "demo__echo", failed: false, text: JSON.stringify({ text: "hi" }) }])
    }))

  it.effect("Anthropic: the user-defined tools the provider would send", () =>
    Effect.gen(function*() {
      const sent: Array<ReturnType<typeof anthropicTools>> = []
      const results = yield* ask.pipe(Effect.provide(Layer.mergeAll(server.layer(), provider(anthropicTools, sent))))
      assert.deepStrictEqual(sent[0]?.map((tool) => [tool.name, tool.strict]), [["demo__echo", true], ["demo__free", false]])
      assert.deepStrictEqual(sent[0]?.[0]?.input_schema, echoStrict)
      assert.deepStrictEqual(results.map((result) => result.failed), [false])
    }))
})
