/**
 * Legacy tasks (2025-11-25, experimental), and what the modern extension (`modernTasks.ts`) shares with them:
 * a tool whose `execution.taskSupport` is `required` is called as a task (`params.task`), its status polled
 * with `tasks/get` (at the server's `pollInterval`), its result read with `tasks/result` once it is terminal (or
 * needs input: the server then asks through its own requests); a call that ends otherwise (interrupted, out of
 * time, an answer about another task refused) cancels its task with `tasks/cancel` (never
 * `notifications/cancelled`).
 *
 * @internal
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Schema from "effect/Schema"
import type { McpClientError } from "../McpError.js"
import { McpInvalidResponseError } from "../McpError.js"
import { decodeWire, field, isRecord, type JsonObject, OpenStruct, type ServerCapabilities, type Tool } from "../McpSchema.js"

/** @internal */
export const Task = OpenStruct({
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

/** The statuses a task ends in (both eras). @internal */
export const TERMINAL: ReadonlySet<string> = new Set(["completed", "failed", "cancelled"])

/** The poll interval: the server's, within [50 ms, 30 s]; 1 s when it gave none. @internal */
export const pollDelay = (pollInterval: number | undefined): Duration.Duration =>
  Duration.millis(pollInterval === undefined || !Number.isFinite(pollInterval) ? 1000 : Math.min(30_000, Math.max(50, pollInterval)))

/** An answer of `tasks/get` must be about the task asked for: one about another task is refused. @internal */
export const sameTask = <T extends { readonly taskId: string }>(taskId: string, raw: unknown) => (task: T) =>
  task.taskId === taskId ? Effect.succeed(task) : Effect.fail(
    new McpInvalidResponseError({
      method: "tasks/get",
      reason: `the answer is about task ${JSON.stringify(task.taskId)}, not ${JSON.stringify(taskId)}`,
      response: raw
    })
  )

/**
 * How long a call that gives its task up waits for the answer to its `tasks/cancel` (at most; the request's own
 * timeout when shorter): the cancel goes out at once, and a server that does not answer it cannot hold the call
 * (one ended by its `overallTimeout`, one interrupted) for a whole request timeout. @internal
 */
export const CANCEL_WAIT: Duration.Duration = Duration.seconds(2)

/** `tasks/cancel` for the task, its answer awaited as `requests.cancel` says; its own failure ignored. */
const sendCancel = (requests: TaskRequests, taskId: string): Effect.Effect<void> =>
  requests.cancel === undefined
    ? requests.request("tasks/cancel", { taskId }).pipe(Effect.ignore)
    : requests.cancel(taskId)

/**
 * The task is given up unless the effect succeeds (interrupted, timed out, refused, failed): `tasks/cancel`,
 * whose own failure is ignored. @internal
 */
export const cancelUnlessDone = (requests: TaskRequests, taskId: string) => <A, E>(effect: Effect.Effect<A, E>) =>
  Effect.onExit(effect, (exit) => Exit.isSuccess(exit) ? Effect.void : sendCancel(requests, taskId))

/** @internal */
export interface TaskRequests {
  /** One plain request on the current session (its own timeout applies to each). */
  readonly request: (method: string, params: JsonObject) => Effect.Effect<unknown, McpClientError>
  /**
   * `tasks/cancel` for a task given up, its failure ignored; without it, `request` (its whole timeout awaited).
   * A call's wiring waits `CANCEL_WAIT` at most.
   */
  readonly cancel?: ((taskId: string) => Effect.Effect<void>) | undefined
  /** The caller's `onTaskStatus` hook: each status of the task, as polled or notified. */
  readonly onStatus?: ((status: TaskStatus) => Effect.Effect<void>) | undefined
}

/** A status of a task the client follows, as the `onTaskStatus` hook sees it. @internal */
export interface TaskStatus {
  readonly taskId: string
  readonly era: "legacy" | "modern"
  readonly status: string
  readonly statusMessage?: string | undefined
}

/** Tell the caller's `onTaskStatus` hook of a status; the hook's own failure is contained. @internal */
export const reportStatus = (
  requests: TaskRequests,
  era: "legacy" | "modern",
  task: { readonly taskId: string; readonly status: string; readonly statusMessage?: string | undefined }
): Effect.Effect<void> =>
  requests.onStatus === undefined ? Effect.void : requests.onStatus({
    taskId: task.taskId,
    era,
    status: task.status,
    ...(task.statusMessage === undefined ? {} : { statusMessage: task.statusMessage })
  }).pipe(Effect.catchDefect(() => Effect.void))

/** What a task-augmented call tells the `onTaskCreated` hook (the server's `ttl` in milliseconds, if it gave one). @internal */
export interface CreatedTask {
  readonly taskId: string
  readonly era: "legacy" | "modern"
  readonly method: string
  readonly ttl: number | undefined
}

/** The `ttl` (legacy) or `ttlMs` (modern) of a task, when it is a finite number. @internal */
export const taskTtl = (task: unknown): number | undefined => {
  const ttl = field(task, "ttl") ?? field(task, "ttlMs")
  return typeof ttl === "number" && Number.isFinite(ttl) && ttl > 0 ? ttl : undefined
}

/**
 * Poll a legacy task until it is terminal (or needs input), then read `tasks/result`. Shared by a call and by a
 * resumed task (`McpFleet.resumeTask`). Interruption sends `tasks/cancel`; with `cancelOnFailure` (a call) a
 * polling that ends otherwise (an answer about another task refused, a failed `tasks/get`) cancels the task too.
 * A task that needs input is not over: its result is awaited, and cancelled if the call is interrupted.
 *
 * @internal
 */
export const pollLegacyTask = (
  requests: TaskRequests,
  first: { readonly taskId: string; readonly status: string; readonly pollInterval?: number | undefined },
  options?: { readonly cancelOnFailure?: boolean | undefined }
): Effect.Effect<unknown, McpClientError> => {
  const taskId = first.taskId
  const poll = Effect.gen(function*() {
    let task = first
    yield* reportStatus(requests, "legacy", task)
    while (!TERMINAL.has(task.status) && task.status !== "input_required") {
      yield* Effect.sleep(pollDelay(task.pollInterval))
      const raw = yield* requests.request("tasks/get", { taskId })
      task = yield* decodeTask(raw).pipe(
        Effect.mapError((error) => new McpInvalidResponseError({ method: "tasks/get", reason: error.message, response: raw })),
        Effect.flatMap(sameTask(taskId, raw))
      )
      yield* reportStatus(requests, "legacy", task)
    }
    return task
  })
  const cancel = sendCancel(requests, taskId)
  return poll.pipe(
    options?.cancelOnFailure === true ? cancelUnlessDone(requests, taskId) : Effect.onInterrupt(() => cancel),
    Effect.andThen(Effect.onInterrupt(requests.request("tasks/result", { taskId }), () => cancel))
  )
}

/**
 * Call a tool as a task and return the raw `CallToolResult` of `tasks/result`. `onCreated` runs once the
 * server has accepted the task, before the first poll.
 *
 * @internal
 */
export const callAsTask = (
  requests: TaskRequests,
  create: Effect.Effect<unknown, McpClientError>,
  onCreated?: ((task: CreatedTask) => Effect.Effect<void>) | undefined
): Effect.Effect<unknown, McpClientError> =>
  Effect.gen(function*() {
    const created = yield* create
    const first = yield* decodeTask(field(created, "task")).pipe(
      Effect.mapError((error) =>
        new McpInvalidResponseError({ method: "tools/call", reason: `not a CreateTaskResult: ${error.message}`, response: created })
      )
    )
    if (onCreated !== undefined) {
      yield* onCreated({ taskId: first.taskId, era: "legacy", method: "tools/call", ttl: taskTtl(first) })
    }
    return yield* pollLegacyTask(requests, first, { cancelOnFailure: true })
  })
