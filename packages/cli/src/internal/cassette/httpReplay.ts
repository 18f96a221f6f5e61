/**
 * `replay FILE --http`: the cassette served over Streamable HTTP on 127.0.0.1, at the path it was recorded on.
 * Each request is answered on an event stream of its own, which carries what the server sent after it (its
 * notifications and requests, at their offsets) and ends with its answer; notifications and answers of the
 * host are taken with 202. A legacy session (`initialize`) gets an `Mcp-Session-Id` of its own, a GET stream
 * and `DELETE`. One replay serves every client in turn: a client that connects again is taken to the next
 * recorded handshake (see the library's replay).
 */
import type { McpCassette } from "@mcp-effect/client"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import { randomUUID } from "node:crypto"
import type { IncomingMessage, ServerResponse } from "node:http"
import * as loopback from "./loopback.js"
import * as ReplaySession from "./replaySession.js"
import { messagesOf } from "./sse.js"

/** The most legacy sessions a replay keeps open: a host that initializes again and again costs no more. */
export const MAX_SESSIONS = 1024

/** Where the replay's messages go: the open event streams of requests (by request id, newest last), GETs. */
interface Streams {
  readonly pending: Map<string, ServerResponse>
  readonly get: Set<ServerResponse>
}

const event = (res: ServerResponse, message: unknown) => res.write(`event: message\ndata: ${JSON.stringify(message)}\n\n`)

/** A server message to its stream: an answer ends its request's; anything else goes to the newest open one. */
const route = (streams: Streams, message: Record<string, unknown>) => {
  const id = JSON.stringify(message["id"])
  const own = typeof message["method"] !== "string" ? streams.pending.get(id) : undefined
  if (own !== undefined) {
    streams.pending.delete(id)
    event(own, message)
    if (![...streams.pending.values()].includes(own)) own.end()
    return
  }
  const newest = [...streams.pending.values()].at(-1) ?? [...streams.get].at(-1)
  if (newest !== undefined) event(newest, message)
}

/** Serve the cassette on 127.0.0.1:`port`, for the life of the scope; its URL. */
export const serve = (
  cassette: McpCassette.Cassette,
  port: number,
  options: { readonly fast: boolean; readonly anyOrder: boolean; readonly maxSessions?: number | undefined }
): Effect.Effect<string, Error, Scope.Scope> =>
  Effect.gen(function*() {
    const context = yield* Effect.context<never>()
    const run = <A>(effect: Effect.Effect<A>) => Effect.runPromiseWith(context)(effect)
    const legacy = cassette.header.era === "legacy"
    const path = cassette.header.path ?? "/mcp"
    const maxSessions = options.maxSessions ?? MAX_SESSIONS
    const sessions = new Set<string>()
    const streams: Streams = { pending: new Map(), get: new Set() }
    const replay = yield* ReplaySession.make(cassette, (m) => Effect.sync(() => route(streams, m)), options)

    const handle = async (req: IncomingMessage, res: ServerResponse) => {
      if (new URL(req.url ?? "/", "http://x").pathname !== path) return void res.writeHead(404).end()
      const header = req.headers["mcp-session-id"]
      const known = typeof header === "string" && sessions.has(header)
      if (req.method === "DELETE") {
        if (known) sessions.delete(header)
        return void res.writeHead(known ? 200 : 404).end()
      }
      if (req.method === "GET") {
        if (!known) return void res.writeHead(legacy ? 404 : 405).end()
        res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" }).flushHeaders()
        streams.get.add(res)
        res.once("close", () => streams.get.delete(res))
        return
      }
      if (req.method !== "POST") return void res.writeHead(405).end()
      const body = await loopback.readBody(req)
      if (body === "too-large") return loopback.refuseTooLarge(req, res)
      const messages = body === undefined ? [] : messagesOf(body.toString("utf8"))
      const opens = legacy && messages[0]?.["method"] === "initialize"
      if (typeof header === "string" && !known) {
        return void res.writeHead(404, { "content-type": "application/json" }).end(
          JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: -32001, message: "Session not found" } })
        )
      }
      const session = opens ? randomUUID() : undefined
      if (session !== undefined) {
        sessions.add(session)
        // The oldest session past the bound is forgotten (its client gets 404 and, as the spec asks, starts anew).
        for (const oldest of sessions) {
          if (sessions.size <= maxSessions) break
          sessions.delete(oldest)
        }
      }
      const requests = messages.filter((m) => typeof m["method"] === "string" && m["id"] !== undefined)
      if (requests.length === 0) res.writeHead(202).end()
      else {
        res.writeHead(200, {
          "content-type": "text/event-stream",
          "cache-control": "no-cache",
          ...(session === undefined ? {} : { "mcp-session-id": session })
        }).flushHeaders()
        const ids = requests.map((request) => JSON.stringify(request["id"]))
        for (const id of ids) streams.pending.set(id, res)
        // A client that goes away before its answer leaves nothing behind.
        res.once("close", () => ids.forEach((id) => streams.pending.get(id) === res && streams.pending.delete(id)))
      }
      for (const message of messages) await run(replay.offer(message))
    }

    return yield* loopback.listen(handle, port, path)
  })
