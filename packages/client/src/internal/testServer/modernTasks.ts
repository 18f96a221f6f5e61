/**
 * Test server, the modern tasks extension (SEP-2663): one handler run per input round, answers gathered by
 * tasks/update, each status change pushed as `notifications/tasks` to the listens granted the task.
 */
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import { isRecord, type JsonObject, MetaKey } from "../../McpSchema.js"
import type { ToolDefinition } from "../../McpTestServer.js"
import { TASKS_EXTENSION } from "./capabilities.js"
import { findTool, toolResult } from "./catalog.js"
import { runWithInput } from "./context.js"
import { paramsOf, RpcFailure } from "./protocol.js"
import { complete, type ConnectionState, type ModernTaskState } from "./state.js"

/** Whether the request's client declared the tasks extension. @internal */
export const clientTakesTasks = (params: JsonObject): boolean => {
  const meta = params["_meta"]
  const capabilities = isRecord(meta) ? meta[MetaKey.clientCapabilities] : undefined
  const extensions = isRecord(capabilities) ? capabilities["extensions"] : undefined
  return isRecord(extensions) && isRecord(extensions[TASKS_EXTENSION])
}

const modernTaskView = (taskId: string, state: ModernTaskState): JsonObject => ({
  taskId,
  status: state.status,
  createdAt: "2026-07-28T00:00:00Z",
  lastUpdatedAt: "2026-07-28T00:00:00Z",
  ttlMs: null,
  pollIntervalMs: state.pollIntervalMs,
  ...(state.status === "input_required" && state.inputRequests !== undefined ? { inputRequests: state.inputRequests } : {}),
  ...(state.status === "completed" && state.result !== undefined ? { result: state.result } : {}),
  ...(state.status === "failed" && state.error !== undefined ? { error: state.error } : {})
})

/** `notifications/tasks` with the task's current state, on the listen `id`. @internal */
export const sendTask = (conn: ConnectionState, id: string | number, state: ModernTaskState): Effect.Effect<void> =>
  conn.out.send({
    jsonrpc: "2.0",
    method: "notifications/tasks",
    params: { ...modernTaskView(state.taskId, state), _meta: { [MetaKey.subscriptionId]: id } }
  })

/** The task ids a listen is granted of those it asked: the connection's tasks, unless notifications are off. @internal */
export const grantTaskIds = (conn: ConnectionState, asked: unknown): ReadonlyArray<string> =>
  conn.definition.taskNotifications === false || !Array.isArray(asked)
    ? []
    : asked.filter((taskId): taskId is string => typeof taskId === "string" && conn.modernTasks.has(taskId))

/** Change the task's status, then tell every open listen granted its id. */
const transition = (conn: ConnectionState, state: ModernTaskState, change: (state: ModernTaskState) => void) =>
  Effect.suspend(() => {
    change(state)
    const granted = [...conn.listens].filter(([, filter]) =>
      Array.isArray(filter["taskIds"]) && filter["taskIds"].includes(state.taskId)
    )
    return Effect.forEach(granted, ([id]) => sendTask(conn, id, state), { discard: true })
  })

/** One round of the task's handler, on a fiber of its own, with every answer gathered so far. */
const runModernTask = (conn: ConnectionState, tool: ToolDefinition, message: JsonObject, state: ModernTaskState) => {
  const params = paramsOf(message)
  const round = { ...message, params: { ...params, inputResponses: state.responses } }
  return runWithInput(
    conn,
    round,
    (context) => tool.handler(context.arguments, context),
    (value) => ({ ...toolResult(value) })
  ).pipe(
    Effect.matchEffect({
      onFailure: (failure) =>
        transition(conn, state, (task) => {
          task.status = "failed"
          task.error = { code: failure.code, message: failure.message }
        }),
      onSuccess: (result) =>
        transition(conn, state, (task) => {
          if (result["resultType"] === "input_required" && isRecord(result["inputRequests"])) {
            task.status = "input_required"
            task.inputRequests = result["inputRequests"]
          } else {
            task.status = "completed"
            task.result = result
          }
        })
    }),
    Effect.interruptible,
    Effect.forkDetach,
    Effect.map((fiber) => {
      state.fiber = fiber
    })
  )
}

/** A tools/call from a client that takes tasks: answered `resultType: "task"` at once. @internal */
export const startModernTask = (conn: ConnectionState, tool: ToolDefinition, message: JsonObject) =>
  Effect.gen(function*() {
    const taskId = `task-${++conn.nextTask}`
    const state: ModernTaskState = {
      taskId,
      status: "working",
      pollIntervalMs: tool.pollInterval ?? 100,
      responses: {},
      inputRequests: undefined,
      result: undefined,
      error: undefined,
      fiber: undefined,
      message
    }
    conn.modernTasks.set(taskId, state)
    yield* runModernTask(conn, tool, message, state)
    return { resultType: "task", ...modernTaskView(taskId, { ...state, status: "working" }) }
  })

/** `tasks/update`: the answers of an `input_required` task, and its next round. */
const update = (conn: ConnectionState, state: ModernTaskState, params: JsonObject): Effect.Effect<JsonObject> => {
  const tool = findTool(conn.definition, paramsOf(state.message)["name"])
  const answers = isRecord(params["inputResponses"]) ? params["inputResponses"] : {}
  if (tool === undefined || state.status !== "input_required") return Effect.succeed(complete(conn, {}))
  state.responses = { ...state.responses, ...answers }
  return transition(conn, state, (task) => {
    task.status = "working"
    task.inputRequests = undefined
  }).pipe(Effect.andThen(runModernTask(conn, tool, state.message, state)), Effect.as(complete(conn, {})))
}

/** `tasks/cancel`: a task not yet finished is cancelled and its round interrupted. */
const cancel = (
  conn: ConnectionState,
  taskId: string,
  state: ModernTaskState
): Effect.Effect<JsonObject, RpcFailure> => {
  if (state.status === "completed" || state.status === "failed" || state.status === "cancelled") {
    return Effect.fail(new RpcFailure(-32602, `Task ${taskId} is already ${state.status}`))
  }
  const fiber = state.fiber
  return transition(conn, state, (task) => {
    task.status = "cancelled"
  }).pipe(Effect.andThen(fiber === undefined ? Effect.void : Fiber.interrupt(fiber)), Effect.as(complete(conn, {})))
}

/** `tasks/get`, `tasks/update` and (any other method) `tasks/cancel` on a modern task. @internal */
export const modernTaskRoute = (
  conn: ConnectionState,
  method: string,
  params: JsonObject
): Effect.Effect<JsonObject, RpcFailure> => {
  const taskId = typeof params["taskId"] === "string" ? params["taskId"] : ""
  const state = conn.modernTasks.get(taskId)
  if (state === undefined) return Effect.fail(new RpcFailure(-32602, `Unknown task: ${taskId}`))
  switch (method) {
    case "tasks/get":
      return Effect.succeed(complete(conn, modernTaskView(taskId, state)))
    case "tasks/update":
      return update(conn, state, params)
    default:
      return cancel(conn, taskId, state)
  }
}
