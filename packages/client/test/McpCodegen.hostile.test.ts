/**
 * Generated clients and typed calls against a hostile server (issue 33, items 8-12): the scripted
 * `hostile-codegen` server (`packages/test-servers/src/hostile-codegen.ts`) lists schemas nested 100,000 deep, a
 * value nested as deep, properties named like keywords, a name listed twice, names and descriptions carrying
 * bidi, C0, C1 and ESC characters, and an open schema with an optional argument. The module generated from it is
 * type-checked under `--strict` with a program whose `@ts-expect-error` lines must meet their errors, then run
 * against the server.
 */
import * as McpCodegen from "@mcp-effect/client/McpCodegen"
import * as McpToolSchema from "@mcp-effect/client/McpToolSchema"
import { connectStdio, McpClient, McpToolResultError, type McpSchema, NodeMcpClient } from "@mcp-effect/client/node"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import { strictFolder, tsc } from "@mcp-effect/test-servers/strict-project"
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import { createRequire } from "node:module"
import * as path from "node:path"
import { afterAll, beforeAll } from "vitest"

const require = createRequire(import.meta.url)
const server = require.resolve("@mcp-effect/test-servers/hostile-codegen")

/** What a reader of the source would not see as it acts: bidi controls, C0 but newline and tab, DEL, C1. */
const HIDDEN = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/

interface Tree {
  readonly a: Tree | number
}
/** A schema for a tree: decoding it recurses as deep as the value. */
const Tree: Schema.Codec<Tree> = Schema.Struct({ a: Schema.Union([Schema.Number, Schema.suspend(() => Tree)]) })

let dir = ""
let tools: ReadonlyArray<McpSchema.Tool> = []
let generated: McpCodegen.Generated = { source: "", notes: [] }
let diagnostics = ""

const program = `
import { Effect } from "effect"
import * as McpCodegen from "@mcp-effect/client/McpCodegen"
import { NodeMcpClient } from "@mcp-effect/client/node"
import { changedTools, tools } from "./hostile-tools.ts"

const program = Effect.gen(function*() {
  const keywords = yield* tools.keywords({
    pattern: "abc", if: true, format: 1, contains: "x", then: 2, else: ["x"], not: "n", const: true, enum: "e", items: 3
  })
  // @ts-expect-error: the property named pattern is a string
  void tools.keywords({ pattern: 1, if: true })
  // @ts-expect-error: the property named format is a number
  void tools.keywords({ pattern: "abc", if: true, format: "one" })
  // @ts-expect-error: the property named if is required
  void tools.keywords({ pattern: "abc" })
  // @ts-expect-error: a typo in an optional argument (limit), though the schema allows additional properties
  void tools.closed({ query: "x", limt: 3 })
  const closed = yield* tools.closed({ query: "x", limit: 3, ...McpCodegen.undeclared({ debug: true }) })
  yield* tools.twice({ a: "x" })
  return { keywords: keywords.pattern, received: closed.received, names: Object.keys(tools), changed: yield* changedTools }
}).pipe(Effect.provide(NodeMcpClient.layerStdio({ command: process.execPath, args: [${JSON.stringify(server)}] })))
console.log(JSON.stringify(await Effect.runPromise(program)))
`

beforeAll(async () => {
  dir = strictFolder("mcp-codegen-hostile-")
  const client = await connectStdio({ command: process.execPath, args: [server] })
  try {
    tools = await client.listTools()
  } finally {
    await client.close()
  }
  generated = await Effect.runPromise(McpCodegen.toolsModule(tools, { source: "hostile-codegen", declares: [] }))
  fs.writeFileSync(path.join(dir, "hostile-tools.ts"), generated.source)
  fs.writeFileSync(path.join(dir, "use-hostile.ts"), program)
  const checked = spawnSync(process.execPath, [tsc, "-p", dir], { encoding: "utf8" })
  diagnostics = (checked.stdout + checked.stderr).trim()
}, 180_000)
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

const toolNamed = (name: string) => {
  const tool = tools.find((t) => t.name === name)
  assert.isDefined(tool)
  return tool as McpSchema.Tool
}

const notesOf = (name: string) => generated.notes.filter((note) => note.tool === name).map((note) => note.detail)

/** The generated program's run against the server: what it printed last. */
const runProgram = () => {
  const ran = spawnSync(process.execPath, ["--experimental-strip-types", "--no-warnings", path.join(dir, "use-hostile.ts")], {
    encoding: "utf8",
    cwd: dir,
    timeout: 60_000
  })
  assert.strictEqual(ran.status, 0, ran.stderr)
  return JSON.parse(ran.stdout.trim().split("\n").at(-1) ?? "null") as {
    readonly keywords: string
    readonly received: unknown
    readonly names: ReadonlyArray<string>
    readonly changed: ReadonlyArray<string>
  }
}

describe("generated clients and typed calls against a hostile server", () => {
  it.effect("item 8: a 100,000-deep structuredContent in a typed call is an McpToolResultError, not a stack overflow", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      const failure = yield* Effect.flip(client.callTool("deep_value", {}, { schema: Tree }))
      assert.instanceOf(failure, McpToolResultError)
      assert.strictEqual(failure.reason, "Decode")
      assert.include(failure.detail, "nested deeper than 64")
      // The tool's own outputSchema imported at run time: the same error.
      const imported = McpToolSchema.outputSchemaOf(toolNamed("deep_value"))
      assert.isTrue(Result.isSuccess(imported))
      if (Result.isSuccess(imported)) {
        const viaImport = yield* Effect.flip(client.callTool("deep_value", {}, { schema: imported.success.schema }))
        assert.instanceOf(viaImport, McpToolResultError)
      }
    }).pipe(Effect.provide(NodeMcpClient.layerStdio({ command: process.execPath, args: [server] }))), 60_000)

  it("item 8: the Promise API: the same typed call rejects with McpToolResultError", async () => {
    const client = await connectStdio({ command: process.execPath, args: [server] })
    try {
      const failure = await client.callTool("deep_value", {}, { schema: Tree }).then(() => undefined, (e: unknown) => e)
      assert.instanceOf(failure, McpToolResultError)
      assert.include((failure as McpToolResultError).detail, "nested deeper than 64")
    } finally {
      await client.close()
    }
  }, 60_000)

  it("item 8: a 100,000-deep schema is typed looser with a note; McpToolSchema says why it cannot import it", () => {
    assert.deepStrictEqual(notesOf("deep_input"), ["input schema not typed: the schema is nested deeper than 64"])
    assert.deepStrictEqual(notesOf("deep_output_schema"), ["output schema not typed: the schema is nested deeper than 64"])
    const input = McpToolSchema.inputSchemaOf(toolNamed("deep_input"))
    assert.isTrue(Result.isFailure(input))
    // A chain of 20,000 $refs: flat JSON, as deep as it is long once followed; bounded before the importer follows it.
    assert.deepStrictEqual(notesOf("ref_chain"), ["input schema not typed: the schema, its $refs followed, is nested deeper than 64"])
    for (const note of generated.notes) assert.notInclude(note.detail, "Maximum call stack")
    assert.match(generated.source, /deep_input: \(args: \w+\.JsonObject,/)
  })

  it("item 9: properties named like keywords keep their types; only the keywords are left out", () => {
    assert.deepStrictEqual(notesOf("keywords"), [
      "input schema: pattern at /properties/pattern is not checked",
      "input schema: format at /properties/contains is not checked",
      "input schema: contains at /properties/else is not checked",
      "output schema: format at /properties/format is not checked"
    ])
    const imported = McpToolSchema.inputSchemaOf(toolNamed("keywords"))
    assert.isTrue(Result.isSuccess(imported))
    if (!Result.isSuccess(imported)) return
    const decode = Schema.decodeUnknownExit(imported.success.schema)
    const valid = { pattern: "abc", if: true, format: 1, contains: "x", then: 2, else: ["y"], not: "n", const: true, enum: "e", items: 3 }
    assert.isTrue(decode(valid)._tag === "Success")
    for (const wrong of [{ pattern: 1, if: true }, { if: true }, { pattern: "a", if: "yes" }, { ...valid, format: "one" }, { ...valid, then: 1.5 }]) {
      assert.isTrue(decode(wrong)._tag === "Failure", JSON.stringify(wrong))
    }
  })

  it("items 9, 10, 12: the module type-checks under --strict, and every @ts-expect-error meets its error", () => {
    assert.strictEqual(diagnostics, "")
  })

  it("item 10: a name listed twice is typed once (the first listing), with a note", () => {
    assert.deepStrictEqual(notesOf("twice"), ["listed twice: only the first listing is typed; the others are left out"])
    assert.strictEqual(generated.source.match(/ {2}twice: \(args/g)?.length, 2) // the Effect facade and the Promise one
  })

  it("item 11: bidi controls, C0, C1 and ESC from the server reach the module only as \\u escapes, and mean the same", () => {
    const trojan = tools.find((tool) => tool.name.startsWith("trojan"))
    assert.isDefined(trojan)
    assert.match(trojan?.name ?? "", HIDDEN)
    assert.notMatch(generated.source, HIDDEN)
    assert.include(generated.source, "\\u202e")
    assert.include(generated.source, "\\u001b")
    assert.notInclude(generated.source, "*/ process.exit(9)")
    // Run: the escaped name is the server's name, to the character; a call by it, and the rest, answer.
    const out = runProgram()
    assert.include(out.names, trojan?.name ?? "")
    assert.strictEqual(out.keywords, "abc")
    // item 12: the undeclared key went out because the caller asked for it, explicitly.
    assert.deepStrictEqual(out.received, { query: "x", limit: 3, debug: true })
    // item 12: generated for what this program declares (nothing): no drift right after generation.
    assert.deepStrictEqual(out.changed, [])
  }, 60_000)

  it("item 12: the header says which capabilities the listing was made with", () => {
    assert.include(generated.source, "Listed by a client that declares no capabilities")
    assert.include(generated.source, "McpCodegen.undeclared")
    assert.notInclude(generated.source, "needs_input")
  })
})
