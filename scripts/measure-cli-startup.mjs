#!/usr/bin/env node
/**
 * Side-by-side start-up of `mcp-effect` and its peers (mcporter, the MCP inspector's CLI), on this Node:
 * - `--help`: wall time to the process's exit;
 * - first result: wall time from spawn to the first byte of the tool's answer on stdout (a call of `echo` on a
 *   local stdio server, packages/test-servers/dist/official.js), then the process is killed (what a CLI does
 *   after printing, e.g. waiting for its server to exit, is not counted).
 * Rounds alternate between the contenders; the median and min of each are printed.
 *
 * Usage: node scripts/measure-cli-startup.mjs PEERS_DIR [rounds]   (PEERS_DIR: a folder outside the repository
 * where `npm install mcporter @modelcontextprotocol/inspector` was run; nothing is installed into the repository).
 */
import { spawn } from "node:child_process"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..")
const peers = process.argv[2]
const rounds = Number(process.argv[3] ?? 10)
if (peers === undefined) {
  console.error("usage: node scripts/measure-cli-startup.mjs PEERS_DIR [rounds]")
  process.exit(2)
}
const node = process.execPath
const server = path.join(root, "packages/test-servers/dist/official.js")
const ours = path.join(root, "packages/cli/bin/mcp-effect.js")
const mcporter = path.join(peers, "node_modules/mcporter/dist/cli.js")
const inspector = path.join(peers, "node_modules/@modelcontextprotocol/inspector/cli/build/cli.js")

const contenders = {
  help: {
    "mcp-effect": [ours, "--help"],
    mcporter: [mcporter, "--help"],
    inspector: [inspector, "--help"]
  },
  first: {
    "mcp-effect": [ours, "call", "echo", "text=hi", "--stdio", `${node} ${server}`],
    mcporter: [mcporter, "call", "--stdio", `${node} ${server}`, "echo", "text=hi"],
    inspector: [inspector, "--cli", node, server, "--method", "tools/call", "--tool-name", "echo", "--tool-arg", "text=hi"]
  }
}

/** Milliseconds from spawn to exit (`help`) or to the first stdout byte containing "hi" (`first`). */
const once = (args, untilResult) =>
  new Promise((resolve, reject) => {
    const started = process.hrtime.bigint()
    const child = spawn(node, args, { stdio: ["ignore", "pipe", "ignore"], detached: true })
    const elapsed = () => Number(process.hrtime.bigint() - started) / 1e6
    let out = ""
    let done = false
    child.stdout.on("data", (chunk) => {
      out += chunk
      if (untilResult && !done && out.includes("hi")) {
        done = true
        resolve(elapsed())
        try { process.kill(-child.pid, "SIGKILL") } catch { /* gone */ }
      }
    })
    child.on("exit", (code) => {
      if (done) return
      if (untilResult) reject(new Error(`${args.join(" ")}: exited ${code} without a result: ${out}`))
      else resolve(elapsed())
    })
  })

const stats = (samples) => {
  const sorted = [...samples].sort((a, b) => a - b)
  return { median: sorted[Math.floor(sorted.length / 2)], min: sorted[0] }
}

for (const [kind, table] of Object.entries(contenders)) {
  const samples = Object.fromEntries(Object.keys(table).map((name) => [name, []]))
  for (let round = 0; round < rounds; round++) {
    for (const [name, args] of Object.entries(table)) samples[name].push(await once(args, kind === "first"))
  }
  console.log(`\n${kind === "help" ? "--help (to exit)" : "first result of tools/call echo (stdio)"}, ${rounds} rounds`)
  for (const [name, values] of Object.entries(samples)) {
    const { median, min } = stats(values)
    console.log(`  ${name.padEnd(11)} median ${median.toFixed(0).padStart(5)} ms   min ${min.toFixed(0).padStart(5)} ms`)
  }
}
