/**
 * The inspector's first screen (issue 36, item 5): `mcp-effect inspect -- node server-everything` (the built CLI,
 * `--no-open`), its page opened in real Chromium (playwright-core, Debian's headless shell), `RUNS` (5) times,
 * each with a fresh inspector and a fresh browser context (nothing cached). Per run:
 *   - the bytes the page loads, as served: the body on the wire (gzip when the server compresses it, which
 *     `/inspector.js` does for a browser) and decoded (raw) of every file it loaded by `connected` (document,
 *     script, style, image, font: the page's `fetch`es are the MCP traffic, a stream that stays open, not the page);
 *   - the time from navigation to `connection-status` `data-status=connected` (the relay spawns the server,
 *     the page's client initializes over it and lists what the server offers).
 * Prints a small table (medians) and writes the runs and medians to `BENCH_INSPECTOR_JSON` (default
 * packages/demo/dist/bench-inspector.json).
 *
 *   node packages/demo/dist/bench-inspector.js [runs]
 */
import { spawn } from "node:child_process"
import { mkdirSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { dirname, join, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import { chromium } from "playwright-core"
import type { Browser, Response } from "playwright-core"

const require = createRequire(import.meta.url)
const here = dirname(fileURLToPath(import.meta.url))
const cli = resolve(here, "../../cli/bin/mcp-effect.js")
const everything = require.resolve("@modelcontextprotocol/server-everything/dist/index.js")
const chromiumPath = process.env["MCP_EFFECT_CHROMIUM"] ?? "/usr/bin/chromium-headless-shell"
const jsonPath = process.env["BENCH_INSPECTOR_JSON"] ?? join(here, "bench-inspector.json")
const runs = Number(process.argv[2] ?? 5)

const LINE = /mcp-effect inspector: (http:\/\/127\.0\.0\.1:\d+\/#token=[A-Za-z0-9_-]+)\n/
/** Playwright's resource types for what a page is made of (as opposed to its `fetch` and XHR traffic). */
const PAGE_FILES: ReadonlySet<string> = new Set(["document", "script", "stylesheet", "image", "font", "manifest", "other"])
const START_TIMEOUT_MS = 30_000
const CONNECT_TIMEOUT_MS = 60_000

interface Inspector {
  readonly url: string
  readonly stop: () => Promise<void>
}

/** The built command, started and read up to its one line; stopped with Ctrl-C (it ends the server it spawned). */
const startInspector = (): Promise<Inspector> =>
  new Promise((done, fail) => {
    const child = spawn(process.execPath, [cli, "inspect", "--no-open", "--", process.execPath, everything], {
      env: { ...process.env, BROWSER: "none" },
      stdio: ["ignore", "pipe", "pipe"]
    })
    const exited = new Promise<void>((ended) => child.once("exit", () => ended()))
    const timer = setTimeout(() => child.kill("SIGKILL"), START_TIMEOUT_MS)
    let out = ""
    let err = ""
    child.stderr.on("data", (chunk: Buffer) => void (err += chunk.toString()))
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString()
      const url = LINE.exec(out)?.[1]
      if (url === undefined) return
      clearTimeout(timer)
      done({
        url,
        stop: () => {
          if (child.exitCode === null && child.signalCode === null) child.kill("SIGINT")
          return exited
        }
      })
    })
    void exited.then(() => {
      clearTimeout(timer)
      fail(new Error(`inspect ended before its line: ${out}${err}`.slice(0, 600)))
    })
  })

export interface InspectorRun {
  /** Response bodies on the wire (as served: gzip where the server compressed), and decoded. */
  readonly gzipBytes: number
  readonly rawBytes: number
  readonly files: number
  /** Navigation to `connection-status` `data-status=connected`, in ms. */
  readonly connectedMs: number
}

const measure = async (browser: Browser): Promise<InspectorRun> => {
  const inspector = await startInspector()
  const context = await browser.newContext()
  try {
    const page = await context.newPage()
    const responses: Array<Response> = []
    page.on("response", (response) => void responses.push(response))
    const started = performance.now()
    await page.goto(inspector.url)
    await page.locator("[data-testid=connection-status][data-status=connected]").waitFor({ timeout: CONNECT_TIMEOUT_MS })
    const connectedMs = performance.now() - started
    const loaded = responses.filter((response) => PAGE_FILES.has(response.request().resourceType()))
    let gzipBytes = 0
    let rawBytes = 0
    for (const response of loaded) {
      gzipBytes += (await response.request().sizes()).responseBodySize
      rawBytes += (await response.body()).length
    }
    return { gzipBytes, rawBytes, files: loaded.length, connectedMs }
  } finally {
    await context.close()
    await inspector.stop()
  }
}

const median = (values: ReadonlyArray<number>): number => {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[middle] ?? 0 : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2
}

const browser = await chromium.launch({ executablePath: chromiumPath })
const results: Array<InspectorRun> = []
try {
  // One run first, not counted: the CLI's and the server's modules come warm off the disk cache.
  await measure(browser)
  for (let i = 0; i < runs; i++) results.push(await measure(browser))
} finally {
  await browser.close()
}

const summary = {
  runs: results.length,
  gzipBytes: median(results.map((run) => run.gzipBytes)),
  rawBytes: median(results.map((run) => run.rawBytes)),
  files: median(results.map((run) => run.files)),
  connectedMs: median(results.map((run) => run.connectedMs))
}
const KB = 1000
process.stdout.write(
  [
    `inspector first screen: server-everything over stdio, Chromium, median of ${summary.runs} runs`,
    `  loaded (as served, gzip)   ${(summary.gzipBytes / KB).toFixed(1).padStart(8)} kB in ${summary.files} responses`,
    `  loaded (raw)               ${(summary.rawBytes / KB).toFixed(1).padStart(8)} kB`,
    `  navigation to connected    ${summary.connectedMs.toFixed(0).padStart(8)} ms`,
    ""
  ].join("\n")
)
mkdirSync(dirname(jsonPath), { recursive: true })
writeFileSync(jsonPath, `${JSON.stringify({ ...summary, each: results }, null, 2)}\n`)
