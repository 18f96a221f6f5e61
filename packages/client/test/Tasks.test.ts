/**
 * Legacy tasks (2025-11-25): a tool with `execution.taskSupport: "required"` is called as a task, polled with
 * tasks/get, its result read with tasks/result, progress reported for the task's life, and an interrupted
 * call cancelled with tasks/cancel. TestClock drives the polling.
 */
import { McpClient, McpTestServer } from "@mcp-effect/client"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as TestClock from "effect/TestClock"

const server = McpTestServer.make({
  era: "legacy",
  tools: [
    McpTestServer.tool({
      name: "render",
      taskSupport: "required",
      pollInterval: 500,
      handler: (args, ctx) =>
        Effect.gen(function*() {
          yield* ctx.progress(1, { total: 2 })
          yield* Effect.sleep("2 seconds")
          yield* ctx.progress(2, { total: 2 })
          return `rendered ${String(args["scene"])}`
        })
    }),
    McpTestServer.tool({ name: "forever", taskSupport: "required", handler: () => Effect.never })
  ]
})

const paramsOf = (message: Record<string, unknown> | undefined) => (message?.["params"] ?? {}) as Record<string, unknown>

describe("legacy tasks", () => {
  it.effect("a required-task tool: created with task, polled, result read, progress for the task's life", () =>
    Effect.gen(function*() {
      const progress: Array<number> = []
      const fiber = yield* Effect.gen(function*() {
        const client = yield* McpClient.McpClient
        yield* client.listTools()
        return yield* client.callTool("render", { scene: "castle" })
      }).pipe(
        Effect.provide(server.layer({ onProgress: (report) => void progress.push(report.progress) })),
        Effect.fork
      )
      for (let i = 0; i < 6; i++) yield* TestClock.adjust("500 millis")
      const result = yield* Fiber.join(fiber)
      const block = result.content[0]
      assert.strictEqual(block?.type === "text" ? block.text : "", "rendered castle")
      const [call] = yield* server.requests("tools/call")
      assert.deepStrictEqual(paramsOf(call)["task"], {})
      assert.isAbove((yield* server.requests("tasks/get")).length, 0)
      assert.strictEqual((yield* server.requests("tasks/result")).length, 1)
      assert.deepStrictEqual(progress, [1, 2])
    }))

  it.effect("interrupting the call cancels the task with tasks/cancel", () =>
    Effect.gen(function*() {
      const kit = McpTestServer.make(server.definition)
      const fiber = yield* Effect.gen(function*() {
        const client = yield* McpClient.McpClient
        yield* client.listTools()
        const call = yield* Effect.fork(client.callTool("forever"))
        yield* TestClock.adjust("1 second")
        yield* Fiber.interrupt(call)
      }).pipe(Effect.provide(kit.layer()), Effect.fork)
      yield* TestClock.adjust("1 second")
      yield* Fiber.join(fiber)
      const cancels = yield* kit.requests("tasks/cancel")
      assert.strictEqual(cancels.length, 1)
      assert.strictEqual(paramsOf(cancels[0])["taskId"], "task-1")
      const received = yield* kit.received
      assert.isFalse(received.some((m) => m["method"] === "notifications/cancelled"))
    }))
})
