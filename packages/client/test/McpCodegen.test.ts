/**
 * Generated clients (issue 29, item 2): `McpCodegen.toolsModule` writes a TypeScript module from a server's tools.
 * The module, and a program using it, are type-checked with the repository's TypeScript under `--strict` (the
 * program holds `@ts-expect-error` lines: a wrong argument must not type-check) and run on Node against the real
 * servers it was generated from (the official SDK's, Effect 4's `McpServer`, `server-everything`); a server whose
 * tool changed shape since generation fails the call with `McpToolResultError`, and `changedTools` names it.
 */
import * as McpCodegen from "@mcp-effect/client/McpCodegen"
import { connectStdio, type McpSchema } from "@mcp-effect/client/node"
import * as Effect from "effect/Effect"
import { strictFolder, tsc } from "@mcp-effect/test-servers/strict-project"
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import { createRequire } from "node:module"
import * as path from "node:path"
import { afterAll, assert, beforeAll, describe, it } from "vitest"

const require = createRequire(import.meta.url)
const official = require.resolve("@mcp-effect/test-servers/official")
const effectServer = require.resolve("@mcp-effect/test-servers/effect")
const everything = require.resolve("@modelcontextprotocol/server-everything/dist/index.js")

let dir = ""
beforeAll(() => {
  dir = strictFolder("mcp-codegen-")
})
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

const toolsOf = async (args: ReadonlyArray<string>) => {
  const client = await connectStdio({ command: process.execPath, args: [...args] })
  try {
    return await client.listTools()
  } finally {
    await client.close()
  }
}

const generate = async (file: string, tools: ReadonlyArray<McpSchema.Tool>, source: string) => {
  const generated = await Effect.runPromise(McpCodegen.toolsModule(tools, { source }))
  fs.writeFileSync(path.join(dir, file), generated.source)
  return generated
}

/** Type-check every file of the folder, under its tsconfig's settings: what tsc printed. */
const typeCheck = () => {
  const result = spawnSync(process.execPath, [tsc, "-p", dir], { encoding: "utf8" })
  return (result.stdout + result.stderr).trim()
}

const run = (file: string) => {
  const result = spawnSync(process.execPath, ["--experimental-strip-types", "--no-warnings", path.join(dir, file)], {
    encoding: "utf8",
    cwd: dir,
    timeout: 60_000
  })
  assert.strictEqual(result.status, 0, result.stderr)
  return JSON.parse(result.stdout.trim().split("\n").at(-1) ?? "null") as unknown
}

const program = (module: string, server: ReadonlyArray<string>) => `
import { Effect } from "effect"
import { connectStdio, NodeMcpClient } from "@mcp-effect/client/node"
import { changedTools, promiseTools, tools } from "./${module}"

const layer = NodeMcpClient.layerStdio({ command: process.execPath, args: ${JSON.stringify(server)} })
const viaEffect = Effect.gen(function*() {
  const added = yield* tools.add({ a: 2, b: 3 })
  const sum = Number(added.sum)
  // @ts-expect-error: the generated input schema says a is a number
  void tools.add({ a: "two", b: 3 })
  // @ts-expect-error: the generated output's sum is no boolean
  const wrong: boolean = added.sum
  void wrong
  const echoed = yield* tools.echo({ text: "hi" })
  return { sum, echoed: echoed.content[0], changed: yield* changedTools }
}).pipe(Effect.provide(layer))

const client = await connectStdio({ command: process.execPath, args: ${JSON.stringify(server)} })
const viaPromise = await promiseTools(client).add({ a: 20, b: 22 })
const promiseSum = Number(viaPromise.sum)
await client.close()
console.log(JSON.stringify({ ...(await Effect.runPromise(viaEffect)), promiseSum }))
`

const servers = [
  { name: "the official SDK server", file: "official-tools.ts", args: [official, "--era", "both"] },
  { name: "Effect 4's McpServer", file: "effect-tools.ts", args: [effectServer, "--era", "both"] }
] as const

const hostile: ReadonlyArray<McpSchema.Tool> = [
  {
    name: "x\"; process.exit(3); //",
    description: "*/ process.exit(4) /* " + "long ".repeat(2000),
    inputSchema: { type: "object", properties: { "a\"b": { type: "string" } } }
  },
  { name: "constructor", inputSchema: { type: "object" } },
  { name: "1password", inputSchema: { type: "object" } },
  { name: "__proto__", inputSchema: { type: "object" } }
]

const oldProgram = `
import { Effect } from "effect"
import { NodeMcpClient } from "@mcp-effect/client/node"
import { changedTools, tools } from "./old-tools.ts"

const program = Effect.gen(function*() {
  const failure = yield* Effect.flip(tools.add({ a: 1, b: 2 }))
  return { tag: failure._tag, reason: "reason" in failure ? failure.reason : undefined, changed: yield* changedTools }
}).pipe(Effect.provide(NodeMcpClient.layerStdio({ command: process.execPath, args: ${JSON.stringify([official, "--era", "both"])} })))
console.log(JSON.stringify(await Effect.runPromise(program)))
`

let everythingTools: ReadonlyArray<McpSchema.Tool> = []
let everythingNotes: ReadonlyArray<McpCodegen.Note> = []
let hostileSource = ""
/** What the one type-check of every generated module and program printed, by file. */
let diagnostics = ""
const errorsIn = (file: string) => diagnostics.split("\n").filter((line) => line.includes(file)).join("\n")

beforeAll(async () => {
  for (const server of servers) {
    await generate(server.file, await toolsOf(server.args), server.name)
    fs.writeFileSync(path.join(dir, `use-${server.file}`), program(server.file, server.args))
  }
  everythingTools = await toolsOf([everything, "stdio"])
  everythingNotes = (await generate("everything-tools.ts", everythingTools, "server-everything")).notes
  // Generated when `add` answered { total } (the server has changed since: it answers { sum }).
  const officialTools = await toolsOf([official, "--era", "both"])
  const before = officialTools.map((tool) =>
    tool.name === "add"
      ? { ...tool, outputSchema: { type: "object", properties: { total: { type: "number" } }, required: ["total"] } }
      : tool
  )
  await generate("old-tools.ts", before, "the official SDK server, earlier")
  fs.writeFileSync(path.join(dir, "use-old.ts"), oldProgram)
  hostileSource = (await generate("hostile-tools.ts", hostile, "a hostile server")).source
  fs.writeFileSync(
    path.join(dir, "use-hostile.ts"),
    `import { definitions, tools } from "./hostile-tools.ts"\nconsole.log(JSON.stringify({ definitions: Object.keys(definitions), tools: Object.keys(tools) }))\n`
  )
  diagnostics = typeCheck()
}, 180_000)

describe("McpCodegen: a typed module per server", () => {
  for (const server of servers) {
    it(`${server.name}: the module and a program using it type-check under --strict, and run`, () => {
      assert.strictEqual(errorsIn(server.file), "")
      const out = run(`use-${server.file}`) as { sum: number; echoed: unknown; changed: ReadonlyArray<string>; promiseSum: number }
      assert.strictEqual(out.sum, 5)
      assert.strictEqual(out.promiseSum, 42)
      assert.deepStrictEqual(out.echoed, { type: "text", text: "hi" })
      assert.deepStrictEqual(out.changed, [])
    }, 60_000)
  }

  it("server-everything: every tool typed; the module type-checks; notes say what is not checked", () => {
    assert.strictEqual(errorsIn("everything-tools.ts"), "")
    const source = fs.readFileSync(path.join(dir, "everything-tools.ts"), "utf8")
    for (const tool of everythingTools) assert.include(source, JSON.stringify(tool.name))
    for (const note of everythingNotes) assert.isTrue(everythingTools.some((tool) => tool.name === note.tool))
  })

  it("a tool that changed shape since generation: the call fails with McpToolResultError, changedTools names it", () => {
    assert.strictEqual(errorsIn("old-tools.ts"), "")
    assert.deepStrictEqual(run("use-old.ts"), { tag: "McpToolResultError", reason: "Decode", changed: ["add"] })
  }, 60_000)

  it("names and descriptions a server chose cannot break out of the module", () => {
    assert.strictEqual(errorsIn("hostile-tools.ts"), "")
    assert.notInclude(hostileSource, "*/ process.exit(4)")
    assert.isBelow(hostileSource.length, 20_000)
    const names = hostile.map((tool) => tool.name)
    assert.deepStrictEqual(run("use-hostile.ts"), { definitions: names, tools: names })
  }, 60_000)

  it("the type-check found nothing else: every program's @ts-expect-error met its error", () => {
    assert.strictEqual(diagnostics, "")
  })
})
