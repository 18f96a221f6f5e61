/** Test server, legacy (2025-11-25) tasks: a task-augmented tools/call, and tasks/get, tasks/result, tasks/cancel. */
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import type { JsonObject } from "../../McpSchema.js"
import type { ToolDefinition } from "../../McpTestServer.js"
import { toolResult } from "./catalog.js"
import { runWithInput } from "./context.js"
import { RpcFailure } from "./protocol.js"
import type { ConnectionState, TaskState } from "./state.js"

const taskView = (taskId: string, state: TaskState): JsonObject => ({
  taskId,
  status: state.status,
  createdAt: "2025-11-25T00:00:00Z",
  lastUpdatedAt: "2025-11-25T00:00:00Z",
  ttl: null,
  pollInterval: state.pollInterval
})

/** A task-augmented call: answered with the task at once; the handler runs on a fiber of its own. @internal */
export const startTask = (conn: ConnectionState, tool: ToolDefinition, message: JsonObject) =>
  Effect.gen(function*() {
    const taskId = `task-${++conn.nextTask}`
    const result = yield* Deferred.make<JsonObject, RpcFailure>()
    const state: TaskState = { status: "working", pollInterval: tool.pollInterval ?? 100, result, fiber: undefined }
    conn.tasks.set(taskId, state)
    const run = runWithInput(
      conn,
      message,
      (context) => tool.handler(context.arguments, context),
      (value) => ({ ...toolResult(value) })
    ).pipe(
      Effect.exit,
      Effect.flatMap((exit) =>
        Effect.sync(() => {
          state.status = exit._tag === "Success" && exit.value["isError"] !== true ? "completed" : "failed"
        }).pipe(Effect.andThen(Deferred.complete(result, exit)))
      )
    )
    // Interruptible whatever the transport's fiber was: tasks/cancel must be able to stop it.
    state.fiber = yield* Effect.forkDetach(Effect.interruptible(run))
    return { task: taskView(taskId, state) }
  })

/** `tasks/cancel`: only a working task; its result becomes the cancellation error. */
const cancel = (taskId: string, state: TaskState): Effect.Effect<JsonObject, RpcFailure> => {
  if (state.status !== "working") return Effect.fail(new RpcFailure(-32602, `Task ${taskId} is already ${state.status}`))
  state.status = "cancelled"
  const fiber = state.fiber
  return Effect.andThen(
    fiber === undefined ? Effect.void : Fiber.interrupt(fiber),
    Effect.andThen(Deferred.fail(state.result, new RpcFailure(-32000, "Task cancelled")), Effect.succeed(taskView(taskId, state)))
  )
}

/** `tasks/get`, `tasks/result` and (any other method) `tasks/cancel` on a legacy task. @internal */
export const taskRoute = (
  conn: ConnectionState,
  method: string,
  params: JsonObject
): Effect.Effect<JsonObject, RpcFailure> => {
  const taskId = typeof params["taskId"] === "string" ? params["taskId"] : ""
  const state = conn.tasks.get(taskId)
  if (state === undefined) return Effect.fail(new RpcFailure(-32602, `Unknown task: ${taskId}`))
  switch (method) {
    case "tasks/get":
      return Effect.succeed(taskView(taskId, state))
    case "tasks/result":
      return Deferred.await(state.result)
    default:
      return cancel(taskId, state)
  }
}
