/**
 * Streamable HTTP hosting for the official-SDK demo server, on plain `node:http`
 * (the SDK's handlers are web-standard `fetch(Request) => Response` functions; its
 * `@modelcontextprotocol/node` adapter is not installed, so a small one lives here).
 *
 * - Modern (2026-07-28) requests go to the SDK's `createMcpHandler` in its strict
 *   mode (`legacy: "reject"`): one server instance per request, plus the
 *   `subscriptions/listen` streams it serves itself.
 * - Legacy (2025-era) traffic goes to sessionful Streamable HTTP: one SDK transport
 *   and one server instance per `initialize`, keyed by `Mcp-Session-Id`. The SDK's
 *   own default legacy leg is stateless (a fresh instance per POST), which cannot
 *   deliver server-to-client requests (elicitation, sampling, roots) nor a GET stream.
 * - `--era both` routes each request with the SDK's `isLegacyRequest` predicate.
 */
import { randomUUID } from "node:crypto"
import { createServer } from "node:http"
import type { IncomingMessage, ServerResponse } from "node:http"
import {
  WebStandardStreamableHTTPServerTransport,
  createMcpHandler,
  isInitializeRequest,
  isLegacyRequest
} from "@modelcontextprotocol/server"
import type { McpServer } from "@modelcontextprotocol/server"
import { createDemoServer, DemoState } from "./official-server.js"
import type { Era } from "./official-server.js"

type FetchHandler = (request: Request) => Promise<Response>

interface Leg {
  readonly fetch: FetchHandler
  readonly close: () => Promise<void>
}

export const MCP_PATH = "/mcp"

const jsonRpcError = (status: number, code: number, message: string): Response =>
  Response.json({ jsonrpc: "2.0", id: null, error: { code, message } }, { status })

const methodNotAllowed = (): Response =>
  Response.json(
    { jsonrpc: "2.0", id: null, error: { code: -32000, message: "Method not allowed." } },
    { status: 405, headers: { Allow: "POST" } }
  )

const reportError = (error: Error): void => {
  process.stderr.write(`[official-demo] ${error.message}\n`)
}

/** Modern requests: the SDK's per-request handler; its listen streams follow `state`. */
function modernLeg(state: DemoState): Leg {
  const handler = createMcpHandler(() => createDemoServer(state, { longLived: false }), {
    legacy: "reject",
    onerror: reportError
  })
  const stopFollowing = state.onExtraChanged(() => handler.notify.toolsChanged())
  return {
    fetch: (request) => handler.fetch(request),
    close: async () => {
      stopFollowing()
      await handler.close()
    }
  }
}

/** Legacy requests: sessionful Streamable HTTP, one server instance per session. */
function legacyLeg(state: DemoState): Leg {
  const sessions = new Map<string, WebStandardStreamableHTTPServerTransport>()

  const open = async (request: Request): Promise<Response> => {
    const body: unknown = await request
      .clone()
      .json()
      .catch(() => undefined)
    if (!isInitializeRequest(body)) return jsonRpcError(400, -32000, "Bad Request: No valid session ID provided")
    const server: McpServer = createDemoServer(state, { longLived: true })
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (sessionId) => {
        sessions.set(sessionId, transport)
      },
      onsessionclosed: (sessionId) => {
        sessions.delete(sessionId)
      }
    })
    transport.onclose = () => {
      if (transport.sessionId !== undefined) sessions.delete(transport.sessionId)
    }
    await server.connect(transport)
    return transport.handleRequest(request, { parsedBody: body })
  }

  return {
    fetch: async (request) => {
      const sessionId = request.headers.get("mcp-session-id")
      if (sessionId === null) {
        // Without a session only POST (of `initialize`) means anything; GET and DELETE
        // get the 405 a stateless or modern endpoint gives.
        return request.method === "POST" ? open(request) : methodNotAllowed()
      }
      const transport = sessions.get(sessionId)
      return transport === undefined
        ? jsonRpcError(404, -32001, "Session not found")
        : transport.handleRequest(request)
    },
    close: async () => {
      const transports = [...sessions.values()]
      sessions.clear()
      await Promise.all(transports.map((transport) => transport.close()))
    }
  }
}

function mcpEndpoint(era: Era, state: DemoState): Leg {
  switch (era) {
    case "modern":
      return modernLeg(state)
    case "legacy":
      return legacyLeg(state)
    case "both": {
      const modern = modernLeg(state)
      const legacy = legacyLeg(state)
      return {
        fetch: async (request) => ((await isLegacyRequest(request)) ? legacy.fetch(request) : modern.fetch(request)),
        close: async () => {
          await Promise.all([modern.close(), legacy.close()])
        }
      }
    }
  }
}

/** Builds a web `Request` from a Node request; `signal` aborts when the client goes away. */
async function toWebRequest(req: IncomingMessage, origin: string, signal: AbortSignal): Promise<Request> {
  const headers = new Headers()
  for (const [name, value] of Object.entries(req.headers)) {
    if (Array.isArray(value)) for (const item of value) headers.append(name, item)
    else if (value !== undefined) headers.set(name, value)
  }
  const method = req.method ?? "GET"
  const chunks: Array<Buffer> = []
  for await (const chunk of req) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)))
  const body = method === "GET" || method === "HEAD" ? null : Buffer.concat(chunks)
  return new Request(new URL(req.url ?? "/", origin), { method, headers, body, signal })
}

/** Streams a web `Response` (JSON or SSE) back through a Node response. */
async function writeWebResponse(response: Response, res: ServerResponse): Promise<void> {
  res.writeHead(response.status, Object.fromEntries(response.headers))
  if (response.body === null) {
    res.end()
    return
  }
  res.flushHeaders()
  const reader = response.body.getReader()
  const cancel = () => {
    reader.cancel().catch(() => undefined)
  }
  res.once("close", cancel)
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      res.write(value)
    }
  } catch {
    // The stream was cancelled because the client went away.
  } finally {
    res.off("close", cancel)
    res.end()
  }
}

export interface HttpOptions {
  readonly port: number
  readonly era: Era
}

/** Serves Streamable HTTP on 127.0.0.1 until SIGTERM/SIGINT; prints `listening <url>` when ready. */
export function serveHttp({ era, port }: HttpOptions): void {
  const endpoint = mcpEndpoint(era, new DemoState())

  const httpServer = createServer((req, res) => {
    const abort = new AbortController()
    res.once("close", () => {
      if (!res.writableFinished) abort.abort()
    })
    const origin = `http://${req.headers.host ?? "127.0.0.1"}`
    const handle = async () => {
      const request = await toWebRequest(req, origin, abort.signal)
      const response =
        new URL(request.url).pathname === MCP_PATH
          ? await endpoint.fetch(request)
          : new Response("Not Found", { status: 404 })
      await writeWebResponse(response, res)
    }
    handle().catch((error: unknown) => {
      reportError(error instanceof Error ? error : new Error(String(error)))
      if (!res.headersSent) res.writeHead(500)
      res.end()
    })
  })

  const shutdown = () => {
    endpoint
      .close()
      .catch(reportError)
      .finally(() => {
        httpServer.closeAllConnections()
        httpServer.close(() => process.exit(0))
      })
  }
  process.once("SIGTERM", shutdown)
  process.once("SIGINT", shutdown)

  httpServer.listen(port, "127.0.0.1", () => {
    const address = httpServer.address()
    const actualPort = typeof address === "object" && address !== null ? address.port : port
    process.stdout.write(`listening http://127.0.0.1:${actualPort}${MCP_PATH}\n`)
  })
}
