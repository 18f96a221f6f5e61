/**
 * The HTTP transport against real servers over loopback: `@modelcontextprotocol/server-everything` in its
 * Streamable HTTP mode (a legacy, sessionful server) and our demo server on the official SDK 2.x in each era.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import { createRequire } from "node:module"
import * as path from "node:path"
import { eventually, launch, makeClient } from "../fixtures/httpServer.js"

const require = createRequire(import.meta.url)
const everything = require.resolve("@modelcontextprotocol/server-everything/dist/index.js")
const loopback = path.join(import.meta.dirname, "../fixtures/loopback.mjs")
const official = path.join(import.meta.dirname, "../../../test-servers/dist/official.js")

const textOf = (result: { readonly content: ReadonlyArray<unknown> }) =>
  result.content.map((block) => (block as { text?: string }).text ?? "").join("")

describe("server-everything over Streamable HTTP (legacy)", () => {
  it.live("tools, progress, and a server request on the GET stream answered by POST", () =>
    Effect.gen(function*() {
      // It listens on a fixed port on every interface; the preload moves it to 127.0.0.1 on a free port.
      const url = yield* launch(process.execPath, ["--import", loopback, everything, "streamableHttp"])
      const progress: Array<number> = []
      const client = yield* makeClient(url, {
        onProgress: (report) => void progress.push(report.progress),
        onListRoots: () => Effect.succeed({ roots: [{ uri: "file:///srv", name: "srv" }] })
      })
      const logs: Array<string> = []
      yield* client.notifications.pipe(
        Stream.filter((n) => n.method === "notifications/message"),
        Stream.runForEach((n) => Effect.sync(() => void logs.push(String(n.params?.["data"])))),
        Effect.forkScoped
      )
      assert.strictEqual(yield* client.era, "legacy")
      assert.strictEqual((yield* client.serverInfo)?.name, "mcp-servers/everything")
      const tools = (yield* client.listTools()).map((tool) => tool.name)
      assert.includeMembers(tools, ["echo", "get-sum", "trigger-long-running-operation"])
      assert.strictEqual(textOf(yield* client.callTool("echo", { message: "hi" })), "Echo: hi")
      const long = yield* client.callTool("trigger-long-running-operation", { duration: 0.3, steps: 3 })
      assert.match(textOf(long), /completed/)
      assert.deepStrictEqual(progress, [1, 2, 3])
      // 350 ms after initialization the server asks for the roots on the GET stream, then logs what it got.
      yield* eventually(() => logs.some((log) => log.includes("1 root(s)")), "the roots log", 10_000)
    }))
})

describe("the official SDK 2.x server over Streamable HTTP", () => {
  it.live("both eras offered: modern; progress, cancellation, input rounds and a listen stream", () =>
    Effect.gen(function*() {
      const url = yield* launch(process.execPath, [official, "--http", "--port", "0", "--era", "both"])
      const progress: Array<number> = []
      const client = yield* makeClient(url, {
        onProgress: (report) => void progress.push(report.progress),
        onElicit: () => Effect.succeed({ action: "accept", content: { ok: true } })
      })
      assert.strictEqual(yield* client.era, "modern")
      assert.strictEqual((yield* client.serverInfo)?.name, "official-demo")
      assert.includeMembers((yield* client.listTools()).map((tool) => tool.name), ["echo", "slow", "confirm"])
      assert.strictEqual(textOf(yield* client.callTool("echo", { text: "héllo" })), "héllo")
      assert.strictEqual(textOf(yield* client.callTool("slow", { ms: 150, steps: 3 })), "done")
      assert.deepStrictEqual(progress, [1, 2, 3])
      const timedOut = yield* client.callTool("slow", { ms: 5000 }, { timeout: "200 millis" }).pipe(Effect.flip)
      assert.strictEqual(timedOut._tag, "McpTimeoutError")
      assert.strictEqual(textOf(yield* client.callTool("confirm", { question: "ok?" })), "confirmed: true")
      const greeting = yield* client.readResource("demo://greeting")
      assert.deepInclude(greeting.contents[0], { text: "Hello from the official SDK" })

      const subscription = yield* client.listen({ toolsListChanged: true })
      assert.deepStrictEqual(subscription.acknowledged, { toolsListChanged: true })
      yield* client.callTool("toggle_extra")
      const changed = yield* subscription.notifications.pipe(Stream.runHead, Effect.timeout("5 seconds"))
      assert.strictEqual(changed._tag === "Some" ? changed.value.method : "none", "notifications/tools/list_changed")
      assert.include((yield* client.listTools()).map((tool) => tool.name), "extra")
    }))

  it.live("a legacy-only server: initialize, a session, server requests on the POST stream, the GET stream", () =>
    Effect.gen(function*() {
      const url = yield* launch(process.execPath, [official, "--http", "--port", "0", "--era", "legacy"])
      const logs: Array<string> = []
      const client = yield* makeClient(url, {
        onElicit: () => Effect.succeed({ action: "accept", content: { ok: false } }),
        onListRoots: () => Effect.succeed({ roots: [{ uri: "file:///a", name: "a" }] }),
        onLog: (message) => void logs.push(String(message.data))
      })
      const changes: Array<string> = []
      yield* client.notifications.pipe(
        Stream.filter((n) => n.method === "notifications/tools/list_changed"),
        Stream.runForEach((n) => Effect.sync(() => void changes.push(n.method))),
        Effect.forkScoped
      )
      assert.strictEqual(yield* client.era, "legacy")
      assert.strictEqual(textOf(yield* client.callTool("echo", { text: "x" })), "x")
      assert.strictEqual(textOf(yield* client.callTool("confirm", { question: "ok?" })), "confirmed: false")
      assert.strictEqual(textOf(yield* client.callTool("roots")), "file:///a")
      assert.strictEqual(textOf(yield* client.callTool("log", { message: "hello" })), "logged")
      assert.includeMembers(logs, ["hello"])
      const timedOut = yield* client.callTool("slow", { ms: 5000 }, { timeout: "200 millis" }).pipe(Effect.flip)
      assert.strictEqual(timedOut._tag, "McpTimeoutError")
      // The change is announced outside any request: on the GET stream.
      yield* client.callTool("toggle_extra")
      yield* eventually(() => changes.length > 0, "tools/list_changed")
      assert.include((yield* client.listTools()).map((tool) => tool.name), "extra")
    }))
})
