/**
 * Page weight with every bundler (issue 34, item 3): each page is built for the browser, minified, with Vite 8
 * (rolldown), esbuild, webpack 5 and rspack, each with its defaults for a production browser build and ESM
 * output (so that the split build runs as is), then run on Node against a live server (Node's `fetch` stands
 * in for the browser's). The weight is what the page has loaded (gzip -9 per file, as a browser fetches it)
 * when it prints its first result: the entry, its static imports and the chunks its `import()`s fetched on the
 * way. A Worker bundle (`wrangler deploy --dry-run --minify`, gzip) is weighed beside the official client's.
 *
 *   node bench-bundlers.js <folder inside the workspace> <Streamable HTTP server url>
 *
 * prints one JSON line (`BundlerWeights`). `BENCH_PAGES` (a comma-separated list of page names) weighs only those.
 * The pages hosting an MCP App (`ours-app`, `official-app`) are weighed in Chromium by `bench-apps.ts`.
 */
import { spawn } from "node:child_process"
import { mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { PAGES } from "./bench-browser.js"
import { type BundledPage, type Bundler, BUNDLERS, buildWith, gzipOf, runLoaded } from "./bench-build.js"

export { type BundledPage, type Bundler, BUNDLERS } from "./bench-build.js"

const require = createRequire(import.meta.url)


const PLACEHOLDER_URL = "http://127.0.0.1:3000/mcp"

/** The pages of `bench-browser.ts`, and two that call a tool whose result is checked against its `outputSchema`. */
export const BUNDLER_PAGES: ReadonlyArray<{ readonly name: string; readonly what: string; readonly source: string }> = [
  ...PAGES,
  {
    name: "ours-schema",
    what: "connectHttp, a call checked against its outputSchema",
    source: `import { connectHttp } from "@mcp-effect/client"

const client = await connectHttp({ url: "${PLACEHOLDER_URL}", clientName: "page" })
await client.listTools()
console.log(await client.callTool("add", { a: 1, b: 2 }))
await client.close()
`
  },
  {
    name: "ours-effect-schema",
    what: "McpClient.layerHttp + FetchHttpClient, a call checked against its outputSchema",
    source: `import { McpClient } from "@mcp-effect/client"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as FetchHttpClient from "effect/http/FetchHttpClient"

const program = Effect.gen(function*() {
  const client = yield* McpClient.McpClient
  yield* client.listTools()
  return yield* client.callTool("add", { a: 1, b: 2 })
})
const layer = McpClient.layerHttp({ url: "${PLACEHOLDER_URL}", clientName: "page" }).pipe(Layer.provide(FetchHttpClient.layer))
program.pipe(Effect.provide(layer), Effect.runPromise).then(console.log)
`
  },
  {
    name: "official-schema",
    what: "Client + StreamableHTTPClientTransport, a call checked against its outputSchema",
    source: `import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client"

const client = new Client({ name: "page", version: "0.0.0" })
await client.connect(new StreamableHTTPClientTransport(new URL("${PLACEHOLDER_URL}")))
await client.listTools()
console.log(await client.callTool({ name: "add", arguments: { a: 1, b: 2 } }))
await client.close()
`
  }
]

const RUN_TIMEOUT_MS = 60_000

/** Runs `outdir/<name>.js` on Node; resolves with the output files it loaded by its first line of output. */
const runBuilt = (dir: string, outdir: string, name: string): Promise<ReadonlyArray<string>> =>
  runLoaded(dir, outdir, `${name}.js`, RUN_TIMEOUT_MS)

/** One page with one bundler: built, run against `url`, weighed. */
const weigh = async (dir: string, page: (typeof BUNDLER_PAGES)[number], bundler: Bundler, url: string): Promise<BundledPage> => {
  const entry = `bundled-${page.name}.js`
  writeFileSync(join(dir, entry), page.source.replaceAll(PLACEHOLDER_URL, url))
  const outdir = join(dir, "out-bundlers", bundler, page.name)
  try {
    await buildWith(bundler, dir, entry, outdir)
    const files = await runBuilt(dir, outdir, entry.replace(/\.js$/, ""))
    return { page: page.name, bundler, loadedGzip: files.reduce((total, path) => total + gzipOf(path), 0), loadedFiles: files.length }
  } catch (error) {
    return { page: page.name, bundler, error: (error instanceof Error ? error.message : String(error)).slice(0, 400) }
  }
}

export interface WorkerWeight {
  readonly client: "ours" | "official"
  readonly gzip?: number
  readonly error?: string
}

const WORKERS = {
  ours: `import { connectHttp } from "@mcp-effect/client"
export default {
  async fetch(request) {
    const client = await connectHttp({ url: new URL(request.url).searchParams.get("url") })
    await client.listTools()
    const result = await client.callTool("add", { a: 1, b: 2 })
    await client.close()
    return Response.json(result)
  }
}
`,
  official: `import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client"
export default {
  async fetch(request) {
    const client = new Client({ name: "worker", version: "0.0.0" })
    await client.connect(new StreamableHTTPClientTransport(new URL(new URL(request.url).searchParams.get("url"))))
    await client.listTools()
    const result = await client.callTool({ name: "add", arguments: { a: 1, b: 2 } })
    await client.close()
    return Response.json(result)
  }
}
`
} as const

/** `wrangler deploy --dry-run --minify` of a Worker that lists and calls `add`; the gzipped size of what it wrote. */
const weighWorker = (dir: string, client: keyof typeof WORKERS): Promise<WorkerWeight> =>
  new Promise((resolve) => {
    const entry = `worker-${client}.js`
    writeFileSync(join(dir, entry), WORKERS[client])
    const outdir = join(dir, "out-workers", client)
    rmSync(outdir, { recursive: true, force: true })
    const wrangler = join(dirnameOf(require.resolve("wrangler/package.json")), "bin", "wrangler.js")
    const config = join(dir, `worker-${client}.toml`)
    writeFileSync(
      config,
      `name = "bench-${client}"\nmain = "${entry}"\ncompatibility_date = "2026-11-01"\ncompatibility_flags = ["nodejs_compat"]\n`
    )
    const child = spawn(process.execPath, [wrangler, "deploy", "--dry-run", "--minify", "--outdir", outdir, "-c", config], {
      cwd: dir,
      env: { ...process.env, WRANGLER_SEND_METRICS: "false", CLOUDFLARE_CF_FETCH_ENABLED: "false" },
      stdio: ["ignore", "ignore", "pipe"]
    })
    let stderr = ""
    child.stderr.setEncoding("utf8")
    child.stderr.on("data", (chunk: string) => (stderr += chunk))
    child.once("exit", (code) => {
      if (code !== 0) return resolve({ client, error: stderr.slice(-400) })
      const files = readdirSync(outdir).map((file) => join(outdir, file)).filter((path) => statSync(path).isFile() && /\.m?js$/.test(path))
      resolve({ client, gzip: files.reduce((total, path) => total + gzipOf(path), 0) })
    })
  })

const dirnameOf = (path: string): string => path.slice(0, path.lastIndexOf("/"))

export interface BundlerWeights {
  readonly pages: ReadonlyArray<BundledPage>
  readonly workers: ReadonlyArray<WorkerWeight>
}

/** Every page with every bundler, one after the other, and the two Workers. */
export const bundlerWeights = async (dir: string, url: string): Promise<BundlerWeights> => {
  mkdirSync(dir, { recursive: true })
  const pages: Array<BundledPage> = []
  const only = process.env["BENCH_PAGES"]?.split(",").map((name) => name.trim())
  for (const page of BUNDLER_PAGES.filter((p) => only?.includes(p.name) ?? true)) {
    for (const bundler of BUNDLERS) pages.push(await weigh(dir, page, bundler, url))
  }
  // The App pages (issue 35) run in Chromium rather than on Node: mountApp and AppBridge need a DOM.
  if (only === undefined || only.some((name) => name.endsWith("-app"))) {
    const { appWeights } = await import("./bench-apps.js")
    pages.push(...(await appWeights(dir)).filter((p) => only?.includes(p.page) ?? true))
  }
  const workers = [await weighWorker(dir, "ours"), await weighWorker(dir, "official")]
  return { pages, workers }
}

const kb = (bytes: number | undefined): string => (bytes === undefined ? "-" : `${(bytes / 1024).toFixed(1)} KB`)
const ratioOf = (a: number | undefined, b: number | undefined): string =>
  a === undefined || b === undefined || b === 0 ? "-" : `${(a / b).toFixed(2)}x`

/** Which official page a page is compared with. */
const officialOf = (page: string): string =>
  page.endsWith("-schema") ? "official-schema" : page.endsWith("-app") ? "official-app" : "official"

/** Rows for `table`: a page per row, per bundler its weight and its ratio to the official client's same page. */
export const bundlerReport = (weights: BundlerWeights) => {
  const find = (page: string, bundler: Bundler) => weights.pages.find((p) => p.page === page && p.bundler === bundler)
  const pageNames = [...new Set(weights.pages.map((p) => p.page))]
  const rows = pageNames.map((page) => [
    page,
    ...BUNDLERS.flatMap((bundler) => {
      const weight = find(page, bundler)
      return weight?.error !== undefined
        ? ["failed", "-"]
        : [kb(weight?.loadedGzip), ratioOf(weight?.loadedGzip, find(officialOf(page), bundler)?.loadedGzip)]
    })
  ])
  const [ours, official] = [weights.workers.find((w) => w.client === "ours"), weights.workers.find((w) => w.client === "official")]
  const notes = [
    `Worker (wrangler deploy --dry-run --minify, gzip): ours ${kb(ours?.gzip)}, official ${kb(official?.gzip)}, ` +
    `${ratioOf(ours?.gzip, official?.gzip)}`,
    ...weights.pages.flatMap((p) => p.error === undefined ? [] : [`${p.page} × ${p.bundler}: ${p.error.replace(/\s+/g, " ")}`]),
    ...weights.workers.flatMap((w) => w.error === undefined ? [] : [`Worker ${w.client}: ${w.error.replace(/\s+/g, " ")}`])
  ]
  return {
    header: ["page (loaded by 1st result, gzip)", ...BUNDLERS.flatMap((b) => [b, "vs official"])],
    rows,
    notes
  }
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const [dir, url] = [process.argv[2], process.argv[3]]
  if (dir === undefined || url === undefined) throw new Error("usage: bench-bundlers.js <folder> <server url>")
  process.stdout.write(`${JSON.stringify(await bundlerWeights(dir, url))}\n`)
  process.exit(0)
}
