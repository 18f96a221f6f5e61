/**
 * Legacy tasks (2025-11-25): a tool with `execution.taskSupport: "required"` is called as a task, polled with
 * tasks/get, its result read with tasks/result, progress reported for the task's life, and an interrupted
 * call cancelled with tasks/cancel. TestClock drives the polling.
 */
import { McpClient, McpTestServer, type McpTransport } from "@mcp-effect/client"
import { assert, describe, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { TestClock } from "effect/testing"
import {
  type FakeServer,
  type Handler,
  LEGACY_INITIALIZE,
  legacyServer,
  MODERN_DISCOVER,
  modernServer,
  ok,
  paramsOf,
  silent
} from "./fixtures/memoryServer.js"
import * as Tasks from "../src/internal/tasks.js"

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

/**
 * Let forked fibers run up to their next wait. Effect 3's `TestClock.adjust` waited for them; Effect 4's does not,
 * so the test lets them reach their sleep before moving the clock.
 */
const settle = Effect.repeat(Effect.yieldNow, { times: 20 })

/** Move the test clock once every fiber waits on it, and let the woken ones run. */
const advance = (duration: Duration.Input) =>
  settle.pipe(Effect.andThen(TestClock.adjust(duration)), Effect.andThen(settle))

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
        Effect.forkChild
      )
      for (let i = 0; i < 6; i++) yield* advance("500 millis")
      const result = yield* Fiber.join(fiber)
      const block = result.content[0]
      assert.strictEqual(block?.type === "text" ? block.text : "", "rendered castle")
      const [call] = yield* server.requests("tools/call")
      assert.deepStrictEqual(paramsOf(call)["task"], {})
      assert.isAbove((yield* server.requests("tasks/get")).length, 0)
      assert.strictEqual((yield* server.requests("tasks/result")).length, 1)
      assert.deepStrictEqual(progress, [1, 2])
    }))

  it.effect("onTaskCreated is called once with the task's id and era before the first poll", () =>
    Effect.gen(function*() {
      const kit = McpTestServer.make(server.definition)
      const created: Array<{ readonly taskId: string; readonly era: string; readonly polled: number }> = []
      const fiber = yield* Effect.gen(function*() {
        const client = yield* McpClient.McpClient
        yield* client.listTools()
        return yield* client.callTool("render", { scene: "tower" })
      }).pipe(
        Effect.provide(kit.layer({
          onTaskCreated: (task) =>
            Effect.map(kit.requests("tasks/get"), (gets) =>
              void created.push({ taskId: task.taskId, era: task.era, polled: gets.length }))
        })),
        Effect.forkChild
      )
      for (let i = 0; i < 6; i++) yield* advance("500 millis")
      yield* Fiber.join(fiber)
      assert.deepStrictEqual(created, [{ taskId: "task-1", era: "legacy", polled: 0 }])
    }))

  it.effect("a tasks/get answer about another task is an invalid response", () =>
    Effect.gen(function*() {
      const asked: Array<string> = []
      const error = yield* Tasks.pollLegacyTask(
        {
          request: (method) =>
            Effect.sync(() => {
              asked.push(method)
              return { taskId: "task-2", status: "completed" }
            })
        },
        { taskId: "task-1", status: "working", pollInterval: 50 }
      ).pipe(Effect.flip, Effect.forkChild, Effect.tap(() => advance("50 millis")), Effect.flatMap(Fiber.join))
      assert.strictEqual(error._tag, "McpInvalidResponseError")
      assert.include(error.message, "task-2")
      assert.deepStrictEqual(asked, ["tasks/get"])
    }))

  it.effect("a required-task tool called before any listing: the catalogue is fetched once, the call is a task", () =>
    Effect.gen(function*() {
      // The server is shared by the tests of this file: count what this test adds.
      const callsBefore = (yield* server.requests("tools/call")).length
      const listsBefore = (yield* server.requests("tools/list")).length
      const fiber = yield* Effect.gen(function*() {
        const client = yield* McpClient.McpClient
        const first = yield* client.callTool("render", { scene: "castle" })
        const second = yield* client.callTool("render", { scene: "moon" })
        return [first, second]
      }).pipe(Effect.provide(server.layer()), Effect.forkChild)
      for (let i = 0; i < 12; i++) yield* advance("500 millis")
      const results = yield* Fiber.join(fiber)
      assert.deepStrictEqual(
        results.map((result) => result.content[0]?.type === "text" ? result.content[0].text : ""),
        ["rendered castle", "rendered moon"]
      )
      const calls = (yield* server.requests("tools/call")).slice(callsBefore)
      assert.deepStrictEqual(calls.map((call) => paramsOf(call)["task"]), [{}, {}])
      assert.strictEqual((yield* server.requests("tools/list")).length - listsBefore, 1)
    }))

  it.effect("interrupting the call cancels the task with tasks/cancel", () =>
    Effect.gen(function*() {
      const kit = McpTestServer.make(server.definition)
      const fiber = yield* Effect.gen(function*() {
        const client = yield* McpClient.McpClient
        yield* client.listTools()
        const call = yield* Effect.forkChild(client.callTool("forever"))
        yield* advance("1 second")
        yield* Fiber.interrupt(call)
      }).pipe(Effect.provide(kit.layer()), Effect.forkChild)
      yield* advance("1 second")
      yield* Fiber.join(fiber)
      const cancels = yield* kit.requests("tasks/cancel")
      assert.strictEqual(cancels.length, 1)
      assert.strictEqual(paramsOf(cancels[0])["taskId"], "task-1")
      const received = yield* kit.received
      assert.isFalse(received.some((m) => m["method"] === "notifications/cancelled"))
    }))
})

const modern = McpTestServer.make({
  era: "modern",
  tools: [
    McpTestServer.tool({
      name: "build",
      taskSupport: "optional",
      pollInterval: 500,
      handler: (args, ctx) =>
        Effect.gen(function*() {
          const answer = yield* ctx.elicit({ message: "Deploy after building?", requestedSchema: { type: "object", properties: {} } })
          yield* Effect.sleep("1 second")
          if (args["fail"] === true) return yield* Effect.fail("compiler crashed")
          return `built, ${String(answer["action"])}`
        })
    }),
    McpTestServer.tool({ name: "endless", taskSupport: "optional", handler: () => Effect.never })
  ]
})

describe("the modern tasks extension", () => {
  it.effect("declared when advertised; a task answer is polled, its input served with tasks/update, its result returned", () =>
    Effect.gen(function*() {
      // No task notifications: the polling path (McpClient.tasks.notifications.test.ts has the other).
      const kit = McpTestServer.make({ ...modern.definition, taskNotifications: false })
      const fiber = yield* McpClient.callTool("build").pipe(
        Effect.provide(kit.layer({ onElicit: () => ({ action: "accept", content: {} }) })),
        Effect.forkChild
      )
      for (let i = 0; i < 8; i++) yield* advance("500 millis")
      const result = yield* Fiber.join(fiber)
      const block = result.content[0]
      assert.strictEqual(block?.type === "text" ? block.text : "", "built, accept")
      const [call] = yield* kit.requests("tools/call")
      const meta = paramsOf(call)["_meta"] as Record<string, Record<string, Record<string, unknown>>> | undefined
      assert.deepStrictEqual(meta?.["io.modelcontextprotocol/clientCapabilities"]?.["extensions"], {
        "io.modelcontextprotocol/tasks": {}
      })
      const updates = yield* kit.requests("tasks/update")
      assert.strictEqual(updates.length, 1)
      assert.deepStrictEqual(paramsOf(updates[0])["inputResponses"], { input_1: { action: "accept", content: {} } })
      assert.isAbove((yield* kit.requests("tasks/get")).length, 1)
    }))

  it.effect("a failed task is its JSON-RPC error; interrupting the call sends tasks/cancel", () =>
    Effect.gen(function*() {
      const kit = McpTestServer.make(modern.definition)
      const failing = yield* McpClient.callTool("build", { fail: true }).pipe(Effect.flip, Effect.provide(kit.layer()), Effect.forkChild)
      for (let i = 0; i < 8; i++) yield* advance("500 millis")
      const error = yield* Fiber.join(failing)
      assert.strictEqual(error._tag, "McpProtocolError")
      assert.match(error.message, /compiler crashed/)

      const endless = yield* Effect.gen(function*() {
        const client = yield* McpClient.McpClient
        const call = yield* Effect.forkChild(client.callTool("endless"))
        yield* advance("1 second")
        yield* Fiber.interrupt(call)
      }).pipe(Effect.provide(kit.layer()), Effect.forkChild)
      yield* advance("1 second")
      yield* Fiber.join(endless)
      assert.strictEqual((yield* kit.requests("tasks/cancel")).length, 1)
    }))
})

const legacyTaskCapabilities = {
  ...LEGACY_INITIALIZE,
  capabilities: { ...LEGACY_INITIALIZE.capabilities, tasks: { requests: { tools: { call: {} } } } }
}

/** A scripted legacy server whose one tool is a task; `tasks/get` says what `get` answers (`tasks/cancel`, `cancel`). */
const legacyTaskServer = (
  get: Handler,
  cancel: Handler = (params) => ok({ taskId: params?.["taskId"] ?? "", status: "cancelled" })
) =>
  legacyServer({
    "initialize": () => ok(legacyTaskCapabilities),
    "tools/list": () =>
      ok({ tools: [{ name: "render", inputSchema: { type: "object" }, execution: { taskSupport: "required" } }] }),
    "tools/call": () => ok({ task: { taskId: "mine", status: "working", pollInterval: 500 } }),
    "tasks/get": get,
    "tasks/result": () => ok({ content: [{ type: "text", text: "the result of another task" }] }),
    "tasks/cancel": cancel
  })

const withFake = <A, E>(
  transport: Layer.Layer<McpTransport.McpTransport>,
  f: (client: McpClient.Service) => Effect.Effect<A, E>,
  options?: McpClient.ClientOptions
) => Effect.flatMap(McpClient.McpClient, f).pipe(Effect.provide(McpClient.layer(options).pipe(Layer.provide(transport))))

describe("legacy tasks against a hostile server", () => {
  it.effect("a task that never ends is bounded by overallTimeout, and cancelled on the wire", () =>
    Effect.gen(function*() {
      const server = legacyTaskServer(() => ok({ taskId: "mine", status: "working", pollInterval: 500 }))
      const fiber = yield* withFake(server.layer, (client) =>
        Effect.flatMap(
          client.listTools(),
          () => client.callTool("render", {}, { overallTimeout: "2 seconds" }).pipe(Effect.flip, Effect.timed)
        )).pipe(Effect.forkChild)
      // The issue's case: still polling at 6 s with a 2 s bound.
      for (let i = 0; i < 24; i++) yield* advance("250 millis")
      const ended = Option.fromUndefinedOr(fiber.pollUnsafe())
      assert.isTrue(Option.isSome(ended), "the call is still running after 6 s")
      const [took, error] = yield* Fiber.join(fiber)
      assert.strictEqual(error._tag, "McpTimeoutError")
      assert.isAtMost(Duration.toMillis(took), 2000)
      const cancels = server.requests("tasks/cancel")
      assert.strictEqual(cancels.length, 1)
      assert.strictEqual(paramsOf(cancels[0])["taskId"], "mine")
      assert.isAtMost(server.requests("tasks/get").length, 4)
    }))

  it.effect("a tasks/get answer about another task id is refused; the task is cancelled, no result is read", () =>
    Effect.gen(function*() {
      const server = legacyTaskServer(() => ok({ taskId: "theirs", status: "completed" }))
      const fiber = yield* withFake(server.layer, (client) =>
        Effect.flatMap(client.listTools(), () => Effect.flip(client.callTool("render", {})))).pipe(Effect.forkChild)
      for (let i = 0; i < 8; i++) yield* advance("250 millis")
      const error = yield* Fiber.join(fiber)
      assert.strictEqual(error._tag, "McpInvalidResponseError")
      assert.match(error.message, /tasks\/get.*task "theirs".*"mine"/)
      assert.strictEqual(server.requests("tasks/result").length, 0)
      assert.strictEqual(paramsOf(server.requests("tasks/cancel")[0])["taskId"], "mine")
    }))
})

/** A scripted modern server that offers the tasks extension, with these handlers. */
const modernTaskServer = (handlers: Record<string, Handler>) =>
  modernServer({
    "server/discover": () =>
      ok({ ...MODERN_DISCOVER, capabilities: { ...MODERN_DISCOVER.capabilities, extensions: { "io.modelcontextprotocol/tasks": {} } } }),
    ...handlers
  })

describe("modern tasks against a hostile server", () => {
  it.effect("a tasks/get answer about another task id is refused; the task is cancelled", () =>
    Effect.gen(function*() {
      const server = modernTaskServer({
        "tools/call": () => ok({ resultType: "task", taskId: "mine", status: "working", pollIntervalMs: 500 }),
        "tasks/get": () =>
          ok({ taskId: "theirs", status: "completed", result: { content: [{ type: "text", text: "not yours" }] } }),
        "tasks/cancel": () => ok({})
      })
      const fiber = yield* withFake(server.layer, (client) => Effect.flip(client.callTool("build", {}))).pipe(Effect.forkChild)
      for (let i = 0; i < 8; i++) yield* advance("250 millis")
      const error = yield* Fiber.join(fiber)
      assert.strictEqual(error._tag, "McpInvalidResponseError")
      assert.match(error.message, /tasks\/get.*task "theirs".*"mine"/)
      assert.strictEqual(paramsOf(server.requests("tasks/cancel")[0])["taskId"], "mine")
    }))
})

describe("a task tool's call built before the listing", () => {
  it.effect("callTool built before listTools runs (Effect.andThen) still calls the tool as a task", () =>
    Effect.gen(function*() {
      const server = legacyTaskServer(() => ok({ taskId: "mine", status: "completed" }))
      // The call is built here, before the listing that says "render" is a task has run.
      const fiber = yield* withFake(server.layer, (client) => Effect.andThen(client.listTools(), client.callTool("render", {})))
        .pipe(Effect.forkChild)
      for (let i = 0; i < 8; i++) yield* advance("250 millis")
      const result = yield* Fiber.join(fiber)
      const block = result.content[0]
      assert.strictEqual(block?.type === "text" ? block.text : "", "the result of another task")
      assert.isTrue(paramsOf(server.requests("tools/call")[0])["task"] !== undefined, "tools/call without params.task")
      assert.strictEqual(server.requests("tasks/get").length, 1)
      assert.strictEqual(server.requests("tasks/result").length, 1)
    }))
})

describe("a task given up waits for the answer to its tasks/cancel at most CANCEL_WAIT", () => {
  /**
   * The call, bounded by a 2 s `overallTimeout` on a client whose requests may take 30 s, against a server that never
   * answers `tasks/cancel`: over by 6 s, it ended within the bound plus `CANCEL_WAIT`, having sent its cancel.
   */
  const endsWithinCancelWait = (server: FakeServer, listFirst: boolean) =>
    Effect.gen(function*() {
      const fiber = yield* withFake(server.layer, (client) =>
        Effect.andThen(
          listFirst ? Effect.asVoid(client.listTools()) : Effect.void,
          client.callTool("render", {}, { overallTimeout: "2 seconds" }).pipe(Effect.flip, Effect.timed)
        ), { requestTimeout: "30 seconds" }).pipe(Effect.forkChild)
      for (let i = 0; i < 24; i++) yield* advance("250 millis")
      assert.isTrue(Option.isSome(Option.fromUndefinedOr(fiber.pollUnsafe())), "the call is still running 6 s into a 2 s budget")
      const [took, error] = yield* Fiber.join(fiber)
      assert.strictEqual(error._tag, "McpTimeoutError")
      assert.isAtMost(Duration.toMillis(took), 2000 + Duration.toMillis(Tasks.CANCEL_WAIT))
      assert.deepStrictEqual(server.requests("tasks/cancel").map((m) => paramsOf(m)["taskId"]), ["mine"])
    })

  it.effect("legacy: a server that never answers tasks/cancel holds the call 2 s past its budget, not a request timeout", () =>
    endsWithinCancelWait(legacyTaskServer(() => ok({ taskId: "mine", status: "working", pollInterval: 500 }), () => silent), true))

  it.effect("modern: the same", () =>
    endsWithinCancelWait(
      modernTaskServer({
        "tools/call": () => ok({ resultType: "task", taskId: "mine", status: "working", pollIntervalMs: 500 }),
        "tasks/get": () => ok({ resultType: "complete", taskId: "mine", status: "working", pollIntervalMs: 500 }),
        "tasks/cancel": () => silent
      }),
      false
    ))
})

describe("onTaskStatus: each status of a task the client follows", () => {
  it.effect("legacy: the first answer and each tasks/get, with its statusMessage", () =>
    Effect.gen(function*() {
      let polls = 0
      const server = legacyTaskServer((params) => {
        polls++
        return ok(
          polls < 3
            ? { taskId: params?.["taskId"] ?? "", status: "working", statusMessage: `stage ${polls}`, pollInterval: 500 }
            : { taskId: params?.["taskId"] ?? "", status: "completed", statusMessage: "done" }
        )
      })
      const seen: Array<McpClient.TaskStatus> = []
      const fiber = yield* withFake(
        server.layer,
        (client) => Effect.andThen(client.listTools(), client.callTool("render", {})),
        { onTaskStatus: (status) => Effect.sync(() => void seen.push(status)) }
      ).pipe(Effect.forkChild)
      for (let i = 0; i < 12; i++) yield* advance("250 millis")
      yield* Fiber.join(fiber)
      assert.deepStrictEqual(seen.map((s) => [s.era, s.status, s.statusMessage]), [
        ["legacy", "working", undefined],
        ["legacy", "working", "stage 1"],
        ["legacy", "working", "stage 2"],
        ["legacy", "completed", "done"]
      ])
      assert.isTrue(seen.every((s) => s.taskId === "mine"))
    }))

  it.effect("modern: the first answer and each tasks/get; a hook that dies does not fail the call", () =>
    Effect.gen(function*() {
      let polls = 0
      const server = modernTaskServer({
        "tools/call": () =>
          ok({ resultType: "task", taskId: "mine", status: "working", statusMessage: "queued", pollIntervalMs: 500 }),
        "tasks/get": () =>
          ok(
            ++polls < 2
              ? { resultType: "complete", taskId: "mine", status: "working", statusMessage: "building", pollIntervalMs: 500 }
              : {
                resultType: "complete",
                taskId: "mine",
                status: "completed",
                result: { content: [{ type: "text", text: "built" }] }
              }
          ),
        "tasks/cancel": () => ok({})
      })
      const seen: Array<string> = []
      const fiber = yield* withFake(server.layer, (client) => client.callTool("build", {}), {
        onTaskStatus: (status) =>
          Effect.sync(() => {
            seen.push(`${status.era} ${status.status}${status.statusMessage === undefined ? "" : `: ${status.statusMessage}`}`)
            if (status.status === "working") throw new Error("the hook died")
          })
      }).pipe(Effect.forkChild)
      for (let i = 0; i < 12; i++) yield* advance("250 millis")
      const result = yield* Fiber.join(fiber)
      const block = result.content[0]
      assert.strictEqual(block?.type === "text" ? block.text : "", "built")
      assert.deepStrictEqual(seen, ["modern working: queued", "modern working: building", "modern completed"])
    }))
})
