/**
 * `mcp-effect types` as a real process: the typed module of the official SDK server and of Effect 4's
 * `McpServer`, written to a file, type-checked with the repository's `tsc` under `--strict` together with a
 * program that calls through it (and must not compile with wrong argument or result types), then run;
 * server-everything's, whose unchecked keywords are named on stderr; on stdout without `--out` (as JSON with
 * `--json`); a symbolic link at the target refused.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import { createRequire } from "node:module"
import * as os from "node:os"
import * as path from "node:path"
import { everything, official, run } from "./fixtures/run.js"

const require = createRequire(import.meta.url)
const effectServer = require.resolve("@mcp-effect/test-servers/effect")
const hostileCodegen = require.resolve("@mcp-effect/test-servers/hostile-codegen")

/** What must never reach the terminal or the module raw: C0 but newline and tab, DEL, C1, bidi controls. */
const HIDDEN = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/

/** A program that prints what `changedTools` of `module` says against the hostile server, declaring nothing. */
const changedProgram = (module: string) => `
import { Effect } from "effect"
import { NodeMcpClient } from "@mcp-effect/client/node"
import { changedTools } from "./${module}"

const layer = NodeMcpClient.layerStdio({ command: process.execPath, args: [${JSON.stringify(hostileCodegen)}] })
console.log(JSON.stringify(await Effect.runPromise(changedTools.pipe(Effect.provide(layer)))))
`

const runTs = (dir: string, file: string) => {
  const ran = spawnSync(process.execPath, ["--experimental-strip-types", "--no-warnings", path.join(dir, file)], {
    encoding: "utf8",
    cwd: dir,
    timeout: 60_000
  })
  assert.strictEqual(ran.status, 0, ran.stderr)
  return JSON.parse(ran.stdout.trim()) as unknown
}
const repo = path.resolve(import.meta.dirname, "../../..")
const tsc = path.join(repo, "node_modules/typescript/bin/tsc")

/** A folder that resolves the workspace's packages (a `node_modules` link) and type-checks strictly. */
const folder = Effect.acquireRelease(
  Effect.sync(() => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mcp-cli-types-"))
    fs.symlinkSync(path.join(repo, "node_modules"), path.join(dir, "node_modules"))
    fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify({ type: "module" }))
    fs.writeFileSync(
      path.join(dir, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          exactOptionalPropertyTypes: true,
          noEmit: true,
          target: "ES2022",
          lib: ["ES2022", "DOM"],
          module: "NodeNext",
          moduleResolution: "NodeNext",
          allowImportingTsExtensions: true,
          skipLibCheck: true,
          types: ["node"]
        },
        include: ["*.ts"]
      })
    )
    return dir
  }),
  (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
)

const stdio = (server: string) => ["--stdio", [process.execPath, server, "--era", "both"].join(" ")]

/** A program calling `add` and `echo` through the module, with two calls that must not type-check. */
const program = (module: string, server: string) => `
import { Effect } from "effect"
import { NodeMcpClient, connectStdio } from "@mcp-effect/client/node"
import { promiseTools, tools } from "./${module}"

const args = ${JSON.stringify([server, "--era", "both"])}
const viaEffect = Effect.gen(function*() {
  const added = yield* tools.add({ a: 2, b: 3 })
  // @ts-expect-error: the generated input schema says a is a number
  void tools.add({ a: "two", b: 3 })
  // @ts-expect-error: the generated output's sum is a number
  const wrong: string = added.sum
  void wrong
  return Number(added.sum)
}).pipe(Effect.provide(NodeMcpClient.layerStdio({ command: process.execPath, args })))

const client = await connectStdio({ command: process.execPath, args })
const viaPromise = await promiseTools(client).add({ a: 20, b: 22 })
await client.close()
console.log(JSON.stringify({ effect: await Effect.runPromise(viaEffect), promise: Number(viaPromise.sum) }))
`

const typeCheck = (dir: string) => {
  const result = spawnSync(process.execPath, [tsc, "-p", dir], { encoding: "utf8" })
  return (result.stdout + result.stderr).trim()
}

describe("mcp-effect types", () => {
  it.live("the official SDK server, Effect's McpServer, server-everything: modules that type-check under --strict, calls typed, notes on stderr", () =>
    Effect.gen(function*() {
      const dir = yield* folder
      const servers = [{ file: "official-tools.ts", server: official }, { file: "effect-tools.ts", server: effectServer }]
      for (const { file, server } of servers) {
        const out = path.join(dir, file)
        const written = yield* run(["types", "--out", out, ...stdio(server)])
        assert.strictEqual(written.code, 0, written.stderr)
        assert.strictEqual(written.stdout, "")
        assert.match(written.stderr, new RegExp(`wrote ${out.replaceAll(/[.*+?^${}()|[\]\\]/g, "\\$&")} \\(\\d+ tools\\)`))
        const source = fs.readFileSync(out, "utf8")
        assert.include(source, "generated by mcp-effect types")
        assert.include(source, "from \"@mcp-effect/client\"")
        fs.writeFileSync(path.join(dir, `use-${file}`), program(file, server))
      }
      // server-everything: schemas with keywords the module cannot check, each named on stderr. It lists its
      // elicitation tools only to a client that declares elicitation: listed as one.
      const notes = yield* run([
        "types",
        "--declare",
        "elicitation",
        "--out",
        path.join(dir, "everything-tools.ts"),
        "--",
        process.execPath,
        everything,
        "stdio"
      ])
      assert.strictEqual(notes.code, 0, notes.stderr)
      assert.include(notes.stderr, "mcp-effect: trigger-url-elicitation: input schema: format at /properties/url is not checked")
      assert.strictEqual(typeCheck(dir), "")
      for (const { file } of servers) {
        const ran = spawnSync(process.execPath, ["--experimental-strip-types", "--no-warnings", path.join(dir, `use-${file}`)], {
          encoding: "utf8",
          cwd: dir,
          timeout: 60_000
        })
        assert.strictEqual(ran.status, 0, ran.stderr)
        assert.deepStrictEqual(JSON.parse(ran.stdout.trim()), { effect: 5, promise: 42 })
      }
    }))

  it.live("without --out the module is on stdout (JSON with --json); --client-module changes the import; a symbolic link at FILE is refused", () =>
    Effect.gen(function*() {
      const dir = yield* folder
      const printed = yield* run(["types", "--client-module", "@mcp-effect/client/node", ...stdio(official)])
      assert.strictEqual(printed.code, 0, printed.stderr)
      assert.include(printed.stdout, "from \"@mcp-effect/client/node\"")
      assert.include(printed.stdout, "export const tools")
      const asJson = JSON.parse((yield* run(["types", "--json", ...stdio(official)])).stdout) as {
        readonly tools: number
        readonly notes: ReadonlyArray<unknown>
        readonly source: string
      }
      assert.isAbove(asJson.tools, 0)
      assert.include(asJson.source, "export const tools")
      const elsewhere = path.join(dir, "elsewhere.ts")
      fs.writeFileSync(elsewhere, "// not to be overwritten\n")
      const link = path.join(dir, "link.ts")
      fs.symlinkSync(elsewhere, link)
      const refused = yield* run(["types", "--out", link, ...stdio(official)])
      assert.strictEqual(refused.code, 2)
      assert.include(refused.stderr, "it is a symbolic link")
      assert.strictEqual(fs.readFileSync(elsewhere, "utf8"), "// not to be overwritten\n")
      assert.isTrue(fs.lstatSync(link).isSymbolicLink())
    }))

  it.live("a hostile server (issue 33, items 8, 10, 11, 12): deep schemas, a name listed twice, Trojan Source; the module compiles, nothing hidden reaches it or the terminal", () =>
    Effect.gen(function*() {
      const dir = yield* folder
      const server = ["--", process.execPath, hostileCodegen]
      const out = path.join(dir, "hostile-tools.ts")
      const written = yield* run(["types", "--out", out, ...server])
      assert.strictEqual(written.code, 0, written.stderr)
      // item 8: the deep schemas are typed looser and said so, not "unexpected: Maximum call stack size exceeded".
      assert.notInclude(written.stderr, "Maximum call stack")
      assert.include(written.stderr, "mcp-effect: deep_input: input schema not typed: the schema is nested deeper than 64")
      // item 10: the name listed twice is typed once, and said so.
      assert.include(written.stderr, "mcp-effect: twice: listed twice: only the first listing is typed")
      // item 11: the notes quote the server's names with their controls made visible; the module has none raw.
      assert.notMatch(written.stderr, HIDDEN)
      assert.include(written.stderr, "mcp-effect: trojan\\u202a")
      const source = fs.readFileSync(out, "utf8")
      assert.notMatch(source, HIDDEN)
      // item 12: the listing declared nothing, as a program without hooks; the header and stderr say so.
      assert.include(written.stderr, "listed as a client that declares no capabilities")
      assert.include(source, "Listed by a client that declares no capabilities")
      assert.notInclude(source, "needs_input")
      // The same server asked as a client that declares elicitation: the tool it offers such a client is typed.
      const declaring = path.join(dir, "declaring-tools.ts")
      const withElicitation = yield* run(["types", "--declare", "elicitation", "--out", declaring, ...server])
      assert.strictEqual(withElicitation.code, 0, withElicitation.stderr)
      assert.include(withElicitation.stderr, "listed as a client that declares elicitation")
      assert.include(fs.readFileSync(declaring, "utf8"), "needs_input")
      // item 10: both modules compile under --strict (TS1117 before: a property listed twice).
      fs.writeFileSync(path.join(dir, "use-hostile.ts"), changedProgram("hostile-tools.ts"))
      fs.writeFileSync(path.join(dir, "use-declaring.ts"), changedProgram("declaring-tools.ts"))
      assert.strictEqual(typeCheck(dir), "")
      // item 12: right after generation a program declaring what the module was listed with sees no drift; one
      // that declares less than the listing did is told which tool it is not offered.
      assert.deepStrictEqual(runTs(dir, "use-hostile.ts"), [])
      assert.deepStrictEqual(runTs(dir, "use-declaring.ts"), ["needs_input"])
      // On stdout, and as JSON: nothing hidden either.
      const printed = yield* run(["types", ...server])
      assert.strictEqual(printed.code, 0, printed.stderr)
      assert.notMatch(printed.stdout + printed.stderr, HIDDEN)
      assert.include(printed.stdout, "export const tools")
      const asJson = yield* run(["types", "--json", ...server])
      assert.strictEqual(asJson.code, 0, asJson.stderr)
      assert.notMatch(asJson.stdout, HIDDEN)
      assert.strictEqual((JSON.parse(asJson.stdout) as { source: string }).source, printed.stdout)
    }), 180_000) // five runs of the command, a type-check of two modules and two programs, two programs run
})
