/**
 * `record FILE --url URL`: a Streamable HTTP server on loopback that forwards every request to URL as it came
 * (method, body, the host's headers and `--header`), and every answer back as it comes (JSON or an event
 * stream, passed on chunk by chunk), recording the messages both ways with the HTTP status and the headers that
 * matter. The host's credentials are noted as they pass, so they never reach the file, even echoed back.
 */
import type { McpCassette } from "@mcp-effect/client"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import type { IncomingMessage, ServerResponse } from "node:http"
import * as loopback from "./loopback.js"
import { messagesOf, sseParser } from "./sse.js"

/** Hop-by-hop headers and those `fetch` rewrites: never forwarded. */
const HOP: ReadonlySet<string> = new Set([
  "host", "connection", "content-length", "transfer-encoding", "keep-alive", "upgrade", "accept-encoding",
  "content-encoding", "proxy-connection", "te", "trailer"
])

const headersOf = (raw: IncomingMessage["headers"]): Record<string, string> => {
  const out: Record<string, string> = {}
  for (const [name, value] of Object.entries(raw)) {
    if (value !== undefined && !HOP.has(name)) out[name] = Array.isArray(value) ? value.join(", ") : value
  }
  return out
}

export interface Proxy {
  readonly upstream: URL
  readonly headers: Readonly<Record<string, string>>
  readonly recorder: McpCassette.Recorder
  readonly now: () => number
}

const forward = async (proxy: Proxy, req: IncomingMessage, res: ServerResponse): Promise<void> => {
  const body = await loopback.readBody(req)
  if (body === "too-large") return loopback.refuseTooLarge(req, res)
  if (body === undefined) return void res.writeHead(400).end()
  const headers = { ...headersOf(req.headers), ...proxy.headers }
  // Every request's credentials, with a message or not (a GET stream's token, refreshed), are never written.
  proxy.recorder.noteHeaders(headers)
  const method = req.method ?? "GET"
  for (const message of method === "POST" ? messagesOf(body.toString("utf8")) : []) {
    proxy.recorder.record("client", message, proxy.now(), { method, headers })
  }
  const abort = new AbortController()
  res.once("close", () => abort.abort())
  // The MCP endpoint to the upstream's; any other path (metadata a host looks up) to the same path there, on
  // the upstream's origin whatever the path says (`/.//elsewhere/x` resolves to another host: set as a path,
  // it stays one), since the host's credentials and --header go with it.
  const incoming = new URL(req.url ?? "/", "http://x")
  const url = new URL(proxy.upstream)
  if (incoming.pathname !== proxy.upstream.pathname) url.pathname = incoming.pathname
  url.search = incoming.search
  const answer = await fetch(url, {
    method,
    headers,
    signal: abort.signal,
    ...(method === "POST" || method === "PUT" ? { body } : {})
  })
  const answerHeaders: Record<string, string> = {}
  answer.headers.forEach((value, name) => {
    if (!HOP.has(name)) answerHeaders[name] = value
  })
  const http = { status: answer.status, headers: answerHeaders }
  res.writeHead(answer.status, answerHeaders)
  const record = (text: string) => {
    for (const message of messagesOf(text)) proxy.recorder.record("server", message, proxy.now(), http)
  }
  const sse = (answer.headers.get("content-type") ?? "").includes("text/event-stream")
  const feed = sse ? sseParser(record) : undefined
  const kept: Array<Buffer> = []
  let size = 0
  const decoder = new TextDecoder()
  if (answer.body !== null) {
    for await (const chunk of answer.body) {
      res.write(chunk)
      if (feed !== undefined) feed(decoder.decode(chunk, { stream: true }))
      else if ((size += chunk.length) <= loopback.MAX_BODY) kept.push(Buffer.from(chunk))
    }
  }
  if (feed === undefined && size <= loopback.MAX_BODY) record(Buffer.concat(kept).toString("utf8"))
  res.end()
}

/**
 * The proxy, listening on 127.0.0.1 (`port`, 0 for a free one) at the upstream's path, for the life of the
 * scope; its URL. An upstream that cannot be reached is a 502 saying so.
 */
export const listen = (proxy: Proxy, port: number): Effect.Effect<string, Error, Scope.Scope> =>
  loopback.listen(
    (req, res) =>
      forward(proxy, req, res).catch((error: unknown) => {
        if (!res.headersSent) res.writeHead(502, { "content-type": "text/plain" })
        res.end(`mcp-effect record: the server could not be reached: ${error instanceof Error ? error.message : String(error)}`)
      }),
    port,
    proxy.upstream.pathname
  )
