import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Stream from "effect/Stream"
import { TestClock } from "effect/testing"
import type { McpSchema, McpTransport } from "@mcp-effect/client"
import type { IncomingHttpHeaders, ServerResponse } from "node:http"
import { exchange, receive } from "./fixtures/connection.js"
import {
  accepted,
  connectHttp,
  event,
  eventually,
  json,
  LEGACY_INITIALIZE,
  makeClient,
  MODERN_DISCOVER,
  openSse,
  result,
  rpcError,
  scripted,
  type Seen,
  toolResult
} from "./fixtures/httpServer.js"

const MODERN = "2026-07-28"
const LEGACY = "2025-11-25"

/** The headers the client chose (without what the HTTP stack adds on its own). */
const chosen = (headers: IncomingHttpHeaders) => {
  const { connection: _c, "content-length": _l, host: _h, "transfer-encoding": _t, ...rest } = headers
  return rest
}

const idOf = (seen: Seen) => seen.json?.["id"]
const methodOf = (seen: Seen) => seen.json?.["method"]

/** A modern server: `server/discover`, and `tools/call` per `onCall` (default: a JSON result). */
const modernServer = (onCall?: (seen: Seen, res: ServerResponse) => unknown) =>
  scripted((seen, res) => {
    switch (methodOf(seen)) {
      case "server/discover":
        return json(res, 200, result(seen, MODERN_DISCOVER))
      case "tools/call":
        return onCall === undefined ? json(res, 200, result(seen, toolResult("ok"))) : onCall(seen, res)
      default:
        return json(res, 404, rpcError(idOf(seen), -32601, "Method not found"))
    }
  })

describe("modern Streamable HTTP", () => {
  it.live("sends exactly the headers the spec asks for, with unsafe names encoded", () =>
    Effect.gen(function*() {
      const server = yield* modernServer()
      const client = yield* makeClient(server.url)
      yield* client.callTool("héllo wörld", { a: 1 })
      yield* client.callTool("=?base64?x?=")
      const [discover] = server.requests("server/discover")
      const [first, second] = server.requests("tools/call")
      assert.deepStrictEqual(chosen(discover!.headers), {
        "accept": "application/json, text/event-stream",
        "content-type": "application/json",
        "mcp-protocol-version": MODERN,
        "mcp-method": "server/discover"
      })
      assert.deepStrictEqual(chosen(first!.headers), {
        "accept": "application/json, text/event-stream",
        "content-type": "application/json",
        "mcp-protocol-version": MODERN,
        "mcp-method": "tools/call",
        "mcp-name": "=?base64?aMOpbGxvIHfDtnJsZA==?="
      })
      assert.strictEqual(second!.headers["mcp-name"], "=?base64?PT9iYXNlNjQ/eD89?=")
      // The header equals the body's version; no session or resumption headers ever.
      const meta = (first!.json?.["params"] as { _meta: Record<string, unknown> })._meta
      assert.strictEqual(meta["io.modelcontextprotocol/protocolVersion"], first!.headers["mcp-protocol-version"])
      for (const seen of server.seen) {
        assert.strictEqual(seen.method, "POST")
        assert.isUndefined(seen.headers["mcp-session-id"])
        assert.isUndefined(seen.headers["last-event-id"])
      }
    }))

  it.live("Mcp-Name for resources/read and prompts/get; caller headers and the message's own headers", () =>
    Effect.gen(function*() {
      const server = yield* scripted((seen, res) => json(res, 200, result(seen, { resultType: "complete", contents: [] })))
      const connection = yield* connectHttp(server.url, { headers: { Authorization: "Bearer t0k", Accept: "text/html" } })
      const context = { era: "modern" as const, protocolVersion: MODERN }
      const inbox = yield* receive(connection)
      const frames: Array<unknown> = []
      const send = (message: McpSchema.OutboundMessage, sendContext: McpTransport.SendContext) =>
        exchange(connection, inbox, message, sendContext).pipe(
          Effect.map((received) => frames.push(received._tag === "Message" ? received.message : received))
        )
      yield* send({ jsonrpc: "2.0", id: 1, method: "resources/read", params: { uri: "file:///a b.txt" } }, context)
      yield* send({ jsonrpc: "2.0", id: 2, method: "prompts/get", params: { name: "greet" } }, context)
      yield* (
        send({ jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "q", arguments: { r: "us" } } }, {
          ...context,
          headers: { "Mcp-Param-Region": "us" }
        })
      )
      const [read, prompt, call] = server.seen
      assert.deepStrictEqual(chosen(read!.headers), {
        "authorization": "Bearer t0k",
        "accept": "application/json, text/event-stream",
        "content-type": "application/json",
        "mcp-protocol-version": MODERN,
        "mcp-method": "resources/read",
        "mcp-name": "file:///a b.txt"
      })
      assert.strictEqual(prompt!.headers["mcp-name"], "greet")
      assert.strictEqual(call!.headers["mcp-param-region"], "us")
      assert.strictEqual(call!.headers["mcp-name"], "q")
      // Every JSON body was handed over, as it was sent.
      assert.deepStrictEqual(frames.map((frame) => (frame as { id: unknown }).id), [1, 2, 3])
    }))

  it.live("an SSE response: keep-alives and empty events ignored, notifications delivered before the result", () =>
    Effect.gen(function*() {
      const server = yield* modernServer((seen, res) => {
        const token = (seen.json?.["params"] as { _meta: Record<string, unknown> })._meta["progressToken"]
        openSse(res)
        res.write(": keep-alive\n\n")
        res.write("data:\n\n")
        event(res, { jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: token, progress: 1, total: 2 } })
        event(res, { jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: token, progress: 2, total: 2 } })
        event(res, result(seen, toolResult("streamed")))
        res.end()
      })
      const progress: Array<number> = []
      const client = yield* makeClient(server.url, { onProgress: (report) => void progress.push(report.progress) })
      const answer = yield* client.callTool("slow")
      assert.deepStrictEqual(answer.content, [{ type: "text", text: "streamed" }])
      assert.deepStrictEqual(progress, [1, 2])
    }))

  it.live("an answered SSE stream is left to end on its own: its kept-alive connection serves the next call", () =>
    Effect.gen(function*() {
      const sockets = new Set<unknown>()
      const server = yield* scripted((seen, res, req) => {
        if (methodOf(seen) === "server/discover") return json(res, 200, result(seen, MODERN_DISCOVER))
        sockets.add(req.socket)
        openSse(res)
        event(res, result(seen, toolResult("early")))
        setTimeout(() => res.end(), 30)
      })
      const client = yield* makeClient(server.url)
      for (let i = 0; i < 6; i++) {
        const answer = yield* client.callTool("t")
        assert.deepStrictEqual(answer.content, [{ type: "text", text: "early" }])
        yield* Effect.sleep("80 millis")
      }
      // An abort at the answer would have cost each call its connection (6); the pool may hold the probe's too.
      assert.isAtMost(sockets.size, 2)
    }))

  it.live("answered streams the server never ends: at most 16 are kept, the oldest cancelled, all at close", () =>
    Effect.gen(function*() {
      const server = yield* modernServer((seen, res) => {
        openSse(res)
        event(res, result(seen, toolResult("kept")))
      })
      let closed = 0
      yield* Effect.scoped(Effect.gen(function*() {
        const client = yield* makeClient(server.url)
        for (let i = 0; i < 20; i++) yield* client.callTool("t")
        for (const call of server.requests("tools/call")) void call.closed.then(() => closed++)
        yield* eventually(() => closed >= 4, "the four oldest streams cancelled")
        yield* Effect.sleep("100 millis")
        assert.strictEqual(closed, 4)
      }))
      // Closing the client lets go of the rest.
      yield* Effect.promise(() => Promise.all(server.requests("tools/call").map((call) => call.closed))).pipe(
        Effect.timeout("2 seconds")
      )
    }))

  it.live("cancellation closes the response stream; no notifications/cancelled is sent", () =>
    Effect.gen(function*() {
      const server = yield* modernServer((_, res) => {
        openSse(res)
        res.write(": working\n\n")
      })
      const client = yield* makeClient(server.url)
      const error = yield* client.callTool("hang", {}, { timeout: "300 millis" }).pipe(Effect.flip)
      assert.strictEqual(error._tag, "McpTimeoutError")
      const [call] = server.requests("tools/call")
      const closed = yield* Effect.promise(() => call!.closed.then(() => true)).pipe(Effect.timeout("2 seconds"))
      assert.isTrue(closed)
      // An interrupt without a timeout closes the stream too.
      const fiber = yield* Effect.forkChild(client.callTool("hang"))
      yield* eventually(() => server.requests("tools/call").length === 2, "the second call")
      yield* Fiber.interrupt(fiber)
      yield* Effect.promise(() => server.requests("tools/call")[1]!.closed).pipe(Effect.timeout("2 seconds"))
      yield* Effect.sleep("100 millis")
      assert.deepStrictEqual(server.requests("notifications/cancelled"), [])
    }))

  it.live("a stream that breaks before the response fails the call at once with McpServerGoneError; the next call works", () =>
    Effect.gen(function*() {
      let calls = 0
      const server = yield* modernServer((seen, res) => {
        calls++
        if (calls === 1) {
          openSse(res)
          event(res, { jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: "x" } })
          setTimeout(() => res.socket?.destroy(), 50)
        } else if (calls === 2) {
          // A JSON body cut short.
          res.writeHead(200, { "content-type": "application/json", "content-length": "500" })
          res.write("{\"jsonrpc\":\"2.0\",")
          setTimeout(() => res.socket?.destroy(), 50)
        } else if (calls === 3) {
          // A stream that ends cleanly without the response.
          openSse(res)
          res.end()
        } else {
          json(res, 200, result(seen, toolResult("fine")))
        }
      })
      const client = yield* makeClient(server.url)
      yield* client.era
      for (const how of ["broke", "broke", "ended"]) {
        const started = Date.now()
        const error = yield* client.callTool("flaky").pipe(Effect.flip)
        assert.strictEqual(error._tag, "McpServerGoneError")
        assert.match(error.message, new RegExp(`tools/call \\(id \\d+\\) ${how}.*the request is lost`))
        assert.isBelow(Date.now() - started, 2000)
      }
      const answer = yield* client.callTool("flaky")
      assert.deepStrictEqual(answer.content, [{ type: "text", text: "fine" }])
    }))

  it.live("HTTP failures: JSON-RPC bodies are protocol errors with their status; other failures are transport errors", () =>
    Effect.gen(function*() {
      const server = yield* scripted((seen, res) => {
        const name = (seen.json?.["params"] as { name?: string } | undefined)?.name
        switch (methodOf(seen) === "tools/call" ? name : methodOf(seen)) {
          case "server/discover":
            return json(res, 200, result(seen, MODERN_DISCOVER))
          case "idless":
            return json(res, 400, rpcError(null, -32602, "Unknown tool"))
          case "forbidden":
            res.writeHead(403, { "content-type": "text/plain" })
            return res.end("Origin not allowed")
          case "boom":
            res.writeHead(500)
            return res.end()
          case "busy":
            return json(res, 503, rpcError(idOf(seen), -32603, "overloaded"))
          case "wrong-id":
            return json(res, 200, rpcError(12345, -32603, "not yours"))
          case "accepted":
            return accepted(res)
          default:
            return json(res, 404, rpcError(idOf(seen), -32601, "Method not found"))
        }
      })
      const client = yield* makeClient(server.url)
      const notFound = yield* client.request("nope/nothing").pipe(Effect.flip)
      assert.deepInclude(notFound, { _tag: "McpProtocolError", code: -32601, httpStatus: 404 })
      const idless = yield* client.callTool("idless").pipe(Effect.flip)
      assert.deepInclude(idless, { _tag: "McpProtocolError", code: -32602, httpStatus: 400, serverMessage: "Unknown tool" })
      const busy = yield* client.callTool("busy").pipe(Effect.flip)
      assert.deepInclude(busy, { _tag: "McpProtocolError", code: -32603, httpStatus: 503 })
      const forbidden = yield* client.callTool("forbidden").pipe(Effect.flip)
      assert.deepInclude(forbidden, { _tag: "McpTransportError", reason: "Http", status: 403 })
      assert.match(forbidden.message, /HTTP 403: Origin not allowed/)
      const boom = yield* client.callTool("boom").pipe(Effect.flip)
      assert.deepInclude(boom, { _tag: "McpTransportError", reason: "Http", status: 500 })
      const wrong = yield* client.callTool("wrong-id").pipe(Effect.flip)
      assert.deepInclude(wrong, { _tag: "McpTransportError", status: 200 })
      const noBody = yield* client.callTool("accepted").pipe(Effect.flip)
      assert.deepInclude(noBody, { _tag: "McpTransportError", status: 202 })
    }))

  it.effect("fetchTimeout bounds the wait for the response headers (virtual time)", () =>
    Effect.gen(function*() {
      const server = yield* scripted(() => undefined) // never answers
      const connection = yield* connectHttp(server.url, { fetchTimeout: "2 seconds" })
      const inbox = yield* receive(connection)
      const fiber = yield* Effect.forkChild(
        exchange(connection, inbox, { jsonrpc: "2.0", id: 1, method: "tools/list" }, { era: "modern", protocolVersion: MODERN }).pipe(
          Effect.flatMap((received) => received._tag === "Failed" ? Effect.fail(received.error) : Effect.die(new Error("answered")))
        )
      )
      yield* eventually(() => server.seen.length === 1, "the POST")
      yield* TestClock.adjust("1999 millis")
      assert.isUndefined(fiber.pollUnsafe())
      yield* TestClock.adjust("1 millis")
      const error = yield* Fiber.join(fiber).pipe(Effect.flip)
      assert.deepInclude(error, { _tag: "McpTransportError", reason: "Http" })
      assert.match(error.message, /tools\/list: no HTTP response from .* within 2s/)
    }))

  it.live("responses are never POSTed to a modern server", () =>
    Effect.gen(function*() {
      const server = yield* scripted((_, res) => accepted(res))
      const connection = yield* connectHttp(server.url)
      yield* Effect.scoped(connection.send({ jsonrpc: "2.0", id: "s1", result: {} }, { era: "modern", protocolVersion: MODERN }))
      yield* Effect.scoped(connection.send({ jsonrpc: "2.0", id: "s1", result: {} }, { era: "legacy", protocolVersion: LEGACY }))
      assert.strictEqual(server.seen.length, 1)
      assert.isUndefined(server.seen[0]!.headers["mcp-method"])
    }))

  it.live("a server that cannot be reached is a transport error without a status, never the legacy fallback", () =>
    Effect.gen(function*() {
      const url = yield* Effect.scoped(Effect.map(scripted(() => undefined), (s) => s.url)) // closed again at once
      const client = yield* makeClient(url)
      const error = yield* client.era.pipe(Effect.flip)
      assert.deepInclude(error, { _tag: "McpTransportError", reason: "Http" })
      assert.isUndefined(error._tag === "McpTransportError" ? error.status : "not a transport error")
      assert.match(error.message, /server\/discover: cannot reach/)
    }))
})

describe("era detection over HTTP", () => {
  /** A server whose probe answer is `onDiscover`; `initialize` succeeds (legacy) if it comes. */
  const detect = (onDiscover: (seen: Seen, res: ServerResponse, attempt: number) => unknown) =>
    Effect.gen(function*() {
      let attempt = 0
      const server = yield* scripted((seen, res) => {
        switch (methodOf(seen)) {
          case "server/discover":
            return onDiscover(seen, res, attempt++)
          case "initialize":
            return json(res, 200, result(seen, LEGACY_INITIALIZE))
          default:
            return accepted(res)
        }
      })
      const client = yield* makeClient(server.url, {}, { getStream: false })
      const era = yield* client.era.pipe(Effect.result)
      return { era: era._tag === "Success" ? { era: era.success } : { error: era.failure }, server }
    })

  it.live("-32022 with a supported modern version: retried, modern, no initialize", () =>
    Effect.gen(function*() {
      const { era, server } = yield* detect((seen, res, attempt) =>
        attempt === 0
          ? json(res, 400, rpcError(idOf(seen), -32022, "Unsupported protocol version", { supported: [MODERN], requested: MODERN }))
          : json(res, 200, result(seen, MODERN_DISCOVER))
      )
      assert.deepStrictEqual(era, { era: "modern" })
      assert.strictEqual(server.requests("server/discover").length, 2)
      assert.strictEqual(server.requests("initialize").length, 0)
    }))

  const legacyCases: ReadonlyArray<[string, (seen: Seen, res: ServerResponse) => unknown]> = [
    ["400 with an empty body", (_, res) => {
      res.writeHead(400)
      res.end()
    }],
    ["400 with a legacy JSON-RPC error (sessionful SDK server)", (_, res) =>
      json(res, 400, rpcError(null, -32000, "Bad Request: Server not initialized"))],
    ["404 without a JSON-RPC body", (_, res) => {
      res.writeHead(404, { "content-type": "text/html" })
      res.end("<h1>Not Found</h1>")
    }],
    ["405", (_, res) => {
      res.writeHead(405)
      res.end()
    }],
    ["200 with -32601 (stateless legacy server)", (seen, res) =>
      json(res, 200, rpcError(idOf(seen), -32601, "Method not found"))],
    ["400 with a generic -32602", (seen, res) => json(res, 400, rpcError(idOf(seen), -32602, "Invalid params"))]
  ]
  for (const [name, answer] of legacyCases) {
    it.live(`legacy on ${name}`, () =>
      Effect.gen(function*() {
        const { era, server } = yield* detect(answer)
        assert.deepStrictEqual(era, { era: "legacy" })
        assert.strictEqual(server.requests("initialize").length, 1)
      }))
  }

  it.live("404 with -32601 is a modern server without server/discover", () =>
    Effect.gen(function*() {
      const { era, server } = yield* detect((seen, res) => json(res, 404, rpcError(idOf(seen), -32601, "Method not found")))
      assert.deepStrictEqual(era, { era: "modern" })
      assert.strictEqual(server.requests("initialize").length, 0)
    }))

  const errorCases: ReadonlyArray<[string, (seen: Seen, res: ServerResponse) => unknown, Record<string, unknown>]> = [
    ["500", (_, res) => {
      res.writeHead(500)
      res.end("oops")
    }, { _tag: "McpTransportError", status: 500 }],
    ["502 with a JSON-RPC body", (seen, res) => json(res, 502, rpcError(idOf(seen), -32603, "bad gateway")), {
      _tag: "McpProtocolError",
      httpStatus: 502
    }],
    ["401 (an authorization challenge)", (_, res) => {
      res.writeHead(401, { "www-authenticate": "Bearer" })
      res.end()
    }, { _tag: "McpTransportError", status: 401 }],
    ["-32021 (a modern error that cannot be fixed here)", (seen, res) =>
      json(res, 400, rpcError(idOf(seen), -32021, "Missing capability", { requiredCapabilities: { x: {} } })), {
      _tag: "McpProtocolError",
      code: -32021
    }],
    ["-32020", (seen, res) => json(res, 400, rpcError(idOf(seen), -32020, "Header mismatch")), {
      _tag: "McpProtocolError",
      code: -32020
    }],
    ["a broken stream", (_, res) => {
      openSse(res)
      setTimeout(() => res.socket?.destroy(), 20)
    }, { _tag: "McpServerGoneError" }]
  ]
  for (const [name, answer, expected] of errorCases) {
    it.live(`raised, not legacy, on ${name}`, () =>
      Effect.gen(function*() {
        const { era, server } = yield* detect(answer)
        assert.isTrue("error" in era)
        if ("error" in era) assert.deepInclude(era.error, expected)
        assert.strictEqual(server.requests("initialize").length, 0)
      }))
  }

  it.effect("a probe timeout is an error over HTTP (virtual time)", () =>
    Effect.gen(function*() {
      const server = yield* scripted((seen) => {
        if (methodOf(seen) !== "server/discover") throw new Error("unexpected")
      })
      const client = yield* makeClient(server.url, { probeTimeout: "5 seconds" })
      const fiber = yield* Effect.forkChild(client.era)
      yield* eventually(() => server.requests("server/discover").length === 1, "the probe")
      yield* TestClock.adjust("4999 millis")
      assert.isUndefined(fiber.pollUnsafe())
      yield* TestClock.adjust("1 millis")
      const error = yield* Fiber.join(fiber).pipe(Effect.flip)
      assert.deepInclude(error, { _tag: "McpTimeoutError", limit: "probe", method: "server/discover" })
      assert.strictEqual(server.requests("initialize").length, 0)
    }))
})

describe("legacy Streamable HTTP", () => {
  /** A sessionful legacy server; `onCall` answers `tools/call` (default: a JSON result). */
  const legacyServer = (
    options: {
      readonly onCall?: (seen: Seen, res: ServerResponse) => unknown
      readonly onGet?: (seen: Seen, res: ServerResponse) => unknown
      readonly sessions?: () => string
    } = {}
  ) => {
    let session = 0
    const live = new Set<string>()
    return Effect.map(
      scripted((seen, res) => {
        const sid = seen.headers["mcp-session-id"]
        if (seen.method === "GET") {
          if (typeof sid !== "string" || !live.has(sid)) return json(res, 404, rpcError(null, -32001, "Session not found"))
          if (options.onGet !== undefined) return options.onGet(seen, res)
          res.writeHead(405)
          return res.end()
        }
        if (seen.method === "DELETE") {
          if (typeof sid === "string") live.delete(sid)
          res.writeHead(200)
          return res.end()
        }
        const method = methodOf(seen)
        if (method === "server/discover") {
          res.writeHead(400)
          return res.end()
        }
        if (method === "initialize") {
          const id = options.sessions?.() ?? `session-${++session}`
          live.add(id)
          return json(res, 200, result(seen, LEGACY_INITIALIZE), { "mcp-session-id": id })
        }
        if (typeof sid !== "string" || !live.has(sid)) return json(res, 404, rpcError(null, -32001, "Session not found"))
        if (method === undefined || idOf(seen) === undefined) return accepted(res)
        if (method === "tools/call" && options.onCall !== undefined) return options.onCall(seen, res)
        return json(res, 200, result(seen, { content: [{ type: "text", text: `${method} in ${sid}` }] }))
      }),
      (server) => ({ server, live })
    )
  }

  it.live("session id, version header, GET stream with server messages, replies POSTed back, DELETE on close", () =>
    Effect.gen(function*() {
      const { server } = yield* legacyServer({
        onGet: (_, res) => {
          openSse(res)
          event(res, { jsonrpc: "2.0", method: "notifications/tools/list_changed" }, "g1")
          event(res, { jsonrpc: "2.0", id: "srv-1", method: "ping" }, "g2")
        }
      })
      const notifications: Array<string> = []
      const outcome = yield* Effect.scoped(
        Effect.gen(function*() {
          const client = yield* makeClient(server.url)
          yield* client.notifications.pipe(
            Stream.runForEach((n) => Effect.sync(() => void notifications.push(n.method))),
            Effect.forkScoped
          )
          const era = yield* client.era
          const answer = yield* client.callTool("echo", { text: "x" })
          yield* eventually(() => server.seen.some((s) => s.json?.["id"] === "srv-1"), "the reply to the ping")
          return { era, answer }
        })
      )
      assert.strictEqual(outcome.era, "legacy")
      assert.deepStrictEqual(outcome.answer.content, [{ type: "text", text: "tools/call in session-1" }])
      assert.deepStrictEqual(notifications, ["notifications/tools/list_changed"])

      const [initialize] = server.requests("initialize")
      assert.deepStrictEqual(chosen(initialize!.headers), {
        "accept": "application/json, text/event-stream",
        "content-type": "application/json"
      })
      const legacyHeaders = {
        "accept": "application/json, text/event-stream",
        "content-type": "application/json",
        "mcp-session-id": "session-1",
        "mcp-protocol-version": LEGACY
      }
      assert.deepStrictEqual(chosen(server.requests("notifications/initialized")[0]!.headers), legacyHeaders)
      assert.deepStrictEqual(chosen(server.requests("tools/call")[0]!.headers), legacyHeaders)
      const [get] = server.requests("GET")
      assert.deepStrictEqual(chosen(get!.headers), {
        "accept": "text/event-stream",
        "mcp-session-id": "session-1",
        "mcp-protocol-version": LEGACY
      })
      // The GET opened only after notifications/initialized went out.
      assert.isAbove(server.seen.indexOf(get!), server.seen.indexOf(server.requests("notifications/initialized")[0]!))
      const reply = server.seen.find((s) => s.json?.["id"] === "srv-1")!
      assert.deepStrictEqual(reply.json, { jsonrpc: "2.0", id: "srv-1", result: {} })
      assert.deepStrictEqual(chosen(reply.headers), legacyHeaders)
      const [del] = server.requests("DELETE")
      assert.deepStrictEqual(chosen(del!.headers), { "mcp-session-id": "session-1", "mcp-protocol-version": LEGACY })
    }))

  it.live("405 on GET: no GET stream, and no retries", () =>
    Effect.gen(function*() {
      const { server } = yield* legacyServer()
      const client = yield* makeClient(server.url, {}, { reconnectDelay: "20 millis" })
      yield* client.callTool("echo")
      yield* Effect.sleep("300 millis")
      assert.strictEqual(server.requests("GET").length, 1)
    }))

  it.live("a GET stream that drops is resumed with Last-Event-ID after the server's retry", () =>
    Effect.gen(function*() {
      let gets = 0
      const { server } = yield* legacyServer({
        onGet: (_, res) => {
          gets++
          openSse(res)
          if (gets === 1) {
            res.write("id: p0\nretry: 150\ndata:\n\n")
            event(res, { jsonrpc: "2.0", method: "notifications/prompts/list_changed" }, "p1")
            setTimeout(() => res.end(), 20)
          } else {
            event(res, { jsonrpc: "2.0", method: "notifications/resources/list_changed" }, "p2")
          }
        }
      })
      const notifications: Array<string> = []
      const client = yield* makeClient(server.url)
      yield* client.notifications.pipe(
        Stream.runForEach((n) => Effect.sync(() => void notifications.push(n.method))),
        Effect.forkScoped
      )
      yield* client.era
      yield* eventually(() => notifications.length === 2, "both notifications")
      const [first, second] = server.requests("GET")
      assert.isUndefined(first!.headers["last-event-id"])
      assert.strictEqual(second!.headers["last-event-id"], "p1")
      assert.deepStrictEqual(notifications, ["notifications/prompts/list_changed", "notifications/resources/list_changed"])
    }))

  it.live("a POST stream that ends before the response is resumed with GET + Last-Event-ID after retry", () =>
    Effect.gen(function*() {
      let resumedAt = 0
      let closedAt = 0
      const { server } = yield* legacyServer({
        onCall: (_, res) => {
          openSse(res)
          res.write("id: e1\nretry: 200\ndata:\n\n")
          setTimeout(() => {
            closedAt = Date.now()
            res.end()
          }, 20)
        },
        onGet: (seen, res) => {
          if (seen.headers["last-event-id"] === undefined) {
            res.writeHead(405)
            return res.end()
          }
          resumedAt = Date.now()
          const call = server.requests("tools/call")[0]!
          openSse(res)
          event(res, result(call, { content: [{ type: "text", text: "resumed" }] }), "e2")
        }
      })
      const client = yield* makeClient(server.url, {}, { getStream: false })
      const answer = yield* client.callTool("long")
      assert.deepStrictEqual(answer.content, [{ type: "text", text: "resumed" }])
      const [get] = server.requests("GET")
      assert.deepStrictEqual(chosen(get!.headers), {
        "accept": "text/event-stream",
        "mcp-session-id": "session-1",
        "mcp-protocol-version": LEGACY,
        "last-event-id": "e1"
      })
      assert.isAtLeast(resumedAt - closedAt, 180)
      // A disconnect is not a cancellation.
      assert.deepStrictEqual(server.requests("notifications/cancelled"), [])
    }))

  it.live("a response that comes on the GET stream completes its request", () =>
    Effect.gen(function*() {
      let get: ServerResponse | undefined
      const { server } = yield* legacyServer({
        onGet: (_, res) => {
          openSse(res)
          get = res
        },
        onCall: (seen, res) => {
          openSse(res) // stays open and silent: the answer goes out on the GET stream
          event(get!, result(seen, { content: [{ type: "text", text: "via GET" }] }), "g1")
        }
      })
      const client = yield* makeClient(server.url)
      yield* client.era
      yield* eventually(() => get !== undefined, "the GET stream")
      const answer = yield* client.callTool("elsewhere").pipe(Effect.timeout("3 seconds"))
      assert.deepStrictEqual(answer.content, [{ type: "text", text: "via GET" }])
      // Its POST stream was let go.
      yield* Effect.promise(() => server.requests("tools/call")[0]!.closed).pipe(Effect.timeout("2 seconds"))
    }))

  it.live("a POST stream without event ids cannot be resumed: the call fails at once", () =>
    Effect.gen(function*() {
      const { server } = yield* legacyServer({
        onCall: (_, res) => {
          openSse(res)
          setTimeout(() => res.socket?.destroy(), 20)
        }
      })
      const client = yield* makeClient(server.url, {}, { getStream: false })
      const error = yield* client.callTool("long").pipe(Effect.flip)
      assert.strictEqual(error._tag, "McpServerGoneError")
      assert.match(error.message, /broke.*the request is lost/)
      assert.strictEqual(server.requests("GET").length, 0)
    }))

  it.live("a 404 to a request with the session id: the call fails, the connection ends, the next call re-initializes", () =>
    Effect.gen(function*() {
      const { live, server } = yield* legacyServer()
      const client = yield* makeClient(server.url, {}, { getStream: false })
      yield* client.callTool("echo")
      live.clear() // the server forgets the session
      const error = yield* client.callTool("echo").pipe(Effect.flip)
      assert.strictEqual(error._tag, "McpServerGoneError")
      assert.match(error.message, /session expired/)
      const again = yield* client.callTool("echo")
      assert.deepStrictEqual(again.content, [{ type: "text", text: "tools/call in session-2" }])
      const initializes = server.requests("initialize")
      assert.strictEqual(initializes.length, 2)
      assert.isUndefined(initializes[1]!.headers["mcp-session-id"])
      // The expired session is not deleted; the live one is, when the client closes.
    }))

  it.live("cancellation is notifications/cancelled, POSTed with the session", () =>
    Effect.gen(function*() {
      const { server } = yield* legacyServer({
        onCall: (_, res) => {
          openSse(res)
        }
      })
      const client = yield* makeClient(server.url, {}, { getStream: false })
      const error = yield* client.callTool("hang", {}, { timeout: "300 millis" }).pipe(Effect.flip)
      assert.strictEqual(error._tag, "McpTimeoutError")
      yield* eventually(() => server.requests("notifications/cancelled").length === 1, "the cancellation")
      const [cancel] = server.requests("notifications/cancelled")
      const call = server.requests("tools/call")[0]!
      assert.deepInclude(cancel!.json?.["params"] as object, { requestId: idOf(call) })
      assert.strictEqual(cancel!.headers["mcp-session-id"], "session-1")
      assert.strictEqual(cancel!.headers["mcp-protocol-version"], LEGACY)
    }))
})
