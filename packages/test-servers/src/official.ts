/**
 * An MCP server built on the official `@modelcontextprotocol/server` SDK (2.x), for
 * our tests, demo and benchmark.
 *
 *   node packages/test-servers/dist/official.js [--http [--port N]] [--era both|modern|legacy]
 *
 * stdio by default (stdout carries the protocol; diagnostics go to stderr; the process
 * exits when stdin closes). `--http` serves Streamable HTTP on 127.0.0.1 (port 0 picks
 * a free one), prints `listening http://127.0.0.1:PORT/mcp` once ready and stops on
 * SIGTERM/SIGINT. `--era` restricts the accepted protocol era (default both).
 */
import { StdioServerTransport, serveStdio } from "@modelcontextprotocol/server/stdio"
import { serveHttp } from "./official-http.js"
import { createDemoServer, DemoState } from "./official-server.js"
import type { Era } from "./official-server.js"
import { parseServerFlags } from "./server-flags.js"

const USAGE = "usage: official.js [--http [--port N]] [--era both|modern|legacy]"

/**
 * stdio. `both` and `modern` use the SDK's `serveStdio` entry, which picks the era
 * from the opening message (`legacy: "reject"` answers `initialize` with the
 * unsupported-protocol-version error). `legacy` is a hand-wired 2025-era server: the
 * SDK's default supported versions hold no modern revision, so `server/discover`
 * gets `-32601` exactly as from a pre-2026 server.
 */
function serveStdioEra(era: Era): void {
  const state = new DemoState()
  const onerror = (error: Error) => process.stderr.write(`[official-demo] ${error.message}\n`)
  switch (era) {
    case "both":
    case "modern":
      serveStdio(() => createDemoServer(state, { longLived: true }), {
        legacy: era === "modern" ? "reject" : "serve",
        onerror
      })
      return
    case "legacy": {
      const server = createDemoServer(state, { longLived: true })
      server.server.onerror = onerror
      server.connect(new StdioServerTransport()).catch((error: unknown) => {
        onerror(error instanceof Error ? error : new Error(String(error)))
        process.exit(1)
      })
      return
    }
  }
}

const flags = parseServerFlags(USAGE)

if (flags.help) {
  process.stdout.write(`${USAGE}\n`)
} else if (flags.http) {
  serveHttp({ era: flags.era, port: flags.port })
} else {
  serveStdioEra(flags.era)
}
