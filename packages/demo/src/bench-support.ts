/**
 * What the benchmark shares: the server script, a check that no process outlives its run, the statistics.
 */
import { readdirSync, readFileSync } from "node:fs"
import { createRequire } from "node:module"

const require = createRequire(import.meta.url)

/** The server every client talks to: the example server built on the official SDK (`--era both|legacy`). */
export const serverScript: string = require.resolve("@mcp-effect/test-servers/official")

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

// -----------------------------------------------------------------------------
// Statistics and formatting
// -----------------------------------------------------------------------------

/** The median; `NaN` for no values. */
export const median = (values: ReadonlyArray<number>): number => {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  const at = (i: number) => sorted[i] ?? Number.NaN
  return sorted.length % 2 === 1 ? at(middle) : (at(middle - 1) + at(middle)) / 2
}

/** Median absolute deviation relative to the median, in percent: how noisy the repeats were. */
export const spreadPercent = (values: ReadonlyArray<number>): number => {
  const m = median(values)
  return m === 0 ? 0 : (median(values.map((v) => Math.abs(v - m))) / m) * 100
}

export const fixed = (value: number, digits: number): string => value.toFixed(digits)

/** A plain-text table: the first column left-aligned, the others right-aligned. */
export const table = (header: ReadonlyArray<string>, rows: ReadonlyArray<ReadonlyArray<string>>): string => {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => (row[i] ?? "").length)))
  const line = (cells: ReadonlyArray<string>) =>
    cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0))).join("  ")
  return [line(header), widths.map((w) => "-".repeat(w)).join("  "), ...rows.map(line)].join("\n")
}
