/**
 * The loopback HTTP server of `record --url` and `replay --http`: 127.0.0.1 only, on `port` (0 for a free
 * one), for the life of the scope (closing it ends every connection, open event streams included). A handler
 * that throws answers 500 (or ends a response already started). A request a web page made is refused (403)
 * before the handler sees it, as the MCP transport spec asks of a local server: an `Origin` that is not
 * loopback (a page posting here), or a `Host` that is not (DNS rebinding: a page of another name that now
 * resolves here); `record --url` would otherwise send the host's `--header` credentials on its behalf.
 */
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"

const LOOPBACK_HOSTS: ReadonlySet<string> = new Set(["127.0.0.1", "localhost", "[::1]"])

/** Whether a request comes from elsewhere than a loopback client: see the header. */
const foreign = (req: IncomingMessage): boolean => {
  const { host, origin } = req.headers
  if (host !== undefined && !(URL.canParse(`http://${host}`) && LOOPBACK_HOSTS.has(new URL(`http://${host}`).hostname))) return true
  return origin !== undefined && !(URL.canParse(origin) && LOOPBACK_HOSTS.has(new URL(origin).hostname))
}

/** Serve `handle`; the URL of `path` on it. */
export const listen = (
  handle: (req: IncomingMessage, res: ServerResponse) => Promise<void>,
  port: number,
  path: string
): Effect.Effect<string, Error, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.callback<{ url: string; close: () => Promise<void> }, Error>((resume) => {
      const server = createServer((req, res) => {
        if (foreign(req)) {
          res.writeHead(403, { "content-type": "text/plain" }).end("mcp-effect: a request from a web page is refused")
          return
        }
        handle(req, res).catch(() => {
          if (!res.headersSent) res.writeHead(500)
          res.end()
        })
      })
      server.once("error", (error) => resume(Effect.fail(error)))
      server.listen(port, "127.0.0.1", () => {
        const { port: bound } = server.address() as AddressInfo
        resume(Effect.succeed({
          url: `http://127.0.0.1:${bound}${path}`,
          close: () =>
            new Promise<void>((resolve) => {
              server.closeAllConnections()
              server.close(() => resolve())
            })
        }))
      })
    }),
    ({ close }) => Effect.promise(close)
  ).pipe(Effect.map(({ url }) => url))

/** The largest request body taken from a host. */
export const MAX_BODY = 16 * 1024 * 1024

/** A request's body, whole; `undefined` past `MAX_BODY` (the request is dropped) or when it breaks. */
export const readBody = (req: IncomingMessage): Promise<Buffer | undefined> =>
  new Promise((resolve) => {
    const chunks: Array<Buffer> = []
    let size = 0
    req.on("data", (chunk: Buffer) => {
      if ((size += chunk.length) > MAX_BODY) {
        req.destroy()
        resolve(undefined)
      } else chunks.push(chunk)
    })
    req.on("end", () => resolve(Buffer.concat(chunks)))
    req.on("error", () => resolve(undefined))
  })
