#!/usr/bin/env node
/**
 * Where a client's CPU goes per call: runs one benchmark client (`official`, `ours`, `ours-promise`, `effect`)
 * against the benchmark's stdio server, warms it up, profiles only the measured calls (V8's sampling profiler,
 * in-process) and prints self time per package and per function, divided by the number of calls.
 *
 *   npm run build && node scripts/profile-calls.mjs ours legacy 16000 64
 *   node scripts/profile-calls.mjs ours-promise modern 8000 1 --out /tmp/p.cpuprofile
 *   node scripts/profile-calls.mjs --summary /tmp/p.cpuprofile 8000     # summarise a saved profile
 *
 * `--alloc` samples allocations instead (V8's sampling heap profiler, objects already collected included): bytes
 * allocated per call, per package and per function, a count that the machine's load does not change.
 *
 * `--bench-like` warms up as a benchmark run does (200 + 400 sequential calls), so that the profile shows the
 * cold phase the benchmark's 64-in-flight cell measures. Profile times are wall-clock samples of the main thread:
 * time in a syscall includes waiting for the CPU (on a shared machine, the server running), and the JIT's and
 * GC's helper threads are not in them; the CPU line (`process.cpuUsage`) counts every thread.
 */
import { spawnSync } from "node:child_process"
import { existsSync, readFileSync, writeFileSync } from "node:fs"
import { Session } from "node:inspector/promises"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

const root = join(dirname(fileURLToPath(import.meta.url)), "..")

// The library needs Node 22 (@effect/platform-node 4): started by an older `node`, run again on the workspace's
// Node 22 (the `node` devDependency in node_modules/.bin).
if (Number(process.versions.node.split(".")[0]) < 22) {
  const node22 = join(root, "node_modules", ".bin", "node")
  if (!existsSync(node22)) throw new Error(`Node 22 is needed (this is ${process.version}); run npm install first`)
  const again = spawnSync(node22, [...process.execArgv, fileURLToPath(import.meta.url), ...process.argv.slice(2)], { stdio: "inherit" })
  process.exit(again.status ?? 1)
}

const packageOf = (url) => {
  if (!url) return "(native)"
  const dep = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)
  if (dep) return dep[1]
  const ours = /packages\/([^/]+)\/dist\/(.*)\/[^/]*$/.exec(url) ?? /packages\/([^/]+)\/dist\/()[^/]*$/.exec(url)
  if (ours) return `ours:${ours[1]}/${ours[2]}`
  return url.startsWith("node:") ? "node" : url
}

const summary = (profile, calls, top = 40) => {
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]))
  const byFunction = new Map()
  const byPackage = new Map()
  let idle = 0
  let busy = 0
  profile.samples.forEach((id, i) => {
    const frame = nodes.get(id).callFrame
    const micros = profile.timeDeltas[i] ?? 0
    if (frame.functionName === "(idle)") return void (idle += micros)
    busy += micros
    const name = frame.functionName || "(anonymous)"
    const where = frame.url.replace(/.*node_modules\//, "").replace(/.*packages\//, "")
    const key = `${name} ${where}${where ? `:${frame.lineNumber + 1}` : ""}`
    byFunction.set(key, (byFunction.get(key) ?? 0) + micros)
    const pkg = ["(garbage collector)", "(program)"].includes(name) ? name : packageOf(frame.url)
    byPackage.set(pkg, (byPackage.get(pkg) ?? 0) + micros)
  })
  const lines = [`main thread: busy ${(busy / calls).toFixed(2)} µs/call, idle ${(idle / calls).toFixed(2)} µs/call`, "per package (µs/call):"]
  const rows = (map, n) => [...map].sort((a, b) => b[1] - a[1]).slice(0, n).map(([k, v]) => `${(v / calls).toFixed(2).padStart(8)}  ${k}`)
  lines.push(...rows(byPackage, 20), "per function, self time (µs/call):", ...rows(byFunction, top))
  return lines.join("\n")
}

const args = process.argv.slice(2)
const option = (name) => {
  const i = args.indexOf(name)
  return i < 0 ? undefined : args.splice(i, 2)[1]
}
const flag = (name) => {
  const i = args.indexOf(name)
  return i < 0 ? false : (args.splice(i, 1), true)
}

const summaryOf = option("--summary")
if (summaryOf !== undefined) {
  console.log(summary(JSON.parse(readFileSync(summaryOf, "utf8")), Number(args[0] ?? 1)))
  process.exit(0)
}

const out = option("--out")
const benchLike = flag("--bench-like")
const alloc = flag("--alloc")

/** Bytes allocated per call, per package and per function (self), from a sampling heap profile. */
const allocSummary = (profile, calls, top = 30) => {
  const byFunction = new Map()
  const byPackage = new Map()
  let total = 0
  const walk = (node) => {
    if (node.selfSize > 0) {
      const frame = node.callFrame
      const where = frame.url.replace(/.*node_modules\//, "").replace(/.*packages\//, "")
      const key = `${frame.functionName || "(anonymous)"} ${where}${where ? `:${frame.lineNumber + 1}` : ""}`
      byFunction.set(key, (byFunction.get(key) ?? 0) + node.selfSize)
      const pkg = packageOf(frame.url)
      byPackage.set(pkg, (byPackage.get(pkg) ?? 0) + node.selfSize)
      total += node.selfSize
    }
    for (const child of node.children) walk(child)
  }
  walk(profile.head)
  const rows = (map, n) => [...map].sort((a, b) => b[1] - a[1]).slice(0, n).map(([k, v]) => `${(v / calls).toFixed(0).padStart(8)}  ${k}`)
  return [`allocated: ${(total / calls).toFixed(0)} bytes/call (sampled)`, "per package (bytes/call):", ...rows(byPackage, 20), "per function, self (bytes/call):", ...rows(byFunction, top)].join("\n")
}
const [client = "ours", era = "legacy", callsArg = "8000", widthArg = "64"] = args
const calls = Number(callsArg)
const width = Number(widthArg)
const target = {
  transport: "stdio",
  command: process.execPath,
  args: [join(root, "packages/test-servers/dist/official.js"), "--era", era === "legacy" ? "legacy" : "both"],
  era: era === "legacy" ? "legacy" : "modern"
}
const demo = join(root, "packages/demo/dist")
const runner = client === "official"
  ? await (await import(join(demo, "bench-run-official.js"))).official(target)
  : client === "ours"
  ? await (await import(join(demo, "bench-run-ours.js"))).ours(target)
  : client === "ours-promise"
  ? await (await import(join(demo, "bench-run-ours.js"))).oursPromise(target)
  : client === "effect"
  ? await (await import(join(demo, "bench-run-effect.js"))).effect(target)
  : undefined
if (runner === undefined) throw new Error(`unknown client ${client} (official, ours, ours-promise, effect)`)
try {
  if (benchLike) {
    await runner.calls(200, 1)
    await runner.calls(400, 1)
  } else {
    await runner.calls(1000, width)
    await runner.calls(1000, 1)
  }
  const session = new Session()
  session.connect()
  if (alloc) {
    await session.post("HeapProfiler.enable")
    await session.post("HeapProfiler.startSampling", {
      samplingInterval: 256,
      includeObjectsCollectedByMajorGC: true,
      includeObjectsCollectedByMinorGC: true
    })
    await runner.calls(calls, width)
    const { profile } = await session.post("HeapProfiler.stopSampling")
    if (out !== undefined) writeFileSync(out, JSON.stringify(profile))
    console.log(`${client} ${target.era}, ${calls} calls, ${width} in flight`)
    console.log(allocSummary(profile, calls))
  } else {
    await session.post("Profiler.enable")
    await session.post("Profiler.setSamplingInterval", { interval: 100 })
    await session.post("Profiler.start")
    const cpu0 = process.cpuUsage()
    const t0 = performance.now()
    await runner.calls(calls, width)
    const cpu = process.cpuUsage(cpu0)
    const ms = performance.now() - t0
    const { profile } = await session.post("Profiler.stop")
    if (out !== undefined) writeFileSync(out, JSON.stringify(profile))
    console.log(
      `${client} ${target.era}, ${calls} calls, ${width} in flight: ${((cpu.user + cpu.system) / calls).toFixed(1)} µs CPU/call ` +
        `(all threads, profiler included), ${((calls * 1000) / ms).toFixed(0)} calls/s`
    )
    console.log(summary(profile, calls))
  }
} finally {
  await runner.close()
}
process.exit(0)
