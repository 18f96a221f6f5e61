#!/usr/bin/env node
// The `mcp-effect` command: runs the built program (dist/main.js; `npm run build` at the root makes it).
import { existsSync } from "node:fs"
import { fileURLToPath } from "node:url"

const main = new URL("../dist/main.js", import.meta.url)
if (!existsSync(fileURLToPath(main))) {
  process.stderr.write("mcp-effect: not built yet; run `npm run build` at the repository root\n")
  process.exit(3)
}
await import(main.href)
