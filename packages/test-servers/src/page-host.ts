/**
 * A same-origin host for browser tests: serves the files of one folder and forwards `/<name>/mcp` to the MCP
 * server given for `<name>`, so a page talks to Streamable HTTP servers without any CORS rule (the page and
 * the endpoint share the host's origin, as a web app and its own backend do).
 *
 *   node packages/test-servers/dist/page-host.js --root DIR --upstream modern=http://127.0.0.1:P/mcp ...
 *
 * Listens on 127.0.0.1 (a free port), prints `listening http://127.0.0.1:PORT/` once ready and stops on
 * SIGTERM/SIGINT. Requests and responses are streamed both ways (SSE answers reach the page as they come);
 * when the page goes away mid-answer (a cancelled `fetch`), the upstream request is aborted too.
 */
import { readFile } from "node:fs/promises"
import { createServer, request as httpRequest } from "node:http"
import type { IncomingMessage, ServerResponse } from "node:http"
import * as path from "node:path"
import { parseArgs } from "node:util"

const USAGE = "usage: page-host.js --root DIR --upstream NAME=URL [--upstream NAME=URL ...]"

const contentTypes: Readonly<Record<string, string>> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".json": "application/json",
  ".map": "application/json"
}

const parseFlags = (): { readonly root: string; readonly upstreams: ReadonlyMap<string, URL> } => {
  const { values } = parseArgs({
    options: { root: { type: "string" }, upstream: { type: "string", multiple: true, default: [] } },
    strict: true
  })
  if (values.root === undefined) {
    process.stderr.write(`${USAGE}\n`)
    process.exit(2)
  }
  const upstreams = new Map<string, URL>()
  for (const entry of values.upstream) {
    const at = entry.indexOf("=")
    if (at <= 0) {
      process.stderr.write(`bad --upstream ${entry}\n${USAGE}\n`)
      process.exit(2)
    }
    upstreams.set(entry.slice(0, at), new URL(entry.slice(at + 1)))
  }
  return { root: path.resolve(values.root), upstreams }
}

/** Forwards one request to `target`, streaming the body both ways. */
const forward = (req: IncomingMessage, res: ServerResponse, target: URL): void => {
  const headers = { ...req.headers, host: target.host }
  const upstream = httpRequest(target, { method: req.method ?? "GET", headers }, (answer) => {
    res.writeHead(answer.statusCode ?? 502, answer.headers)
    res.flushHeaders()
    answer.pipe(res)
  })
  // The page went away (an aborted fetch): the server sees its request end too.
  res.once("close", () => {
    if (!res.writableFinished) upstream.destroy()
  })
  upstream.once("error", () => {
    if (!res.headersSent) res.writeHead(502)
    res.end()
  })
  req.pipe(upstream)
}

/** Serves a file of `root` (no path outside it). */
const serveFile = async (root: string, pathname: string, res: ServerResponse): Promise<void> => {
  const file = path.resolve(root, `.${pathname === "/" ? "/index.html" : pathname}`)
  if (!file.startsWith(`${root}${path.sep}`)) {
    res.writeHead(403).end()
    return
  }
  const body = await readFile(file).catch(() => undefined)
  if (body === undefined) {
    res.writeHead(404).end()
    return
  }
  res.writeHead(200, { "content-type": contentTypes[path.extname(file)] ?? "application/octet-stream" }).end(body)
}

const { root, upstreams } = parseFlags()

const server = createServer((req, res) => {
  const { pathname } = new URL(req.url ?? "/", "http://127.0.0.1")
  const endpoint = /^\/([^/]+)\/mcp$/.exec(pathname)
  const target = endpoint?.[1] === undefined ? undefined : upstreams.get(endpoint[1])
  if (target !== undefined) forward(req, res, target)
  else
    serveFile(root, pathname, res).catch(() => {
      if (!res.headersSent) res.writeHead(500)
      res.end()
    })
})

const shutdown = () => {
  server.closeAllConnections()
  server.close(() => process.exit(0))
}
process.once("SIGTERM", shutdown)
process.once("SIGINT", shutdown)

server.listen(0, "127.0.0.1", () => {
  const address = server.address()
  const port = typeof address === "object" && address !== null ? address.port : 0
  process.stdout.write(`listening http://127.0.0.1:${port}/\n`)
})
