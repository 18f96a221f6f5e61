/**
 * The published packages install and run on their own: `npm pack` of @mcp-effect/client, @mcp-effect/ai and
 * @mcp-effect/cli (their built `dist/`: `npm test` builds first), installed with `effect` alone into an empty
 * temporary project outside the workspace; there the README's Effect and Promise examples run (their server
 * swapped for a local one), type-check against the installed `.d.ts`, `@mcp-effect/ai` loads, and the
 * `mcp-effect` command of the CLI tarball (a self-contained bundle, no dependency) runs the first commands of its
 * manual (packages/cli/README.md).
 *
 * Reasonably fast for CI: `npm install --prefer-offline` uses npm's cache. Without a registry (nothing cached
 * and no network) the test is skipped, saying so.
 */
import { execFileSync, spawnSync } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { afterAll, assert, beforeAll, describe, it } from "vitest"

const require = createRequire(import.meta.url)
const repo = path.resolve(import.meta.dirname, "../../..")
const official = require.resolve("@mcp-effect/test-servers/official")
const everything = require.resolve("@modelcontextprotocol/server-everything/dist/index.js")
const effectVersion: string = JSON.parse(readFileSync(require.resolve("effect/package.json"), "utf8")).version
const readme = readFileSync(path.join(repo, "README.md"), "utf8")

/** The first ```ts block after a README heading. */
const example = (heading: string) => {
  const at = readme.indexOf(`\n${heading}\n`)
  const block = /```ts\n([\s\S]*?)```/.exec(readme.slice(at))
  if (at === -1 || block?.[1] === undefined) throw new Error(`README: no ts block under ${heading}`)
  return block[1]
}

/** Replace text that must be there (a README change that removes it fails the test instead of passing it by). */
const swap = (text: string, from: string, to: string) => {
  if (!text.includes(from)) throw new Error(`README example no longer contains ${JSON.stringify(from)}`)
  return text.replace(from, to)
}

/** Node 22 (this process's) first on PATH, so `#!/usr/bin/env node` and npm's scripts run on it. */
const env = { ...process.env, PATH: `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH ?? ""}` }

const run = (command: string, args: ReadonlyArray<string>, cwd: string) => {
  const result = spawnSync(command, args, { cwd, env, encoding: "utf8", timeout: 240_000 })
  return { code: result.status, stdout: result.stdout, stderr: result.stderr }
}

const offline = /ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ECONNRESET|ETIMEDOUT|ENETUNREACH|network|ENOTCACHED/i

let project = ""
let tarballs: ReadonlyArray<string> = []
let skipped: string | undefined

describe("npm pack, then install into an empty project", () => {
  beforeAll(() => {
    project = mkdtempSync(path.join(tmpdir(), "mcp-effect-install-"))
    const packed = execFileSync(
      "npm",
      ["pack", "-w", "packages/client", "-w", "packages/ai", "-w", "packages/cli", "--pack-destination", project, "--json"],
      { cwd: repo, env, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }
    )
    tarballs = (JSON.parse(packed) as ReadonlyArray<{ readonly filename: string }>).map((p) => `./${p.filename}`)
    writeFileSync(
      path.join(project, "package.json"),
      JSON.stringify({ name: "install-test", private: true, type: "module" }, null, 2)
    )
    const install = run(
      "npm",
      ["install", "--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error", `effect@${effectVersion}`, ...tarballs],
      project
    )
    if (install.code !== 0) {
      if (offline.test(install.stderr)) {
        skipped = `registry unreachable, install test skipped: ${install.stderr.split("\n")[0]}`
        process.stderr.write(`${skipped}\n`)
      } else {
        throw new Error(`npm install failed (${install.code}):\n${install.stderr}`)
      }
    }
  }, 300_000)

  afterAll(() => {
    if (project !== "") rmSync(project, { recursive: true, force: true })
  })

  it("packs the three public packages at the same version, the CLI with no dependency", ({ skip }) => {
    if (skipped !== undefined) return skip(skipped)
    assert.deepStrictEqual(tarballs.map((t) => t.replace(/-\d+\.\d+\.\d+\.tgz$/, "")), [
      "./mcp-effect-client",
      "./mcp-effect-ai",
      "./mcp-effect-cli"
    ])
    const manifest = (name: string) =>
      JSON.parse(readFileSync(path.join(project, "node_modules/@mcp-effect", name, "package.json"), "utf8"))
    const versions = ["client", "ai", "cli"].map((name) => manifest(name).version)
    assert.deepStrictEqual(new Set(versions).size, 1)
    assert.strictEqual(manifest("cli").dependencies, undefined)
    assert.deepStrictEqual(Object.keys(manifest("ai").peerDependencies).sort(), ["@mcp-effect/client", "effect"])
    // Only the packages asked for (and the client's own dependencies) are installed: no workspace around.
    const installed = JSON.parse(run("npm", ["ls", "--json", "--depth=0"], project).stdout).dependencies
    assert.deepStrictEqual(Object.keys(installed).sort(), ["@mcp-effect/ai", "@mcp-effect/cli", "@mcp-effect/client", "effect"])
  })

  it("runs and type-checks the README's Effect and Promise examples", ({ skip }) => {
    if (skipped !== undefined) return skip(skipped)
    const effectExample = swap(
      example("## Effect example"),
      `command: "npx",\n    args: ["-y", "@modelcontextprotocol/server-everything"],`,
      `command: ${JSON.stringify(process.execPath)},\n    args: [${JSON.stringify(everything)}],`
    )
    let promiseExample = example("## Promise example")
    promiseExample = swap(promiseExample, `command: "my-mcp-server"`, `command: ${JSON.stringify(process.execPath)}`)
    promiseExample = swap(promiseExample, `args: ["--stdio"]`, `args: [${JSON.stringify(everything)}]`)
    promiseExample = swap(promiseExample, `callTool("search", { query: "effect" })`, `callTool("echo", { message: "effect" })`)
    writeFileSync(path.join(project, "effect-example.ts"), effectExample)
    writeFileSync(path.join(project, "promise-example.ts"), promiseExample)
    writeFileSync(path.join(project, "ai.ts"), `import { McpToolkit } from "@mcp-effect/ai"\nconsole.log(typeof McpToolkit.toolkit)\n`)
    writeFileSync(
      path.join(project, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          target: "ES2022",
          lib: ["ES2022"],
          module: "NodeNext",
          moduleResolution: "NodeNext",
          outDir: "out",
          skipLibCheck: true,
          typeRoots: [path.join(repo, "node_modules/@types")],
          types: ["node"]
        },
        include: ["*.ts"]
      })
    )
    const tsc = run(process.execPath, [path.join(repo, "node_modules/typescript/bin/tsc"), "-p", "."], project)
    assert.strictEqual(tsc.code, 0, tsc.stdout + tsc.stderr)

    const effect = run(process.execPath, ["out/effect-example.js"], project)
    assert.strictEqual(effect.code, 0, effect.stderr)
    assert.match(effect.stdout, /era: '(modern|legacy)'/)
    assert.match(effect.stdout, /'echo'/)
    assert.match(effect.stdout, /result: \{/)

    const promise = run(process.execPath, ["out/promise-example.js"], project)
    assert.strictEqual(promise.code, 0, promise.stderr)
    assert.match(promise.stdout, /^(modern|legacy) mcp-servers\/everything/)
    assert.match(promise.stdout, /Echo: effect/)

    const ai = run(process.execPath, ["out/ai.js"], project)
    assert.strictEqual(ai.code, 0, ai.stderr)
    assert.strictEqual(ai.stdout, "function\n")
  })

  it("runs the manual's first mcp-effect commands from the CLI tarball alone", ({ skip }) => {
    if (skipped !== undefined) return skip(skipped)
    const bin = path.join(project, "node_modules/.bin/mcp-effect")
    const version = run(bin, ["--version"], project)
    assert.strictEqual(version.stdout, `${JSON.parse(readFileSync(path.join(repo, "packages/cli/package.json"), "utf8")).version}\n`)
    const tools = run(bin, ["tools", "--stdio", `${process.execPath} ${official}`], project)
    assert.strictEqual(tools.code, 0, tools.stderr)
    assert.match(tools.stdout, /^NAME +PARAMETERS +ANNOTATIONS +DESCRIPTION\n/)
    assert.match(tools.stdout, /\necho +text: string +read-only,idempotent +Returns its text argument\n/)
    const call = run(bin, ["call", "add", "a=2", "b=40", "--", process.execPath, official], project)
    assert.strictEqual(call.code, 0, call.stderr)
    assert.match(call.stdout, /^42\n/)
    // The bundle is self-contained, and its source maps name our files.
    const map = JSON.parse(readFileSync(path.join(project, "node_modules/@mcp-effect/cli/dist/bundle/mcp-effect.js.map"), "utf8"))
    const main = (map.sources as ReadonlyArray<string>).findIndex((source) => source.endsWith("/src/main.ts"))
    assert.isAtLeast(main, 0)
    assert.include(map.sourcesContent[main], "NodeRuntime.runMain(")
  })
})

describe("npm pack of the CLI: what an install carries", () => {
  it("no packed source map repeats the inspector page (the page's chunk ships without one)", () => {
    const packed = execFileSync("npm", ["pack", "--dry-run", "--json", "-w", "packages/cli"], {
      cwd: repo,
      env,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"]
    })
    const [pack] = JSON.parse(packed) as ReadonlyArray<{ readonly files: ReadonlyArray<{ readonly path: string }> }>
    const files = (pack?.files ?? []).map((file) => file.path)
    const page = files.find((file) => /^dist\/bundle\/chunks\/pageAssets-[^/]+\.js$/.test(file))
    assert.isDefined(page, "the page's chunk is packed")
    const maps = files.filter((file) => file.endsWith(".js.map"))
    assert.isAbove(maps.length, 0)
    for (const file of maps) {
      const map = JSON.parse(readFileSync(path.join(repo, "packages/cli", file), "utf8")) as { sources: ReadonlyArray<string> }
      assert.isFalse(map.sources.some((source) => source.startsWith("inspector-page:")), file)
    }
  })
})
