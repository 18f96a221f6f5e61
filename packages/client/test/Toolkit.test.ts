import { LlmBridge, McpSchema, ToolScheduler, Toolkit } from "@mcp-effect/client"
import { assert, describe, it } from "@effect/vitest"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { TestClock } from "effect/testing"
import { awaitSleeps, call } from "./fixtures/llmServer.js"

const READ_ONLY = { readOnlyHint: true, idempotentHint: true } as const

class Counter extends Context.Service<Counter, { readonly runs: Array<string> }>()("test/Counter") {}

class NotFound extends Data.TaggedError("NotFound")<{ readonly message: string }> {}

const slow = (name: string, annotations: typeof READ_ONLY | undefined) =>
  Toolkit.tool({
    name,
    description: `sleep then answer (${name})`,
    parameters: Schema.Struct({ ms: Schema.Finite, tag: Schema.String }),
    annotations,
    handler: ({ ms, tag }) =>
      Effect.gen(function*() {
        const counter = yield* Counter
        counter.runs.push(`${name}:${tag}`)
        yield* Effect.sleep(ms)
        return `${name}:${tag}`
      })
  })

const add = Toolkit.tool({
  name: "add",
  description: "Add two numbers",
  parameters: Schema.Struct({ a: Schema.Finite, b: Schema.Finite }),
  annotations: READ_ONLY,
  handler: ({ a, b }) => Effect.succeed({ sum: a + b })
})

const lookup = Toolkit.tool({
  name: "lookup",
  parameters: Schema.Struct({ key: Schema.String, note: Schema.optional(Schema.String) }),
  handler: ({ key, note }): Effect.Effect<unknown, NotFound> => {
    switch (key) {
      case "missing":
        return Effect.fail(new NotFound({ message: `no entry for ${key}` }))
      case "boom":
        return Effect.die(new Error("kaboom"))
      case "rich":
        return Effect.succeed({ content: [{ type: "text", text: "rich" }], isError: note === "fail" })
      default:
        return Effect.succeed(note === undefined ? `value of ${key}` : `value of ${key} (${note})`)
    }
  }
})

const kit = Toolkit.make(slow("read_slow", READ_ONLY), slow("write_slow", undefined), add, lookup)

const withBridge = <A, E>(
  f: (bridge: LlmBridge.Bridge<never>, runs: Array<string>) => Effect.Effect<A, E>,
  options: LlmBridge.BridgeOptions & Toolkit.ToolkitOptions = {}
) =>
  Effect.gen(function*() {
    const runs: Array<string> = []
    const bridge = yield* Toolkit.bridge(kit, options).pipe(Effect.provideService(Counter, { runs }))
    return yield* f(bridge, runs)
  })

const timed = (bridge: LlmBridge.Bridge<never>, calls: ReadonlyArray<unknown>) =>
  Effect.gen(function*() {
    const start = yield* Clock.currentTimeMillis
    const results = yield* bridge.executeToolCalls(calls)
    return { results, elapsed: (yield* Clock.currentTimeMillis) - start }
  })

describe("Toolkit: declarations", () => {
  it.effect("parameters come from Schema.toJsonSchemaDocument, made model-ready", () =>
    withBridge((bridge) =>
      Effect.gen(function*() {
        const tools = yield* bridge.toolsForLlm()
        assert.deepStrictEqual(tools.map((t) => t.function.name), ["read_slow", "write_slow", "add", "lookup"])
        assert.deepStrictEqual(tools[2], {
          type: "function",
          function: {
            name: "add",
            description: "Add two numbers",
            parameters: {
              type: "object",
              required: ["a", "b"],
              properties: { a: { type: "number" }, b: { type: "number" } },
              additionalProperties: false
            }
          }
        })
        assert.deepStrictEqual(yield* bridge.toolAnnotations("add"), Option.some(READ_ONLY))
      })
    ))

  it.effect("strict mode: an optional field is nullable, and the null the model sends is left out again", () =>
    withBridge((bridge) =>
      Effect.gen(function*() {
        const tools = yield* bridge.toolsForLlm({ strict: true })
        const declared = tools.find((t) => t.function.name === "lookup")?.function
        assert.deepStrictEqual(declared?.parameters, {
          type: "object",
          properties: { key: { type: "string" }, note: { type: ["string", "null"] } },
          required: ["key", "note"],
          additionalProperties: false
        })
        assert.strictEqual(declared?.strict, true)
        const results = yield* bridge.executeToolCalls([call("c1", "lookup", { key: "k", note: null })])
        assert.deepStrictEqual(results.map((r) => [r.content, r.is_error]), [["value of k", false]])
      })
    ))

  it.effect("a schema with $defs (a recursive Schema.suspend) is inlined", () =>
    Effect.gen(function*() {
      interface Category {
        readonly name: string
        readonly children: ReadonlyArray<Category>
      }
      const Category = Schema.Struct({
        name: Schema.String,
        children: Schema.Array(Schema.suspend((): Schema.Codec<Category> => Category))
      }).annotate({ identifier: "Category" })
      const tree = Toolkit.tool({
        name: "tree",
        parameters: Schema.Struct({ root: Category }),
        handler: ({ root }) => Effect.succeed(root.name)
      })
      const bridge = yield* Toolkit.bridge(Toolkit.make(tree))
      const [declared] = yield* bridge.describeTools()
      const text = JSON.stringify(declared?.declaration.function.parameters)
      assert.isFalse(text.includes("$ref"))
      assert.isFalse(text.includes("$defs"))
      assert.isFalse(text.includes("$schema"))
      assert.isTrue(declared?.notes.some((n) => n.includes("recursive reference")))
    }))

  it.effect("a parameter named __proto__ stays an own property of the JSON Schema, not its prototype", () =>
    Effect.gen(function*() {
      const odd = Toolkit.tool({
        name: "odd",
        parameters: Schema.Struct({ ["__proto__"]: Schema.String, plain: Schema.String }),
        handler: () => Effect.succeed("x")
      })
      const schema = yield* odd.jsonSchema
      const properties = schema["properties"]
      assert.isTrue(McpSchema.isRecord(properties))
      if (!McpSchema.isRecord(properties)) return
      assert.deepStrictEqual(Object.keys(properties), ["__proto__", "plain"])
      assert.isTrue(Object.hasOwn(properties, "__proto__"))
      assert.strictEqual(Object.getPrototypeOf(properties), Object.prototype)
      assert.deepStrictEqual(JSON.parse(JSON.stringify(properties)), JSON.parse('{"__proto__":{"type":"string"},"plain":{"type":"string"}}'))
    }))

  it.effect("two tools with one name, or a non-object schema, are a ToolkitError", () =>
    Effect.gen(function*() {
      const twice = yield* Effect.flip(Toolkit.bridge(Toolkit.make(add, add)))
      assert.strictEqual(twice._tag, "ToolkitError")
      assert.strictEqual(twice.reason, "DuplicateName")
      const scalar = Toolkit.tool({ name: "scalar", parameters: Schema.String, handler: () => Effect.succeed("x") })
      const notObject = yield* Effect.flip(Toolkit.bridge(Toolkit.make(scalar)))
      assert.strictEqual(notObject.reason, "NotAnObject")
      // Effect 3's DateFromSelf had no JSON Schema; Effect 4's Schema.Date has one (an ISO string), so a
      // declared class without a JSON codec stands for "no JSON form" here.
      class Opaque {
        readonly at = 0
      }
      const opaque = Toolkit.tool({
        name: "opaque",
        parameters: Schema.Struct({ when: Schema.instanceOf(Opaque) }),
        handler: () => Effect.succeed("x")
      })
      const invalid = yield* Effect.flip(Toolkit.bridge(Toolkit.make(opaque)))
      assert.strictEqual(invalid.reason, "InvalidSchema")
    }))
})

describe("Toolkit: executeToolCalls", () => {
  it.effect("decoding failures, typed failures, defects and outputs all become results", () =>
    withBridge((bridge) =>
      Effect.gen(function*() {
        const results = yield* bridge.executeToolCalls([
          call("ok", "lookup", { key: "k" }),
          call("json", "add", { a: 1, b: 2 }),
          call("decode", "add", { a: "one" }),
          call("typed", "lookup", { key: "missing" }),
          call("defect", "lookup", { key: "boom" }),
          call("rich", "lookup", { key: "rich" }),
          call("rich-error", "lookup", { key: "rich", note: "fail" }),
          call("unknown", "nope", {}),
          call("bad", "add", "{oops")
        ])
        const byId = Object.fromEntries(results.map((r) => [r.tool_call_id, r]))
        assert.deepStrictEqual(results.map((r) => r.tool_call_id), [
          "ok",
          "json",
          "decode",
          "typed",
          "defect",
          "rich",
          "rich-error",
          "unknown",
          "bad"
        ])
        assert.deepStrictEqual([byId["ok"]?.content, byId["ok"]?.is_error], ["value of k", false])
        assert.deepStrictEqual([byId["json"]?.content, byId["json"]?.is_error], ["{\"sum\":3}", false])
        assert.isTrue(byId["decode"]?.is_error)
        assert.match(byId["decode"]?.content ?? "", /Invalid arguments for tool "add"[\s\S]*Expected number[\s\S]*\["a"\]/)
        assert.deepStrictEqual(byId["typed"]?.content, "Tool \"lookup\" failed: NotFound: no entry for missing")
        assert.match(byId["defect"]?.content ?? "", /failed unexpectedly: kaboom/)
        assert.deepStrictEqual([byId["rich"]?.content, byId["rich"]?.is_error], ["rich", false])
        assert.deepStrictEqual([byId["rich-error"]?.content, byId["rich-error"]?.is_error], ["rich", true])
        assert.match(byId["unknown"]?.content ?? "", /Unknown tool "nope"\. Available tools: read_slow, write_slow, add, lookup/)
        assert.match(byId["bad"]?.content ?? "", /not valid JSON/)
        assert.isTrue([byId["typed"], byId["defect"], byId["unknown"], byId["bad"]].every((r) => r?.is_error === true))
      })
    ))

  it.effect("four read-only idempotent 1 s tools finish in 1 s, in call order", () =>
    withBridge((bridge, runs) =>
      Effect.gen(function*() {
        const start = yield* Clock.currentTimeMillis
        const calls = [4, 3, 2, 1].map((n) => call(`c${n}`, "read_slow", { ms: n * 250, tag: String(n) }))
        const fiber = yield* Effect.forkChild(timed(bridge, calls))
        yield* awaitSleeps(start + 1000, 1)
        yield* TestClock.adjust("1 second")
        const { elapsed, results } = yield* Fiber.join(fiber)
        assert.strictEqual(elapsed, 1000)
        assert.deepStrictEqual(results.map((r) => [r.tool_call_id, r.content]), [
          ["c4", "read_slow:4"],
          ["c3", "read_slow:3"],
          ["c2", "read_slow:2"],
          ["c1", "read_slow:1"]
        ])
        assert.strictEqual(runs.length, 4)
      })
    ))

  it.effect("with one unannotated tool the batch takes 4 s, in model order", () =>
    withBridge((bridge, runs) =>
      Effect.gen(function*() {
        const start = yield* Clock.currentTimeMillis
        const calls = [
          call("c1", "read_slow", { ms: 1000, tag: "1" }),
          call("c2", "read_slow", { ms: 1000, tag: "2" }),
          call("c3", "write_slow", { ms: 1000, tag: "3" }),
          call("c4", "read_slow", { ms: 1000, tag: "4" })
        ]
        const fiber = yield* Effect.forkChild(timed(bridge, calls))
        for (let step = 1; step <= 4; step++) {
          yield* awaitSleeps(start + step * 1000, 1)
          assert.strictEqual(runs.length, step)
          yield* TestClock.adjust("1 second")
        }
        const { elapsed, results } = yield* Fiber.join(fiber)
        assert.strictEqual(elapsed, 4000)
        assert.deepStrictEqual(runs, ["read_slow:1", "read_slow:2", "write_slow:3", "read_slow:4"])
        assert.deepStrictEqual(results.map((r) => r.tool_call_id), ["c1", "c2", "c3", "c4"])
      })
    ))

  it.effect("identical calls run once in a widened batch", () =>
    withBridge((bridge, runs) =>
      Effect.gen(function*() {
        const start = yield* Clock.currentTimeMillis
        const fiber = yield* Effect.forkChild(bridge.executeToolCalls([
          call("a", "read_slow", { ms: 1000, tag: "x" }),
          call("b", "read_slow", { tag: "x", ms: 1000 }),
          call("c", "add", { a: 1, b: 1 })
        ]))
        yield* awaitSleeps(start + 1000, 1)
        yield* TestClock.adjust("1 second")
        const results = yield* Fiber.join(fiber)
        assert.deepStrictEqual(runs, ["read_slow:x"])
        assert.deepStrictEqual(results.map((r) => [r.tool_call_id, r.content]), [
          ["a", "read_slow:x"],
          ["b", "read_slow:x"],
          ["c", "{\"sum\":2}"]
        ])
      })
    ))

  it.effect("the ToolScheduler in context is the one used (toolConcurrency 1: serial)", () =>
    Effect.gen(function*() {
      const runs: Array<string> = []
      const bridge = yield* Toolkit.bridge(kit).pipe(
        Effect.provideService(Counter, { runs }),
        Effect.provide(ToolScheduler.ToolScheduler.layer({ toolConcurrency: 1 }))
      )
      const start = yield* Clock.currentTimeMillis
      const fiber = yield* Effect.forkChild(timed(bridge, [
        call("a", "read_slow", { ms: 1000, tag: "1" }),
        call("b", "read_slow", { ms: 1000, tag: "2" })
      ]))
      yield* awaitSleeps(start + 1000, 1)
      yield* TestClock.adjust("1 second")
      yield* awaitSleeps(start + 2000, 1)
      yield* TestClock.adjust("1 second")
      assert.strictEqual((yield* Fiber.join(fiber)).elapsed, 2000)
    }))

  it.effect("a handler past its timeout is answered with an is_error result", () =>
    withBridge((bridge) =>
      Effect.gen(function*() {
        const start = yield* Clock.currentTimeMillis
        const fiber = yield* Effect.forkChild(bridge.executeToolCalls([call("a", "write_slow", { ms: 5000, tag: "t" })]))
        yield* awaitSleeps(start + 500, 1)
        yield* TestClock.adjust("500 millis")
        const [result] = yield* Fiber.join(fiber)
        assert.deepStrictEqual(result, {
          tool_call_id: "a",
          role: "tool",
          content: "Tool \"write_slow\" did not finish in time and was cancelled.",
          is_error: true,
          // 0.2.0: a timeout is the call's failure, not the tool's own error answer.
          error_kind: "failure"
        })
      }), { timeout: "500 millis" }))
})

describe("a tool without arguments", () => {
  it.effect("Schema.Struct({}) is offered as an empty object schema (its JSON Schema is \"anything but null\")", () =>
    Effect.gen(function*() {
      const now = Toolkit.tool({ name: "now", parameters: Schema.Struct({}), handler: () => Effect.succeed("12:00") })
      const bridge = yield* Toolkit.bridge(Toolkit.make(now))
      const [declared] = yield* bridge.toolsForLlm()
      assert.deepStrictEqual(declared?.function.parameters, { type: "object", properties: {} })
      const [result] = yield* bridge.executeToolCalls([{ id: "1", type: "function", function: { name: "now", arguments: "" } }])
      assert.strictEqual(result?.content, "12:00")
    }))
})
