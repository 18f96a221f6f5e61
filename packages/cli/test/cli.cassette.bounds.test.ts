/**
 * `replay --http` and `record --url` against a host that sends too much: a body past the bound is refused with
 * 413 and a JSON-RPC error (not a reset connection), and a host that initializes again and again keeps at
 * most the bounded number of legacy sessions. The loopback servers run in-process (their own sources).
 */
import { McpCassette } from "@mcp-effect/client"
import { assert, describe, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import { request } from "node:http"
import * as httpProxy from "../src/internal/cassette/httpProxy.js"
import * as httpReplay from "../src/internal/cassette/httpReplay.js"
import { MAX_BODY } from "../src/internal/cassette/loopback.js"
import * as ReplaySession from "../src/internal/cassette/replaySession.js"

/** A legacy cassette of one handshake. */
const legacyCassette = () => {
  const recorder = McpCassette.makeRecorder({ transport: "http", path: "/mcp" })
  const init = { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } }
  recorder.record("client", { jsonrpc: "2.0", id: 1, method: "initialize", params: init }, 0)
  recorder.record(
    "server",
    { jsonrpc: "2.0", id: 1, result: { protocolVersion: "2025-06-18", capabilities: {}, serverInfo: { name: "s", version: "1" } } },
    1
  )
  return recorder.cassette()
}

/** One request by `node:http` (which reads an answer that comes before the body is all sent). */
const send = (url: string, method: string, body: string | Buffer, headers: Record<string, string> = {}) =>
  Effect.promise(() =>
    new Promise<{ status: number; headers: Record<string, unknown>; text: string }>((resolve, reject) => {
      let answered = false
      const req = request(url, { method, headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers } }, (res) => {
        answered = true
        const chunks: Array<Buffer> = []
        res.on("data", (chunk: Buffer) => chunks.push(chunk))
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString("utf8") }))
      })
      // The server may close once it has answered: what was still being sent is not the test's concern then.
      req.on("error", (error) => answered ? undefined : reject(error))
      req.end(body)
    })
  )

const initialize = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "h", version: "1" } }
})

describe("replay --http and record --url bounds", () => {
  it.live("replay --http: a body past MAX_BODY is refused with 413 and a JSON-RPC error; the replay still answers", () =>
    Effect.gen(function*() {
      const url = yield* httpReplay.serve(legacyCassette(), 0, { fast: true, anyOrder: false })
      const big = yield* send(url, "POST", Buffer.alloc(MAX_BODY + 1024, 0x20))
      assert.strictEqual(big.status, 413)
      assert.include(big.text, `request body larger than ${MAX_BODY} bytes`)
      const ok = yield* send(url, "POST", initialize)
      assert.strictEqual(ok.status, 200)
      assert.include(ok.text, `"serverInfo"`)
    }).pipe(Effect.scoped), 60_000)

  it.live("replay --http: a host that initializes again and again keeps at most maxSessions sessions, the oldest forgotten", () =>
    Effect.gen(function*() {
      const url = yield* httpReplay.serve(legacyCassette(), 0, { fast: true, anyOrder: false, maxSessions: 2 })
      const sessions: Array<string> = []
      for (let i = 0; i < 3; i++) {
        const answer = yield* send(url, "POST", initialize)
        sessions.push(String(answer.headers["mcp-session-id"]))
      }
      const statusOf = (session: string | undefined) =>
        Effect.map(send(url, "DELETE", "", { "mcp-session-id": session ?? "" }), (answer) => answer.status)
      assert.deepStrictEqual([yield* statusOf(sessions[0]), yield* statusOf(sessions[1]), yield* statusOf(sessions[2])], [404, 200, 200])
      assert.strictEqual(httpReplay.MAX_SESSIONS, 1024)
    }).pipe(Effect.scoped), 60_000)

  it.live("record --url: a body past MAX_BODY is refused with 413, nothing sent upstream", () =>
    Effect.gen(function*() {
      const recorder = McpCassette.makeRecorder({ transport: "http", path: "/mcp" })
      const url = yield* httpProxy.listen(
        { recorder, upstream: new URL("http://127.0.0.1:9/mcp"), headers: {}, now: () => 0 },
        0
      )
      const big = yield* send(url, "POST", Buffer.alloc(MAX_BODY + 1024, 0x20))
      assert.strictEqual(big.status, 413)
      assert.include(big.text, "request body larger than")
      assert.strictEqual(recorder.cassette().entries.length, 0)
    }).pipe(Effect.scoped), 60_000)

  it.effect("replay (stdio's session): params and an id nested 100,000 deep are answered with the mismatch error; the replay goes on", () =>
    Effect.gen(function*() {
      const sent: Array<string> = []
      const handshake = yield* Deferred.make<string>()
      // As stdio's `send` writes: one JSON line per message.
      const emit = (m: Record<string, unknown>) =>
        Effect.suspend(() => {
          const line = JSON.stringify(m)
          sent.push(line)
          return line.includes(`"serverInfo"`) ? Deferred.succeed(handshake, line) : Effect.void
        })
      const replay = yield* ReplaySession.make(legacyCassette(), (m) => Effect.asVoid(emit(m)), { fast: true, anyOrder: false })
      const deep: unknown = JSON.parse(`${"[".repeat(100_000)}1${"]".repeat(100_000)}`)
      yield* replay.offer({ jsonrpc: "2.0", id: 5, method: "initialize", params: { deep } })
      yield* replay.offer({ jsonrpc: "2.0", id: deep, method: "initialize", params: {} })
      const answers = sent.map((line) => JSON.parse(line) as { id: unknown; error?: { code: number; message: string } })
      assert.deepStrictEqual(answers.map((a) => [a.id, a.error?.code]), [[5, ReplaySession.MISMATCH_CODE], [null, ReplaySession.MISMATCH_CODE]])
      assert.include(answers[0]?.error?.message, "nested deeper than 64")
      yield* replay.offer(JSON.parse(initialize) as Record<string, unknown>)
      assert.include(yield* Deferred.await(handshake), `"id":1`)
    }).pipe(Effect.scoped))
})
