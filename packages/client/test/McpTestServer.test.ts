/**
 * The testing kit, used as a user would: code that depends on `McpClient`, a server declared in a few lines,
 * `@effect/vitest` and `TestClock`; no JSON-RPC, but for the last test, which speaks it to the server directly.
 */
import { McpClient, McpTestServer, McpTransport } from "@mcp-effect/client"
import { assert, describe, it } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Fiber from "effect/Fiber"
import * as Stream from "effect/Stream"
import { TestClock } from "effect/testing"
import { exchange, receive } from "./fixtures/connection.js"

// The code under test: it depends on McpClient only.
const deploy = (env: string) =>
  Effect.gen(function*() {
    const client = yield* McpClient.McpClient
    const result = yield* client.callTool("deploy", { env }, { timeout: "10 seconds" })
    const block = result.content[0]
    return block?.type === "text" ? block.text : "no text"
  })

const confirm = { type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"] }

const server = (era: "modern" | "legacy") =>
  McpTestServer.make({
    era,
    tools: [
      McpTestServer.tool({
        name: "deploy",
        inputSchema: { type: "object", properties: { env: { type: "string" } } },
        handler: (args, ctx) =>
          Effect.gen(function*() {
            yield* ctx.progress(1, { total: 3, message: "checking" })
            yield* ctx.log("info", `deploying to ${String(args["env"])}`)
            const first = yield* ctx.elicit({ message: "Proceed?", requestedSchema: confirm })
            const second = yield* ctx.elicit({ message: "Really?", requestedSchema: confirm })
            yield* ctx.progress(3, { total: 3 })
            return `${String(args["env"])}: ${String(first["action"])}, ${String(second["action"])}`
          })
      }),
      McpTestServer.tool({
        name: "slow",
        handler: () => Effect.as(Effect.sleep("1 minute"), "finally")
      })
    ],
    resources: [{ uri: "file:///notes.txt", mimeType: "text/plain", read: () => Effect.succeed("remember the milk") }],
    prompts: [{ name: "greet", arguments: [{ name: "who" }], get: (args) => Effect.succeed(`Hello ${String(args["who"])}`) }]
  })

describe("McpTestServer", () => {
  for (const era of ["modern", "legacy"] as const) {
    it.effect(`${era}: two input rounds, progress and a log message, under TestClock without moving it`, () =>
      Effect.gen(function*() {
        const kit = server(era)
        const progress: Array<number> = []
        const logs: Array<unknown> = []
        const asked: Array<unknown> = []
        const text = yield* deploy("prod").pipe(Effect.provide(kit.layer({
          logLevel: "info",
          onLog: (message) => void logs.push(message.data),
          onProgress: (report) => void progress.push(report.progress),
          onElicit: (request) => {
            asked.push(request.params["message"])
            return { action: "accept", content: { ok: true } }
          }
        })))
        assert.strictEqual(text, "prod: accept, accept")
        assert.deepStrictEqual(asked, ["Proceed?", "Really?"])
        assert.deepStrictEqual(logs.includes("deploying to prod"), true)
        assert.isTrue(progress.includes(3))
        assert.strictEqual((yield* kit.requests(era === "modern" ? "server/discover" : "initialize")).length, 1)
      }))
  }

  it.effect("a slow tool times out when the TestClock passes the request timeout", () =>
    Effect.gen(function*() {
      const kit = server("modern")
      const fiber = yield* McpClient.callTool("slow", {}, { timeout: "5 seconds" }).pipe(
        Effect.flip,
        Effect.provide(kit.layer()),
        // Started from the clock: TestClock.adjust runs the call until it waits before moving time.
        Effect.delay("1 millis"),
        Effect.forkChild
      )
      yield* TestClock.adjust("6 seconds")
      const error = yield* Fiber.join(fiber)
      assert.strictEqual(error._tag, "McpTimeoutError")
    }))

  it.effect("resources and prompts, both eras", () =>
    Effect.gen(function*() {
      for (const era of ["modern", "legacy"] as const) {
        const kit = server(era)
        const [read, prompt] = yield* Effect.flatMap(McpClient.McpClient, (client) =>
          Effect.all([client.readResource("file:///notes.txt"), client.getPrompt("greet", { who: "Ada" })])).pipe(
            Effect.provide(kit.layer())
          )
        const contents = read.contents[0]
        assert.strictEqual(contents !== undefined && "text" in contents ? contents.text : "", "remember the milk")
        const message = prompt.messages[0]
        assert.strictEqual(message?.content.type === "text" ? message.content.text : "", "Hello Ada")
      }
    }))

  it.effect("server.notify reaches the listens whose filter covers it (modern), other methods every listen", () =>
    Effect.gen(function*() {
      const kit = server("modern")
      const [tools, notes] = yield* Effect.gen(function*() {
        const client = yield* McpClient.McpClient
        const a = yield* client.listen({ toolsListChanged: true })
        const b = yield* client.listen({ resourceSubscriptions: ["file:///notes"] })
        yield* kit.notify("notifications/tools/list_changed", {})
        yield* kit.notify("notifications/resources/updated", { uri: "file:///other.txt" })
        yield* kit.notify("notifications/resources/updated", { uri: "file:///notes.txt" })
        yield* kit.notify("notifications/example/hello", {})
        const seen = (subscription: McpClient.Subscription) =>
          subscription.notifications.pipe(
            Stream.take(2),
            Stream.map((n) => `${n.method}${typeof n.params?.["uri"] === "string" ? ` ${n.params["uri"]}` : ""}`),
            Stream.runCollect
          )
        return yield* Effect.all([seen(a), seen(b)])
      }).pipe(Effect.scoped, Effect.provide(kit.layer()))
      assert.deepStrictEqual(tools, ["notifications/tools/list_changed", "notifications/example/hello"])
      assert.deepStrictEqual(notes, ["notifications/resources/updated file:///notes.txt", "notifications/example/hello"])
    }))

  it.effect("a declined elicitation reaches the handler; an unknown tool is a protocol error", () =>
    Effect.gen(function*() {
      const kit = server("modern")
      const text = yield* deploy("staging").pipe(Effect.provide(kit.layer()))
      assert.strictEqual(text, "staging: decline, decline")
      const error = yield* McpClient.callTool("nope").pipe(Effect.flip, Effect.provide(kit.layer()))
      assert.strictEqual(error._tag, "McpProtocolError")
    }))
})

describe("McpTestServer on the wire", () => {
  it.effect("a requestState it never issued is a JSON-RPC error, not a crash of the server", () =>
    Effect.gen(function*() {
      const { transport } = McpTestServer.make({
        tools: [McpTestServer.tool({ name: "echo", handler: () => Effect.succeed("ok") })]
      })
      const connection = yield* Effect.flatMap(
        Layer.build(transport),
        (context) => Context.get(context, McpTransport.McpTransport).connect
      )
      const queue = yield* receive(connection)
      const context = { era: "modern" as const, protocolVersion: "2026-07-28" }
      const call = (id: number, requestState: unknown) =>
        exchange(connection, queue, {
          jsonrpc: "2.0",
          id,
          method: "tools/call",
          params: { name: "echo", arguments: {}, requestState }
        }, context)
      for (const [id, state] of [[1, "{not json"], [2, 42], [3, "[1]"]] as const) {
        const answer = yield* call(id, state)
        assert.strictEqual(answer._tag, "Message")
        const message = answer._tag === "Message" ? answer.message as { id: number; error?: { code: number } } : undefined
        assert.strictEqual(message?.id, id)
        assert.strictEqual(message?.error?.code, -32602)
      }
      // The server is still there.
      const fine = yield* call(4, JSON.stringify({}))
      assert.deepStrictEqual(fine._tag === "Message" ? (fine.message as { result?: { content?: unknown } }).result?.content : undefined, [
        { type: "text", text: "ok" }
      ])
    }))
})
