/**
 * Typed calls (issue 29, item 1): `callTool(name, args, { schema })` decodes `structuredContent` with an Effect
 * `Schema`, in the Effect and the Promise API, against real servers written by others (the official SDK's, Effect
 * 4's own `McpServer`, `@modelcontextprotocol/server-everything`); and a tool's JSON Schema imported as an Effect
 * `Schema` at run time (`McpToolSchema`), saying what it could not express.
 */
import { connectStdio, McpClient, McpToolResultError, NodeMcpClient } from "@mcp-effect/client/node"
import * as McpToolSchema from "@mcp-effect/client/McpToolSchema"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import { createRequire } from "node:module"

const require = createRequire(import.meta.url)
const official = require.resolve("@mcp-effect/test-servers/official")
const effectServer = require.resolve("@mcp-effect/test-servers/effect")
const everything = require.resolve("@modelcontextprotocol/server-everything/dist/index.js")

const Sum = Schema.Struct({ sum: Schema.Number })

const servers = [
  { name: "the official SDK server", args: [official, "--era", "both"] },
  { name: "Effect 4's McpServer", args: [effectServer, "--era", "both"] }
] as const

describe("callTool(name, args, { schema })", () => {
  for (const server of servers) {
    it.effect(`${server.name}: add decodes to { sum }; a schema of another shape fails with the path`, () =>
      Effect.gen(function*() {
        const client = yield* McpClient.McpClient
        const typed = yield* client.callTool("add", { a: 2, b: 3 }, { schema: Sum })
        assert.deepStrictEqual(typed, { sum: 5 })
        const viaAccessor = yield* McpClient.callTool("add", { a: 1, b: 1 }, { schema: Sum })
        assert.strictEqual(viaAccessor.sum, 2)
        // The tool "changed shape" since this schema was written: a clear tagged error, not a wrong value.
        const changed = yield* Effect.flip(
          client.callTool("add", { a: 2, b: 3 }, { schema: Schema.Struct({ total: Schema.Number }) })
        )
        assert.instanceOf(changed, McpToolResultError)
        assert.strictEqual(changed.reason, "Decode")
        assert.strictEqual(changed.tool, "add")
        assert.strictEqual(changed.path, ".total")
        // Without a schema, the raw result as before.
        const raw = yield* client.callTool("add", { a: 2, b: 3 })
        assert.deepStrictEqual(raw.structuredContent, { sum: 5 })
      }).pipe(Effect.provide(NodeMcpClient.layerStdio({ command: process.execPath, args: [...server.args] }))))
  }

  it.effect("a tool without structuredContent, and a tool that answers an error: each says so", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      const plain = yield* Effect.flip(client.callTool("echo", { text: "hi" }, { schema: Schema.Unknown }))
      assert.strictEqual(plain instanceof McpToolResultError ? plain.reason : plain._tag, "NoStructuredContent")
      const failed = yield* Effect.flip(client.callTool("fail", {}, { schema: Schema.Unknown }))
      assert.strictEqual(failed instanceof McpToolResultError ? failed.reason : failed._tag, "ToolError")
      assert.include(failed.message, "this tool always fails")
    }).pipe(Effect.provide(NodeMcpClient.layerStdio({ command: process.execPath, args: [official, "--era", "both"] }))))

  it("the Promise API: typed, and rejected with McpToolResultError", async () => {
    const client = await connectStdio({ command: process.execPath, args: [official, "--era", "both"] })
    try {
      const typed: { readonly sum: number } = await client.callTool("add", { a: 20, b: 22 }, { schema: Sum })
      assert.strictEqual(typed.sum, 42)
      const error = await client.callTool("add", { a: 1, b: 2 }, { schema: Schema.Struct({ sum: Schema.String }) })
        .then(() => undefined, (e: unknown) => e)
      assert.instanceOf(error, McpToolResultError)
      assert.strictEqual(error.path, ".sum")
    } finally {
      await client.close()
    }
  })
})

describe("McpToolSchema: a tool's JSON Schema as an Effect Schema", () => {
  it("server-everything's get-structured-content: its outputSchema imported decodes the tool's answer", async () => {
    const client = await connectStdio({ command: process.execPath, args: [everything, "stdio"] })
    try {
      const tool = (await client.listTools()).find((t) => t.name === "get-structured-content")
      assert.isDefined(tool)
      if (tool === undefined) return
      const output = McpToolSchema.outputSchemaOf(tool)
      assert.isTrue(Result.isSuccess(output), Result.isFailure(output) ? output.failure : "")
      if (Result.isFailure(output)) return
      const value = await client.callTool("get-structured-content", { location: "New York" }, {
        schema: output.success.schema
      })
      assert.isObject(value)
      assert.hasAllKeys(value, ["temperature", "conditions", "humidity"])
      const input = McpToolSchema.inputSchemaOf(tool)
      assert.isTrue(Result.isSuccess(input))
    } finally {
      await client.close()
    }
  })

  it("keywords it cannot express are named with where they were; what is left still checks", () => {
    const imported = McpToolSchema.fromJsonSchema({
      type: "object",
      properties: {
        id: { type: "string", pattern: "^(a+)+$" },
        kind: { type: "string", enum: ["a", "b"] },
        extra: { if: { type: "string" }, then: { minLength: 2 } }
      },
      required: ["id", "kind"]
    })
    assert.isTrue(Result.isSuccess(imported))
    if (Result.isFailure(imported)) return
    assert.deepStrictEqual(imported.success.unexpressed, [
      { path: "/properties/id", keyword: "pattern" },
      { path: "/properties/extra", keyword: "if" },
      { path: "/properties/extra", keyword: "then" }
    ])
    const decode = Schema.decodeUnknownSync(imported.success.schema)
    assert.deepStrictEqual(decode({ id: "aaaa", kind: "a" }), { id: "aaaa", kind: "a" })
    assert.throws(() => decode({ id: "x", kind: "c" }))
    assert.throws(() => decode({ kind: "a" }))
  })

  it("hostile schemas: too deep, an external $ref, not a schema; a __proto__ property stays a property", () => {
    let deep: Record<string, unknown> = { type: "string" }
    for (let i = 0; i < 200; i++) deep = { type: "object", properties: { x: deep } }
    const tooDeep = McpToolSchema.fromJsonSchema(deep)
    assert.isTrue(Result.isFailure(tooDeep))
    if (Result.isFailure(tooDeep)) assert.include(tooDeep.failure, "deeper than 64")

    const external = McpToolSchema.fromJsonSchema({ $ref: "https://example.com/schema.json" })
    assert.isTrue(Result.isSuccess(external))
    if (Result.isSuccess(external)) assert.deepStrictEqual(external.success.unexpressed, [{ path: "/", keyword: "$ref" }])

    assert.isTrue(Result.isFailure(McpToolSchema.fromJsonSchema("a string")))

    const proto = McpToolSchema.fromJsonSchema(
      JSON.parse(`{"type":"object","properties":{"__proto__":{"type":"number"}},"required":["__proto__"]}`)
    )
    assert.isTrue(Result.isSuccess(proto))
    if (Result.isFailure(proto)) return
    const decode = Schema.decodeUnknownSync(proto.success.schema)
    assert.throws(() => decode({}))
    assert.deepStrictEqual(Object.keys(decode(JSON.parse(`{"__proto__":1}`)) as object), ["__proto__"])
  })
})
