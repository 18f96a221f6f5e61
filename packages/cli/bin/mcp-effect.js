#!/usr/bin/env node
// The `mcp-effect` command: runs the bundle (dist/bundle/mcp-effect.js; `npm run build` at the root makes it),
// one self-contained file plus the chunks a command loads when it needs them. Its source maps are shipped:
// `NODE_OPTIONS=--enable-source-maps mcp-effect ...` names our source files in a stack trace (off by default:
// reading the maps costs start-up time).
//
// This file is kept to syntax and built-ins that Node 18 has, because it checks the Node version before the
// bundle is loaded: the bundle needs Node 22.19 (`engines` in package.json) and on an older Node it would fail
// with an error that does not say why. Bun and Deno report a Node version of their own compatibility layer,
// not the runtime's, so they are not checked.
import { existsSync } from "node:fs"
import { fileURLToPath } from "node:url"

/** The oldest Node the bundle runs on: [major, minor]. */
const NEEDED = [22, 19]

/** Exit code 2: the command's code for what the user must fix (`ExitCode.usage` in src/internal/errors.ts). */
const USAGE = 2

const isNode = process.versions.bun === undefined && typeof globalThis.Deno === "undefined"
if (isNode) {
  const found = process.versions.node
  const [major, minor] = found.split(".").map(Number)
  if (major < NEEDED[0] || (major === NEEDED[0] && minor < NEEDED[1])) {
    process.stderr.write(`mcp-effect needs Node ${NEEDED.join(".")} or newer; this is Node ${found}\n`)
    process.exit(USAGE)
  }
}

const main = new URL("../dist/bundle/mcp-effect.js", import.meta.url)
if (!existsSync(fileURLToPath(main))) {
  process.stderr.write("mcp-effect: not built yet; run `npm run build` at the repository root\n")
  process.exit(3)
}
await import(main.href)
