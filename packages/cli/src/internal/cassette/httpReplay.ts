/**
 * `replay FILE --http`: the cassette served over Streamable HTTP on 127.0.0.1, at the path it was recorded on.
 * Each request is answered on an event stream of its own, which carries what the server sent after it (its
 * notifications and requests, at their offsets) and ends with its answer; notifications and answers of the
 * host are taken with 202. A legacy session (`initialize`) gets an `Mcp-Session-Id` of its own, a GET stream
 * and `DELETE`; each handshake starts the cassette afresh, so a client may connect again.
 */
import type { McpCassette } from "@mcp-effect/client"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"
import { randomUUID } from "node:crypto"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import * as ReplaySession from "./replaySession.js"
import { messagesOf } from "./sse.js"

const MAX_BODY = 16 * 1024 * 1024

interface Session {
  readonly id: string | undefined
  readonly replay: ReplaySession.Replay
  readonly scope: Scope.Closeable
  /** The open event streams of requests, by request id, newest last. */
  readonly pending: Map<string, ServerResponse>
  get: ServerResponse | undefined
}

const event = (res: ServerResponse, message: unknown) => res.write(`event: message\ndata: ${JSON.stringify(message)}\n\n`)

/** A server message to its stream: an answer ends its request's; anything else goes to the newest open one. */
const route = (session: Session, message: Record<string, unknown>) => {
  const id = JSON.stringify(message["id"])
  if (typeof message["method"] !== "string" && session.pending.has(id)) {
    const res = session.pending.get(id)
    session.pending.delete(id)
    if (res !== undefined) {
      event(res, message)
      res.end()
    }
    return
  }
  const newest = [...session.pending.values()].at(-1) ?? session.get
  if (newest !== undefined) event(newest, message)
}

const readBody = (req: IncomingMessage): Promise<string | undefined> =>
  new Promise((resolve) => {
    const chunks: Array<Buffer> = []
    let size = 0
    req.on("data", (chunk: Buffer) => {
      if ((size += chunk.length) > MAX_BODY) {
        req.destroy()
        resolve(undefined)
      } else chunks.push(chunk)
    })
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")))
    req.on("error", () => resolve(undefined))
  })

/** Serve the cassette on 127.0.0.1:`port`, for the life of the scope; its URL. */
export const serve = (
  cassette: McpCassette.Cassette,
  port: number,
  fast: boolean
): Effect.Effect<string, Error, Scope.Scope> =>
  Effect.gen(function*() {
    const context = yield* Effect.context<never>()
    const run = <A>(effect: Effect.Effect<A>) => Effect.runPromiseWith(context)(effect)
    const legacy = cassette.header.era === "legacy"
    const path = cassette.header.path ?? "/mcp"
    const sessions = new Map<string, Session>()
    let shared: Session | undefined

    const open = async (id: string | undefined): Promise<Session> => {
      const scope = await run(Scope.make())
      // The player's messages are routed to the session's streams once it exists (none come before an offer).
      const replay = await run(Scope.provide(ReplaySession.make(cassette, (m) => Effect.sync(() => route(session, m)), fast), scope))
      const session: Session = { id, replay, scope, pending: new Map(), get: undefined }
      if (id !== undefined) sessions.set(id, session)
      return session
    }
    const close = (session: Session | undefined) => session === undefined ? Promise.resolve() : run(Scope.close(session.scope, Exit.void))

    const sessionFor = async (req: IncomingMessage, first: Record<string, unknown> | undefined): Promise<Session | undefined> => {
      const method = first?.["method"]
      const header = req.headers["mcp-session-id"]
      if (typeof header === "string") return sessions.get(header)
      if (method === "initialize" && legacy) return open(randomUUID())
      if (method === "server/discover" || method === "initialize" || shared === undefined) {
        await close(shared)
        shared = await open(undefined)
      }
      return shared
    }

    const handle = async (req: IncomingMessage, res: ServerResponse) => {
      if (new URL(req.url ?? "/", "http://x").pathname !== path) return void res.writeHead(404).end()
      if (req.method === "DELETE") {
        const id = req.headers["mcp-session-id"]
        const session = typeof id === "string" ? sessions.get(id) : undefined
        if (session !== undefined) sessions.delete(String(id))
        await close(session)
        return void res.writeHead(session === undefined ? 404 : 200).end()
      }
      if (req.method === "GET") {
        const id = req.headers["mcp-session-id"]
        const session = typeof id === "string" ? sessions.get(id) : undefined
        if (session === undefined) return void res.writeHead(legacy ? 404 : 405).end()
        res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" }).flushHeaders()
        session.get = res
        res.once("close", () => session.get === res && (session.get = undefined))
        return
      }
      if (req.method !== "POST") return void res.writeHead(405).end()
      const body = await readBody(req)
      const messages = body === undefined ? [] : messagesOf(body)
      const session = await sessionFor(req, messages[0])
      if (session === undefined) return void res.writeHead(404, { "content-type": "application/json" }).end(
        JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: -32001, message: "Session not found" } })
      )
      const requests = messages.filter((m) => typeof m["method"] === "string" && m["id"] !== undefined)
      if (requests.length === 0) res.writeHead(202).end()
      else {
        res.writeHead(200, {
          "content-type": "text/event-stream",
          "cache-control": "no-cache",
          ...(session.id === undefined ? {} : { "mcp-session-id": session.id })
        }).flushHeaders()
        for (const request of requests) session.pending.set(JSON.stringify(request["id"]), res)
      }
      for (const message of messages) await run(session.replay.offer(message))
    }

    return yield* Effect.acquireRelease(
      Effect.callback<{ url: string; close: () => Promise<void> }, Error>((resume) => {
        const server = createServer((req, res) => {
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
      ({ close: stop }) =>
        Effect.promise(async () => {
          await stop()
          for (const session of [...sessions.values(), shared]) await close(session)
        })
    ).pipe(Effect.map(({ url }) => url))
  })

