/**
 * A whole tool round through `@effect/ai`: a scripted language model (no network) asks for tools of two MCP
 * servers (one modern, one legacy, both the testing kit's) behind a registry; the toolkit runs them through
 * the clients; the model reads the results in the next turn.
 */
import { LanguageModel, Prompt, Response } from "@effect/ai"
import type * as Tool from "@effect/ai/Tool"
import { McpToolkit } from "@mcp-effect/ai"
import { LlmBridge, McpClient, type McpError, McpTestServer, ToolRegistry } from "@mcp-effect/client"
import { assert, describe, it } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"

const weather = McpTestServer.make({
  era: "modern",
  tools: [
    McpTestServer.tool({
      name: "forecast",
      description: "Tomorrow's weather in a city",
      inputSchema: {
        type: "object",
        properties: { city: { type: "string" }, unit: { $ref: "#/$defs/unit" } },
        required: ["city"],
        $defs: { unit: { type: "string", enum: ["C", "F"] } }
      },
      annotations: { readOnlyHint: true, idempotentHint: true },
      handler: (args, ctx) =>
        Effect.gen(function*() {
          yield* ctx.progress(1, { total: 1 })
          const ok = yield* ctx.elicit({ message: "Share your location?", requestedSchema: { type: "object", properties: {} } })
          return { city: args["city"], sky: "clear", consent: ok["action"] }
        })
    }),
    McpTestServer.tool({
      name: "broken",
      handler: () => Effect.succeed({ content: [{ type: "text", text: "the sensor is offline" }], isError: true })
    })
  ]
})

const files = McpTestServer.make({
  era: "legacy",
  tools: [
    McpTestServer.tool({
      name: "read.file",
      description: "Read a file",
      inputSchema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
      handler: (args) => Effect.succeed(`contents of ${String(args["path"])}`)
    }),
    McpTestServer.tool({ name: "explode", handler: () => Effect.fail("disk on fire") })
  ]
})

/** A model that asks for tools in its first turn and repeats what it read in its second. */
const scriptedModel = (seen: Array<LanguageModel.ProviderOptions>) =>
  Layer.effect(
    LanguageModel.LanguageModel,
    LanguageModel.make({
      generateText: (options) =>
        Effect.sync((): Array<Response.PartEncoded> => {
          seen.push(options)
          const results = options.prompt.content.flatMap((message) =>
            message.role === "tool" ? message.content : []
          )
          if (results.length === 0) {
            return [
              Response.makePart("tool-call", { id: "c1", name: "weather__forecast", params: { city: "Oslo", unit: null }, providerExecuted: false }),
              Response.makePart("tool-call", { id: "c2", name: "files__read_file_", params: { path: "/a" }, providerExecuted: false }),
              Response.makePart("tool-call", { id: "c3", name: "weather__broken", params: {}, providerExecuted: false }),
              Response.makePart("tool-call", { id: "c4", name: "files__explode", params: {}, providerExecuted: false })
            ].map((part) => ({ ...part, name: fullName(options.tools, part.name) }))
          }
          const text = results.map((r) => `${r.name}${r.isFailure ? " (failed)" : ""}: ${JSON.stringify(r.result)}`).join("\n")
          return [{ type: "text", text }]
        }),
      streamText: () => Stream.empty
    })
  )

/** The model's tools by prefix of their name (the file tool's name carries a hash: it had a dot). */
const fullName = (tools: ReadonlyArray<Tool.Any>, start: string): string =>
  tools.find((tool) => tool.name === start || tool.name.startsWith(start))?.name ?? start

const progress: Array<string> = []

describe("McpToolkit", () => {
  it.scoped("a full generateText tool round through tools of two MCP servers", () =>
    Effect.gen(function*() {
      const clientOf = (layer: Layer.Layer<McpClient.McpClient, McpError.McpClientError>) =>
        Effect.map(Layer.build(layer), Context.get(McpClient.McpClient))
      const weatherClient = yield* clientOf(weather.layer({
        onElicit: () => ({ action: "accept", content: {} }),
        onProgress: (report) => void progress.push(report.toolCallId ?? "")
      }))
      const filesClient = yield* clientOf(files.layer())
      const registry = yield* ToolRegistry.make()
      yield* registry.register("weather", LlmBridge.clientSource(weatherClient))
      yield* registry.register("files", LlmBridge.clientSource(filesClient))
      const mcp = yield* McpToolkit.fromBridge(registry)
      const seen: Array<LanguageModel.ProviderOptions> = []

      const round = Effect.gen(function*() {
        const first = yield* LanguageModel.generateText({ prompt: "Weather in Oslo, and read /a", toolkit: mcp.toolkit })
        const second = yield* LanguageModel.generateText({
          prompt: Prompt.merge(Prompt.make("Weather in Oslo, and read /a"), Prompt.fromResponseParts(first.content)),
          toolkit: mcp.toolkit
        })
        return { first, second }
      }).pipe(Effect.provide(mcp.layer), Effect.provide(scriptedModel(seen)))
      const { first, second } = yield* round

      // The model was offered every tool, under prefixed, sanitised names, with the servers' JSON Schemas.
      const offered = seen[0]?.tools.map((tool) => tool.name) ?? []
      assert.deepStrictEqual(offered.slice(0, 2), ["weather__forecast", "weather__broken"])
      assert.match(offered[2] ?? "", /^files__read_file_[0-9a-f]{8}$/)
      const forecast = mcp.tools.find((tool) => tool.name === "weather__forecast")
      assert.deepStrictEqual(forecast?.declaration.function.parameters, {
        type: "object",
        properties: { city: { type: "string" }, unit: { type: "string", enum: ["C", "F"] } },
        required: ["city"]
      })

      // Results and failures, as tool results: nothing failed generateText.
      const results = first.toolResults.map((r) => ({ name: r.name, isFailure: r.isFailure, result: r.result }))
      assert.deepStrictEqual(results[0], {
        name: "weather__forecast",
        isFailure: false,
        result: JSON.stringify({ city: "Oslo", sky: "clear", consent: "accept" })
      })
      assert.deepStrictEqual(results[1], { name: offered[2], isFailure: false, result: "contents of /a" })
      assert.deepStrictEqual(results[2], { name: "weather__broken", isFailure: true, result: "the sensor is offline" })
      assert.strictEqual(results[3]?.isFailure, true)
      assert.match(String(results[3]?.result), /disk on fire/)

      // The model read them in its next turn.
      assert.include(second.text, "weather__forecast: ")
      assert.include(second.text, "(failed)")
      assert.include(second.text, "contents of /a")

      // The null the model sent for the optional unit was removed before the call; progress reached the hook.
      const calls = yield* weather.requests("tools/call")
      const args = calls.map((m) => (m["params"] as { arguments?: unknown }).arguments)
      assert.deepStrictEqual(args[0], { city: "Oslo" })
      assert.isTrue(progress.some((id) => id.startsWith("mcp_")))
    }))
})
