/**
 * Opt-in tracing: spans following the OpenTelemetry semantic conventions for MCP, recorded by an in-memory
 * tracer, and the duration histogram. With tracing off, the client creates no span at all.
 */
import { McpClient, McpTestServer } from "@mcp-effect/client"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import type * as Exit from "effect/Exit"
import * as Metric from "effect/Metric"
import * as Option from "effect/Option"
import { TestClock } from "effect/testing"
import * as Tracer from "effect/Tracer"

interface Recorded {
  readonly name: string
  readonly spanId: string
  readonly parentId: string | undefined
  readonly kind: Tracer.SpanKind
  readonly attributes: Map<string, unknown>
  ended: boolean
}

/** A tracer that keeps every span in memory. */
const memoryTracer = () => {
  const spans: Array<Recorded> = []
  let next = 0
  const tracer = Tracer.make({
    span: ({ annotations, kind, links, name, parent, startTime }) => {
      const spanId = `span-${++next}`
      const record: Recorded = {
        name,
        spanId,
        parentId: Option.getOrUndefined(Option.map(parent, (p) => p.spanId)),
        kind,
        attributes: new Map(),
        ended: false
      }
      spans.push(record)
      const span: Tracer.Span = {
        _tag: "Span",
        name,
        spanId,
        traceId: "trace-1",
        parent,
        annotations,
        status: { _tag: "Started", startTime },
        attributes: record.attributes,
        links,
        sampled: true,
        kind,
        end: (_endTime: bigint, _exit: Exit.Exit<unknown, unknown>) => {
          record.ended = true
        },
        attribute: (key, value) => {
          record.attributes.set(key, value)
        },
        event: () => undefined,
        addLinks: () => undefined
      }
      return span
    }
  })
  return { spans, tracer }
}

const confirm = { type: "object", properties: { ok: { type: "boolean" } } }
const server = McpTestServer.make({
  tools: [
    McpTestServer.tool({
      name: "deploy",
      handler: (_, ctx) =>
        Effect.gen(function*() {
          yield* ctx.elicit({ message: "Sure?", requestedSchema: confirm })
          yield* ctx.elicit({ message: "Really sure?", requestedSchema: confirm })
          return "deployed"
        })
    }),
    McpTestServer.tool({ name: "explode", handler: () => Effect.fail("boom") })
  ]
})

/** Let forked fibers reach their sleep, move the test clock 100 ms, and let the woken ones run. */
const settle = Effect.repeat(Effect.yieldNow, { times: 20 })
const advance = settle.pipe(Effect.andThen(TestClock.adjust("100 millis")), Effect.andThen(settle))

const onElicit = () => ({ action: "accept" as const, content: { ok: true } })

describe("tracing", () => {
  it.effect("a tools/call with two input rounds: operation span, probe, three rounds with ids, two inputs", () =>
    Effect.gen(function*() {
      const { spans, tracer } = memoryTracer()
      yield* McpClient.callTool("deploy").pipe(
        Effect.provide(server.layer({ tracing: true, onElicit })),
        Effect.withTracer(tracer)
      )
      const operation = spans.find((s) => s.name === "tools/call deploy")
      assert.isDefined(operation)
      if (operation === undefined) return
      assert.strictEqual(operation.kind, "client")
      assert.strictEqual(operation.attributes.get("mcp.method.name"), "tools/call")
      assert.strictEqual(operation.attributes.get("gen_ai.tool.name"), "deploy")
      assert.strictEqual(operation.attributes.get("gen_ai.operation.name"), "execute_tool")
      assert.strictEqual(operation.attributes.get("mcp.protocol.version"), "2026-07-28")
      assert.strictEqual(operation.attributes.get("network.transport"), "inproc")
      assert.isFalse(operation.attributes.has("error.type"))
      assert.isTrue(operation.ended)

      const children = spans.filter((s) => s.parentId === operation.spanId)
      const probe = children.find((s) => s.name === "mcp.era_probe")
      assert.isDefined(probe)
      // The tool was not listed yet: the catalogue is fetched inside the call, after the probe.
      assert.isDefined(children.find((s) => s.name === "tools/list"))
      const rounds = children.filter((s) => s.name === "tools/call request")
      assert.deepStrictEqual(rounds.map((r) => r.attributes.get("mcp.input.round")), [0, 1, 2])
      const ids = rounds.map((r) => r.attributes.get("jsonrpc.request.id"))
      assert.strictEqual(new Set(ids).size, 3)
      assert.isTrue(ids.every((id) => typeof id === "string" && id !== ""))
      const inputs = children.filter((s) => s.name === "elicitation/create input")
      assert.strictEqual(inputs.length, 2)
      // The probe's own request is a child of the probe span.
      assert.isTrue(spans.some((s) => s.parentId === probe?.spanId || s === probe))
    }))

  it.effect("a JSON-RPC error sets error.type to its code; the duration histogram counts the operations", () =>
    Effect.gen(function*() {
      const { spans, tracer } = memoryTracer()
      const histogram = McpClient.operationDuration.pipe(
        Metric.withAttributes({ "mcp.method.name": "tools/call", "error.type": "-32603" })
      )
      const before = (yield* Metric.value(histogram)).count
      yield* McpClient.callTool("explode").pipe(
        Effect.flip,
        Effect.provide(server.layer({ tracing: true })),
        Effect.withTracer(tracer)
      )
      const operation = spans.find((s) => s.name === "tools/call explode")
      assert.strictEqual(operation?.attributes.get("error.type"), "-32603")
      const after = (yield* Metric.value(histogram)).count
      assert.strictEqual(after - before, 1)
    }))

  it.effect("a legacy task tool called before any listing is one tools/call operation, measured once", () =>
    Effect.gen(function*() {
      const { spans, tracer } = memoryTracer()
      const legacy = McpTestServer.make({
        era: "legacy",
        tools: [McpTestServer.tool({ name: "render", taskSupport: "required", pollInterval: 100, handler: () => Effect.succeed("rendered") })]
      })
      const histogram = McpClient.operationDuration.pipe(Metric.withAttributes({ "mcp.method.name": "tools/call" }))
      const before = (yield* Metric.value(histogram)).count
      const result = yield* McpClient.callTool("render").pipe(
        Effect.provide(legacy.layer({ tracing: true })),
        Effect.withTracer(tracer),
        Effect.forkChild,
        Effect.tap(() => Effect.repeat(advance, { times: 10 })),
        Effect.flatMap(Fiber.join)
      )
      assert.deepStrictEqual(result.content, [{ type: "text", text: "rendered" }])
      const operations = spans.filter((s) => s.name === "tools/call render")
      assert.strictEqual(operations.length, 1)
      const operation = operations[0]
      // The task's own requests are inside it: its creating request, the listing before it.
      const children = spans.filter((s) => s.parentId === operation?.spanId).map((s) => s.name)
      assert.include(children, "tools/list")
      assert.include(children, "tools/call request")
      assert.strictEqual((yield* Metric.value(histogram)).count - before, 1)
    }))

  it.effect("off by default: the client creates no span", () =>
    Effect.gen(function*() {
      const { spans, tracer } = memoryTracer()
      yield* McpClient.callTool("deploy").pipe(Effect.provide(server.layer({ onElicit })), Effect.withTracer(tracer))
      assert.deepStrictEqual(spans.map((s) => s.name), [])
    }))
})
