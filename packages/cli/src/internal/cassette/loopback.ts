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

/**
 * A request's body, whole; `"too-large"` past `MAX_BODY` (nothing more is kept; answer it with `refuseTooLarge`),
 * `undefined` when it breaks.
 */
export const readBody = (req: IncomingMessage): Promise<Buffer | "too-large" | undefined> =>
  new Promise((resolve) => {
    const chunks: Array<Buffer> = []
    let size = 0
    const onData = (chunk: Buffer) => {
      if ((size += chunk.length) > MAX_BODY) {
        req.off("data", onData)
        chunks.length = 0
        resolve("too-large")
      } else chunks.push(chunk)
    }
    req.on("data", onData)
    req.on("end", () => resolve(Buffer.concat(chunks)))
    req.on("error", () => resolve(undefined))
  })

/**
 * Refuse a body past `MAX_BODY` with 413 and a JSON-RPC error, and close the connection once the answer is
 * out (the rest of the body is not read: the host learns why instead of meeting a reset).
 */
export const refuseTooLarge = (req: IncomingMessage, res: ServerResponse): void => {
  res.once("finish", () => req.destroy())
  res.writeHead(413, { "content-type": "application/json", connection: "close" }).end(
    JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: -32600, message: `request body larger than ${MAX_BODY} bytes` } })
  )
}
