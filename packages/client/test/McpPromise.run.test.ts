/**
 * How a Promise call settles now that it is resolved from its fiber's end (no `runPromiseExit` per call):
 * failures reject with the tagged error instance itself, whether the effect failed at once or after the
 * round trip; an abort before the call sends nothing, an abort during it cancels it on the wire, an abort after
 * it changes nothing; and no abort listener is left on the signal.
 */
import { McpError, McpPromise, McpTestServer } from "@mcp-effect/client"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { getEventListeners } from "node:events"

const serverOf = () =>
  McpTestServer.make({
    era: "legacy",
    tools: [
      McpTestServer.tool({ name: "echo", handler: (args) => Effect.succeed(String(args["text"])) }),
      McpTestServer.tool({ name: "slow", handler: () => Effect.as(Effect.never, "never") })
    ]
  })

const rejection = (promise: Promise<unknown>): Promise<unknown> => promise.then(() => "resolved", (error: unknown) => error)
const sent = (server: McpTestServer.TestServer) => (method: string) => Effect.runPromise(server.requests(method))
const cancelledIds = (server: McpTestServer.TestServer) => async () =>
  (await Effect.runPromise(server.received))
    .filter((m) => m["method"] === "notifications/cancelled")
    .map((m) => (m["params"] as { requestId?: unknown }).requestId)
const until = async (done: () => Promise<boolean>) => {
  while (!(await done())) await new Promise((resolve) => setTimeout(resolve, 5))
}

describe("Promise calls settle from their fiber", () => {
  it.live("a failure before anything is sent rejects with the tagged error instance, never a FiberFailure", () =>
    Effect.promise(async () => {
      const server = serverOf()
      const client = await McpPromise.fromLayer(server.layer())
      try {
        const error = await rejection(client.callTool("", {}))
        assert.instanceOf(error, McpError.McpTransportError)
        assert.strictEqual((error as McpError.McpTransportError).reason, "Write")
        assert.notInclude(String(error), "FiberFailure")
        const protocol = await rejection(client.request("tools/frobnicate", {}))
        assert.instanceOf(protocol, McpError.McpProtocolError)
        assert.strictEqual((protocol as McpError.McpProtocolError).code, -32601)
      } finally {
        await client.close()
      }
    }))

  it.live("an abort before the call sends nothing; after the answer it changes nothing; no listener is left", () =>
    Effect.promise(async () => {
      const server = serverOf()
      const client = await McpPromise.fromLayer(server.layer())
      try {
        const before = (await sent(server)("tools/call")).length
        const aborted = await rejection(client.callTool("echo", { text: "a" }, { signal: AbortSignal.abort("early") }))
        assert.strictEqual(aborted, "early")
        assert.strictEqual((await sent(server)("tools/call")).length, before)

        const controller = new AbortController()
        const result = await client.callTool("echo", { text: "b" }, { signal: controller.signal })
        assert.deepStrictEqual(result.content, [{ type: "text", text: "b" }])
        assert.strictEqual(getEventListeners(controller.signal, "abort").length, 0)
        controller.abort("late")
        assert.deepStrictEqual(await cancelledIds(server)(), [])
      } finally {
        await client.close()
      }
    }))

  it.live("an abort during the call rejects with the reason and cancels the request on the wire", () =>
    Effect.promise(async () => {
      const server = serverOf()
      const client = await McpPromise.fromLayer(server.layer())
      try {
        const controller = new AbortController()
        const call = rejection(client.callTool("slow", {}, { signal: controller.signal }))
        await until(async () => (await sent(server)("tools/call")).length > 0)
        controller.abort("stop")
        assert.strictEqual(await call, "stop")
        assert.strictEqual(getEventListeners(controller.signal, "abort").length, 0)
        const [request] = await sent(server)("tools/call")
        await until(async () => (await cancelledIds(server)()).length > 0)
        assert.deepStrictEqual(await cancelledIds(server)(), [request?.["id"]])
        // The client goes on: the next call is answered.
        assert.deepStrictEqual((await client.callTool("echo", { text: "c" })).content, [{ type: "text", text: "c" }])
      } finally {
        await client.close()
      }
    }))
})
