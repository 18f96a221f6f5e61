/**
 * The modern tasks extension followed by `notifications/tasks`: a `subscriptions/listen` for the task's id, the
 * task's notifications instead of polling, a slow safety poll, and polling as the fallback (not granted, refused,
 * stream ended), with the same bounds on both paths (`overallTimeout`, `tasks/cancel`, `maxInputRounds`).
 * TestClock drives every wait.
 */
import { McpClient, type McpSchema, McpTestServer, type McpTransport } from "@mcp-effect/client"
import { assert, describe, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import { TestClock } from "effect/testing"
import {
  fail,
  type Handler,
  type JsonObject,
  MODERN_DISCOVER,
  modernServer,
  ok,
  paramsOf,
  silent
} from "./fixtures/memoryServer.js"

const settle = Effect.repeat(Effect.yieldNow, { times: 20 })

/** Move the test clock once every fiber waits on it, and let the woken ones run. */
const advance = (duration: Duration.Input) => settle.pipe(Effect.andThen(TestClock.adjust(duration)), Effect.andThen(settle))

/** Advance in `step`s until `total`. */
const advanceBy = (total: number, step: number) =>
  Effect.gen(function*() {
    for (let t = 0; t < total; t += step) yield* advance(Duration.millis(step))
  })

const isDone = (fiber: Fiber.Fiber<unknown, unknown>) => fiber.pollUnsafe() !== undefined

const SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId"

/** Whether the client cancelled the request `id` (`notifications/cancelled`). */
const cancelledRequest = (received: ReadonlyArray<JsonObject>, id: unknown) =>
  received.some((m) => m["method"] === "notifications/cancelled" && paramsOf(m)["requestId"] === id)

const elicitation = {
  method: "elicitation/create",
  params: { mode: "form", message: "Go on?", requestedSchema: { type: "object", properties: {} } }
}

/** A task tool that asks one question, then works 1250 ms: the result comes between two polls. */
const build = McpTestServer.tool({
  name: "build",
  taskSupport: "optional",
  pollInterval: 500,
  handler: (_, ctx) =>
    Effect.gen(function*() {
      const answer = yield* ctx.elicit({ message: "Deploy?", requestedSchema: { type: "object", properties: {} } })
      yield* Effect.sleep("1250 millis")
      return `built, ${String(answer["action"])}`
    })
})

const accept = { onElicit: () => ({ action: "accept" as const, content: {} }) }

describe("modern tasks followed by notifications/tasks (testing kit)", () => {
  it.effect("the result comes with the completion notification: no tasks/get, listen for the id, closed after", () =>
    Effect.gen(function*() {
      const kit = McpTestServer.make({ era: "modern", tools: [build] })
      const fiber = yield* McpClient.callTool("build").pipe(
        Effect.provide(kit.layer(accept)),
        Effect.forkChild
      )
      // Completed 1250 ms after its input: a poll every 500 ms would see it at 1500 ms at the earliest.
      yield* advanceBy(1300, 100)
      assert.isTrue(isDone(fiber), "the result did not come with the completion notification")
      const result = yield* Fiber.join(fiber)
      const block = result.content[0]
      assert.strictEqual(block?.type === "text" ? block.text : "", "built, accept")
      assert.strictEqual((yield* kit.requests("tasks/get")).length, 0)
      assert.strictEqual((yield* kit.requests("tasks/update")).length, 1)
      const listens = yield* kit.requests("subscriptions/listen")
      assert.strictEqual(listens.length, 1)
      assert.deepStrictEqual(paramsOf(listens[0])["notifications"], { taskIds: ["task-1"] })
      assert.isTrue(cancelledRequest(yield* kit.received, listens[0]?.["id"]), "the listen was not cancelled")
    }))

  it.effect("taskNotifications: false grants no id: polled, the listen closed at once, none asked for the next task", () =>
    Effect.gen(function*() {
      const kit = McpTestServer.make({ era: "modern", tools: [build], taskNotifications: false })
      const fiber = yield* Effect.gen(function*() {
        const client = yield* McpClient.McpClient
        yield* client.callTool("build")
        return yield* client.callTool("build")
      }).pipe(Effect.provide(kit.layer(accept)), Effect.forkChild)
      yield* advanceBy(5000, 250)
      yield* Fiber.join(fiber)
      const received = yield* kit.received
      const listens = received.filter((m) => m["method"] === "subscriptions/listen")
      assert.strictEqual(listens.length, 1, "a second task asked again")
      const closedAt = received.findIndex((m) =>
        m["method"] === "notifications/cancelled" && paramsOf(m)["requestId"] === listens[0]?.["id"]
      )
      const firstGet = received.findIndex((m) => m["method"] === "tasks/get")
      assert.isAbove(closedAt, -1, "the listen was not cancelled")
      assert.isBelow(closedAt, firstGet, "the listen stayed open while polling")
      assert.isAbove((yield* kit.requests("tasks/get")).length, 2)
    }))
})

// -----------------------------------------------------------------------------
// Scripted servers
// -----------------------------------------------------------------------------

const TASKS = "io.modelcontextprotocol/tasks"

/** The open listen stream of a scripted server: its id and the peer to push on. */
interface Stream {
  id: unknown
  peer: McpTransport.MemoryPeer | undefined
}

const working = { taskId: "mine", status: "working", pollIntervalMs: 500 }
const completed = (text: string) => ({
  taskId: "mine",
  status: "completed",
  pollIntervalMs: 500,
  result: { content: [{ type: "text", text }] }
})

/** A listen handler that grants what it is asked and keeps the stream open. */
const granting = (stream: Stream): Handler => (params, { message, peer }) =>
  Effect.gen(function*() {
    stream.id = message["id"]
    stream.peer = peer
    yield* peer.send({
      jsonrpc: "2.0",
      method: "notifications/subscriptions/acknowledged",
      params: { notifications: params?.["notifications"] ?? {}, _meta: { [SUBSCRIPTION_ID]: message["id"] } }
    })
    return yield* silent
  })

/** Push a notification on the open stream. */
const push = (stream: Stream, method: string, params: JsonObject) =>
  Effect.suspend(() =>
    stream.peer === undefined
      ? Effect.die(new Error("no listen stream is open"))
      : stream.peer.send({ jsonrpc: "2.0", method, params: { ...params, _meta: { [SUBSCRIPTION_ID]: stream.id } } })
  )

/** A modern server with the tasks extension whose one call is the task "mine". */
const taskServer = (handlers: Record<string, Handler>) =>
  modernServer({
    "server/discover": () =>
      ok({ ...MODERN_DISCOVER, capabilities: { ...MODERN_DISCOVER.capabilities, extensions: { [TASKS]: {} } } }),
    "tools/call": () => ok({ resultType: "task", ...working }),
    "tasks/get": () => ok({ resultType: "complete", ...working }),
    "tasks/update": () => ok({ resultType: "complete" }),
    "tasks/cancel": () => ok({ resultType: "complete" }),
    ...handlers
  })

/** `tasks/get` answers `working` the first `times` times, then `completed`. */
const completesAfter = (times: number): Handler => {
  let asked = 0
  return () => ok({ resultType: "complete", ...(++asked > times ? completed("done") : working) })
}

const withClient = <A, E>(
  transport: Layer.Layer<McpTransport.McpTransport>,
  f: (client: McpClient.Service) => Effect.Effect<A, E>,
  options: McpClient.ClientOptions = {}
) => Effect.flatMap(McpClient.McpClient, f).pipe(Effect.provide(McpClient.layer(options).pipe(Layer.provide(transport))))

const textOf = (result: McpSchema.CallToolResult) => {
  const block = result.content[0]
  return block?.type === "text" ? block.text : ""
}

describe("modern task notifications: fallback to polling", () => {
  it.effect("a listen answered -32601: polled at the server's interval; the next task asks no listen", () =>
    Effect.gen(function*() {
      const server = taskServer({
        "subscriptions/listen": () => fail(-32601, "Method not found: subscriptions/listen"),
        "tasks/get": completesAfter(1)
      })
      const fiber = yield* withClient(server.layer, (client) =>
        Effect.flatMap(client.callTool("build", {}), () => client.callTool("build", {}))).pipe(Effect.forkChild)
      yield* advanceBy(2000, 250)
      assert.strictEqual(textOf(yield* Fiber.join(fiber)), "done")
      assert.strictEqual(server.requests("subscriptions/listen").length, 1)
      assert.isAtLeast(server.requests("tasks/get").length, 2)
    }))

  it.effect("a listen never acknowledged: polled after the request timeout, the listen cancelled, none asked again", () =>
    Effect.gen(function*() {
      const server = taskServer({ "subscriptions/listen": () => silent, "tasks/get": completesAfter(0) })
      const fiber = yield* withClient(server.layer, (client) =>
        Effect.flatMap(client.callTool("build", {}), () => client.callTool("build", {})), { requestTimeout: "3 seconds" })
        .pipe(Effect.forkChild)
      yield* advanceBy(2750, 250)
      assert.strictEqual(server.requests("tasks/get").length, 0)
      yield* advanceBy(1500, 250)
      assert.strictEqual(textOf(yield* Fiber.join(fiber)), "done")
      const listens = server.requests("subscriptions/listen")
      assert.strictEqual(listens.length, 1)
      assert.isTrue(cancelledRequest(server.received, listens[0]?.["id"]), "the listen was not cancelled")
      assert.strictEqual(server.requests("tasks/get").length, 2)
    }))

  it.effect("granted, silent, then the stream cancelled by the server: polling resumes at once", () =>
    Effect.gen(function*() {
      const stream: Stream = { id: undefined, peer: undefined }
      const server = taskServer({ "subscriptions/listen": granting(stream), "tasks/get": completesAfter(1) })
      const fiber = yield* withClient(server.layer, (client) => client.callTool("build", {})).pipe(Effect.forkChild)
      yield* advanceBy(1000, 250)
      // The catch-up poll one interval after the acknowledgement said `working`; the next would be 30 s later.
      assert.strictEqual(server.requests("tasks/get").length, 1)
      assert.isFalse(isDone(fiber))
      yield* push(stream, "notifications/cancelled", { requestId: stream.id })
      yield* advanceBy(750, 250)
      assert.isTrue(isDone(fiber), "polling did not resume when the stream ended")
      assert.strictEqual(textOf(yield* Fiber.join(fiber)), "done")
    }))

  it.effect("granted and never notified: the safety poll ends the task", () =>
    Effect.gen(function*() {
      const stream: Stream = { id: undefined, peer: undefined }
      const server = taskServer({ "subscriptions/listen": granting(stream), "tasks/get": completesAfter(1) })
      const fiber = yield* withClient(server.layer, (client) => client.callTool("build", {})).pipe(Effect.forkChild)
      yield* advanceBy(29_000, 1000)
      assert.isFalse(isDone(fiber))
      assert.strictEqual(server.requests("tasks/get").length, 1)
      yield* advanceBy(2000, 500)
      assert.strictEqual(textOf(yield* Fiber.join(fiber)), "done")
      assert.strictEqual(server.requests("tasks/get").length, 2)
      assert.isTrue(cancelledRequest(server.received, stream.id), "the listen was not cancelled")
    }))
})

describe("modern task notifications: the bounds", () => {
  it.effect("notifications that keep saying working: overallTimeout ends the call, the task is cancelled", () =>
    Effect.gen(function*() {
      const stream: Stream = { id: undefined, peer: undefined }
      const server = taskServer({ "subscriptions/listen": granting(stream) })
      const fiber = yield* withClient(server.layer, (client) =>
        client.callTool("build", {}, { overallTimeout: "2 seconds" }).pipe(Effect.flip, Effect.timed)).pipe(
          Effect.forkChild
        )
      for (let i = 0; i < 16 && !isDone(fiber); i++) {
        yield* advance("250 millis")
        if (stream.peer !== undefined) yield* push(stream, "notifications/tasks", working)
      }
      assert.isTrue(isDone(fiber), "the call is still running after 4 s")
      const [took, error] = yield* Fiber.join(fiber)
      assert.strictEqual(error._tag, "McpTimeoutError")
      assert.isAtMost(Duration.toMillis(took), 2000)
      assert.strictEqual(server.requests("tasks/get").length, 0)
      assert.deepStrictEqual(server.requests("tasks/cancel").map((m) => paramsOf(m)["taskId"]), ["mine"])
    }))

  it.effect("a flood of input_required notifications with fresh keys: McpInputLoopExceededError after maxInputRounds", () =>
    Effect.gen(function*() {
      const stream: Stream = { id: undefined, peer: undefined }
      const server = taskServer({ "subscriptions/listen": granting(stream) })
      const asked: Array<string> = []
      const fiber = yield* withClient(server.layer, (client) => Effect.flip(client.callTool("build", {})), {
        maxInputRounds: 3,
        onElicit: (request) => {
          asked.push(request.params.message)
          return { action: "accept", content: {} }
        }
      }).pipe(Effect.forkChild)
      yield* advance("10 millis")
      for (let i = 0; i < 20; i++) {
        yield* push(stream, "notifications/tasks", {
          ...working,
          status: "input_required",
          inputRequests: { [`key-${i}`]: { ...elicitation, params: { ...elicitation.params, message: `question ${i}` } } }
        })
        yield* advance("10 millis")
      }
      const error = yield* Fiber.join(fiber)
      assert.strictEqual(error._tag, "McpInputLoopExceededError")
      assert.deepStrictEqual(asked, ["question 0", "question 1", "question 2"])
      assert.strictEqual(server.requests("tasks/update").length, 3)
      assert.deepStrictEqual(server.requests("tasks/cancel").map((m) => paramsOf(m)["taskId"]), ["mine"])
    }))

  it.effect("a notification about another task is ignored; a completion without its result is fetched once", () =>
    Effect.gen(function*() {
      const stream: Stream = { id: undefined, peer: undefined }
      const server = taskServer({
        "subscriptions/listen": granting(stream),
        "tasks/get": () => ok({ resultType: "complete", ...completed("fetched") })
      })
      const fiber = yield* withClient(server.layer, (client) => client.callTool("build", {})).pipe(Effect.forkChild)
      yield* advance("10 millis")
      yield* push(stream, "notifications/tasks", { ...completed("not yours"), taskId: "theirs" })
      yield* push(stream, "notifications/tasks", { taskId: "mine" })
      yield* advance("100 millis")
      assert.isFalse(isDone(fiber), "a notification about another task (or a malformed one) ended the call")
      yield* push(stream, "notifications/tasks", { taskId: "mine", status: "completed" })
      yield* advance("10 millis")
      assert.strictEqual(textOf(yield* Fiber.join(fiber)), "fetched")
      assert.strictEqual(server.requests("tasks/get").length, 1)
      assert.strictEqual(server.requests("tasks/cancel").length, 0)
    }))
})

describe("modern tasks: a completed status must carry its result", () => {
  it.effect("a server flapping between completed (without result) and working is asked tasks/get at the poll's pace", () =>
    Effect.gen(function*() {
      const stream: Stream = { id: undefined, peer: undefined }
      const slow = { ...working, pollIntervalMs: 1000 }
      const server = taskServer({
        "tools/call": () => ok({ resultType: "task", ...slow }),
        "subscriptions/listen": granting(stream),
        "tasks/get": () => ok({ resultType: "complete", ...slow })
      })
      const fiber = yield* withClient(server.layer, (client) => client.callTool("build", {})).pipe(Effect.forkChild)
      yield* advance("10 millis")
      // 4 s of flapping, 10 notifications every 50 ms: 800 "completed" statuses with no result.
      for (let t = 0; t < 4000; t += 50) {
        for (let i = 0; i < 10; i++) {
          yield* push(stream, "notifications/tasks", { taskId: "mine", status: i % 2 === 0 ? "completed" : "working" })
        }
        yield* advance("50 millis")
      }
      assert.isFalse(isDone(fiber), "the flapping ended the call")
      // One tasks/get per poll interval (1 s) at most: the first at once, then one a second.
      assert.isAtMost(server.requests("tasks/get").length, 5)
      assert.isAtLeast(server.requests("tasks/get").length, 4)
      yield* Fiber.interrupt(fiber)
    }))

  it.effect("polled: a completed tasks/get without result fails with McpInvalidResponseError naming the task", () =>
    Effect.gen(function*() {
      const server = taskServer({
        "subscriptions/listen": () => fail(-32601, "Method not found: subscriptions/listen"),
        "tasks/get": () => ok({ resultType: "complete", taskId: "mine", status: "completed" })
      })
      const fiber = yield* withClient(server.layer, (client) => Effect.flip(client.callTool("build", {}))).pipe(
        Effect.forkChild
      )
      yield* advanceBy(1000, 250)
      const error = yield* Fiber.join(fiber)
      assert.strictEqual(error._tag, "McpInvalidResponseError")
      if (error._tag !== "McpInvalidResponseError") return
      assert.include(error.reason, `"mine"`)
      assert.include(error.reason, "no result")
    }))

  it.effect("notified: a completion without result whose tasks/get has none either fails, naming the task", () =>
    Effect.gen(function*() {
      const stream: Stream = { id: undefined, peer: undefined }
      const server = taskServer({
        "subscriptions/listen": granting(stream),
        "tasks/get": () => ok({ resultType: "complete", taskId: "mine", status: "completed" })
      })
      const fiber = yield* withClient(server.layer, (client) => Effect.flip(client.callTool("build", {}))).pipe(
        Effect.forkChild
      )
      yield* advance("10 millis")
      yield* push(stream, "notifications/tasks", { taskId: "mine", status: "completed" })
      yield* advance("10 millis")
      const error = yield* Fiber.join(fiber)
      assert.strictEqual(error._tag, "McpInvalidResponseError")
      if (error._tag !== "McpInvalidResponseError") return
      assert.include(error.reason, `"mine"`)
      assert.strictEqual(server.requests("tasks/get").length, 1)
    }))

  it.effect("a task answer that is already completed without result fails too", () =>
    Effect.gen(function*() {
      const server = taskServer({
        "tools/call": () => ok({ resultType: "task", taskId: "mine", status: "completed" })
      })
      const error = yield* withClient(server.layer, (client) => Effect.flip(client.callTool("build", {})))
      assert.strictEqual(error._tag, "McpInvalidResponseError")
      if (error._tag !== "McpInvalidResponseError") return
      assert.include(error.reason, `"mine"`)
    }))
})

describe("modern task notifications: the polling path's bound", () => {
  it.effect("polls asking fresh input keys each time: McpInputLoopExceededError after maxInputRounds, cancelled", () =>
    Effect.gen(function*() {
      let polled = 0
      const server = taskServer({
        "subscriptions/listen": () => fail(-32601, "Method not found: subscriptions/listen"),
        "tasks/get": () =>
          ok({
            resultType: "complete",
            ...working,
            status: "input_required",
            inputRequests: { [`key-${++polled}`]: elicitation }
          })
      })
      const fiber = yield* withClient(server.layer, (client) => Effect.flip(client.callTool("build", {})), {
        maxInputRounds: 2,
        onElicit: () => ({ action: "accept", content: {} })
      }).pipe(Effect.forkChild)
      yield* advanceBy(5000, 250)
      const error = yield* Fiber.join(fiber)
      assert.strictEqual(error._tag, "McpInputLoopExceededError")
      assert.strictEqual(server.requests("tasks/update").length, 2)
      assert.strictEqual(server.requests("tasks/get").length, 3)
      assert.deepStrictEqual(server.requests("tasks/cancel").map((m) => paramsOf(m)["taskId"]), ["mine"])
    }))
})

describe("McpClient.listen with taskIds", () => {
  it.effect("the acknowledgement's taskIds are what the server granted", () =>
    Effect.gen(function*() {
      const server = taskServer({
        "subscriptions/listen": (_, { message, peer }) =>
          Effect.andThen(
            peer.send({
              jsonrpc: "2.0",
              method: "notifications/subscriptions/acknowledged",
              params: { notifications: { taskIds: ["a"] }, _meta: { [SUBSCRIPTION_ID]: message["id"] } }
            }),
            silent
          )
      })
      const granted = yield* withClient(server.layer, (client) =>
        Effect.scoped(Effect.map(client.listen({ taskIds: ["a", "b"] }), (subscription) => subscription.acknowledged)))
      assert.deepStrictEqual(granted, { taskIds: ["a"] })
      assert.deepStrictEqual(paramsOf(server.requests("subscriptions/listen")[0])["notifications"], { taskIds: ["a", "b"] })
    }))
})
