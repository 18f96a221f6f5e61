/**
 * One benchmark run, in a process of its own (so that its peak RSS is the client's): `node bench-run.js
 * '<json spec>'` connects one client to one server, does the work and prints one JSON line of figures.
 */
import { type Era, floorFetch, floorHttp, floorStdio } from "./bench-floor.js"
import { echoArgs, pool } from "./bench-run-shared.js"

export type ClientKind =
  | "floor"
  | "official"
  | "effect"
  | "ours"
  | "ours-promise"
  | "ours-traced"
  /** HTTP on `fetch`: the hand-written floor, and ours from the portable main entry (Promise and Effect API). */
  | "floor-fetch"
  | "ours-fetch"
  | "ours-fetch-effect"

export interface Target {
  readonly transport: "stdio" | "http"
  /** stdio: the server command line; http: the endpoint. */
  readonly command?: string
  readonly args?: ReadonlyArray<string>
  readonly url?: string
  /** The era the server speaks (what the floor client speaks). */
  readonly era: Era
}

export interface Spec {
  readonly client: ClientKind
  readonly target: Target
  readonly work: "calls" | "catalog"
  readonly warmupCalls: number
  readonly sequentialCalls: number
  readonly concurrentCalls: number
  readonly inFlight: number
}

export interface Figures {
  readonly connectMs: number
  readonly era: string
  readonly sequentialPerSec?: number
  readonly sequentialCpuUs?: number
  readonly concurrentPerSec?: number
  readonly concurrentCpuUs?: number
  readonly listToolsMs?: number
  readonly toolsForLlmMs?: number
  readonly tools?: number
  /** Peak resident set size of this process, in MB. */
  readonly peakRssMb: number
}


const cpuNow = () => {
  const usage = process.cpuUsage()
  return usage.user + usage.system
}

/** What one client offers the runner; `calls` runs a phase (n calls, `width` in flight). */
export interface Runner {
  readonly era: string
  readonly calls: (n: number, width: number) => Promise<void>
  readonly listTools: () => Promise<number>
  readonly toolsForLlm?: () => Promise<number>
  readonly close: () => Promise<void>
}

const floor = async (target: Target, onFetch = false): Promise<Runner> => {
  const client = target.transport === "stdio"
    ? await floorStdio(target.command ?? "", target.args ?? [], target.era)
    : onFetch
    ? await floorFetch(target.url ?? "", target.era)
    : await floorHttp(target.url ?? "", target.era)
  return {
    era: target.era,
    calls: (n, width) => pool(n, width, () => client.request("tools/call", { name: "echo", arguments: echoArgs })),
    listTools: async () => ((await client.request("tools/list", {})) as { tools: Array<unknown> }).tools.length,
    close: client.close
  }
}

// Each client's modules are loaded only in its own runs, so a run's peak RSS is its client's.
const runners: Record<ClientKind, (target: Target) => Promise<Runner>> = {
  floor,
  official: async (target) => (await import("./bench-run-official.js")).official(target),
  effect: async (target) => (await import("./bench-run-effect.js")).effect(target),
  ours: async (target) => (await import("./bench-run-ours.js")).ours(target),
  "ours-promise": async (target) => (await import("./bench-run-ours.js")).oursPromise(target),
  "ours-traced": async (target) => (await import("./bench-run-ours.js")).ours(target, true),
  "floor-fetch": (target) => floor(target, true),
  "ours-fetch": async (target) => (await import("./bench-run-fetch.js")).oursFetch(target),
  "ours-fetch-effect": async (target) => (await import("./bench-run-fetch.js")).oursFetchEffect(target)
}

const timed = async (n: number, width: number, runner: Runner) => {
  const t0 = performance.now()
  const c0 = cpuNow()
  await runner.calls(n, width)
  const ms = performance.now() - t0
  return { perSec: (n * 1000) / ms, cpuUs: (cpuNow() - c0) / n }
}

const run = async (spec: Spec): Promise<Figures> => {
  const t0 = performance.now()
  const runner = await runners[spec.client](spec.target)
  const connectMs = performance.now() - t0
  try {
    if (spec.work === "catalog") {
      const l0 = performance.now()
      const tools = await runner.listTools()
      const listToolsMs = performance.now() - l0
      const f0 = performance.now()
      const llm = runner.toolsForLlm === undefined ? undefined : await runner.toolsForLlm()
      const toolsForLlmMs = llm === undefined ? undefined : performance.now() - f0
      return { connectMs, era: runner.era, tools, listToolsMs, ...(toolsForLlmMs === undefined ? {} : { toolsForLlmMs }), peakRssMb: peakRss() }
    }
    await runner.calls(spec.warmupCalls, 1)
    const sequential = await timed(spec.sequentialCalls, 1, runner)
    const concurrent = await timed(spec.concurrentCalls, spec.inFlight, runner)
    return {
      connectMs,
      era: runner.era,
      sequentialPerSec: sequential.perSec,
      sequentialCpuUs: sequential.cpuUs,
      concurrentPerSec: concurrent.perSec,
      concurrentCpuUs: concurrent.cpuUs,
      peakRssMb: peakRss()
    }
  } finally {
    await runner.close()
  }
}

const peakRss = () => process.resourceUsage().maxRSS / 1024

const spec = JSON.parse(process.argv[2] ?? "{}") as Spec
run(spec).then(
  (figures) => {
    process.stdout.write(`${JSON.stringify(figures)}\n`)
    process.exit(0)
  },
  (error: unknown) => {
    process.stderr.write(`bench-run ${spec.client}: ${error instanceof Error ? error.stack : String(error)}\n`)
    process.exit(1)
  }
)
