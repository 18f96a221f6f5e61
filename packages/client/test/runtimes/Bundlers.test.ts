/**
 * A page on the Effect API (`McpClient.layerHttp` + `FetchHttpClient`, a call checked against its
 * `outputSchema`) built for production by webpack 5 and rspack (minified, ESM) from the built `dist` (run
 * `npm run build` first), then run on Node against the official demo server over Streamable HTTP: the bundle
 * must load and answer. (webpack's minifier once inlined a helper called with a `yield*` argument into an arrow
 * function: the bundle did not parse.) And webpack's build of a `connectHttp` page holds the HTTP transport in
 * the page's own chunk and no stdio transport at all (`#transports` resolves to static imports for a browser,
 * which webpack drops when unused; from a lazy `import()` it made a chunk of each, splitting Effect's modules
 * across chunks, where it does not hoist them).
 */
import { spawn } from "node:child_process"
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import * as path from "node:path"
import { afterAll, assert, beforeAll, describe, it } from "vitest"
import { officialHttp, repo } from "./fixtures/project.js"
import type { RunningServer } from "./fixtures/project.js"

const dir = path.join(repo, "node_modules/.cache/mcp-effect-bundlers", String(process.pid))
let server: RunningServer | undefined

const page = (url: string) => `import { McpClient } from "@mcp-effect/client"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as FetchHttpClient from "effect/http/FetchHttpClient"

const program = Effect.gen(function*() {
  const client = yield* McpClient.McpClient
  yield* client.listTools()
  return yield* client.callTool("add", { a: 1, b: 2 })
})
const layer = McpClient.layerHttp({ url: ${JSON.stringify(url)}, clientName: "page" }).pipe(Layer.provide(FetchHttpClient.layer))
program.pipe(Effect.provide(layer), Effect.runPromise).then((result) => console.log(JSON.stringify(result.structuredContent)))
`

interface Compiler {
  readonly run: (callback: (error: Error | null, stats?: { hasErrors(): boolean; toString(preset: "errors-only"): string }) => void) => void
  readonly close: (callback: () => void) => void
}

const build = async (bundler: "webpack" | "rspack", outdir: string, entry = "./page.js"): Promise<void> => {
  const config = {
    mode: "production" as const,
    context: dir,
    entry: { page: entry },
    target: ["web", "es2022"],
    devtool: false as const,
    performance: { hints: false as const },
    experiments: { outputModule: true },
    output: { path: outdir, module: true, filename: "[name].js" }
  }
  const compiler: Compiler = bundler === "webpack"
    ? (await import("webpack")).default(config)
    : (await import("@rspack/core")).rspack(config as never)
  await new Promise<void>((resolve, reject) =>
    compiler.run((error, stats) => {
      compiler.close(() => {})
      if (error) return reject(error)
      if (stats?.hasErrors() === true) return reject(new Error(stats.toString("errors-only")))
      resolve()
    })
  )
}

/** Runs the bundle on Node; resolves with its stdout and stderr once it exits (killed after 60 s). */
const run = (file: string): Promise<{ readonly stdout: string; readonly stderr: string }> =>
  new Promise((resolve) => {
    const child = spawn(process.execPath, [file], { stdio: ["ignore", "pipe", "pipe"] })
    let stdout = ""
    let stderr = ""
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk))
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk))
    const timer = setTimeout(() => child.kill("SIGKILL"), 60_000)
    child.once("exit", () => {
      clearTimeout(timer)
      resolve({ stdout, stderr })
    })
  })

beforeAll(async () => {
  mkdirSync(dir, { recursive: true })
  // The folder's package.json makes the bundles ES modules for Node.
  writeFileSync(path.join(dir, "package.json"), JSON.stringify({ type: "module", private: true }))
  server = await officialHttp("modern")
  writeFileSync(path.join(dir, "page.js"), page(server.url))
}, 60_000)

afterAll(async () => {
  await server?.stop()
  rmSync(dir, { recursive: true, force: true })
})

describe("a connectHttp page bundled for the browser", () => {
  it("webpack: no chunk holds the stdio transport; the page's own chunk holds the HTTP one", async () => {
    writeFileSync(
      path.join(dir, "promise-page.js"),
      `import { connectHttp } from "@mcp-effect/client"\nconst client = await connectHttp({ url: "http://127.0.0.1:1/mcp" })\nconsole.log(await client.listTools())\n`
    )
    const outdir = path.join(dir, "webpack-promise")
    await build("webpack", outdir, "./promise-page.js")
    const files = readdirSync(outdir).filter((file) => file.endsWith(".js"))
    const texts = new Map(files.map((file) => [file, readFileSync(path.join(outdir, file), "utf8")]))
    // Messages of each transport, kept as they are by the minifier.
    assert.deepStrictEqual([...texts].filter(([, text]) => text.includes("closed its stdout")).map(([file]) => file), [])
    assert.include(texts.get("page.js") ?? "", "not a JSON-RPC response")
  }, 120_000)
})

describe("the Effect API page, minified for production", () => {
  for (const bundler of ["webpack", "rspack"] as const) {
    it(`${bundler}: the bundle loads and the checked call answers`, async () => {
      const outdir = path.join(dir, bundler)
      await build(bundler, outdir)
      const { stderr, stdout } = await run(path.join(outdir, "page.js"))
      // The last stderr lines name the error (the first repeat the minified line).
      assert.strictEqual(stdout.trim(), JSON.stringify({ sum: 3 }), stderr.split("\n").filter((l) => l.length < 300).join("\n"))
    }, 120_000)
  }
})
