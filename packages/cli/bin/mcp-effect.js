#!/usr/bin/env node
// The `mcp-effect` command: runs the bundle (dist/bundle/mcp-effect.js; `npm run build` at the root makes it),
// one self-contained file plus the chunks a command loads when it needs them. Its source maps are shipped:
// `NODE_OPTIONS=--enable-source-maps mcp-effect ...` names our source files in a stack trace (off by default:
// reading the maps costs start-up time).
import { existsSync } from "node:fs"
import { fileURLToPath } from "node:url"

const main = new URL("../dist/bundle/mcp-effect.js", import.meta.url)
if (!existsSync(fileURLToPath(main))) {
  process.stderr.write("mcp-effect: not built yet; run `npm run build` at the repository root\n")
  process.exit(3)
}
await import(main.href)
