/**
 * The LLM bridge against hostile catalogues: tool names the model APIs refuse (a digit or `-` first), and
 * `__proto__` among a tool's declared properties.
 */
import { LlmBridge, LlmProviders, McpClient, type McpClientError, type McpSchema } from "@mcp-effect/client"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import fc from "fast-check"
import { canonicalJson } from "../src/internal/llm/names.js"
import { call, clientLayer, type FakeServer, makeServer, text } from "./fixtures/llmServer.js"

/** Google's rule for a function name, the narrowest of the three providers: a letter or `_` first, at most 64. */
const GEMINI_NAME = /^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$/

const withBridge = <A, E>(
  server: FakeServer,
  f: (bridge: LlmBridge.Bridge<McpClientError>) => Effect.Effect<A, E>,
  options: LlmBridge.ClientBridgeOptions = {}
) =>
  Effect.gen(function*() {
    const client = yield* McpClient.McpClient
    return yield* f(LlmBridge.fromClient(client, options))
  }).pipe(Effect.provide(clientLayer(server)))

describe("tool names a provider refuses", () => {
  it("a digit or '-' first is sanitised to a letter or '_' first, distinct from the original's neighbours", () => {
    for (const name of ["1password", "-rm", "9", "-", "0-day", "_ok", "Ok1"]) {
      assert.match(LlmBridge.sanitizeToolName(name), GEMINI_NAME, name)
    }
    assert.strictEqual(LlmBridge.sanitizeToolName("_ok"), "_ok")
    assert.notStrictEqual(LlmBridge.sanitizeToolName("1password"), LlmBridge.sanitizeToolName("2password"))
    assert.notStrictEqual(LlmBridge.sanitizeToolName("-rm"), LlmBridge.sanitizeToolName("_rm"))
  })

  it("every name sanitises to one all three providers accept, and names that already do are kept", () => {
    const names = fc.oneof(fc.string({ maxLength: 100, unit: "binary" }), fc.stringMatching(/^[-0-9][^]{0,80}$/))
    fc.assert(fc.property(names, (name) => {
      const exposed = LlmBridge.sanitizeToolName(name)
      assert.match(exposed, GEMINI_NAME)
      if (GEMINI_NAME.test(name)) assert.strictEqual(exposed, name)
    }))
  })

  it("two different names never share an exposed name (through the replacement, the prefix or the cut)", () => {
    fc.assert(fc.property(
      fc.uniqueArray(fc.oneof(fc.string({ maxLength: 80 }), fc.stringMatching(/^[-0-9][a-z0-9-]{0,70}$/)), {
        minLength: 2,
        maxLength: 20
      }),
      (names) => {
        const exposed = names.map(LlmBridge.sanitizeToolName)
        assert.strictEqual(new Set(exposed).size, names.length)
      }
    ))
  })

  it.effect("the model's call of the exposed name reaches the real tool", () =>
    Effect.gen(function*() {
      const server = makeServer([
        { name: "1password", call: () => Effect.succeed(text("vault")) },
        { name: "-rm", call: () => Effect.succeed(text("removed")) }
      ])
      const { declared, results } = yield* withBridge(server, (bridge) =>
        Effect.gen(function*() {
          const declared = (yield* bridge.toolsForLlm()).map((t) => t.function.name)
          const results = yield* bridge.executeToolCalls(declared.map((name, i) => call(`c${i}`, name)))
          return { declared, results }
        }))
      for (const name of declared) assert.match(name, GEMINI_NAME)
      assert.deepStrictEqual(results.map((r) => [r.content, r.is_error]), [["vault", false], ["removed", false]])
      assert.deepStrictEqual(server.calls.map((c) => c.name), ["1password", "-rm"])
    }))
})

/** A schema as a server's JSON gives it: `__proto__` is an own key, as JSON.parse makes it. */
const PROTO_SCHEMA = JSON.parse(
  `{"type":"object","properties":{"__proto__":{"type":"string"},"name":{"type":"string"}},"required":["__proto__"]}`
) as McpSchema.JsonObject

/** `properties` keeps `__proto__` as an own property, inherits nothing from the server, and lists only its own keys. */
const assertOwnProto = (properties: unknown, label: string) => {
  assert.isTrue(typeof properties === "object" && properties !== null, label)
  if (typeof properties !== "object" || properties === null) return
  assert.strictEqual(Object.getPrototypeOf(properties), Object.prototype, `${label}: the prototype was replaced`)
  assert.isTrue(Object.hasOwn(properties, "__proto__"), `${label}: __proto__ is not an own property`)
  assert.deepStrictEqual(Object.getOwnPropertyDescriptor(properties, "__proto__")?.value, { type: "string" }, label)
  const listed: Array<string> = []
  for (const key in properties) listed.push(key)
  assert.deepStrictEqual(listed.sort(), ["__proto__", "name"], label)
  assert.include(JSON.stringify(properties), `"__proto__":{"type":"string"}`, label)
}

describe("__proto__ in a tool's input schema", () => {
  it("toParameters and toStrict keep it as an own property of properties", () => {
    const { parameters } = LlmBridge.toParameters(PROTO_SCHEMA)
    assertOwnProto(parameters["properties"], "toParameters")
    const strict = LlmBridge.toStrictParameters(parameters)
    assert.strictEqual(strict._tag, "Strict")
    if (strict._tag === "Strict") assertOwnProto(strict.parameters["properties"], "toStrict")
  })

  it("a root allOf merges it as an own property, and a 'constructor' property is not mistaken for an existing one", () => {
    const schema = JSON.parse(
      `{"allOf":[{"type":"object","properties":{"__proto__":{"type":"string"}}},{"type":"object","properties":{"name":{"type":"string"},"constructor":{"type":"number"}}}]}`
    ) as McpSchema.JsonObject
    const strict = LlmBridge.toStrictParameters(LlmBridge.toParameters(schema).parameters)
    assert.strictEqual(strict._tag, "Strict")
    if (strict._tag !== "Strict") return
    const properties = strict.parameters["properties"]
    assert.isTrue(typeof properties === "object" && properties !== null && Object.hasOwn(properties, "__proto__"))
    assert.deepStrictEqual(
      typeof properties === "object" && properties !== null ? Object.getOwnPropertyDescriptor(properties, "constructor")?.value : undefined,
      { type: ["number", "null"] }
    )
  })

  it("a one-branch allOf with a keyword named like an Object.prototype member is merged, not a clash", () => {
    const schema = JSON.parse(
      `{"type":"object","properties":{"a":{"allOf":[{"type":"string","toString":"x"}]}},"required":["a"]}`
    ) as McpSchema.JsonObject
    const strict = LlmBridge.toStrictParameters(LlmBridge.toParameters(schema).parameters)
    assert.deepStrictEqual(strict._tag === "NotStrict" ? strict.reasons : [], [])
  })

  it.effect("toolsForLlm, openAiTools and anthropicTools declare it as the server did", () =>
    Effect.gen(function*() {
      const server = makeServer([{ name: "proto", inputSchema: PROTO_SCHEMA }])
      const [plain, strict] = yield* withBridge(server, (bridge) =>
        Effect.all([bridge.toolsForLlm(), bridge.toolsForLlm({ strict: true })]))
      assertOwnProto(plain[0]?.function.parameters["properties"], "toolsForLlm")
      assertOwnProto(strict[0]?.function.parameters["properties"], "toolsForLlm strict")
      assertOwnProto(LlmProviders.openAiTools(plain)[0]?.function.parameters["properties"], "openAiTools")
      assertOwnProto(LlmProviders.anthropicTools(plain)[0]?.input_schema["properties"], "anthropicTools")
    }))

  it.effect("a call's __proto__ argument reaches the tool as an argument", () =>
    Effect.gen(function*() {
      const server = makeServer([{ name: "proto", inputSchema: PROTO_SCHEMA }])
      yield* withBridge(
        server,
        (bridge) => bridge.executeToolCalls([call("c1", "proto", `{"__proto__":"x","name":null}`)]),
        { strict: true }
      )
      const args = server.calls[0]?.args
      assert.isDefined(args)
      if (args === undefined) return
      assert.isTrue(Object.hasOwn(args, "__proto__"))
      assert.strictEqual(Object.getPrototypeOf(args), Object.prototype)
    }))

  it("canonicalJson keeps a __proto__ key: two arguments that differ there are not the same call", () => {
    const a = JSON.parse(`{"__proto__":{"x":1},"y":2}`) as unknown
    const b = JSON.parse(`{"y":2}`) as unknown
    assert.notStrictEqual(canonicalJson(a), canonicalJson(b))
    assert.strictEqual(canonicalJson(a), `{"__proto__":{"x":1},"y":2}`)
  })
})
