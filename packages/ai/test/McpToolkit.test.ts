/**
 * Whole tool rounds through `effect/ai`: a scripted language model (no network, `LanguageModel.make`) asks for
 * tools of MCP servers (the testing kit's `McpTestServer`, modern and legacy), the toolkit runs them through the
 * clients, the model reads the results in the next turn. One test per option of Effect's own
 * `McpClient.toolkit` (`prefix`, `tools`, `trustAnnotations`, `timeout`, `resultMode`, `failureMode`,
 * `transformTool`), and for what this toolkit adds (registries and local toolkits, input hooks and progress
 * with the model's call id, strict mode, names sanitised, the batch seen whole).
 */
import { McpToolkit } from "@mcp-effect/ai"
import { LlmBridge, McpClient, type McpError, McpSchema, McpTestServer, Toolkit as LocalToolkit, ToolRegistry } from "@mcp-effect/client"
import { assert, describe, it } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import { LanguageModel, Prompt, Response, Tool } from "effect/ai"
import { TestClock } from "effect/testing"

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
      annotations: { readOnlyHint: true, idempotentHint: true, title: "Forecast" },
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

const charts = McpTestServer.make({
  era: "modern",
  tools: [
    McpTestServer.tool({
      name: "chart",
      annotations: { readOnlyHint: true, idempotentHint: true },
      handler: () =>
        Effect.succeed({
          content: [{ type: "text", text: "a chart" }, { type: "image", data: "aGk=", mimeType: "image/png" }]
        })
    }),
    McpTestServer.tool({
      name: "slow",
      handler: () => Effect.as(Effect.sleep("5 seconds"), "late")
    }),
    McpTestServer.tool({
      name: "failing",
      handler: () => Effect.succeed({ content: [{ type: "text", text: "no data" }], isError: true })
    }),
    McpTestServer.tool({
      name: "lookup",
      annotations: { readOnlyHint: true, idempotentHint: true },
      inputSchema: { type: "object", properties: { key: { type: "string" }, note: { type: "string" } }, required: ["key"] },
      handler: (args) => Effect.succeed(`value of ${String(args["key"])}`)
    })
  ]
})

interface Call {
  readonly id: string
  readonly name: string
  readonly params: unknown
}

/**
 * A model that asks for `calls` in its first turn (names matched by their start: sanitised names carry a
 * hash) and, once it has read tool results, answers with what it read. Every request is recorded.
 */
const scriptedModel = (calls: ReadonlyArray<Call>, seen: Array<LanguageModel.ProviderOptions>) =>
  Layer.effect(
    LanguageModel.LanguageModel,
    LanguageModel.make({
      generateText: (options) =>
        Effect.sync((): Array<Response.PartEncoded> => {
          seen.push(options)
          const results = options.prompt.content.flatMap((message) => message.role === "tool" ? message.content : [])
          if (results.length === 0) {
            return calls.map((call) =>
              Response.makePart("tool-call", {
                id: call.id,
                name: fullName(options.tools, call.name),
                params: call.params,
                providerExecuted: false
              })
            )
          }
          const text = results.map((r) =>
            r.type === "tool-result" ? `${r.name}${r.isFailure ? " (failed)" : ""}: ${JSON.stringify(r.result)}` : ""
          ).join("\n")
          return [{ type: "text", text }]
        }),
      streamText: () => Stream.empty
    })
  )

/** The model's tools by prefix of their name (a sanitised name carries a hash). */
const fullName = (tools: ReadonlyArray<Tool.Any>, start: string): string =>
  tools.find((tool) => tool.name === start || tool.name.startsWith(start))?.name ?? start

const clientOf = (layer: Layer.Layer<McpClient.McpClient, McpError.McpClientError>) =>
  Effect.map(Layer.build(layer), Context.get(McpClient.McpClient))

const byName = <A extends { readonly name: string }>(parts: ReadonlyArray<A>, name: string): A | undefined =>
  parts.find((part) => part.name === name)

const toolOf = (toolkit: { readonly tools: Record<string, Tool.Any> }, name: string): Tool.Any => {
  const tool = toolkit.tools[name]
  assert(tool !== undefined, `no tool ${name}`)
  return tool
}

describe("McpToolkit: a full round", () => {
  it.effect("generateText through tools of two MCP servers behind a registry, the handlers provided as a layer", () =>
    Effect.gen(function*() {
      const progress: Array<string> = []
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
      const calls: ReadonlyArray<Call> = [
        { id: "c1", name: "weather__forecast", params: { city: "Oslo", unit: null } },
        { id: "c2", name: "files__read_file_", params: { path: "/a" } },
        { id: "c3", name: "weather__broken", params: {} },
        { id: "c4", name: "files__explode", params: {} }
      ]

      const round = Effect.gen(function*() {
        const first = yield* LanguageModel.generateText({ prompt: "Weather in Oslo, and read /a", toolkit: mcp.toolkit })
        const second = yield* LanguageModel.generateText({
          prompt: Prompt.concat(Prompt.make("Weather in Oslo, and read /a"), Prompt.fromResponseParts(first.content)),
          toolkit: mcp.toolkit
        })
        return { first, second }
      }).pipe(Effect.provide(mcp.layer), Effect.provide(scriptedModel(calls, seen)))
      const { first, second } = yield* round

      // The model was offered every tool, under prefixed, sanitised names, with the servers' JSON Schemas.
      const offered = seen[0]?.tools.map((tool) => tool.name) ?? []
      assert.deepStrictEqual(offered.slice(0, 2), ["weather__forecast", "weather__broken"])
      assert.match(offered[2] ?? "", /^files__read_file_[0-9a-f]{8}$/)
      const forecast = mcp.declarations.find((tool) => tool.name === "weather__forecast")
      const expected = {
        type: "object",
        properties: { city: { type: "string" }, unit: { type: "string", enum: ["C", "F"] } },
        required: ["city"]
      }
      assert.deepStrictEqual(forecast?.declaration.function.parameters, expected)
      assert.deepStrictEqual(Tool.getJsonSchema(toolOf(mcp, "weather__forecast")), expected)

      // Results and failures, as tool results: nothing failed generateText.
      const results = first.toolResults.map((r) => ({ name: r.name, isFailure: r.isFailure, result: r.result }))
      assert.deepStrictEqual(byName(results, "weather__forecast"), {
        name: "weather__forecast",
        isFailure: false,
        result: JSON.stringify({ city: "Oslo", sky: "clear", consent: "accept" })
      })
      assert.deepStrictEqual(byName(results, offered[2] ?? ""), { name: offered[2], isFailure: false, result: "contents of /a" })
      assert.deepStrictEqual(byName(results, "weather__broken"), {
        name: "weather__broken",
        isFailure: true,
        result: "the sensor is offline"
      })
      assert.strictEqual(byName(results, "files__explode")?.isFailure, true)
      assert.match(String(byName(results, "files__explode")?.result), /disk on fire/)

      // The model read them in its next turn.
      assert.include(second.text, "weather__forecast: ")
      assert.include(second.text, "(failed)")
      assert.include(second.text, "contents of /a")

      // The null the model sent for the optional unit was removed before the call; the input hook ran during
      // the call, and progress reached the hook with the model's own call id.
      const requests = yield* weather.requests("tools/call")
      const args = requests.map((m) => (m["params"] as { arguments?: unknown }).arguments)
      assert.deepStrictEqual(args[0], { city: "Oslo" })
      // (A modern server runs the handler again in each input round, so the report may come more than once.)
      assert.isAbove(progress.length, 0)
      assert.isTrue(progress.every((id) => id === "c1"))
    }))

  it.effect("the toolkit itself is a Toolkit.WithHandler: generateText takes it as it is", () =>
    Effect.gen(function*() {
      const client = yield* clientOf(files.layer())
      const toolkit = yield* McpToolkit.toolkit(client)
      const seen: Array<LanguageModel.ProviderOptions> = []
      const response = yield* LanguageModel.generateText({ prompt: "read /b", toolkit }).pipe(
        Effect.provide(scriptedModel([{ id: "r1", name: "read_file_", params: { path: "/b" } }], seen))
      )
      assert.deepStrictEqual(response.toolResults.map((r) => [r.id, r.isFailure, r.result]), [["r1", false, "contents of /b"]])
    }))
})

describe("McpToolkit: the options of Effect's McpClient.toolkit", () => {
  it.effect("prefix: prepended as written (a string alone is the prefix); the call reaches the tool by its own name", () =>
    Effect.gen(function*() {
      const client = yield* clientOf(charts.layer())
      const plain = yield* McpToolkit.toolkit(client, "charts__")
      assert.deepStrictEqual(Object.keys(plain.tools), ["charts__chart", "charts__slow", "charts__failing", "charts__lookup"])
      const glued = yield* McpToolkit.toolkit(client, { prefix: "x" })
      assert.deepStrictEqual(Object.keys(glued.tools), ["xchart", "xslow", "xfailing", "xlookup"])
      const seen: Array<LanguageModel.ProviderOptions> = []
      const response = yield* LanguageModel.generateText({ prompt: "look up k", toolkit: plain }).pipe(
        Effect.provide(scriptedModel([{ id: "p1", name: "charts__lookup", params: { key: "k" } }], seen))
      )
      assert.deepStrictEqual(response.toolResults.map((r) => r.result), ["value of k"])
      const calls = yield* charts.requests("tools/call")
      assert.strictEqual((calls.at(-1)?.["params"] as { name?: unknown }).name, "lookup")
    }))

  it.effect("tools: an approved snapshot is offered instead of tools/list, and only it", () =>
    Effect.gen(function*() {
      const client = yield* clientOf(charts.layer())
      const listsBefore = (yield* charts.requests("tools/list")).length
      const approved = { name: "lookup", inputSchema: { type: "object", properties: { key: { type: "string" } } } }
      const mcp = yield* McpToolkit.toolkit(client, { tools: [approved] })
      assert.deepStrictEqual(Object.keys(mcp.tools), ["lookup"])
      assert.strictEqual((yield* charts.requests("tools/list")).length, listsBefore)
      const [result] = yield* mcp.executeToolCalls([{ id: "s1", name: "lookup", params: { key: "z" } }])
      assert.deepStrictEqual([result?.isFailure, result?.result], [false, "value of z"])
    }))

  it.effect("trustAnnotations: the server's hints become effect/ai annotations only when trusted", () =>
    Effect.gen(function*() {
      const client = yield* clientOf(weather.layer())
      const untrusted = toolOf(yield* McpToolkit.toolkit(client), "forecast")
      assert.isTrue(Option.isNone(Context.getOption(untrusted.annotations, Tool.Title)))
      assert.isFalse(Context.get(untrusted.annotations, Tool.Readonly))
      const trusted = toolOf(yield* McpToolkit.toolkit(client, { trustAnnotations: true }), "forecast")
      assert.deepStrictEqual(Context.getOption(trusted.annotations, Tool.Title), Option.some("Forecast"))
      assert.isTrue(Context.get(trusted.annotations, Tool.Readonly))
      assert.isTrue(Context.get(trusted.annotations, Tool.Idempotent))
      // Approval is never taken from the server.
      assert.isUndefined(trusted.needsApproval)
    }))

  it.live("timeout: a call past it is cancelled and answered as failed", () =>
    Effect.gen(function*() {
      const client = yield* clientOf(charts.layer())
      const mcp = yield* McpToolkit.toolkit(client, { timeout: "100 millis" })
      const seen: Array<LanguageModel.ProviderOptions> = []
      const started = Date.now()
      const response = yield* LanguageModel.generateText({ prompt: "be slow", toolkit: mcp }).pipe(
        Effect.provide(scriptedModel([{ id: "t1", name: "slow", params: {} }], seen))
      )
      assert.isBelow(Date.now() - started, 4000)
      const [result] = response.toolResults
      assert.strictEqual(result?.isFailure, true)
      assert.match(String(result?.result), /did not answer within 100 ms/)
    }))

  it.effect("timeout on a local toolkit: the run is bounded by the toolkit itself (TestClock)", () =>
    Effect.gen(function*() {
      const slow = LocalToolkit.tool({
        name: "slow",
        parameters: Schema.Struct({}),
        handler: () => Effect.as(Effect.sleep("5 seconds"), "late")
      })
      const mcp = yield* McpToolkit.fromSource(yield* LocalToolkit.source(LocalToolkit.make(slow)), { timeout: "1 second" })
      const fiber = yield* LanguageModel.generateText({ prompt: "be slow", toolkit: mcp }).pipe(
        Effect.provide(scriptedModel([{ id: "t2", name: "slow", params: {} }], [])),
        Effect.forkChild
      )
      // The handler starts after a few scheduler turns: move the clock in steps (3 s in all, short of the
      // handler's 5 s) until the round is over.
      for (let step = 0; step < 30 && fiber.pollUnsafe() === undefined; step++) yield* TestClock.adjust("100 millis")
      const response = yield* Fiber.join(fiber)
      assert.deepStrictEqual(response.toolResults.map((r) => [r.isFailure, r.result]), [
        [true, "Tool \"slow\" did not finish in time and was cancelled."]
      ])
    }))

  it.effect("resultMode complete: the whole CallToolResult, sent to the model as text and file parts", () =>
    Effect.gen(function*() {
      const client = yield* clientOf(charts.layer())
      const mcp = yield* McpToolkit.toolkit(client, { resultMode: "complete" })
      const seen: Array<LanguageModel.ProviderOptions> = []
      const response = yield* LanguageModel.generateText({ prompt: "draw", toolkit: mcp }).pipe(
        Effect.provide(scriptedModel([{ id: "m1", name: "chart", params: {} }, { id: "m2", name: "failing", params: {} }], seen))
      )
      const chart = byName(response.toolResults, "chart")
      assert(chart !== undefined && !chart.isFailure)
      assert.deepStrictEqual(chart.result.content.map((block) => block.type), ["text", "image"])
      assert.deepStrictEqual(chart.modelOutput?.map((part) => part.type), ["text", "file"])
      const failing = byName(response.toolResults, "failing")
      assert(failing !== undefined && failing.isFailure)
      const failed: unknown = failing.result
      assert(McpSchema.isRecord(failed))
      assert.deepStrictEqual(failed["content"], [{ type: "text", text: "no data" }])
      assert.isTrue(failed["isError"])
    }))

  it.effect("failureMode error: a failed call fails generateText with McpToolError (text, result, cause)", () =>
    Effect.gen(function*() {
      const client = yield* clientOf(charts.layer())
      const mcp = yield* McpToolkit.toolkit(client, { failureMode: "error" })
      const seen: Array<LanguageModel.ProviderOptions> = []
      const error = yield* LanguageModel.generateText({ prompt: "fail", toolkit: mcp }).pipe(
        Effect.provide(scriptedModel([{ id: "e1", name: "failing", params: {} }], seen)),
        Effect.flip
      )
      assert(error instanceof McpToolkit.McpToolError)
      assert.strictEqual(error.tool, "failing")
      assert.strictEqual(error.message, "no data")
      assert.strictEqual(error.result?.isError, true)
      // The default, "return", answers the model instead.
      const returned = yield* McpToolkit.toolkit(client)
      const response = yield* LanguageModel.generateText({ prompt: "fail", toolkit: returned }).pipe(
        Effect.provide(scriptedModel([{ id: "e2", name: "failing", params: {} }], seen))
      )
      assert.deepStrictEqual(response.toolResults.map((r) => [r.isFailure, r.result]), [[true, "no data"]])
    }))

  it.effect("transformTool: each tool, with its own descriptor, before binding (here: needs approval)", () =>
    Effect.gen(function*() {
      const client = yield* clientOf(charts.layer())
      const descriptors: Array<string> = []
      const mcp = yield* McpToolkit.toolkit(client, {
        prefix: "c__",
        transformTool: (tool, descriptor) => {
          descriptors.push(descriptor.name)
          return descriptor.name === "lookup" ? tool.setNeedsApproval(true) : tool
        }
      })
      assert.deepStrictEqual(descriptors, ["chart", "slow", "failing", "lookup"])
      const callsBefore = (yield* charts.requests("tools/call")).length
      const seen: Array<LanguageModel.ProviderOptions> = []
      const response = yield* LanguageModel.generateText({ prompt: "look up", toolkit: mcp }).pipe(
        Effect.provide(scriptedModel([{ id: "a1", name: "c__lookup", params: { key: "k" } }], seen))
      )
      assert.deepStrictEqual(response.content.filter((part) => part.type === "tool-approval-request").length, 1)
      assert.strictEqual(response.toolResults.length, 0)
      assert.strictEqual((yield* charts.requests("tools/call")).length, callsBefore)
    }))
})

describe("McpToolkit: what Effect's McpClient.toolkit does not have", () => {
  it.effect("strict: OpenAI's strict form where possible, each tool annotated Tool.Strict accordingly", () =>
    Effect.gen(function*() {
      const client = yield* clientOf(charts.layer())
      const loose = yield* McpToolkit.toolkit(client)
      assert.isFalse(Tool.getStrictMode(toolOf(loose, "lookup")))
      const strict = yield* McpToolkit.toolkit(client, { strict: true })
      const lookup = toolOf(strict, "lookup")
      assert.isTrue(Tool.getStrictMode(lookup))
      assert.deepStrictEqual(Tool.getJsonSchema(lookup), {
        type: "object",
        properties: { key: { type: "string" }, note: { type: ["string", "null"] } },
        required: ["key", "note"],
        additionalProperties: false
      })
      // The null a strict model sends for the optional note is removed before the call.
      const response = yield* LanguageModel.generateText({ prompt: "look up", toolkit: strict }).pipe(
        Effect.provide(scriptedModel([{ id: "n1", name: "lookup", params: { key: "k", note: null } }], []))
      )
      assert.deepStrictEqual(response.toolResults.map((r) => r.result), ["value of k"])
      const calls = yield* charts.requests("tools/call")
      assert.deepStrictEqual((calls.at(-1)?.["params"] as { arguments?: unknown }).arguments, { key: "k" })
    }))

  it.effect("a local toolkit and a server in one registry; every tool carries its Descriptor", () =>
    Effect.gen(function*() {
      const client = yield* clientOf(charts.layer())
      const add = LocalToolkit.tool({
        name: "add",
        parameters: Schema.Struct({ a: Schema.Finite, b: Schema.Finite }),
        annotations: { readOnlyHint: true, idempotentHint: true },
        handler: ({ a, b }) => Effect.succeed(String(a + b))
      })
      const registry = yield* ToolRegistry.make()
      yield* registry.register("local", yield* LocalToolkit.source(LocalToolkit.make(add)))
      yield* registry.register("charts", LlmBridge.clientSource(client))
      const mcp = yield* McpToolkit.fromBridge(registry)
      const descriptor = Context.getOption(toolOf(mcp, "local__add").annotations, McpToolkit.Descriptor)
      assert(Option.isSome(descriptor))
      assert.strictEqual(descriptor.value.tool.name, "local__add")
      const response = yield* LanguageModel.generateText({ prompt: "add", toolkit: mcp }).pipe(
        Effect.provide(scriptedModel([
          { id: "l1", name: "local__add", params: { a: 1, b: 2 } },
          { id: "l2", name: "local__add", params: { a: "one", b: 2 } }
        ], []))
      )
      assert.deepStrictEqual(byName(response.toolResults.filter((r) => r.id === "l1"), "local__add")?.result, "3")
      const invalid = response.toolResults.find((r) => r.id === "l2")
      assert.strictEqual(invalid?.isFailure, true)
      assert.match(String(invalid?.result), /Invalid arguments for tool "add"/)
    }))

  it.effect("the batch seen whole: executeToolCalls runs identical calls once, answers in call order", () =>
    Effect.gen(function*() {
      const client = yield* clientOf(charts.layer())
      const mcp = yield* McpToolkit.toolkit(client)
      const before = (yield* charts.requests("tools/call")).length
      const response = yield* LanguageModel.generateText({
        prompt: "look up twice",
        toolkit: mcp,
        disableToolCallResolution: true
      }).pipe(
        Effect.provide(scriptedModel([
          { id: "b1", name: "lookup", params: { key: "k" } },
          { id: "b2", name: "chart", params: {} },
          { id: "b3", name: "lookup", params: { key: "k" } }
        ], []))
      )
      assert.strictEqual(response.toolResults.length, 0)
      const results = yield* mcp.executeToolCalls(response.toolCalls)
      assert.deepStrictEqual(results.map((r) => [r.id, r.name, r.isFailure]), [
        ["b1", "lookup", false],
        ["b2", "chart", false],
        ["b3", "lookup", false]
      ])
      assert.deepStrictEqual(results.map((r) => r.result), ["value of k", "a chart\n[image: image/png, 2 bytes; not shown]", "value of k"])
      // Three calls, two distinct: two tools/call on the wire.
      assert.strictEqual((yield* charts.requests("tools/call")).length - before, 2)
      // The parts go back to the model as any tool results would.
      const next = Prompt.fromResponseParts([...response.content, ...results])
      assert.strictEqual(next.content.filter((message) => message.role === "tool").length, 1)
    }))

  it.effect("names the model APIs refuse are sanitised, not rejected", () =>
    Effect.gen(function*() {
      const client = yield* clientOf(files.layer())
      const mcp = yield* McpToolkit.toolkit(client, { prefix: "files." })
      const names = Object.keys(mcp.tools)
      assert.strictEqual(names.length, 2)
      assert.isTrue(names.every((name) => /^[a-zA-Z0-9_-]{1,64}$/.test(name)))
      assert.isTrue(mcp.declarations.some((d) => d.tool.name === "files.read.file"))
    }))
})
