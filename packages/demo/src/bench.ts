/**
 * The benchmark (`npm run bench`): this client (Effect API and Promise API) against the official SDK client
 * (`@modelcontextprotocol/client` 2.x), in one process, one client at a time, against the same server (the
 * example server built on the official SDK), in both eras.
 *
 * Each run spawns one server process and measures
 *   - connect: spawn + handshake/probe + the first `tools/list` (the first call that needs the era);
 *   - sequential: `tools/call echo` round trips per second, one call in flight;
 *   - concurrent: calls per second with `inFlight` (64) calls in flight.
 * Every variant runs once untimed (warm-up), then `rounds` timed times; the variants take turns within a
 * round so drift hits them alike. Figures are medians, ± the median absolute deviation.
 *
 * Environment overrides: BENCH_ROUNDS, BENCH_SEQUENTIAL, BENCH_CONCURRENT, BENCH_IN_FLIGHT, BENCH_WARMUP, and
 * BENCH_ONLY (run only the variants whose label contains it).
 */
import { createRequire } from "node:module"
import { relative } from "node:path"
import { type ClientEra, type OfficialMode, runOfficial, runOursEffect, runOursPromise } from "./bench-clients.js"
import {
  awaitNoChildren,
  childPids,
  fixed,
  median,
  type RunResult,
  serverScript,
  type ServerEra,
  table,
  withSpread,
  type Workload
} from "./bench-support.js"

const require = createRequire(import.meta.url)

const envInt = (name: string, fallback: number): number => {
  const raw = process.env[name]
  const value = raw === undefined ? fallback : Number(raw)
  if (!Number.isInteger(value) || value < 0) throw new Error(`${name} must be a non-negative integer, got ${raw}`)
  return value
}

const rounds = envInt("BENCH_ROUNDS", 5)
const workload: Workload = {
  warmupCalls: envInt("BENCH_WARMUP", 200),
  sequentialCalls: envInt("BENCH_SEQUENTIAL", 400),
  concurrentCalls: envInt("BENCH_CONCURRENT", 1600),
  inFlight: envInt("BENCH_IN_FLIGHT", 64)
}
/** Connect-only variants: a few calls so the connection is used, no timed call phases. */
const connectOnly: Workload = { warmupCalls: 5, sequentialCalls: 0, concurrentCalls: 0, inFlight: 1 }
/** The untimed warm-up round: every variant connects and makes its warm-up calls once. */
const warmupOnly = (work: Workload): Workload => ({ ...work, sequentialCalls: 0, concurrentCalls: 0 })

type Side = "ours" | "official"

interface Variant {
  readonly server: ServerEra
  readonly side: Side
  readonly label: string
  readonly workload: Workload
  readonly run: (workload: Workload) => Promise<RunResult>
}

const ours = (server: ServerEra, api: "Effect" | "Promise", era: ClientEra, work: Workload): Variant => ({
  server,
  side: "ours",
  label: `ours, ${api} API (era ${era})`,
  workload: work,
  run: (w) => (api === "Effect" ? runOursEffect(server, era, w) : runOursPromise(server, era, w))
})

const officialLabels: Record<OfficialMode, string> = {
  auto: "official (auto, probe in place)",
  "auto-sibling": "official (auto, stock: sibling probe)",
  legacy: "official (default: legacy only)"
}

const official = (server: ServerEra, mode: OfficialMode, work: Workload): Variant => ({
  server,
  side: "official",
  label: officialLabels[mode],
  workload: work,
  run: (w) => runOfficial(server, mode, w)
})

/** The comparison proper: both clients era-agnostic (probing), one server process per run. */
const main: ReadonlyArray<Variant> = (["both", "legacy"] as const).flatMap((server) => [
  ours(server, "Effect", "auto", workload),
  ours(server, "Promise", "auto", workload),
  official(server, "auto", workload)
])

/** Connect time only: the SDK's stock probe (an extra process) and both clients told the era is legacy. */
const connectVariants: ReadonlyArray<Variant> = [
  official("both", "auto-sibling", connectOnly),
  official("legacy", "auto-sibling", connectOnly),
  ours("legacy", "Effect", "legacy", connectOnly),
  official("legacy", "legacy", connectOnly)
]

const results = new Map<Variant, Array<RunResult>>()

const runOnce = async (variant: Variant, work: Workload): Promise<RunResult> => {
  const result = await variant.run(work)
  const leftover = await awaitNoChildren(2_000)
  if (leftover.length > 0) {
    throw new Error(`${variant.label}: server process(es) ${leftover.join(", ")} still running after close`)
  }
  return result
}

const progress = (text: string) => process.stderr.write(text)

/** The installed version of a package, from the `package.json` next to its resolved entry's `dist/`. */
const sdkVersion = (name: string): string => {
  const entry = require.resolve(name)
  const manifest = `${entry.slice(0, entry.lastIndexOf("/dist/"))}/package.json`
  return (require(manifest) as { version: string }).version
}

/** BENCH_ONLY=<text>: run only the variants whose row label contains it (for profiling one client). */
const only = process.env["BENCH_ONLY"]
const labelOf = (variant: Variant) => `--era ${variant.server}: ${variant.label}`
const selected = (variant: Variant) => only === undefined || labelOf(variant).includes(only)

const started = performance.now()
const all = [...main, ...connectVariants].filter(selected)
const officialVersion = sdkVersion("@modelcontextprotocol/client")
const setup = [
  `Node ${process.version}, ${process.platform}/${process.arch}; one server process per run: ` +
    `node ${relative(process.cwd(), serverScript)} --era both|legacy (MCP server on the official SDK)`,
  `official client: @modelcontextprotocol/client ${officialVersion} (Client + StdioClientTransport, ` +
    `versionNegotiation "auto"; its stock transport probes on a second, sibling process, so the comparison ` +
    `uses a plain subclass, which the SDK probes in place)`,
  `${rounds} timed rounds after one untimed warm-up round; per run: ${workload.warmupCalls} untimed warm-up calls, ` +
    `${workload.sequentialCalls} sequential calls, ${workload.concurrentCalls} calls with ${workload.inFlight} in ` +
    `flight; tools/call echo {text}`,
  "figures: median over the rounds ± median absolute deviation; CPU = this (client) process's user+system time"
]
progress(`bench: ${all.length} variants, ${rounds} rounds (about 2 minutes)\n`)

progress("warm-up round")
for (const variant of all) {
  await runOnce(variant, warmupOnly(variant.workload))
  progress(".")
}
progress("\n")
for (let round = 1; round <= rounds; round++) {
  progress(`round ${round}/${rounds}`)
  // Alternate the order so neither side always runs first.
  const order = round % 2 === 0 ? [...all].reverse() : all
  for (const variant of order) {
    const result = await runOnce(variant, variant.workload)
    const list = results.get(variant) ?? []
    list.push(result)
    results.set(variant, list)
    progress(".")
  }
  progress("\n")
}

// -----------------------------------------------------------------------------
// Report
// -----------------------------------------------------------------------------

const of = (variant: Variant) => results.get(variant) ?? []
const pick = (variant: Variant, metric: (r: RunResult) => number) => of(variant).map(metric)
const eraOf = (variant: Variant) => [...new Set(of(variant).map((r) => r.era))].join("/")

const header = [
  "server / client",
  "era",
  "connect ms",
  "seq calls/s",
  "seq CPU µs/call",
  "64-in-flight calls/s",
  "64-in-flight CPU µs/call",
  "close ms"
]
const rowOf = (variant: Variant): Array<string> => [
  labelOf(variant),
  eraOf(variant),
  withSpread(pick(variant, (r) => r.connectMs), 1),
  variant.workload.sequentialCalls === 0 ? "-" : withSpread(pick(variant, (r) => r.sequentialPerSec), 0),
  variant.workload.sequentialCalls === 0 ? "-" : withSpread(pick(variant, (r) => r.sequentialCpuUs), 0),
  variant.workload.concurrentCalls === 0 ? "-" : withSpread(pick(variant, (r) => r.concurrentPerSec), 0),
  variant.workload.concurrentCalls === 0 ? "-" : withSpread(pick(variant, (r) => r.concurrentCpuUs), 0),
  withSpread(pick(variant, (r) => r.closeMs), 1)
]

const out: Array<string> = []
out.push("", ...setup, "")
out.push(table(header, main.filter(selected).map(rowOf)))
out.push("")
out.push("Connect-only variants:")
out.push(table(header, connectVariants.filter(selected).map(rowOf)))
out.push("")

const ratio = (a: number, b: number) => (Number.isFinite(a / b) ? `${fixed(a / b, 2)}x` : "-")
const ratioHeader = [
  "ratio ours / official",
  "connect time",
  "seq calls/s",
  "64-in-flight calls/s",
  "seq CPU/call",
  "64-in-flight CPU/call"
]
const ratioRows: Array<Array<string>> = []
for (const server of ["both", "legacy"] as const) {
  const theirs = main.find((v) => v.server === server && v.side === "official" && selected(v))
  if (theirs === undefined) continue
  for (const mine of main.filter((v) => v.server === server && v.side === "ours" && selected(v))) {
    const m = (variant: Variant, metric: (r: RunResult) => number) => median(pick(variant, metric))
    ratioRows.push([
      `--era ${server}: ${mine.label}`,
      ratio(m(mine, (r) => r.connectMs), m(theirs, (r) => r.connectMs)),
      ratio(m(mine, (r) => r.sequentialPerSec), m(theirs, (r) => r.sequentialPerSec)),
      ratio(m(mine, (r) => r.concurrentPerSec), m(theirs, (r) => r.concurrentPerSec)),
      ratio(m(mine, (r) => r.sequentialCpuUs), m(theirs, (r) => r.sequentialCpuUs)),
      ratio(m(mine, (r) => r.concurrentCpuUs), m(theirs, (r) => r.concurrentCpuUs))
    ])
  }
}
out.push(table(ratioHeader, ratioRows))
out.push(
  "(connect time and CPU/call: below 1x means ours costs less; calls/s: above 1x means ours is faster)"
)
out.push("")
const leftover = childPids()
out.push(
  `total ${fixed((performance.now() - started) / 1000, 1)} s; ` +
    (leftover === undefined
      ? "(no /proc: child processes not checked)"
      : `server processes still running: ${leftover.length === 0 ? "none" : leftover.join(", ")}`)
)
if (leftover !== undefined && leftover.length > 0) process.exitCode = 1
process.stdout.write(`${out.join("\n")}\n`)
