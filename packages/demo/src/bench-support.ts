/**
 * What the benchmark's client runners share: the workload, the measurements of one run, an in-flight pool for
 * Promise clients, a check that no server process outlives its run, and the statistics.
 */
import { readdirSync, readFileSync } from "node:fs"
import { createRequire } from "node:module"

const require = createRequire(import.meta.url)

/** The server every client talks to: the example server built on the official SDK (`--era both|legacy`). */
export const serverScript: string = require.resolve("@mcp-effect/test-servers/official")

/** Which server a run starts: `both` answers `server/discover` (modern); `legacy` rejects it (2025 era). */
export type ServerEra = "both" | "legacy"

export const serverArgs = (era: ServerEra): Array<string> => [serverScript, "--era", era]

/** How much work one run does. */
export interface Workload {
  /** Untimed calls after connecting, so both clients' hot paths are compiled before the clock starts. */
  readonly warmupCalls: number
  /** Calls of the sequential phase: one in flight at a time. */
  readonly sequentialCalls: number
  /** Calls of the concurrent phase, `inFlight` at a time. */
  readonly concurrentCalls: number
  readonly inFlight: number
}

/** The measurements of one run: one server process, one client. */
export interface RunResult {
  /** Spawn + handshake/probe + the first `tools/list`. */
  readonly connectMs: number
  readonly sequentialPerSec: number
  readonly concurrentPerSec: number
  /** CPU time of this (the client's) process per call, in µs, in the sequential and the concurrent phase. */
  readonly sequentialCpuUs: number
  readonly concurrentCpuUs: number
  /** Closing the client until the server process is gone (as far as the client waits for it). */
  readonly closeMs: number
  /** The era the client settled on, as it reports it. */
  readonly era: string
}

/** The text a call sends; the echo must bring it back. */
export const echoArgs = { text: "bench" } as const

/** Fail the run unless the `echo` result carries the text it was sent (checked on untimed calls only). */
export const checkEcho = (result: { readonly content?: ReadonlyArray<unknown> }, who: string): void => {
  const texts = (result.content ?? []).flatMap((block) =>
    typeof block === "object" && block !== null && "text" in block && typeof block.text === "string"
      ? [block.text]
      : []
  )
  if (texts.join("") !== echoArgs.text) {
    throw new Error(`${who}: echo returned ${JSON.stringify(result)}`)
  }
}

/** Run `total` calls with `width` in flight: each finished call is replaced by the next until all are done. */
export const inFlightPool = async (total: number, width: number, call: () => Promise<unknown>): Promise<void> => {
  let started = 0
  const lane = async () => {
    while (started < total) {
      started++
      await call()
    }
  }
  await Promise.all(Array.from({ length: Math.min(width, total) }, lane))
}

export const perSecond = (calls: number, ms: number): number => (calls * 1000) / ms

/** This process's CPU time (user + system), in µs: the client's share, the servers are other processes. */
export const cpuNow = (): number => {
  const usage = process.cpuUsage()
  return usage.user + usage.system
}

/** The readings at the phase boundaries of one run, in ms (wall) and µs (CPU). */
export interface Marks {
  readonly start: number
  readonly connected: number
  readonly warm: number
  readonly warmCpu: number
  readonly sequential: number
  readonly sequentialCpu: number
  readonly concurrent: number
  readonly concurrentCpu: number
  readonly closed: number
}

export const resultOf = (marks: Marks, workload: Workload, era: string): RunResult => ({
  connectMs: marks.connected - marks.start,
  sequentialPerSec: perSecond(workload.sequentialCalls, marks.sequential - marks.warm),
  concurrentPerSec: perSecond(workload.concurrentCalls, marks.concurrent - marks.sequential),
  sequentialCpuUs: (marks.sequentialCpu - marks.warmCpu) / workload.sequentialCalls,
  concurrentCpuUs: (marks.concurrentCpu - marks.sequentialCpu) / workload.concurrentCalls,
  closeMs: marks.closed - marks.concurrent,
  era
})

// -----------------------------------------------------------------------------
// Child processes
// -----------------------------------------------------------------------------

/** The live child processes of this process, from `/proc` (Linux); `undefined` where there is no `/proc`. */
export const childPids = (): Array<number> | undefined => {
  let entries: Array<string>
  try {
    entries = readdirSync("/proc")
  } catch {
    return undefined
  }
  const children: Array<number> = []
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue
    try {
      // "pid (comm) state ppid ...": comm may hold spaces or parentheses, so split after the last ")".
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8")
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
      if (Number(fields[1]) === process.pid && fields[0] !== "Z") children.push(Number(entry))
    } catch {
      // The process went away while we looked.
    }
  }
  return children
}

/** Wait (up to `ms`) until this process has no live children; returns those still alive then. */
export const awaitNoChildren = async (ms: number): Promise<Array<number>> => {
  const deadline = performance.now() + ms
  for (;;) {
    const alive = childPids() ?? []
    if (alive.length === 0 || performance.now() >= deadline) return alive
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

// -----------------------------------------------------------------------------
// Statistics and formatting
// -----------------------------------------------------------------------------

export const median = (values: ReadonlyArray<number>): number => {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2
}

/** Median absolute deviation relative to the median, in percent: how noisy the repeats were. */
export const spreadPercent = (values: ReadonlyArray<number>): number => {
  const m = median(values)
  return m === 0 ? 0 : (median(values.map((v) => Math.abs(v - m))) / m) * 100
}

export const fixed = (value: number, digits: number): string => value.toFixed(digits)

export const withSpread = (values: ReadonlyArray<number>, digits: number): string =>
  `${fixed(median(values), digits)} ±${fixed(spreadPercent(values), 0)}%`

/** A plain-text table: the first column left-aligned, the others right-aligned. */
export const table = (header: ReadonlyArray<string>, rows: ReadonlyArray<ReadonlyArray<string>>): string => {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => (row[i] ?? "").length)))
  const line = (cells: ReadonlyArray<string>) =>
    cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join("  ")
  return [line(header), widths.map((w) => "-".repeat(w)).join("  "), ...rows.map(line)].join("\n")
}
