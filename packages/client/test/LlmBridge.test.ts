import { LlmBridge, McpClient, type McpClientError } from "@mcp-effect/client"
import { assert, describe, it } from "@effect/vitest"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import { TestClock } from "effect/testing"
import {
  awaitSleeps,
  call,
  clientLayer,
  type FakeServer,
  type FakeTool,
  makeServer,
  READ_ONLY,
  sleeper,
  text
} from "./fixtures/llmServer.js"

const TOOLS: ReadonlyArray<FakeTool> = [
  sleeper("read_slow", READ_ONLY),
  sleeper("write_slow", undefined),
  sleeper("read_only_not_idempotent", { readOnlyHint: true }),
  { name: "read_fast", annotations: READ_ONLY, inputSchema: { type: "object", properties: { tag: { type: "string" } } } }
]

/** Run `f` with a bridge over a client of `server`. */
const withBridge = <A, E>(
  server: FakeServer,
  f: (bridge: LlmBridge.Bridge<McpClientError>, client: McpClient.Service) => Effect.Effect<A, E>,
  options: LlmBridge.ClientBridgeOptions = {},
  clientOptions: McpClient.ClientOptions = {}
) =>
  Effect.gen(function*() {
    const client = yield* McpClient.McpClient
    return yield* f(LlmBridge.fromClient(client, options), client)
  }).pipe(Effect.provide(clientLayer(server, clientOptions)))

/** Run a batch in a fiber and time it on the test clock. */
const timed = (bridge: LlmBridge.Bridge<unknown>, calls: ReadonlyArray<unknown>) =>
  Effect.gen(function*() {
    const start = yield* Clock.currentTimeMillis
    const results = yield* bridge.executeToolCalls(calls)
    return { results, elapsed: (yield* Clock.currentTimeMillis) - start }
  })

describe("executeToolCalls scheduling (TestClock)", () => {
  it.effect("four read-only idempotent 1 s calls finish in 1 s, answered in call order", () =>
    Effect.gen(function*() {
      const server = makeServer(TOOLS)
      yield* withBridge(server, (bridge) =>
        Effect.gen(function*() {
          // Warm the connection so the era probe is out of the way.
          yield* bridge.toolsForLlm()
          const now = yield* Clock.currentTimeMillis
          const calls = [
            call("c1", "read_slow", { ms: 1000, tag: "1" }),
            call("c2", "read_slow", { ms: 1000, tag: "2" }),
            call("c3", "read_slow", { ms: 1000, tag: "3" }),
            call("c4", "read_slow", { ms: 1000, tag: "4" })
          ]
          const fiber = yield* Effect.forkChild(timed(bridge, calls))
          yield* awaitSleeps(now + 1000, 4)
          yield* TestClock.adjust("999 millis")
          assert.isTrue(fiber.pollUnsafe() === undefined)
          yield* TestClock.adjust("1 millis")
          const { elapsed, results } = yield* Fiber.join(fiber)
          assert.strictEqual(elapsed, 1000)
          assert.deepStrictEqual(results.map((r) => r.tool_call_id), ["c1", "c2", "c3", "c4"])
          assert.deepStrictEqual(results.map((r) => r.content), ["read_slow:1", "read_slow:2", "read_slow:3", "read_slow:4"])
          assert.isTrue(results.every((r) => r.role === "tool" && !r.is_error))
          // All four were on the wire at once.
          assert.deepStrictEqual(server.calls.map((c) => c.at), [now, now, now, now])
        }))
    }))

  it.effect("slow and fast read-only calls: result n answers call n whatever finished first", () =>
    Effect.gen(function*() {
      const server = makeServer(TOOLS)
      yield* withBridge(server, (bridge) =>
        Effect.gen(function*() {
          yield* bridge.toolsForLlm()
          const now = yield* Clock.currentTimeMillis
          const calls = [
            call("slow-1", "read_slow", { ms: 1000, tag: "a" }),
            call("fast-1", "read_fast", { tag: "b" }),
            call("slow-2", "read_slow", { ms: 500, tag: "c" }),
            call("fast-2", "read_fast", { tag: "d" })
          ]
          const fiber = yield* Effect.forkChild(timed(bridge, calls))
          yield* awaitSleeps(now + 1000, 1)
          yield* awaitSleeps(now + 500, 1)
          yield* TestClock.adjust("1 second")
          const { elapsed, results } = yield* Fiber.join(fiber)
          assert.strictEqual(elapsed, 1000)
          assert.deepStrictEqual(results.map((r) => [r.tool_call_id, r.content]), [
            ["slow-1", "read_slow:a"],
            ["fast-1", "read_fast"],
            ["slow-2", "read_slow:c"],
            ["fast-2", "read_fast"]
          ])
        }))
    }))

  it.effect("one unannotated call makes the batch serial: about 4 s, in model order", () =>
    Effect.gen(function*() {
      const server = makeServer(TOOLS)
      yield* withBridge(server, (bridge) =>
        Effect.gen(function*() {
          yield* bridge.toolsForLlm()
          const start = yield* Clock.currentTimeMillis
          const calls = [
            call("c1", "read_slow", { ms: 1000, tag: "1" }),
            call("c2", "write_slow", { ms: 1000, tag: "2" }),
            call("c3", "read_slow", { ms: 1000, tag: "3" }),
            call("c4", "read_slow", { ms: 1000, tag: "4" })
          ]
          const fiber = yield* Effect.forkChild(timed(bridge, calls))
          for (let step = 1; step <= 4; step++) {
            yield* awaitSleeps(start + step * 1000, 1)
            assert.strictEqual(server.calls.length, step, `only call ${step} is on the wire`)
            assert.isTrue(fiber.pollUnsafe() === undefined)
            yield* TestClock.adjust("1 second")
          }
          const { elapsed, results } = yield* Fiber.join(fiber)
          assert.strictEqual(elapsed, 4000)
          assert.deepStrictEqual(results.map((r) => r.tool_call_id), ["c1", "c2", "c3", "c4"])
          assert.deepStrictEqual(server.calls.map((c) => [c.name, c.args["tag"], c.at - start]), [
            ["read_slow", "1", 0],
            ["write_slow", "2", 1000],
            ["read_slow", "3", 2000],
            ["read_slow", "4", 3000]
          ])
        }))
    }))

  it.effect("readOnlyHint without idempotentHint is not enough to widen", () =>
    Effect.gen(function*() {
      const server = makeServer(TOOLS)
      yield* withBridge(server, (bridge) =>
        Effect.gen(function*() {
          yield* bridge.toolsForLlm()
          const start = yield* Clock.currentTimeMillis
          const fiber = yield* Effect.forkChild(timed(bridge, [
            call("c1", "read_only_not_idempotent", { ms: 1000, tag: "1" }),
            call("c2", "read_slow", { ms: 1000, tag: "2" })
          ]))
          yield* awaitSleeps(start + 1000, 1)
          yield* TestClock.adjust("1 second")
          yield* awaitSleeps(start + 2000, 1)
          yield* TestClock.adjust("1 second")
          assert.strictEqual((yield* Fiber.join(fiber)).elapsed, 2000)
        }))
    }))

  it.effect("toolConcurrency bounds a widened batch; toolConcurrency 1 turns widening off", () =>
    Effect.gen(function*() {
      const calls = [1, 2, 3, 4].map((n) => call(`c${n}`, "read_slow", { ms: 1000, tag: String(n) }))
      const two = makeServer(TOOLS)
      yield* withBridge(two, (bridge) =>
        Effect.gen(function*() {
          yield* bridge.toolsForLlm()
          const start = yield* Clock.currentTimeMillis
          const fiber = yield* Effect.forkChild(timed(bridge, calls))
          yield* awaitSleeps(start + 1000, 2)
          yield* TestClock.adjust("1 second")
          yield* awaitSleeps(start + 2000, 2)
          yield* TestClock.adjust("1 second")
          const { elapsed, results } = yield* Fiber.join(fiber)
          assert.strictEqual(elapsed, 2000)
          assert.deepStrictEqual(results.map((r) => r.tool_call_id), ["c1", "c2", "c3", "c4"])
        }), { toolConcurrency: 2 })
      const one = makeServer(TOOLS)
      yield* withBridge(one, (bridge) =>
        Effect.gen(function*() {
          yield* bridge.toolsForLlm()
          const start = yield* Clock.currentTimeMillis
          const fiber = yield* Effect.forkChild(timed(bridge, calls))
          for (let step = 1; step <= 4; step++) {
            yield* awaitSleeps(start + step * 1000, 1)
            yield* TestClock.adjust("1 second")
          }
          assert.strictEqual((yield* Fiber.join(fiber)).elapsed, 4000)
        }), { toolConcurrency: 1 })
    }))

  it.effect("a catalogue that cannot be fetched means a serial batch; the calls still go out", () =>
    Effect.gen(function*() {
      const server = makeServer(TOOLS, { listFails: true })
      yield* withBridge(server, (bridge) =>
        Effect.gen(function*() {
          const listed = yield* Effect.result(bridge.toolsForLlm())
          assert.strictEqual(listed._tag, "Failure")
          const start = yield* Clock.currentTimeMillis
          const fiber = yield* Effect.forkChild(timed(bridge, [
            call("c1", "read_slow", { ms: 1000, tag: "1" }),
            call("c2", "read_slow", { ms: 1000, tag: "2" })
          ]))
          yield* awaitSleeps(start + 1000, 1)
          yield* TestClock.adjust("1 second")
          yield* awaitSleeps(start + 2000, 1)
          yield* TestClock.adjust("1 second")
          const { elapsed, results } = yield* Fiber.join(fiber)
          assert.strictEqual(elapsed, 2000)
          assert.deepStrictEqual(results.map((r) => r.content), ["read_slow:1", "read_slow:2"])
        }))
    }))
})

describe("executeToolCalls deduplication", () => {
  it.effect("two identical calls (keys in any order) are one tools/call on the wire, answered twice", () =>
    Effect.gen(function*() {
      const server = makeServer(TOOLS)
      yield* withBridge(server, (bridge) =>
        Effect.gen(function*() {
          yield* bridge.toolsForLlm()
          const start = yield* Clock.currentTimeMillis
          const fiber = yield* Effect.forkChild(timed(bridge, [
            call("a", "read_slow", { ms: 1000, tag: "x" }),
            call("b", "read_slow", "{\"tag\":\"x\",\"ms\":1000}"),
            call("c", "read_slow", { ms: 1000, tag: "y" })
          ]))
          yield* awaitSleeps(start + 1000, 2)
          yield* TestClock.adjust("1 second")
          const { results } = yield* Fiber.join(fiber)
          assert.strictEqual(server.calls.length, 2)
          assert.deepStrictEqual(results.map((r) => [r.tool_call_id, r.content]), [
            ["a", "read_slow:x"],
            ["b", "read_slow:x"],
            ["c", "read_slow:y"]
          ])
        }))
    }))

  it.effect("a serial batch runs repeats: a write asked twice is written twice", () =>
    Effect.gen(function*() {
      const server = makeServer([{ name: "append" }])
      yield* withBridge(server, (bridge) =>
        Effect.gen(function*() {
          const results = yield* bridge.executeToolCalls([call("a", "append", { x: 1 }), call("b", "append", { x: 1 })])
          assert.strictEqual(server.calls.length, 2)
          assert.deepStrictEqual(results.map((r) => r.tool_call_id), ["a", "b"])
        }))
    }))
})

const FAILING: ReadonlyArray<FakeTool> = [
  { name: "echo", inputSchema: { type: "object", properties: { message: { type: "string" } }, required: ["message"] } },
  {
    name: "flaky",
    call: () => Effect.succeed({ result: { content: [{ type: "text", text: "disk full" }], isError: true } })
  },
  { name: "refuses", call: () => Effect.succeed({ error: { code: -32602, message: "bad params" } }) },
  { name: "hangs", call: () => Effect.succeed({ silent: true }) },
  { name: "garbled", call: () => Effect.succeed({ result: { content: "not a list" } }) },
  {
    name: "asks_forever",
    call: () => Effect.succeed({ result: { resultType: "input_required", requestState: "again" } })
  }
]

describe("executeToolCalls never fails", () => {
  it.effect("every failure kind becomes that call's is_error result, in order", () =>
    Effect.gen(function*() {
      const server = makeServer(FAILING)
      yield* withBridge(server, (bridge) =>
        Effect.gen(function*() {
          const calls: ReadonlyArray<unknown> = [
            "not a call",
            { id: "no-function", type: "function" },
            { id: "wrong-type", type: "code_interpreter", function: { name: "echo", arguments: "{}" } },
            call("bad-json", "echo", "{message: hi"),
            call("not-object", "echo", "[1,2]"),
            call("unknown", "nope", {}),
            call("tool-error", "flaky", {}),
            call("protocol", "refuses", {}),
            call("timeout", "hangs", {}),
            call("invalid", "garbled", {}),
            call("loop", "asks_forever", {}),
            call("fine", "echo", { message: "hi" })
          ]
          const fiber = yield* Effect.forkChild(bridge.executeToolCalls(calls))
          // The batch is serial (unannotated tools): let the hanging call's 2 s timeout fire.
          for (let i = 0; i < 20 && fiber.pollUnsafe() === undefined; i++) {
            yield* TestClock.adjust("1 second")
          }
          const results = yield* Fiber.join(fiber)
          assert.strictEqual(results.length, calls.length)
          assert.deepStrictEqual(results.map((r) => r.tool_call_id), [
            "call_0",
            "no-function",
            "wrong-type",
            "bad-json",
            "not-object",
            "unknown",
            "tool-error",
            "protocol",
            "timeout",
            "invalid",
            "loop",
            "fine"
          ])
          assert.deepStrictEqual(results.map((r) => r.is_error), [
            true,
            true,
            true,
            true,
            true,
            true,
            true,
            true,
            true,
            true,
            true,
            false
          ])
          const content = (id: string) => results.find((r) => r.tool_call_id === id)?.content ?? ""
          assert.match(content("call_0"), /Invalid tool call/)
          assert.match(content("no-function"), /names no function/)
          assert.match(content("wrong-type"), /code_interpreter/)
          assert.match(content("bad-json"), /not valid JSON/)
          assert.match(content("not-object"), /expected a JSON object, got an array/)
          assert.match(content("unknown"), /Unknown tool "nope"\. Available tools: echo, flaky/)
          assert.strictEqual(content("tool-error"), "disk full")
          assert.match(content("protocol"), /refused the call \(error -32602: bad params\)/)
          assert.match(content("timeout"), /did not answer within 2000 ms/)
          assert.match(content("invalid"), /could not be read/)
          assert.match(content("loop"), /still asking for more input after 8 rounds/)
          assert.strictEqual(content("fine"), "echo")
          // Locally rejected calls never reached the server.
          assert.deepStrictEqual(server.calls.map((c) => c.name), [
            "flaky",
            "refuses",
            "hangs",
            "garbled",
            ...Array.from({ length: 9 }, () => "asks_forever"),
            "echo"
          ])
        }), { timeout: "2 seconds" })
    }))

  it.effect("on a closed connection every call is an is_error result, not a failure", () =>
    Effect.gen(function*() {
      const server = makeServer(TOOLS)
      yield* withBridge(server, (bridge, client) =>
        Effect.gen(function*() {
          yield* bridge.toolsForLlm()
          yield* client.close
          const results = yield* bridge.executeToolCalls([
            call("c1", "read_fast", {}),
            call("c2", "read_fast", { tag: "x" })
          ])
          assert.deepStrictEqual(results.map((r) => [r.tool_call_id, r.is_error]), [["c1", true], ["c2", true]])
          assert.match(results[0]?.content ?? "", /connection to its server is closed/)
        }))
    }))

  it.effect("a server that died (no restart) answers with is_error results", () =>
    Effect.gen(function*() {
      const server = makeServer([
        { name: "crash", call: (_, peer) => Effect.as(peer.die("crashed"), { silent: true }) },
        { name: "after" }
      ])
      yield* withBridge(server, (bridge) =>
        Effect.gen(function*() {
          const results = yield* bridge.executeToolCalls([call("c1", "crash", {}), call("c2", "after", {})])
          assert.deepStrictEqual(results.map((r) => [r.tool_call_id, r.is_error]), [["c1", true], ["c2", true]])
          assert.match(results[0]?.content ?? "", /tool server is gone \(crashed\)/)
        }), {}, { restartOnExit: false })
    }))

  it.effect("the model's call id is passed as toolCallId", () =>
    Effect.gen(function*() {
      const server = makeServer(TOOLS)
      const seen: Array<string | undefined> = []
      yield* withBridge(server, (_, client) =>
        Effect.gen(function*() {
          const spy: McpClient.Service = {
            ...client,
            callTool: (name, args, options) => {
              seen.push(options?.toolCallId)
              return client.callTool(name, args, options)
            }
          }
          yield* LlmBridge.fromClient(spy).executeToolCalls([
            call("call_abc", "read_fast", {}),
            call("call_def", "read_fast", { tag: "x" })
          ])
          assert.deepStrictEqual(seen, ["call_abc", "call_def"])
        }))
    }))
})

describe("catalogue", () => {
  it.effect("an unknown tool re-lists once: a tool added since the last list is found", () =>
    Effect.gen(function*() {
      const later: FakeTool = { name: "added_later", call: () => Effect.succeed(text("new")) }
      const server = makeServer([], { listFor: (count) => (count === 0 ? [] : [later]) })
      yield* withBridge(server, (bridge) =>
        Effect.gen(function*() {
          const results = yield* bridge.executeToolCalls([call("c1", "added_later", {})])
          assert.deepStrictEqual(results.map((r) => [r.content, r.is_error]), [["new", false]])
          assert.strictEqual(server.lists.count, 2)
        }))
    }))

  it.effect("toolAnnotations reports what the server said", () =>
    Effect.gen(function*() {
      const server = makeServer(TOOLS)
      yield* withBridge(server, (bridge) =>
        Effect.gen(function*() {
          assert.deepStrictEqual(yield* bridge.toolAnnotations("read_slow"), Option.some(READ_ONLY))
          assert.deepStrictEqual(yield* bridge.toolAnnotations("write_slow"), Option.none())
          assert.deepStrictEqual(yield* bridge.toolAnnotations("missing"), Option.none())
        }))
    }))

  it.effect("toolsForLlm: OpenAI function declarations in server order", () =>
    Effect.gen(function*() {
      const server = makeServer(TOOLS)
      yield* withBridge(server, (bridge) =>
        Effect.gen(function*() {
          const tools = yield* bridge.toolsForLlm()
          assert.deepStrictEqual(tools.map((t) => t.function.name), [
            "read_slow",
            "write_slow",
            "read_only_not_idempotent",
            "read_fast"
          ])
          assert.deepStrictEqual(tools[0], {
            type: "function",
            function: {
              name: "read_slow",
              description: "sleeps ms milliseconds (read_slow)",
              parameters: { type: "object", properties: { ms: { type: "number" }, tag: { type: "string" } } }
            }
          })
        }))
    }))

  it.effect("strict mode: nulls for optional properties are removed before the call", () =>
    Effect.gen(function*() {
      const server = makeServer([{
        name: "greet",
        inputSchema: {
          type: "object",
          properties: { name: { type: "string" }, title: { type: "string" } },
          required: ["name"]
        }
      }])
      yield* withBridge(server, (bridge) =>
        Effect.gen(function*() {
          const [tool] = yield* bridge.toolsForLlm({ strict: true })
          assert.deepStrictEqual(tool?.function, {
            name: "greet",
            description: "",
            strict: true,
            parameters: {
              type: "object",
              properties: { name: { type: "string" }, title: { type: ["string", "null"] } },
              required: ["name", "title"],
              additionalProperties: false
            }
          })
          yield* bridge.executeToolCalls([call("c1", "greet", { name: "Ada", title: null })])
          assert.deepStrictEqual(server.calls.map((c) => c.args), [{ name: "Ada" }])
        }))
    }))

  it.effect("works against a legacy server too", () =>
    Effect.gen(function*() {
      const server = makeServer(TOOLS, { era: "legacy" })
      yield* withBridge(server, (bridge, client) =>
        Effect.gen(function*() {
          const results = yield* bridge.executeToolCalls([call("c1", "read_fast", {})])
          assert.strictEqual(yield* client.era, "legacy")
          assert.deepStrictEqual(results, [{ tool_call_id: "c1", role: "tool", content: "read_fast", is_error: false }])
        }))
    }))

  it.effect("the accessors use the McpClient in context", () =>
    Effect.gen(function*() {
      const tools = yield* LlmBridge.toolsForLlm()
      const results = yield* LlmBridge.executeToolCalls([call("c1", "read_fast", {})])
      assert.strictEqual(tools.length, 4)
      assert.deepStrictEqual(results.map((r) => r.content), ["read_fast"])
      assert.deepStrictEqual(yield* LlmBridge.toolAnnotations("read_fast"), Option.some(READ_ONLY))
    }).pipe(Effect.provide(clientLayer(makeServer(TOOLS)))))
})
