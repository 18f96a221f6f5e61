/**
 * Legacy tasks (2025-11-25, experimental): a tool whose `execution.taskSupport` is `required` is called as a
 * task (`params.task`), its status polled with `tasks/get` (at the server's `pollInterval`), its result read
 * with `tasks/result` once it is terminal (or needs input: the server then asks through its own requests), and
 * an interrupted call cancelled with `tasks/cancel` (never `notifications/cancelled`).
 *
 * @internal
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type { McpClientError } from "../McpError.js"
import { McpInvalidResponseError } from "../McpError.js"
import { decodeWire, field, isRecord, type JsonObject, type ServerCapabilities, type Tool } from "../McpSchema.js"

/** @internal */
export const Task = Schema.Struct({
  taskId: Schema.String,
  status: Schema.String,
  statusMessage: Schema.optional(Schema.String),
  pollInterval: Schema.optional(Schema.Number)
})

const decodeTask = decodeWire(Task)

/** Whether the server takes task-augmented `tools/call` (`tasks.requests.tools.call`). @internal */
export const serverTakesToolTasks = (capabilities: ServerCapabilities): boolean =>
  isRecord(field(field(field(capabilities.tasks, "requests"), "tools"), "call"))

/** Whether the tool must be called as a task. @internal */
export const requiresTask = (tool: Tool): boolean => field(tool.execution, "taskSupport") === "required"

const TERMINAL: ReadonlySet<string> = new Set(["completed", "failed", "cancelled"])

/** The poll interval: the server's, within [50 ms, 30 s]; 1 s when it gave none. @internal */
export const pollDelay = (pollInterval: number | undefined): Duration.Duration =>
  Duration.millis(pollInterval === undefined || !Number.isFinite(pollInterval) ? 1000 : Math.min(30_000, Math.max(50, pollInterval)))

/** @internal */
export interface TaskRequests {
  /** One plain request on the current session (its own timeout applies to each). */
  readonly request: (method: string, params: JsonObject) => Effect.Effect<unknown, McpClientError>
}

/**
 * Call a tool as a task and return the raw `CallToolResult` of `tasks/result`.
 *
 * @internal
 */
export const callAsTask = (
  requests: TaskRequests,
  create: Effect.Effect<unknown, McpClientError>
): Effect.Effect<unknown, McpClientError> =>
  Effect.gen(function*() {
    const created = yield* create
    const first = yield* decodeTask(field(created, "task")).pipe(
      Effect.mapError((error) =>
        new McpInvalidResponseError({ method: "tools/call", reason: `not a CreateTaskResult: ${error.message}`, response: created })
      )
    )
    const taskId = first.taskId
    const poll = Effect.iterate(first, {
      while: (task) => !TERMINAL.has(task.status) && task.status !== "input_required",
      body: (task) =>
        Effect.sleep(pollDelay(task.pollInterval)).pipe(
          Effect.zipRight(requests.request("tasks/get", { taskId })),
          Effect.flatMap((raw) =>
            decodeTask(raw).pipe(
              Effect.mapError((error) =>
                new McpInvalidResponseError({ method: "tasks/get", reason: error.message, response: raw })
              )
            )
          )
        )
    })
    return yield* poll.pipe(
      Effect.zipRight(requests.request("tasks/result", { taskId })),
      Effect.onInterrupt(() => requests.request("tasks/cancel", { taskId }).pipe(Effect.ignore))
    )
  })
