/**
 * The benchmark (`npm run bench`), the judge of issue 10: this client (Effect API and Promise API) against the
 * official SDK client (`@modelcontextprotocol/client` 2.x), against Effect 4's own MCP client (`effect/ai`
 * `McpClient`, given the target's protocol: it does not detect the era) and against a hand-written floor client
 * (no library: `child_process` or `node:http` and `JSON.parse`, the physical limit for the server).
 *
 * Cells:
 *   - stdio and Streamable HTTP (loopback), both eras, against the example server built on the official SDK:
 *     `tools/call echo` calls/s and client CPU µs per call, sequential and with `BENCH_IN_FLIGHT` (64) in flight;
 *   - a 2,000-tool catalogue (stdio, both eras): `listTools` time, and `toolsForLlm` for ours;
 *   - tracing (stdio modern): the cost of tracing, ours (Effect API) by default (no span, no metric) against ours
 *     with `tracing: true` (a span per operation, request and round on Effect's default tracer, and the duration
 *     histogram), sequential and with `BENCH_IN_FLIGHT` in flight;
 *   - import: the time and memory it takes to import the package, both our entries (`@mcp-effect/client`, the
 *     portable one, and `@mcp-effect/client/node`), in a fresh process each round (for Effect's client, the
 *     entry points its users import: `effect`, `effect/ai`, `effect/process` and `@effect/platform-node`);
 *   - browser page weight (`bench-browser.ts`): a page that connects over Streamable HTTP, lists the tools and
 *     calls one, bundled for the browser; gzipped bytes of the initial load (entry and static imports), of the
 *     whole page in one file, and of what the page, run against a live server, has loaded by the first call.
 * Our Node runs use the Node entry, `@mcp-effect/client/node`. Every cell shows peak RSS and its ratio to the
 * official client's; the run ends with the issue 26 targets (page weight, import time, peak RSS).
 * Every run is a process of its own (`bench-run.js`), so its peak RSS is its client's. Runs take turns within a
 * round, the order alternating between rounds; figures are medians over the rounds ± the median absolute
 * deviation. The results also go to `BENCH_JSON` (default packages/demo/dist/bench-results.json).
 *
 * Environment: BENCH_ROUNDS (5), BENCH_WARMUP (200), BENCH_SEQUENTIAL (400), BENCH_CONCURRENT (1600),
 * BENCH_IN_FLIGHT (64), BENCH_TOOLS (2000), BENCH_ONLY (run only the cells whose name contains it; `import` and
 * `browser` name the import cost and the page weight, `bundlers` the pages built with Vite, esbuild, webpack and
 * rspack, the pages hosting an MCP App and the Worker bundle), BENCH_CLIENTS (a comma-separated list: run only these
 * clients in each cell, e.g. `floor-fetch,official,ours-fetch`), BENCH_JSON.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { mkdirSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { pageReport, type PageWeight, sizeRatio } from "./bench-browser.js"
import { bundlerReport, type BundlerWeights } from "./bench-bundlers.js"
import { childPids, fixed, median, serverScript, spreadPercent, table } from "./bench-support.js"
import type { ClientKind, Figures, Spec, Target } from "./bench-run.js"

const here = dirname(fileURLToPath(import.meta.url))
const require = createRequire(import.meta.url)

/** A package's version, from the `package.json` next to its resolved entry's `dist/`. */
const versionOf = (name: string): string => {
  const entry = require.resolve(name)
  return (require(`${entry.slice(0, entry.lastIndexOf("/dist/"))}/package.json`) as { version: string }).version
}

const envInt = (name: string, fallback: number): number => {
  const raw = process.env[name]
  const value = raw === undefined ? fallback : Number(raw)
  if (!Number.isInteger(value) || value < 0) throw new Error(`${name} must be a non-negative integer, got ${raw}`)
  return value
}

const rounds = envInt("BENCH_ROUNDS", 5)
const work = {
  warmupCalls: envInt("BENCH_WARMUP", 200),
  sequentialCalls: envInt("BENCH_SEQUENTIAL", 400),
  concurrentCalls: envInt("BENCH_CONCURRENT", 1600),
  inFlight: envInt("BENCH_IN_FLIGHT", 64)
}
const only = process.env["BENCH_ONLY"]
const jsonPath = process.env["BENCH_JSON"] ?? join(here, "bench-results.json")
const catalogServer = join(here, "bench-catalog-server.js")
const CLIENTS: ReadonlyArray<ClientKind> = ["floor", "official", "effect", "ours", "ours-promise"]
/** The HTTP cells also run the `fetch` path: the hand-written `fetch` floor and ours from the main entry. */
const FETCH_CLIENTS: ReadonlyArray<ClientKind> = ["floor-fetch", "ours-fetch", "ours-fetch-effect"]
const onlyClients = process.env["BENCH_CLIENTS"]?.split(",").map((name) => name.trim())

interface Cell {
  readonly name: string
  readonly work: "calls" | "catalog"
  /** The clients it runs (default: all of `CLIENTS`). */
  readonly clients?: ReadonlyArray<ClientKind>
  /** Made once per cell (an HTTP server is started here and stopped at the end). */
  readonly target: () => Promise<Target>
}

const running: Array<ChildProcess> = []
// A run that fails ends the benchmark with its error: the HTTP servers it started go with it.
process.once("exit", () => {
  for (const child of running) if (child.exitCode === null) child.kill("SIGTERM")
})

/** Start an HTTP server of the official SDK example and wait for its `listening <url>`. */
const httpServer = (era: "both" | "legacy") => (): Promise<Target> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [serverScript, "--http", "--era", era], { stdio: ["ignore", "pipe", "inherit"] })
    running.push(child)
    let out = ""
    child.stdout.setEncoding("utf8")
    child.stdout.on("data", (chunk: string) => {
      out += chunk
      const match = /listening (\S+)/.exec(out)
      if (match?.[1] !== undefined) resolve({ transport: "http", url: match[1], era: era === "both" ? "modern" : "legacy" })
    })
    child.once("exit", (code) => reject(new Error(`HTTP server exited (${code})`)))
  })

const stdioTarget = (script: string, era: "both" | "legacy") => (): Promise<Target> =>
  Promise.resolve({
    transport: "stdio",
    command: process.execPath,
    args: script === serverScript ? [script, "--era", era] : [script],
    era: era === "both" ? "modern" : "legacy"
  })

const allCells: ReadonlyArray<Cell> = [
  { name: "stdio modern", work: "calls", target: stdioTarget(serverScript, "both") },
  { name: "stdio legacy", work: "calls", target: stdioTarget(serverScript, "legacy") },
  { name: "http modern", work: "calls", clients: [...CLIENTS, ...FETCH_CLIENTS], target: httpServer("both") },
  { name: "http legacy", work: "calls", clients: [...CLIENTS, ...FETCH_CLIENTS], target: httpServer("legacy") },
  { name: "catalogue (stdio)", work: "catalog", target: stdioTarget(catalogServer, "both") },
  { name: "tracing (stdio modern)", work: "calls", clients: ["ours", "ours-traced"], target: stdioTarget(serverScript, "both") }
]
const clientsOf = (cell: string): ReadonlyArray<ClientKind> =>
  (allCells.find((c) => c.name === cell)?.clients ?? CLIENTS).filter((client) => onlyClients?.includes(client) ?? true)
const TRACING = "tracing (stdio modern)"
const cells = allCells.filter((cell) => only === undefined || cell.name.includes(only))

/** One run in a process of its own. */
const runOnce = (spec: Spec): Promise<Figures> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(here, "bench-run.js"), JSON.stringify(spec)], {
      stdio: ["ignore", "pipe", "inherit"]
    })
    let out = ""
    child.stdout.setEncoding("utf8")
    child.stdout.on("data", (chunk: string) => (out += chunk))
    child.once("exit", (code) =>
      code === 0 ? resolve(JSON.parse(out.trim().split("\n").pop() ?? "{}") as Figures) : reject(new Error(`${spec.client} run failed (${code})`))
    )
  })

/**
 * The time and memory of importing a package (or several, one after the other), in a fresh process; with
 * `after`, what it adds to a process that imported those first (peak RSS then counts from there).
 */
const importCost = (
  names: string | ReadonlyArray<string>,
  after: ReadonlyArray<string> = []
): Promise<{ ms: number; rssMb: number }> =>
  new Promise((resolve, reject) => {
    const name = typeof names === "string" ? names : names.join(" + ")
    const imports = (typeof names === "string" ? [names] : names).map((entry) => `await import(${JSON.stringify(entry)}); `)
    const code = after.map((first) => `await import(${JSON.stringify(first)}); `).join("") +
      `const r0 = ${after.length === 0 ? "0" : "process.resourceUsage().maxRSS"}; ` +
      `const t0 = performance.now(); ${imports.join("")}` +
      `const ms = performance.now() - t0; ` +
      `console.log(JSON.stringify({ ms, rssMb: (process.resourceUsage().maxRSS - r0) / 1024 }))`
    const child = spawn(process.execPath, ["--input-type=module", "-e", code], { cwd: here, stdio: ["ignore", "pipe", "inherit"] })
    let out = ""
    child.stdout.setEncoding("utf8")
    child.stdout.on("data", (chunk: string) => (out += chunk))
    child.once("exit", (status) => status === 0 ? resolve(JSON.parse(out) as { ms: number; rssMb: number }) : reject(new Error(`import ${name} failed`)))
  })

// --- running ----------------------------------------------------------------------------------------------

type Samples = Map<string, Map<ClientKind, Array<Figures>>>
const samples: Samples = new Map()
const imports = {
  ours: [] as Array<{ ms: number; rssMb: number }>,
  /** The Node entry, `@mcp-effect/client/node`. */
  oursNode: [] as Array<{ ms: number; rssMb: number }>,
  official: [] as Array<{ ms: number; rssMb: number }>,
  /** Effect's own client: the entry points its users import (`EFFECT_CLIENT`). */
  effect: [] as Array<{ ms: number; rssMb: number }>,
  /** Ours in an Effect program: after `effect/Schema` and `effect/Stream` (what any Effect program loads). */
  oursInEffect: [] as Array<{ ms: number; rssMb: number }>
}
const EFFECT_FIRST = ["effect/Schema", "effect/Stream"]
const EFFECT_CLIENT = ["effect", "effect/ai", "effect/process", "@effect/platform-node"]
const progress = (text: string) => process.stderr.write(text)
const started = performance.now()

const targets = new Map<Cell, Target>()
for (const cell of cells) targets.set(cell, await cell.target())

progress(`bench: ${cells.length} cells, ${cells.reduce((n, c) => n + clientsOf(c.name).length, 0)} runs a round, ${rounds} rounds after a warm-up round\n`)
for (let round = 0; round <= rounds; round++) {
  progress(round === 0 ? "warm-up" : `round ${round}/${rounds}`)
  for (const cell of cells) {
    const clients = clientsOf(cell.name)
    const order = round % 2 === 0 ? [...clients].reverse() : clients
    for (const client of order) {
      const target = targets.get(cell)
      if (target === undefined) continue
      const figures = await runOnce({ client, target, work: cell.work, ...work })
      if (round > 0) {
        const byClient = samples.get(cell.name) ?? new Map<ClientKind, Array<Figures>>()
        byClient.set(client, [...(byClient.get(client) ?? []), figures])
        samples.set(cell.name, byClient)
      }
      progress(".")
    }
  }
  if (round > 0 && (only === undefined || "import".includes(only))) {
    imports.ours.push(await importCost("@mcp-effect/client"))
    imports.oursNode.push(await importCost("@mcp-effect/client/node"))
    imports.official.push(await importCost("@modelcontextprotocol/client"))
    imports.effect.push(await importCost(EFFECT_CLIENT))
    imports.oursInEffect.push(await importCost("@mcp-effect/client", EFFECT_FIRST))
  }
  progress("\n")
}
for (const child of running) child.kill("SIGTERM")
// Bundled once: the sizes are the same every time. A page that does not bundle reports its errors.
/**
 * The browser pages, weighed in a process of their own (`bench-run-pages.js`), and run against a modern HTTP
 * server of the official SDK example (stopped at the end with the others).
 */
const weighPages = async (): Promise<ReadonlyArray<PageWeight>> => {
  progress("browser pages\n")
  const server = await httpServer("both")()
  return weighPagesAt(server.url ?? "")
}
const weighPagesAt = (url: string): Promise<ReadonlyArray<PageWeight>> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(here, "bench-run-pages.js"), join(here, "bench-pages"), url], {
      stdio: ["ignore", "pipe", "inherit"]
    })
    let out = ""
    child.stdout.setEncoding("utf8")
    child.stdout.on("data", (chunk: string) => (out += chunk))
    child.once("exit", (code) =>
      code === 0 ? resolve(JSON.parse(out) as ReadonlyArray<PageWeight>) : reject(new Error(`browser pages failed (${code})`))
    )
  })
const pages: ReadonlyArray<PageWeight> = only === undefined || "browser".includes(only) ? await weighPages() : []
/** Every page with every bundler, run against a modern HTTP server (`bench-bundlers.js`, a process of its own). */
const weighBundlers = async (): Promise<BundlerWeights> => {
  progress("pages with every bundler, and a Worker\n")
  const server = await httpServer("both")()
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(here, "bench-bundlers.js"), join(here, "bench-pages"), server.url ?? ""], {
      stdio: ["ignore", "pipe", "inherit"]
    })
    let out = ""
    child.stdout.setEncoding("utf8")
    child.stdout.on("data", (chunk: string) => (out += chunk))
    child.once("exit", (code) =>
      code === 0 ? resolve(JSON.parse(out) as BundlerWeights) : reject(new Error(`bundlers failed (${code})`))
    )
  })
}
const bundled = only === undefined || "bundlers".includes(only) ? await weighBundlers() : undefined
for (const child of running) if (child.exitCode === null) child.kill("SIGTERM")

// --- report -----------------------------------------------------------------------------------------------

type Metric = keyof Omit<Figures, "era">
const values = (cell: string, client: ClientKind, metric: Metric): Array<number> =>
  (samples.get(cell)?.get(client) ?? []).flatMap((f) => typeof f[metric] === "number" ? [f[metric] as number] : [])
const med = (cell: string, client: ClientKind, metric: Metric) => {
  const list = values(cell, client, metric)
  return list.length === 0 ? Number.NaN : median(list)
}
const show = (cell: string, client: ClientKind, metric: Metric, digits: number) => {
  const list = values(cell, client, metric)
  return list.length === 0 ? "-" : `${fixed(median(list), digits)} ±${fixed(spreadPercent(list), 0)}%`
}
const ratio = (a: number, b: number) => (Number.isFinite(a / b) ? a / b : Number.NaN)
const showRatio = (r: number) => (Number.isFinite(r) ? `${fixed(r, 2)}x` : "-")
/**
 * The cell whose official run a cell's peak RSS is compared with: its own, or for a cell without the official
 * client (tracing) the cell with the same server and transport.
 */
const rssReference = (cell: string) => (clientsOf(cell).includes("official") ? cell : "stdio modern")
const rssVsOfficial = (cell: string, client: ClientKind) =>
  ratio(med(cell, client, "peakRssMb"), med(rssReference(cell), "official", "peakRssMb"))

const out: Array<string> = [
  "",
  `Node ${process.version}, ${process.platform}/${process.arch}; official client @modelcontextprotocol/client ` +
    `${versionOf("@modelcontextprotocol/client")}; effect: Effect's own McpClient (effect ${versionOf("effect")}, ` +
    `protocol given per cell); server: the official ` +
    `SDK example (node ${serverScript.replace(/.*packages\//, "packages/")} [--http] --era both|legacy), catalogue: ` +
    `a hand-written server with ${process.env["BENCH_TOOLS"] ?? 2000} tools`,
  `${rounds} rounds after a warm-up round, one process per run; per run ${work.warmupCalls} warm-up calls, ` +
    `${work.sequentialCalls} sequential, ${work.concurrentCalls} with ${work.inFlight} in flight; ` +
    "CPU = the client process's user+system time per call; RSS = the run's peak resident set",
  ""
]
const callCells = cells.filter((c) => c.work === "calls").map((c) => c.name)
for (const cell of callCells) {
  out.push(`${cell}:`)
  out.push(table(
    ["client", "era", "seq calls/s", "seq CPU µs/call", `${work.inFlight} in flight calls/s`, `${work.inFlight} in flight CPU µs/call`, "peak RSS MB", "RSS vs official"],
    clientsOf(cell).map((client) => [
      client,
      [...new Set((samples.get(cell)?.get(client) ?? []).map((f) => f.era))].join("/"),
      show(cell, client, "sequentialPerSec", 0),
      show(cell, client, "sequentialCpuUs", 0),
      show(cell, client, "concurrentPerSec", 0),
      show(cell, client, "concurrentCpuUs", 0),
      show(cell, client, "peakRssMb", 0),
      showRatio(rssVsOfficial(cell, client))
    ])
  ))
  if (rssReference(cell) !== cell) out.push(`(RSS vs the official client's in ${rssReference(cell)})`)
  if (cell === TRACING) {
    const cost = (metric: Metric) => med(cell, "ours-traced", metric) - med(cell, "ours", metric)
    const showCost = (metric: Metric) => {
      const us = cost(metric)
      return Number.isFinite(us) ? `${us >= 0 ? "+" : ""}${fixed(us, 0)} µs/call (${showRatio(ratio(med(cell, "ours-traced", metric), med(cell, "ours", metric)))})` : "-"
    }
    out.push(
      `tracing cost (ours-traced vs ours, CPU): sequential ${showCost("sequentialCpuUs")}, ` +
        `${work.inFlight} in flight ${showCost("concurrentCpuUs")}`
    )
  }
  out.push("")
}
const catalogue = cells.find((c) => c.work === "catalog")?.name
if (catalogue !== undefined) {
  out.push(`${catalogue}:`)
  out.push(table(
    ["client", "era", "tools", "listTools ms", "toolsForLlm ms", "peak RSS MB", "RSS vs official"],
    CLIENTS.map((client) => [
      client,
      [...new Set((samples.get(catalogue)?.get(client) ?? []).map((f) => f.era))].join("/"),
      show(catalogue, client, "tools", 0),
      show(catalogue, client, "listToolsMs", 1),
      show(catalogue, client, "toolsForLlmMs", 1),
      show(catalogue, client, "peakRssMb", 0),
      showRatio(rssVsOfficial(catalogue, client))
    ])
  ))
  out.push("")
}

/** The issue's targets, per cell, for both of our APIs. */
interface Check {
  readonly cell: string
  readonly client: ClientKind | "ours (node entry)"
  readonly what: string
  readonly ratio: number
  readonly target: string
  readonly met: boolean
}
const checks: Array<Check> = []
const check = (cell: string, client: Check["client"], what: string, r: number, target: string, met: (r: number) => boolean) =>
  checks.push({ cell, client, what, ratio: r, target, met: Number.isFinite(r) && met(r) })
for (const cell of callCells.filter((c) => c !== TRACING)) {
  for (const client of ["ours", "ours-promise"] as const) {
    if (!clientsOf(cell).includes(client)) continue
    const vs = (metric: Metric) => ratio(med(cell, client, metric), med(cell, "official", metric))
    check(cell, client, "seq calls/s vs official", vs("sequentialPerSec"), ">= 1", (r) => r >= 1)
    check(cell, client, "in-flight calls/s vs official", vs("concurrentPerSec"), ">= 1", (r) => r >= 1)
    check(cell, client, "seq CPU/call vs official", vs("sequentialCpuUs"), "<= 1", (r) => r <= 1)
    check(cell, client, "in-flight CPU/call vs official", vs("concurrentCpuUs"), "<= 1", (r) => r <= 1)
    check(cell, client, "peak RSS vs official", vs("peakRssMb"), "<= 1", (r) => r <= 1)
    if (cell.startsWith("stdio")) {
      const floor = ratio(med(cell, client, "concurrentPerSec"), med(cell, "floor", "concurrentPerSec"))
      check(cell, client, "in-flight calls/s vs floor", floor, ">= 0.9", (r) => r >= 0.9)
    }
  }
  // Issue 34: the fetch path (main entry) against the hand-written fetch floor and the official client (on fetch too).
  for (const client of ["ours-fetch", "ours-fetch-effect"] as const) {
    if (!clientsOf(cell).includes(client)) continue
    for (const metric of ["sequentialCpuUs", "concurrentCpuUs"] as const) {
      const label = metric === "sequentialCpuUs" ? "seq" : "in-flight"
      const floor = ratio(med(cell, client, metric), med(cell, "floor-fetch", metric))
      check(cell, client, `${label} CPU/call vs fetch floor`, floor, "<= 1.25", (r) => r <= 1.25)
      const official = ratio(med(cell, client, metric), med(cell, "official", metric))
      check(cell, client, `${label} CPU/call vs official`, official, "<= 0.8", (r) => r <= 0.8)
    }
  }
  // Ours (Effect API) against Effect's own client: the same programming model, the same runtime.
  if (!clientsOf(cell).includes("ours") || !clientsOf(cell).includes("effect")) continue
  const vsEffect = (metric: Metric) => ratio(med(cell, "ours", metric), med(cell, "effect", metric))
  check(cell, "ours", "seq calls/s vs effect", vsEffect("sequentialPerSec"), ">= 1", (r) => r >= 1)
  check(cell, "ours", "in-flight calls/s vs effect", vsEffect("concurrentPerSec"), ">= 1", (r) => r >= 1)
  check(cell, "ours", "seq CPU/call vs effect", vsEffect("sequentialCpuUs"), "<= 1", (r) => r <= 1)
  check(cell, "ours", "in-flight CPU/call vs effect", vsEffect("concurrentCpuUs"), "<= 1", (r) => r <= 1)
  check(cell, "ours", "peak RSS vs effect", vsEffect("peakRssMb"), "<= 1", (r) => r <= 1)
}
type ImportCost = { ms: number; rssMb: number }
const importMedian = (list: ReadonlyArray<ImportCost>, metric: keyof ImportCost) => median(list.map((i) => i[metric]))
const importVs = (list: ReadonlyArray<ImportCost>, base: ReadonlyArray<ImportCost>, metric: keyof ImportCost) =>
  ratio(importMedian(list, metric), importMedian(base, metric))
/** Our two entries: the portable one and the Node one. */
const ourEntries = [
  { client: "ours", entry: "@mcp-effect/client", list: imports.ours },
  { client: "ours (node entry)", entry: "@mcp-effect/client/node", list: imports.oursNode }
] as const
if (imports.ours.length > 0) {
  out.push(`import (fresh process each, median of ${imports.ours.length}):`)
  const row = (name: string, list: ReadonlyArray<ImportCost>, prefix = "") => [
    name,
    `${prefix}${fixed(importMedian(list, "ms"), 0)} ±${fixed(spreadPercent(list.map((i) => i.ms)), 0)}%`,
    showRatio(importVs(list, imports.official, "ms")),
    `${prefix}${fixed(importMedian(list, "rssMb"), 0)}`,
    showRatio(importVs(list, imports.official, "rssMb"))
  ]
  out.push(table(["import", "ms", "ms vs official", "peak RSS MB", "RSS vs official"], [
    ...ourEntries.map((e) => row(e.entry, e.list)),
    row("@modelcontextprotocol/client", imports.official),
    row(`effect (${EFFECT_CLIENT.join(", ")})`, imports.effect),
    row(`@mcp-effect/client after ${EFFECT_FIRST.join(" and ")}`, imports.oursInEffect, "+")
  ]))
  out.push("")
  for (const { client, list } of ourEntries) {
    check("import", client, "import time vs official", importVs(list, imports.official, "ms"), "<= 1.2", (r) => r <= 1.2)
    check("import", client, "import memory vs official", importVs(list, imports.official, "rssMb"), "<= 1.2", (r) => r <= 1.2)
    check("import", client, "import time vs effect", importVs(list, imports.effect, "ms"), "<= 1.2", (r) => r <= 1.2)
    check("import", client, "import memory vs effect", importVs(list, imports.effect, "rssMb"), "<= 1.2", (r) => r <= 1.2)
  }
}
if (pages.length > 0) {
  const report = pageReport(pages)
  out.push("browser page weight (esbuild --bundle --minify --platform=browser --format=esm, from dist; gzip -9 per file;")
  out.push("initial = with code splitting, the entry and its static imports; one file = without code splitting;")
  out.push("loaded by 1st call = the split build run on Node against the official example server, the files it loaded when it printed the result):")
  out.push(table(report.header, report.rows))
  out.push(...report.notes)
  out.push("")
}
if (bundled !== undefined) {
  const report = bundlerReport(bundled)
  out.push("page weight with every bundler (minified browser builds, ESM; run on Node against the official example server;")
  out.push("the files loaded by the first result, gzip -9 each; vs official = the official client's same page, same bundler;")
  out.push("the -app pages host server-basic-vanillajs's App in Chromium, mountApp vs AppBridge, weighed at the App's first render):")
  out.push(table(report.header, report.rows))
  out.push(...report.notes)
  out.push("")
}
if (checks.length > 0) {
  out.push("issue 10 targets (ratios of medians):")
  out.push(table(
    ["cell", "client", "measure", "ratio", "target", "met"],
    checks.map((c) => [c.cell, c.client, c.what, showRatio(c.ratio), c.target, c.met ? "yes" : "NO"])
  ))
  out.push("")
}
// Issue 26 ("Targets"): what the portable core is for, one row each.
interface Target26 {
  readonly target: string
  readonly measured: string
  /** `undefined`: not measured in this run (BENCH_ONLY), or nothing to measure (the page did not bundle). */
  readonly met: boolean | undefined
}
const targets26: Array<Target26> = []
const officialPage = pages.find((page) => page.name === "official")
for (const page of pages.filter((p) => p.name === "ours" || p.name === "ours-effect")) {
  // The target is what the page loads before its first call; the initial load (a lower bound) and the one-file
  // size (an upper bound: it holds every lazy chunk, the OAuth engine and the output-schema validator included,
  // that this page never loads) are in the page table above.
  for (const [measure, bytes, base] of [
    ["loaded by the first call", page.loadedGzip, officialPage?.loadedGzip]
  ] as const) {
    const r = sizeRatio(bytes, base)
    const failed = page.errorCount !== undefined
      ? `did not bundle (${page.errorCount} errors)`
      : measure.startsWith("loaded") && page.runError !== undefined
      ? "run failed"
      : undefined
    targets26.push({
      target: `browser page ${page.name}, ${measure} gzip <= 1.2x official`,
      measured: failed ?? `${fixed((bytes ?? 0) / 1024, 1)} KB vs ${fixed((base ?? 0) / 1024, 1)} KB = ${showRatio(r)}`,
      met: failed !== undefined ? false : Number.isFinite(r) ? r <= 1.2 : undefined
    })
  }
}
if (imports.ours.length > 0) {
  for (const { entry, list } of ourEntries) {
    const r = importVs(list, imports.official, "ms")
    targets26.push({
      target: `import ${entry} time <= 2.0x official`,
      measured: `${fixed(importMedian(list, "ms"), 0)} ms vs ${fixed(importMedian(imports.official, "ms"), 0)} ms = ${showRatio(r)}`,
      met: Number.isFinite(r) ? r <= 2 : undefined
    })
  }
}
// Peak RSS: per cell, the larger of our clients' ratios (the import cell: each entry's).
for (const cell of cells.map((c) => c.name)) {
  const ours = clientsOf(cell).filter((client) => client.startsWith("ours"))
  const none: { readonly client: ClientKind; readonly r: number } = { client: "ours", r: Number.NaN }
  const worst = ours.map((client) => ({ client, r: rssVsOfficial(cell, client) }))
    .reduce((a, b) => (Number.isNaN(a.r) || b.r > a.r ? b : a), none)
  targets26.push({
    target: `peak RSS, ${cell} <= 1.0x official`,
    measured: `${worst.client} ${showRatio(worst.r)}${rssReference(cell) === cell ? "" : ` (vs official in ${rssReference(cell)})`}`,
    met: Number.isFinite(worst.r) ? worst.r <= 1 : undefined
  })
}
if (imports.ours.length > 0) {
  for (const { entry, list } of ourEntries) {
    const r = importVs(list, imports.official, "rssMb")
    targets26.push({
      target: `peak RSS, import ${entry} <= 1.0x official`,
      measured: `${fixed(importMedian(list, "rssMb"), 0)} MB vs ${fixed(importMedian(imports.official, "rssMb"), 0)} MB = ${showRatio(r)}`,
      met: Number.isFinite(r) ? r <= 1 : undefined
    })
  }
}
out.push("issue 26 targets:")
out.push(table(
  ["target", "measured", "met"],
  targets26.map((t) => [t.target, t.measured, t.met === undefined ? "not measured" : t.met ? "met" : "MISSED"])
))
out.push("")
const leftover = childPids()?.filter((pid) => !running.some((child) => child.pid === pid)) ?? []
out.push(`total ${fixed((performance.now() - started) / 1000, 1)} s; leftover processes: ${leftover.length === 0 ? "none" : leftover.join(", ")}`)
process.stdout.write(`${out.join("\n")}\n`)

const summary = (list: ReadonlyArray<number>) =>
  list.length === 0 ? null : { median: median(list), spreadPercent: spreadPercent(list), values: list }
const json = {
  node: process.version,
  rounds,
  work,
  cells: Object.fromEntries(cells.map((cell) => [
    cell.name,
    Object.fromEntries(clientsOf(cell.name).map((client) => [
      client,
      Object.fromEntries(
        (["connectMs", "sequentialPerSec", "sequentialCpuUs", "concurrentPerSec", "concurrentCpuUs", "listToolsMs", "toolsForLlmMs", "tools", "peakRssMb"] as const)
          .map((metric) => [metric, summary(values(cell.name, client, metric))])
      )
    ]))
  ])),
  import: {
    ours: { ms: summary(imports.ours.map((i) => i.ms)), rssMb: summary(imports.ours.map((i) => i.rssMb)) },
    oursNode: { ms: summary(imports.oursNode.map((i) => i.ms)), rssMb: summary(imports.oursNode.map((i) => i.rssMb)) },
    official: { ms: summary(imports.official.map((i) => i.ms)), rssMb: summary(imports.official.map((i) => i.rssMb)) },
    effect: {
      entryPoints: EFFECT_CLIENT,
      ms: summary(imports.effect.map((i) => i.ms)),
      rssMb: summary(imports.effect.map((i) => i.rssMb))
    },
    oursInEffect: {
      after: EFFECT_FIRST,
      ms: summary(imports.oursInEffect.map((i) => i.ms)),
      rssMb: summary(imports.oursInEffect.map((i) => i.rssMb))
    }
  },
  targets: checks,
  browserPages: pages,
  targets26,
  /** Ours with `tracing: true` against ours by default: CPU µs per call added, and the ratios. */
  tracing: samples.has(TRACING)
    ? Object.fromEntries((["sequentialCpuUs", "concurrentCpuUs", "sequentialPerSec", "concurrentPerSec"] as const).map((metric) => [
      metric,
      {
        off: med(TRACING, "ours", metric),
        on: med(TRACING, "ours-traced", metric),
        difference: med(TRACING, "ours-traced", metric) - med(TRACING, "ours", metric),
        ratio: ratio(med(TRACING, "ours-traced", metric), med(TRACING, "ours", metric))
      }
    ]))
    : null
}
mkdirSync(dirname(jsonPath), { recursive: true })
writeFileSync(jsonPath, `${JSON.stringify(json, null, 2)}\n`)
process.stderr.write(`results written to ${jsonPath}\n`)
