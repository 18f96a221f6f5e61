import { LlmBridge, McpClient, type McpClientError, McpError, ToolRegistry, Toolkit } from "@mcp-effect/client"
import { assert, describe, it } from "@effect/vitest"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { TestClock } from "effect/testing"
import { awaitSleeps, call, clientLayer, makeServer, READ_ONLY, sleeper, text } from "./fixtures/llmServer.js"

const local = (runs: Array<string>) =>
  Toolkit.make(
    Toolkit.tool({
      name: "search",
      description: "local search",
      parameters: Schema.Struct({ q: Schema.String, ms: Schema.optional(Schema.Finite) }),
      annotations: READ_ONLY,
      handler: ({ ms, q }) =>
        Effect.gen(function*() {
          runs.push(q)
          yield* Effect.sleep(ms ?? 0)
          return `local:${q}`
        })
    }),
    Toolkit.tool({
      name: "note",
      description: "write a note",
      parameters: Schema.Struct({ text: Schema.String }),
      handler: ({ text }) => Effect.succeed(`noted ${text}`)
    })
  )

const remoteTools = [
  sleeper("search", READ_ONLY),
  { name: "files.read", description: "read a file", annotations: READ_ONLY, call: () => Effect.succeed(text("contents")) },
  {
    name: `very_${"long_".repeat(20)}name`,
    description: "a long name",
    call: () => Effect.succeed(text("long one"))
  }
]

/** A registry with a remote server under `github` and a toolkit under `local`. */
const withRegistry = <A, E>(f: (registry: ToolRegistry.Registry, runs: Array<string>) => Effect.Effect<A, E>) => {
  const server = makeServer(remoteTools)
  return Effect.gen(function*() {
    const runs: Array<string> = []
    const client = yield* McpClient.McpClient
    const registry = yield* ToolRegistry.make()
    yield* registry.register("github", LlmBridge.fromClient(client))
    yield* registry.register("local", yield* Toolkit.source(local(runs)))
    return yield* f(registry, runs)
  }).pipe(Effect.provide(clientLayer(server)))
}

describe("ToolRegistry: names and routing", () => {
  it.effect("one namespace, stable order: registration order, then each owner's order", () =>
    withRegistry((registry) =>
      Effect.gen(function*() {
        const tools = yield* registry.toolsForLlm()
        const names = tools.map((t) => t.function.name)
        assert.deepStrictEqual(names.slice(0, 2), ["github__search", names[1] ?? ""])
        assert.match(names[1] ?? "", /^github__files_read_[0-9a-f]{8}$/)
        assert.match(names[2] ?? "", /^github__very_long_/)
        assert.strictEqual(names[2]?.length, 64)
        assert.deepStrictEqual(names.slice(3), ["local__search", "local__note"])
        for (const name of names) assert.match(name, /^[a-zA-Z0-9_-]{1,64}$/)
        assert.deepStrictEqual(tools.map((t) => t.function.name), (yield* registry.toolsForLlm()).map((t) => t.function.name))
        assert.deepStrictEqual(yield* registry.prefixes, ["github", "local"])
      })
    ))

  it.effect("each call is routed to its owner under its original name; sanitised names route back", () =>
    withRegistry((registry) =>
      Effect.gen(function*() {
        const names = (yield* registry.toolsForLlm()).map((t) => t.function.name)
        const results = yield* registry.executeToolCalls([
          call("1", "github__search", { ms: 0, tag: "t" }),
          call("2", names[1] ?? "", {}),
          call("3", names[2] ?? "", {}),
          call("4", "local__search", { q: "effect" }),
          call("5", "local__note", { text: "hi" }),
          call("6", "gitlab__search", {}),
          call("7", "nonsense", {})
        ])
        assert.deepStrictEqual(results.map((r) => [r.tool_call_id, r.content, r.is_error]), [
          ["1", "search:t", false],
          ["2", "contents", false],
          ["3", "long one", false],
          ["4", "local:effect", false],
          ["5", "noted hi", false],
          ["6", results[5]?.content ?? "", true],
          ["7", results[6]?.content ?? "", true]
        ])
        assert.match(results[5]?.content ?? "", /^Unknown tool "gitlab__search"\. Available tools: github__search/)
      })
    ))

  it.effect("toolAnnotations by exposed name", () =>
    withRegistry((registry) =>
      Effect.gen(function*() {
        assert.deepStrictEqual(yield* registry.toolAnnotations("github__search"), Option.some(READ_ONLY))
        assert.deepStrictEqual(yield* registry.toolAnnotations("local__note"), Option.none())
      })
    ))

  it.effect("invalid and duplicate prefixes are refused", () =>
    withRegistry((registry) =>
      Effect.gen(function*() {
        const toolkit = yield* Toolkit.source(local([]))
        for (const prefix of ["", "a__b", "_a", "a_", "a.b", "x".repeat(33)]) {
          const error = yield* Effect.flip(registry.register(prefix, toolkit))
          assert.strictEqual(error._tag, "ToolRegistryError")
          if (error._tag === "ToolRegistryError") assert.strictEqual(error.reason, "InvalidPrefix", prefix)
        }
        const duplicate = yield* Effect.flip(registry.register("local", toolkit))
        assert.deepStrictEqual(
          duplicate._tag === "ToolRegistryError" ? duplicate.reason : duplicate._tag,
          "DuplicatePrefix"
        )
        yield* registry.register("my-tools_2", toolkit)
        assert.deepStrictEqual(yield* registry.prefixes, ["github", "local", "my-tools_2"])
        assert.isTrue(yield* registry.unregister("my-tools_2"))
        assert.isFalse(yield* registry.unregister("my-tools_2"))
      })
    ))

  it.effect("a name claimed twice is a NameCollision at registration, and nothing is registered", () =>
    Effect.gen(function*() {
      const registry = yield* ToolRegistry.make()
      const twice: LlmBridge.ToolSource<never> = {
        list: () =>
          Effect.succeed([
            { name: "dup", inputSchema: { type: "object" } },
            { name: "dup", inputSchema: { type: "object" } }
          ]),
        invoke: () => Effect.succeed({ content: "x", isError: false })
      }
      const error = yield* Effect.flip(registry.register("svc", twice))
      assert.strictEqual(error._tag, "ToolRegistryError")
      if (error._tag === "ToolRegistryError") {
        assert.strictEqual(error.reason, "NameCollision")
        assert.match(error.message, /"svc__dup" and "svc__dup" would all be offered as svc__dup/)
      }
      assert.deepStrictEqual(yield* registry.prefixes, [])
    }))

  it.effect("a catalogue that later collides fails toolsForLlm; nothing is silently overwritten", () =>
    Effect.gen(function*() {
      const registry = yield* ToolRegistry.make()
      let listed = [{ name: "a", inputSchema: {} }]
      const changing: LlmBridge.ToolSource<never> = {
        list: () => Effect.sync(() => listed),
        invoke: () => Effect.succeed({ content: "x", isError: false })
      }
      yield* registry.register("svc", changing)
      listed = [{ name: "a", inputSchema: {} }, { name: "a", inputSchema: {} }]
      const error = yield* Effect.flip(registry.toolsForLlm())
      assert.strictEqual(error._tag, "ToolRegistryError")
    }))

  it.effect("a registry is itself a provider: registries nest", () =>
    Effect.gen(function*() {
      const inner = yield* ToolRegistry.make()
      yield* inner.register("kit", yield* Toolkit.source(local([])))
      const outer = yield* ToolRegistry.make()
      yield* outer.register("team", inner)
      const tools = yield* outer.toolsForLlm()
      assert.deepStrictEqual(tools.map((t) => t.function.name), ["team__kit__search", "team__kit__note"])
      const [result] = yield* outer.executeToolCalls([call("1", "team__kit__note", { text: "deep" })])
      assert.strictEqual(result?.content, "noted deep")
    }))
})

describe("ToolRegistry: scheduling across owners", () => {
  it.effect("an owner whose catalogue fails: the batch is serial and calls are still routed by prefix", () =>
    Effect.gen(function*() {
      const runs: Array<string> = []
      let lists = 0
      const flaky: LlmBridge.ToolSource<McpClientError> = {
        list: () =>
          Effect.suspend(() =>
            lists++ === 0
              ? Effect.succeed([{ name: "ping", inputSchema: { type: "object" }, annotations: READ_ONLY }])
              : Effect.fail(new McpError.McpProtocolError({ method: "tools/list", code: -32603, message: "down" }))
          ),
        invoke: (name) => Effect.succeed({ content: `flaky:${name}`, isError: false })
      }
      const registry = yield* ToolRegistry.make()
      yield* registry.register("flaky", flaky)
      yield* registry.register("local", yield* Toolkit.source(local(runs)))
      assert.strictEqual((yield* Effect.result(registry.toolsForLlm()))._tag, "Failure")
      const start = yield* Clock.currentTimeMillis
      const fiber = yield* Effect.forkChild(registry.executeToolCalls([
        call("1", "local__search", { q: "a", ms: 1000 }),
        call("2", "flaky__ping", {}),
        call("3", "local__search", { q: "b", ms: 1000 })
      ]))
      yield* awaitSleeps(start + 1000, 1)
      yield* TestClock.adjust("1 second")
      yield* awaitSleeps(start + 2000, 1)
      yield* TestClock.adjust("1 second")
      const results = yield* Fiber.join(fiber)
      assert.strictEqual((yield* Clock.currentTimeMillis) - start, 2000)
      assert.deepStrictEqual(results.map((r) => r.content), ["local:a", "flaky:ping", "local:b"])
    }))

  it.effect("read-only idempotent tools of different owners run together (1 s), in call order", () =>
    withRegistry((registry, runs) =>
      Effect.gen(function*() {
        yield* registry.toolsForLlm()
        const start = yield* Clock.currentTimeMillis
        const fiber = yield* Effect.forkChild(registry.executeToolCalls([
          call("1", "github__search", { ms: 1000, tag: "a" }),
          call("2", "local__search", { q: "b", ms: 1000 }),
          call("3", "github__search", { ms: 1000, tag: "c" }),
          call("4", "local__search", { q: "d", ms: 1000 })
        ]))
        yield* awaitSleeps(start + 1000, 4)
        yield* TestClock.adjust("1 second")
        const results = yield* Fiber.join(fiber)
        assert.strictEqual((yield* Clock.currentTimeMillis) - start, 1000)
        assert.deepStrictEqual(results.map((r) => r.content), ["search:a", "local:b", "search:c", "local:d"])
        assert.deepStrictEqual(runs, ["b", "d"])
      })
    ))

  it.effect("one unannotated tool of any owner makes the batch serial (4 s)", () =>
    withRegistry((registry, runs) =>
      Effect.gen(function*() {
        yield* registry.toolsForLlm()
        const start = yield* Clock.currentTimeMillis
        const fiber = yield* Effect.forkChild(registry.executeToolCalls([
          call("1", "github__search", { ms: 1000, tag: "a" }),
          call("2", "local__search", { q: "b", ms: 1000 }),
          call("3", "local__note", { text: "w" }),
          call("4", "github__search", { ms: 1000, tag: "c" }),
          call("5", "local__search", { q: "d", ms: 1000 })
        ]))
        for (let step = 1; step <= 4; step++) {
          yield* awaitSleeps(start + step * 1000, 1)
          yield* TestClock.adjust("1 second")
        }
        const results = yield* Fiber.join(fiber)
        assert.strictEqual((yield* Clock.currentTimeMillis) - start, 4000)
        assert.deepStrictEqual(results.map((r) => r.content), ["search:a", "local:b", "noted w", "search:c", "local:d"])
        assert.deepStrictEqual(runs, ["b", "d"])
      })
    ))
})
