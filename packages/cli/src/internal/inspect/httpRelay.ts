/**
 * The HTTP relay: for a Streamable HTTP server whose CORS refuses the page (or whose entry carries headers
 * the page is not given), the page sends its requests here and they are forwarded unchanged, body and MCP
 * headers, the answer (JSON or an SSE stream) streamed back as it comes. Closing the page's request aborts
 * the upstream one (a modern request's cancellation). Only `http:` and `https:` URLs are forwarded, and only
 * for requests the guard let through (token, Host, Origin).
 */
import type { IncomingMessage, ServerResponse } from "node:http"
import { Readable } from "node:stream"

/** The header that names where a relayed request goes: a target's id (`target:ID`) or a URL. */
export const TARGET_HEADER = "x-inspector-target"

/** A Streamable HTTP server of the command line or the configuration. */
export interface HttpTarget {
  readonly url: string
  readonly headers: Readonly<Record<string, string>> | undefined
}

/** Request headers never forwarded: the relay's own, the browser's, and what names the hop. */
const DROPPED = new Set([
  "host", "origin", "referer", "cookie", "connection", "content-length", "transfer-encoding", "keep-alive",
  "x-inspector-token", TARGET_HEADER, "sec-fetch-site", "sec-fetch-mode", "sec-fetch-dest", "accept-encoding"
])

/** Response headers handed back: what the MCP client reads. */
const KEPT = [
  "content-type", "mcp-session-id", "mcp-protocol-version", "www-authenticate", "retry-after", "dpop-nonce",
  "cache-control"
]

const forwardedHeaders = (request: IncomingMessage, extra: Readonly<Record<string, string>> | undefined) => {
  const headers = new Headers()
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined || DROPPED.has(name)) continue
    headers.set(name, Array.isArray(value) ? value.join(", ") : value)
  }
  for (const [name, value] of Object.entries(extra ?? {})) headers.set(name, value)
  return headers
}

const fail = (response: ServerResponse, status: number, message: string) => {
  response.writeHead(status, { "content-type": "application/json" })
  response.end(JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: -32000, message } }))
}

/** Where the request goes: a known target, or a URL the page typed; `undefined` when neither. */
export const targetOf = (
  request: IncomingMessage,
  targets: ReadonlyMap<string, HttpTarget>
): HttpTarget | undefined => {
  const named = request.headers[TARGET_HEADER]
  const value = Array.isArray(named) ? named[0] : named
  if (value === undefined) return undefined
  if (value.startsWith("target:")) return targets.get(value.slice("target:".length))
  if (!URL.canParse(value)) return undefined
  const url = new URL(value)
  return url.protocol === "http:" || url.protocol === "https:" ? { url: url.href, headers: undefined } : undefined
}

/** Forward one request to the target and stream its answer back. */
export const forward = (request: IncomingMessage, response: ServerResponse, target: HttpTarget): void => {
  const abort = new AbortController()
  response.on("close", () => abort.abort())
  const method = request.method ?? "GET"
  const hasBody = method !== "GET" && method !== "HEAD" && method !== "DELETE"
  fetch(target.url, {
    method,
    headers: forwardedHeaders(request, target.headers),
    redirect: "manual",
    signal: abort.signal,
    ...(hasBody ? { body: Readable.toWeb(request) as ReadableStream<Uint8Array>, duplex: "half" } : {})
  }).then(
    (upstream) => {
      const headers: Record<string, string> = {}
      for (const name of KEPT) {
        const value = upstream.headers.get(name)
        if (value !== null) headers[name] = value
      }
      response.writeHead(upstream.status, headers)
      if (upstream.body === null) return void response.end()
      Readable.fromWeb(upstream.body as import("node:stream/web").ReadableStream<Uint8Array>)
        .on("error", () => response.destroy())
        .pipe(response)
    },
    (error: unknown) => {
      if (abort.signal.aborted) return
      fail(response, 502, `the relay could not reach the server: ${error instanceof Error ? error.message : String(error)}`)
    }
  )
}
