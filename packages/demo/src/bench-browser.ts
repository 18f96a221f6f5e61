/**
 * Browser page weight (issue 26): a page that connects to a Streamable HTTP server, lists its tools and calls one,
 * bundled for the browser with esbuild from the workspace's built `dist` (the packages' `default` export
 * condition, never their TypeScript `source`), minified, each output file gzipped on its own as a browser fetches
 * it. Two measures per page:
 *   - initial: with code splitting, the entry and the chunks it imports statically (what loads before any
 *     `import()` runs);
 *   - one file: without code splitting, the whole bundle: every module the page can reach, a dynamic import
 *     included when the code that makes it survives tree shaking. (The split build's chunk total is no such
 *     bound: esbuild makes a chunk of every `import()` target it meets, even where the caller is shaken off.)
 *   - loaded by the first call (when given a server): the split build run against a live server (on Node, whose
 *     `fetch` the pages use as a browser's), counting the files it has loaded when it prints the call's result:
 *     the entry, its static imports and the chunks its `import()`s fetched on the way.
 * A page that does not bundle (a `node:` module reached from the browser entry, say) gives its error count and
 * first errors instead of figures; the benchmark goes on.
 */
import type { BuildFailure, Message, Metafile, OutputFile } from "esbuild"
import { build, stop } from "esbuild"
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { join, relative } from "node:path"
import { gzipSync } from "node:zlib"
import { runLoaded } from "./bench-build.js"

export type PageName = "ours" | "ours-effect" | "official" | "effect"

/** A page: its name (its file is `<name>.js`), what it imports, and its source (JavaScript, ESM). */
export interface Page {
  readonly name: string
  readonly what: string
  readonly source: string
}

/** The server URL in the pages' sources, replaced by a live server's for the run. */
const PLACEHOLDER_URL = "http://127.0.0.1:3000/mcp"

/** The pages, in the shape each client's documentation shows; the server URL is a placeholder. */
export const PAGES: ReadonlyArray<Page & { readonly name: PageName }> = [
  {
    name: "ours",
    what: "connectHttp (Promise API)",
    source: `import { connectHttp } from "@mcp-effect/client"

const client = await connectHttp({ url: "http://127.0.0.1:3000/mcp", clientName: "page" })
const tools = await client.listTools()
console.log(tools.map((tool) => tool.name), await client.callTool("echo", { text: "hi" }))
await client.close()
`
  },
  {
    name: "ours-effect",
    what: "McpClient.layer + McpTransport.layerHttp + FetchHttpClient",
    source: `import { McpClient, McpTransport } from "@mcp-effect/client"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as FetchHttpClient from "effect/http/FetchHttpClient"

const program = Effect.gen(function*() {
  const client = yield* McpClient.McpClient
  const tools = yield* client.listTools()
  return { tools: tools.map((tool) => tool.name), result: yield* client.callTool("echo", { text: "hi" }) }
})
const layer = McpClient.layer({ clientName: "page" }).pipe(
  Layer.provide(McpTransport.layerHttp({ url: "http://127.0.0.1:3000/mcp" })),
  Layer.provide(FetchHttpClient.layer)
)
program.pipe(Effect.provide(layer), Effect.runPromise).then(console.log)
`
  },
  {
    name: "official",
    what: "Client + StreamableHTTPClientTransport",
    source: `import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client"

const client = new Client({ name: "page", version: "0.0.0" })
await client.connect(new StreamableHTTPClientTransport(new URL("http://127.0.0.1:3000/mcp")))
const { tools } = await client.listTools()
console.log(tools.map((tool) => tool.name), await client.callTool({ name: "echo", arguments: { text: "hi" } }))
await client.close()
`
  },
  {
    name: "effect",
    what: "effect/ai McpClient.layerHttp + FetchHttpClient",
    source: `import * as McpClient from "effect/ai/McpClient"
import * as McpProtocol from "effect/ai/McpProtocol"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as FetchHttpClient from "effect/http/FetchHttpClient"

const program = Effect.gen(function*() {
  const client = yield* McpClient.McpClient
  const tools = yield* client.listTools()
  const echo = tools.find((tool) => tool.name === "echo")
  if (echo === undefined) return yield* Effect.die("no echo tool")
  return { tools: tools.map((tool) => tool.name), result: yield* client.callTool({ tool: echo, arguments: { text: "hi" } }) }
})
const layer = McpClient.layerHttp({
  name: "page",
  version: "0.0.0",
  protocol: McpProtocol.v2026_07_28,
  url: "http://127.0.0.1:3000/mcp"
}).pipe(Layer.provide(FetchHttpClient.layer))
program.pipe(Effect.provide(layer), Effect.runPromise).then(console.log)
`
  }
]

export interface PageWeight {
  readonly name: string
  readonly what: string
  /** Gzipped bytes; `undefined` when the page did not bundle. */
  readonly initialGzip?: number
  readonly oneFileGzip?: number
  /** Run against a live server: the files loaded when the first call's result is printed. */
  readonly loadedGzip?: number
  readonly loadedFiles?: number
  /** Why there is no `loadedGzip` although a server was given. */
  readonly runError?: string
  /** Files the split build loads up front, of the files it made. */
  readonly initialChunks?: number
  readonly chunks?: number
  /** When the page did not bundle: how many errors, and the first few, one line each. */
  readonly errorCount?: number
  readonly firstErrors?: ReadonlyArray<string>
}

const gzipBytes = (file: OutputFile): number => gzipSync(file.contents, { level: 9 }).length

/** Every output reachable from `start` through static imports (`import ... from`), `start` included. */
const staticClosure = (metafile: Metafile, start: string): Set<string> => {
  const seen = new Set<string>()
  const visit = (path: string): void => {
    if (seen.has(path)) return
    seen.add(path)
    for (const imported of metafile.outputs[path]?.imports ?? []) {
      if (imported.kind === "import-statement" && !imported.external) visit(imported.path)
    }
  }
  visit(start)
  return seen
}

/** Metafile paths are relative to `dir`, the page's folder; its output goes to `dir/out/<page>/`, in memory. */
const bundle = (dir: string, entry: string, splitting: boolean) =>
  build({
    absWorkingDir: dir,
    entryPoints: [entry],
    bundle: true,
    minify: true,
    platform: "browser",
    format: "esm",
    splitting,
    outdir: join(dir, "out", entry.replace(/\.js$/, ""), splitting ? "split" : "single"),
    write: false,
    metafile: true,
    logLevel: "silent"
  })

/** One line per error; the file relative to `node_modules` when it is in there (paths start at the page's folder). */
const oneLine = (message: Message): string =>
  `${message.location === null ? "" : `${message.location.file.replace(/^(\.\.\/)+/, "")}:${message.location.line}: `}${message.text}`

const isBuildFailure = (error: unknown): error is BuildFailure =>
  typeof error === "object" && error !== null && "errors" in error && Array.isArray(error.errors)

/**
 * Bundle one page twice (split, one file) and weigh it; a failed build is reported, never thrown. The page is
 * written to `dir`, where its relative imports resolve.
 */
export const weighPage = async (page: Page, dir: string): Promise<PageWeight> => {
  const entry = `${page.name}.js`
  writeFileSync(join(dir, entry), page.source)
  const base = { name: page.name, what: page.what }
  try {
    const split = await bundle(dir, entry, true)
    const single = await bundle(dir, entry, false)
    const outputs = split.metafile.outputs
    // The page's own output: the chunks esbuild makes of `import()` targets have an `entryPoint` too.
    const entryOut = Object.keys(outputs).find((path) => outputs[path]?.entryPoint === entry)
    if (entryOut === undefined) throw new Error(`no output for ${entry}`)
    const initial = staticClosure(split.metafile, entryOut)
    // Output files carry absolute paths, the metafile paths relative to `dir`.
    const isInitial = (file: OutputFile) => initial.has(relative(dir, file.path))
    const js = (files: ReadonlyArray<OutputFile>) => files.filter((file) => file.path.endsWith(".js"))
    const sum = (files: ReadonlyArray<OutputFile>) => files.reduce((total, file) => total + gzipBytes(file), 0)
    return {
      ...base,
      initialGzip: sum(js(split.outputFiles).filter(isInitial)),
      oneFileGzip: sum(js(single.outputFiles)),
      initialChunks: js(split.outputFiles).filter(isInitial).length,
      chunks: js(split.outputFiles).length
    }
  } catch (error) {
    const errors = isBuildFailure(error) ? error.errors : []
    return {
      ...base,
      errorCount: Math.max(errors.length, 1),
      firstErrors: errors.length === 0 ? [String(error)] : errors.slice(0, 3).map(oneLine)
    }
  }
}

/** How long a page may take to list the tools and call one; a page still silent then is reported as failed. */
const RUN_TIMEOUT_MS = 30_000

/**
 * Run a split build of the page against `url` and return the files loaded by the time the page prints the
 * call's result (what it loads to close the client afterwards is not counted).
 */
const runPage = async (page: Page, dir: string, url: string): Promise<ReadonlyArray<string>> => {
  const entry = `run-${page.name}.js`
  writeFileSync(join(dir, entry), page.source.replaceAll(PLACEHOLDER_URL, url))
  const outdir = join(dir, "out", page.name, "run")
  rmSync(outdir, { recursive: true, force: true })
  await build({ absWorkingDir: dir, entryPoints: [entry], bundle: true, minify: true, platform: "browser", format: "esm", splitting: true, outdir, logLevel: "silent" })
  return runLoaded(dir, outdir, entry, RUN_TIMEOUT_MS)
}

/** The page run against `url`: the gzipped files it loaded by the first call's result, or why not. */
const weighRun = async (page: Page, dir: string, url: string): Promise<Partial<PageWeight>> => {
  try {
    const files = await runPage(page, dir, url)
    const loadedGzip = files.reduce((total, path) => total + gzipSync(readFileSync(path), { level: 9 }).length, 0)
    return { loadedGzip, loadedFiles: files.length }
  } catch (error) {
    return { runError: error instanceof Error ? error.message : String(error) }
  }
}

/**
 * Weigh every page. `dir` holds the page sources and must sit inside the workspace, so that the packages
 * resolve as an application's would (through `node_modules`).
 */
export const pageWeights = async (dir: string, url?: string): Promise<ReadonlyArray<PageWeight>> => {
  mkdirSync(dir, { recursive: true })
  const weights: Array<PageWeight> = []
  try {
    for (const page of PAGES) {
      const weight = await weighPage(page, dir)
      weights.push(url === undefined || weight.errorCount !== undefined ? weight : { ...weight, ...(await weighRun(page, dir, url)) })
    }
  } finally {
    // The API's service process would otherwise outlive the pages (and count as a leftover process).
    await stop()
  }
  return weights
}

const kb = (bytes: number | undefined): string => (bytes === undefined ? "-" : `${(bytes / 1024).toFixed(1)} KB`)

/** `a / b`, or `NaN` when either is missing. */
export const sizeRatio = (a: number | undefined, b: number | undefined): number =>
  a === undefined || b === undefined || b === 0 ? Number.NaN : a / b

const showRatio = (r: number): string => (Number.isFinite(r) ? `${r.toFixed(2)}x` : "-")

/**
 * The page weights as rows for `table`, with each page's ratios to the official client's page and to Effect's,
 * and below them the errors of the pages that did not bundle.
 */
export const pageReport = (
  pages: ReadonlyArray<PageWeight>
): { readonly header: ReadonlyArray<string>; readonly rows: ReadonlyArray<ReadonlyArray<string>>; readonly notes: ReadonlyArray<string> } => {
  const byName = (name: PageName) => pages.find((page) => page.name === name)
  const official = byName("official")
  const effect = byName("effect")
  const rows = pages.map((page) =>
    page.errorCount === undefined
      ? [
        `${page.name}: ${page.what}`,
        kb(page.initialGzip),
        showRatio(sizeRatio(page.initialGzip, official?.initialGzip)),
        showRatio(sizeRatio(page.initialGzip, effect?.initialGzip)),
        kb(page.oneFileGzip),
        showRatio(sizeRatio(page.oneFileGzip, official?.oneFileGzip)),
        showRatio(sizeRatio(page.oneFileGzip, effect?.oneFileGzip)),
        `${page.initialChunks ?? "-"} of ${page.chunks ?? "-"}`,
        page.runError === undefined ? kb(page.loadedGzip) : "run failed",
        showRatio(sizeRatio(page.loadedGzip, official?.loadedGzip)),
        showRatio(sizeRatio(page.loadedGzip, effect?.loadedGzip)),
        `${page.loadedFiles ?? "-"}`
      ]
      : [`${page.name}: ${page.what}`, `did not bundle: ${page.errorCount} errors`, "-", "-", "-", "-", "-", "-", "-", "-", "-", "-"]
  )
  const notes = pages.flatMap((page) => [
    ...(page.firstErrors === undefined ? [] : [`${page.name}: first errors:`, ...page.firstErrors.map((line) => `  ${line}`)]),
    ...(page.runError === undefined ? [] : [`${page.name}: run failed: ${page.runError}`])
  ])
  return {
    header: ["page: what it imports", "initial gzip", "vs official", "vs effect", "one file gzip", "vs official", "vs effect", "initial files",
      "loaded by 1st call", "vs official", "vs effect", "files"],
    rows,
    notes
  }
}
