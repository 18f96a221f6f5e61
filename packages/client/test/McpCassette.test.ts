/**
 * Cassettes on servers of the testing kit, in memory: recording as a transport layer (normalised, cleaned of
 * secrets), replay under `TestClock` (progress at its recorded offsets, strict matching naming the expected
 * request), and a cassette read bounded with clear errors. Recordings of real servers are in
 * `McpCassette.servers.test.ts`.
 */
import { McpCassette, McpClient, McpTestServer } from "@mcp-effect/client"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import { advance } from "./fixtures/testClock.js"
import { MAX_REMEMBERED, Normaliser } from "../src/internal/cassette/normalise.js"

const SECRET = "sk-live-1234567890abcdef"

const server = (era: "modern" | "legacy") =>
  McpTestServer.make({
    era,
    tools: [
      McpTestServer.tool({
        name: "deploy",
        inputSchema: { type: "object", properties: { env: { type: "string" } } },
        handler: (args, ctx) =>
          Effect.gen(function*() {
            yield* Effect.sleep("100 millis")
            yield* ctx.progress(1, { total: 2, message: "building" })
            yield* Effect.sleep("200 millis")
            yield* ctx.progress(2, { total: 2, message: "shipping" })
            yield* Effect.sleep("50 millis")
            return `deployed to ${String(args["env"])}`
          })
      }),
      // A server that echoes a credential back in its answer.
      McpTestServer.tool({ name: "whoami", handler: () => Effect.succeed(`you are Bearer ${SECRET}, key ${SECRET}`) })
    ]
  })

/** Record one session against `server(era)`, the deploy call's time moved on the test clock. */
const recordSession = (era: "modern" | "legacy", options?: McpCassette.RecordOptions) =>
  Effect.gen(function*() {
    const recorder = McpCassette.makeRecorder(options)
    const progress: Array<number> = []
    const layer = McpClient.layer({ onProgress: (p) => void progress.push(p.progress) }).pipe(
      Layer.provide(McpCassette.record(recorder)),
      Layer.provide(server(era).transport)
    )
    yield* Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      yield* client.listTools()
      const call = yield* Effect.forkChild(client.callTool("deploy", { env: "prod" }))
      yield* advance("100 millis")
      yield* advance("200 millis")
      yield* advance("50 millis")
      yield* Fiber.join(call)
      yield* client.callTool("whoami", {})
      yield* client.callTool("deploy", { env: "staging" }).pipe(Effect.forkChild, Effect.tap(() => advance("1 second")), Effect.flatMap(Fiber.join))
    }).pipe(Effect.provide(layer), Effect.scoped)
    assert.deepStrictEqual(progress.slice(0, 2), [1, 2])
    return recorder.cassette()
  })

describe("McpCassette", () => {
  for (const era of ["modern", "legacy"] as const) {
    it.effect(`${era}: a recorded session replays under TestClock, progress at its recorded offsets`, () =>
      Effect.gen(function*() {
        const cassette = yield* recordSession(era)
        assert.strictEqual(cassette.header.era, era)
        assert.strictEqual(cassette.header.format, "mcp-effect/cassette")
        // Through the file format and back.
        const replay = McpTestServer.fromCassette(yield* McpCassette.parse(McpCassette.encode(cassette)))
        const progress: Array<number> = []
        const texts = yield* Effect.gen(function*() {
          const client = yield* McpClient.McpClient
          const tools = yield* client.listTools()
          assert.deepStrictEqual(tools.map((t) => t.name), ["deploy", "whoami"])
          const call = yield* Effect.forkChild(client.callTool("deploy", { env: "prod" }))
          yield* advance("99 millis")
          assert.deepStrictEqual(progress, [], "nothing before the recorded offset")
          yield* advance("1 millis")
          assert.deepStrictEqual(progress, [1])
          yield* advance("200 millis")
          assert.deepStrictEqual(progress, [1, 2])
          assert.isUndefined(call.pollUnsafe(), "the answer comes at its own offset")
          yield* advance("50 millis")
          const first = yield* Fiber.join(call)
          const whoami = yield* client.callTool("whoami", {}).pipe(Effect.forkChild, Effect.tap(() => advance("1 second")), Effect.flatMap(Fiber.join))
          return [first, whoami].map((r) => r.content[0]?.type === "text" ? r.content[0].text : "")
        }).pipe(Effect.provide(replay.layer({ onProgress: (p) => void progress.push(p.progress) })), Effect.scoped)
        assert.strictEqual(texts[0], "deployed to prod")
        assert.include(texts[1], "[redacted]")
        assert.deepStrictEqual(yield* replay.mismatches, [])
      }))
  }

  it.effect("ids and progress tokens are normalised: two recordings of one session are the same lines", () =>
    Effect.gen(function*() {
      const a = yield* recordSession("modern")
      const b = yield* recordSession("modern")
      const lines = (c: McpCassette.Cassette) => c.entries.map((e) => JSON.stringify(e.message))
      assert.deepStrictEqual(lines(a), lines(b))
      const call = a.entries.find((e) => e.message["method"] === "tools/call")
      const meta = (call?.message["params"] as { _meta?: Record<string, unknown> })._meta ?? {}
      assert.match(String(meta["progressToken"]), /^progress-\d+$/)
      assert.strictEqual(meta["io.modelcontextprotocol/clientInfo"], "[normalised]")
      assert.strictEqual(a.entries[0]?.message["id"], 1)
    }))

  it.effect("a request other than the next recorded one fails, naming the expected request and the difference", () =>
    Effect.gen(function*() {
      const cassette = yield* recordSession("legacy")
      const replay = McpTestServer.fromCassette(cassette, { pacing: "fast" })
      const error = yield* Effect.gen(function*() {
        const client = yield* McpClient.McpClient
        yield* client.listTools()
        return yield* Effect.flip(client.callTool("deploy", { env: "qa" }))
      }).pipe(Effect.provide(replay.layer()), Effect.scoped)
      assert.include(error.message, "tools/call")
      const [mismatch] = yield* replay.mismatches
      assert.strictEqual(mismatch?._tag, "McpCassetteMismatchError")
      assert.include(mismatch?.expected, `"env":"prod"`)
      assert.include(mismatch?.difference, `params.arguments.env: "prod" recorded, "qa" now`)
    }))

  it.effect("calls of one tool replay in recorded order, each with its own answer", () =>
    Effect.gen(function*() {
      const cassette = yield* recordSession("modern")
      const replay = McpTestServer.fromCassette(cassette, { pacing: "fast" })
      const texts = yield* Effect.gen(function*() {
        const client = yield* McpClient.McpClient
        yield* client.listTools()
        const out: Array<string> = []
        for (const args of [{ env: "prod" }]) {
          const r = yield* client.callTool("deploy", args)
          out.push(r.content[0]?.type === "text" ? r.content[0].text : "")
        }
        yield* client.callTool("whoami", {})
        const again = yield* client.callTool("deploy", { env: "staging" })
        out.push(again.content[0]?.type === "text" ? again.content[0].text : "")
        return out
      }).pipe(Effect.provide(replay.layer()), Effect.scoped)
      assert.deepStrictEqual(texts, ["deployed to prod", "deployed to staging"])
    }))

  it.effect("strict: false answers requests out of the recorded order, each recorded answer once", () =>
    Effect.gen(function*() {
      const cassette = yield* recordSession("legacy")
      const text = (r: { readonly content: ReadonlyArray<{ readonly type: string }> }) => {
        const block = r.content[0]
        return block !== undefined && "text" in block ? String(block.text) : ""
      }
      const loose = McpTestServer.fromCassette(cassette, { pacing: "fast", strict: false })
      const texts = yield* Effect.gen(function*() {
        const client = yield* McpClient.McpClient
        yield* client.listTools()
        const staging = text(yield* client.callTool("deploy", { env: "staging" }))
        const prod = text(yield* client.callTool("deploy", { env: "prod" }))
        const again = yield* Effect.flip(client.callTool("deploy", { env: "staging" }))
        return [staging, prod, again.message]
      }).pipe(Effect.provide(loose.layer()), Effect.scoped)
      assert.deepStrictEqual(texts.slice(0, 2), ["deployed to staging", "deployed to prod"])
      assert.include(texts[2], "the cassette expected tools/call {\"name\":\"whoami\"")
      // Strict (the default), the same order fails at once.
      const strict = McpTestServer.fromCassette(cassette, { pacing: "fast" })
      const refused = yield* Effect.gen(function*() {
        const client = yield* McpClient.McpClient
        yield* client.listTools()
        return yield* Effect.flip(client.callTool("deploy", { env: "staging" }))
      }).pipe(Effect.provide(strict.layer()), Effect.scoped)
      assert.include(refused.message, `"env":"prod"`)
    }))

  it.effect("a secret given to the recorder and a credential the server echoes never reach the text", () =>
    Effect.gen(function*() {
      const cassette = yield* recordSession("modern", { secrets: [{ value: SECRET, kind: "--env value" }] })
      const text = McpCassette.encode(cassette)
      assert.notInclude(text, SECRET)
      assert.notInclude(text, Buffer.from(SECRET).toString("base64"))
      const line = cassette.entries.find((e) => JSON.stringify(e.message).includes("you are"))
      assert.include(JSON.stringify(line?.message), "you are Bearer [redacted], key [redacted]")
      assert.includeMembers([...(line?.redacted ?? [])], ["--env value"])
    }))

  for (const era of ["legacy", "modern"] as const) {
    it.effect(`${era}: the server's request is replayed and the client's answer checked against the recorded one`, () =>
      Effect.gen(function*() {
        const asking = McpTestServer.make({
          era,
          tools: [McpTestServer.tool({
            name: "confirm",
            handler: (_args, ctx) =>
              Effect.map(
                ctx.elicit({ message: "Ship it?", requestedSchema: { type: "object", properties: { ok: { type: "boolean" } } } }),
                (answer) => `answered ${JSON.stringify(answer["content"])}`
              )
          })]
        })
        const recorder = McpCassette.makeRecorder()
        const accept = (ok: boolean) => ({ onElicit: () => ({ action: "accept" as const, content: { ok } }) })
        yield* McpClient.callTool("confirm", {}).pipe(
          Effect.provide(McpClient.layer(accept(true)).pipe(Layer.provide(McpCassette.record(recorder)), Layer.provide(asking.transport)))
        )
        const cassette = recorder.cassette()
        const asked = cassette.entries.filter((e) => JSON.stringify(e.message).includes("Ship it?"))
        assert.isAtLeast(asked.length, 1, "the server's question is in the cassette")

        // The same answer: the recorded session goes on to its end.
        const same = McpTestServer.fromCassette(cassette, { pacing: "fast" })
        const questions: Array<string> = []
        const answered = yield* McpClient.callTool("confirm", {}).pipe(
          Effect.provide(same.layer({
            onElicit: (request) => {
              questions.push(String(request.params["message"]))
              return { action: "accept", content: { ok: true } }
            }
          }))
        )
        assert.deepStrictEqual(questions, ["Ship it?"])
        assert.deepStrictEqual(answered.content, [{ type: "text", text: `answered {"ok":true}` }])
        assert.deepStrictEqual(yield* same.mismatches, [])

        // Another answer: the call fails at once, the mismatch naming the recorded answer.
        const other = McpTestServer.fromCassette(cassette, { pacing: "fast" })
        const error = yield* McpClient.callTool("confirm", {}).pipe(Effect.provide(other.layer(accept(false))), Effect.flip)
        const [mismatch] = yield* other.mismatches
        assert.include(mismatch?.difference, "ok: true recorded, false now")
        assert.include(error.message, "ok: true recorded, false now")
      }))
  }

  it.effect("timestamps when asked, and a size bound past which messages are counted, not kept", () =>
    Effect.gen(function*() {
      const clock = McpTestServer.make({
        tools: [McpTestServer.tool({ name: "now", handler: () => Effect.succeed("it is 2026-12-07T18:30:00.123Z here") })]
      })
      const session = (options: McpCassette.RecordOptions) =>
        Effect.gen(function*() {
          const recorder = McpCassette.makeRecorder(options)
          yield* Effect.gen(function*() {
            const client = yield* McpClient.McpClient
            yield* client.callTool("now", {})
            yield* client.callTool("now", {})
          }).pipe(Effect.provide(McpClient.layer().pipe(Layer.provide(McpCassette.record(recorder)), Layer.provide(clock.transport))), Effect.scoped)
          return recorder.cassette()
        })
      const stamped = yield* session({ timestamps: true })
      assert.include(McpCassette.encode(stamped), "it is [timestamp] here")
      assert.include(stamped.header.normalised, "timestamps")
      assert.include(McpCassette.encode(yield* session({})), "2026-12-07T18:30:00.123Z")
      const small = yield* session({ maxBytes: 1500 })
      assert.isAbove(small.header.dropped ?? 0, 0)
      assert.isAtMost(small.entries.reduce((n, e) => n + JSON.stringify(e).length, 0), 1500)
    }))

  it("a server's answer nested 200,000 deep is recorded with timestamps normalised: cut at the recorder's depth, no stack overflow", () => {
    const recorder = McpCassette.makeRecorder({ transport: "memory", timestamps: true })
    const deep: unknown = JSON.parse(`${"[".repeat(200_000)}"2026-12-07T18:30:00Z"${"]".repeat(200_000)}`)
    recorder.record("client", { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "deep", arguments: {} } }, 0)
    recorder.record("server", { jsonrpc: "2.0", id: 1, result: { content: [], structuredContent: { deep } } }, 1)
    const text = McpCassette.encode(recorder.cassette())
    assert.include(text, "[redacted]")
    assert.notInclude(text, "2026-12-07T18:30:00Z")
  })

  it("the size bound counts UTF-8 bytes, as the reader does: 600 euro signs (1,800 bytes) do not fit in 1,000", () => {
    const recorder = McpCassette.makeRecorder({ transport: "memory", maxBytes: 1000 })
    recorder.record("client", { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "echo", arguments: { text: "€".repeat(600) } } }, 0)
    recorder.record("client", { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 1 } }, 1)
    const cassette = recorder.cassette()
    assert.strictEqual(cassette.header.dropped, 1)
    assert.deepStrictEqual(cassette.entries.map((e) => e.message["method"]), ["notifications/cancelled"])
  })

  it.effect("a client's params nested 100,000 deep are a tagged mismatch, and the replay goes on", () =>
    Effect.gen(function*() {
      const cassette = yield* recordSession("modern")
      const sent: Array<unknown> = []
      const { offer } = yield* McpCassette.player(cassette, (m) => Effect.sync(() => void sent.push(m)), { pacing: "fast" })
      const deep: unknown = JSON.parse(`${"[".repeat(100_000)}1${"]".repeat(100_000)}`)
      const first = cassette.entries[0]?.message ?? {}
      const mismatch = yield* Effect.flip(offer({ ...first, id: 7, params: { deep } }))
      assert.strictEqual(mismatch._tag, "McpCassetteMismatchError")
      assert.include(mismatch.received, "nested deeper than 64")
      // Inside params that otherwise match: the comparison stops at the depth a cassette is read to.
      const call = cassette.entries.find((e) => e.message["method"] === "tools/call")?.message ?? {}
      const session = yield* McpCassette.player(cassette, () => Effect.void, { pacing: "fast", strict: false })
      const inner = yield* Effect.flip(session.offer({ ...call, params: { name: "deploy", arguments: { env: deep } } }))
      assert.strictEqual(inner._tag, "McpCassetteMismatchError")
      yield* offer(first)
      yield* advance("1 millis")
      assert.isAbove(sent.length, 0, "the recorded handshake is still answered")
    }).pipe(Effect.scoped))

  it.effect("the header line counts in maxBytes: what is recorded under a bound is read back under the same bound", () =>
    Effect.gen(function*() {
      const recorder = McpCassette.makeRecorder({ transport: "stdio", maxBytes: 700 })
      for (let i = 1; i <= 4; i++) {
        recorder.record("client", { jsonrpc: "2.0", method: "notifications/message", params: { text: "x".repeat(80) } }, i)
      }
      const text = McpCassette.encode(recorder.cassette())
      assert.isAtMost(new TextEncoder().encode(text).length, 700)
      const read = yield* McpCassette.parse(text, "t.ndjson", { maxBytes: 700 })
      assert.isAbove(read.entries.length, 0)
      assert.strictEqual(read.entries.length + (read.header.dropped ?? 0), 4, "each message kept or counted")
    }))

  it("a long session: the normaliser forgets answered ids and remembers at most MAX_REMEMBERED values, however many requests", () => {
    const normaliser = new Normaliser()
    for (let i = 0; i < 10_000; i++) {
      const request = normaliser.message("client", { jsonrpc: "2.0", id: `req-${i}`, method: "ping" })
      const answer = normaliser.message("server", { jsonrpc: "2.0", id: `req-${i}`, result: {} })
      assert.strictEqual(answer["id"], request["id"], "an answer takes its request's number")
    }
    assert.strictEqual(normaliser.remembered, 0, "answered ids are forgotten")
    // Never answered (a host that sends and goes), with progress tokens: bounded all the same.
    for (let i = 0; i < 10_000; i++) {
      normaliser.message("client", { jsonrpc: "2.0", id: i, method: "tools/call", params: { _meta: { progressToken: `t${i}` } } })
    }
    assert.isAtMost(normaliser.remembered, 2 * MAX_REMEMBERED)
    const late = normaliser.message("server", { jsonrpc: "2.0", id: 9_999, result: {} })
    assert.strictEqual(late["id"], 20_000, "a recent request is still numbered")
  })

  describe("reading is bounded", () => {
    const header = McpCassette.encode(McpCassette.makeRecorder({ transport: "stdio" }).cassette()).trim()
    const failure = (text: string, bounds?: McpCassette.Bounds) => Effect.flip(McpCassette.parse(text, "t.ndjson", bounds))

    it.effect("not a cassette, another version, a line that is not JSON, a message without t", () =>
      Effect.gen(function*() {
        assert.include((yield* failure("{}\n")).message, "not a cassette")
        assert.strictEqual((yield* failure(header.replace(`"version":1`, `"version":2`))).reason, "Version")
        const partial = yield* failure(JSON.stringify({ format: "mcp-effect/cassette", version: 1, transport: "stdio" }))
        assert.deepInclude({ reason: partial.reason, line: partial.line }, { reason: "Format", line: 1 })
        assert.include(partial.message, "a header that is not one")
        const notJson = yield* failure(`${header}\n{oops\n`)
        assert.deepInclude({ reason: notJson.reason, line: notJson.line }, { reason: "Format", line: 2 })
        assert.include((yield* failure(`${header}\n{"from":"client","message":{"jsonrpc":"2.0"}}\n`)).message, "line 2")
        assert.strictEqual((yield* failure("")).reason, "Format")
      }))

    it.effect("size, line length and depth", () =>
      Effect.gen(function*() {
        assert.strictEqual((yield* failure(header + "\n" + "x".repeat(200), { maxBytes: 100 })).reason, "Bounds")
        const long = yield* failure(`${header}\n${JSON.stringify({ t: 0, from: "client", message: { jsonrpc: "2.0", method: "x".repeat(600) } })}`, { maxLineBytes: 450 })
        assert.deepInclude({ reason: long.reason, line: long.line }, { reason: "Bounds", line: 2 })
        // Bytes, not characters: 300 two-byte characters are 600 bytes.
        const wide = `${header}\n${JSON.stringify({ t: 0, from: "client", message: { jsonrpc: "2.0", method: "é".repeat(300) } })}`
        const wideError = yield* failure(wide, { maxLineBytes: 500 })
        assert.deepInclude({ reason: wideError.reason, line: wideError.line }, { reason: "Bounds", line: 2 })
        assert.strictEqual((yield* McpCassette.parse(wide, "t", { maxLineBytes: 800 })).entries.length, 1)
        const deep = `${header}\n{"t":0,"from":"client","message":{"jsonrpc":"2.0","params":${"[".repeat(100000)}${"]".repeat(100000)}}}`
        const tooDeep = yield* failure(deep)
        assert.strictEqual(tooDeep.reason, "Bounds")
        assert.include(tooDeep.message, "nested deeper than 64")
      }))
  })
})
