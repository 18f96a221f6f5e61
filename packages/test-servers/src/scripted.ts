/**
 * The scripted MCP test server: a dependency-free, deterministic server that speaks
 * newline-delimited JSON-RPC on stdin/stdout, so that every edge case of the client has
 * a test. It speaks either era (chosen by `--mode`) and can misbehave on purpose.
 *
 *   node packages/test-servers/dist/scripted.js --mode <mode> [options]
 *
 * stdout carries only protocol lines (plus deliberate junk in `--mode garbage`); logs go
 * to stderr. The process exits when stdin closes, unless `--ignore-stdin-close`.
 * See packages/test-servers/README.md ("scripted") for modes, options and tools.
 */
import { log } from "./scripted-context.js"
import { parseOptions } from "./scripted-options.js"
import { Core } from "./scripted-server.js"

const options = parseOptions(process.argv.slice(2))

for (let line = 1; line <= options.stderrNoise; line++) {
  process.stderr.write(`noise ${line}/${options.stderrNoise}: ${"lorem ipsum dolor sit amet ".repeat(3)}\n`)
}

const core = new Core(options)
log(`started: mode ${options.mode}${options.dual ? " --dual" : ""}, pid ${process.pid}`)

// The client went away (EPIPE): nothing more can be said.
process.stdout.on("error", () => process.exit(0))

let buffer = ""
process.stdin.setEncoding("utf8")
process.stdin.on("data", (chunk: string) => {
  buffer += chunk
  let newline = buffer.indexOf("\n")
  while (newline >= 0) {
    const line = buffer.slice(0, newline).replace(/\r$/, "")
    buffer = buffer.slice(newline + 1)
    core.handleLine(line)
    newline = buffer.indexOf("\n")
  }
})

process.stdin.on("end", () => {
  if (buffer.length > 0) core.handleLine(buffer)
  buffer = ""
  if (options.ignoreStdinClose) {
    log("stdin closed; staying alive (--ignore-stdin-close)")
    return
  }
  log("stdin closed; exiting")
  process.exit(0)
})

if (options.ignoreStdinClose) {
  process.on("SIGTERM", () => log("ignoring SIGTERM (--ignore-stdin-close)"))
  setInterval(() => undefined, 1 << 30)
}
