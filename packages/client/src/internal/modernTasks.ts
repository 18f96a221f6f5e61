/**
 * The modern tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663): a server answers a request with a task
 * in place of its result; the client follows the task to its end, serves the input it asks for with
 * `tasks/update` (each input key once, at most `maxInputRounds` updates) and returns the task's result.
 *
 * It follows the task by its `notifications/tasks` where the server agrees to send them (a
 * `subscriptions/listen` for the task's id, for as long as the follow), with a slow safety `tasks/get`; and by
 * polling `tasks/get` at the server's `pollIntervalMs` otherwise: when the server does not grant the id, the
 * listen fails or its stream ends. Both ways end alike: `tasks/cancel` when the follow ends other than by
 * success, an answer about another task refused (a notification about another task is not ours: skipped).
 *
 * @internal
 */
import type * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import type { McpClientError } from "../McpError.js"
import { McpInputLoopExceededError, McpInvalidResponseError, McpProtocolError } from "../McpError.js"
import {
  decodeWire,
  field,
  InputRequest,
  isRecord,
  JsonObject,
  type Notification,
  OpenStruct,
  type ServerCapabilities
} from "../McpSchema.js"
import {
  cancelUnlessDone,
  type CreatedTask,
  pollDelay,
  reportStatus,
  sameTask,
  type TaskRequests,
  taskTtl,
  TERMINAL
} from "./tasks.js"

/** The extension's id, in `capabilities.extensions` of both sides. @internal */
export const TASKS_EXTENSION = "io.modelcontextprotocol/tasks"

/** Whether a modern server advertises the tasks extension. @internal */
export const serverOffersTasks = (capabilities: ServerCapabilities): boolean =>
  isRecord(field(capabilities.extensions, TASKS_EXTENSION))

/**
 * While the task's notifications come, a `tasks/get` at most this often all the same: a notification lost
 * (or a server that grants and never sends) costs this long, never the whole call. @internal
 */
export const SAFETY_POLL = Duration.seconds(30)

const DetailedTask = OpenStruct({
  taskId: Schema.String,
  status: Schema.String,
  statusMessage: Schema.optional(Schema.String),
  pollIntervalMs: Schema.optional(Schema.Number),
  inputRequests: Schema.optional(Schema.Record(Schema.String, InputRequest)),
  result: Schema.optional(JsonObject),
  error: Schema.optional(JsonObject)
})
type DetailedTask = typeof DetailedTask.Type

const decodeDetailed = decodeWire(DetailedTask)

/**
 * Subscribe to a task's notifications for as long as the scope: its listen stream's notifications (ended when
 * the stream ends) once the server agreed to send this task's, `undefined` when it did not (then poll). @internal
 */
export type TaskWatch = (
  taskId: string
) => Effect.Effect<Queue.Dequeue<Notification, Cause.Done> | undefined, never, Scope.Scope>

/** @internal */
export interface ModernTaskRequests extends TaskRequests {
  /** Serve input requests (MRTR shape); the answers keyed like the requests. */
  readonly serve: (requests: NonNullable<DetailedTask["inputRequests"]>) => Effect.Effect<JsonObject, McpClientError>
  /** How many `tasks/update` one task may send. */
  readonly maxInputRounds: number
  /** The task's notifications, when the session can have them; without it the task is polled. */
  readonly watch?: TaskWatch | undefined
}

const invalid = (method: string, response: unknown) => (error: { readonly message: string }) =>
  new McpInvalidResponseError({ method, reason: error.message, response })

/** `tasks/get` of the task: its answer must be about it. */
const getTask = (requests: TaskRequests, taskId: string) =>
  Effect.flatMap(
    requests.request("tasks/get", { taskId }),
    (raw) => decodeDetailed(raw).pipe(Effect.mapError(invalid("tasks/get", raw)), Effect.flatMap(sameTask(taskId, raw)))
  )

/**
 * Serve what an `input_required` status asks that was not answered yet (keys seen in an earlier status, by
 * notification or poll, are not asked again), with one `tasks/update`; past `maxInputRounds` updates the
 * follow fails with `McpInputLoopExceededError`.
 */
const inputServer = (method: string, taskId: string, requests: ModernTaskRequests) => {
  const answered = new Set<string>()
  let rounds = 0
  return (task: DetailedTask): Effect.Effect<void, McpClientError> =>
    Effect.gen(function*() {
      if (task.status !== "input_required" || task.inputRequests === undefined) return
      const fresh = Object.fromEntries(Object.entries(task.inputRequests).filter(([key]) => !answered.has(key)))
      if (Object.keys(fresh).length === 0) return
      if (rounds >= requests.maxInputRounds) {
        return yield* new McpInputLoopExceededError({ method, rounds: requests.maxInputRounds })
      }
      rounds++
      const inputResponses = yield* requests.serve(fresh)
      for (const key of Object.keys(fresh)) answered.add(key)
      yield* requests.request("tasks/update", { taskId, inputResponses })
    })
}

/** Where the task's next status comes from, given the last one. */
type Next = (task: DetailedTask) => Effect.Effect<DetailedTask, McpClientError>

const polling = (requests: TaskRequests, taskId: string): Next => (task) =>
  Effect.andThen(Effect.sleep(pollDelay(task.pollIntervalMs)), getTask(requests, taskId))

/** The next `notifications/tasks` about the task (others, and malformed ones, skipped); `None` once the stream ended. */
const nextNotified = (
  notifications: Queue.Dequeue<Notification, Cause.Done>,
  taskId: string
): Effect.Effect<Option.Option<DetailedTask>> =>
  Effect.gen(function*() {
    while (true) {
      const notification = yield* Queue.take(notifications)
      if (notification.method !== "notifications/tasks") continue
      const task = yield* Effect.option(decodeDetailed(notification.params))
      if (Option.isSome(task) && task.value.taskId === taskId) return task
    }
  }).pipe(Effect.catch(() => Effect.succeedNone))

/** A terminal or `input_required` status that came without what it stands for (a notification may leave it out). */
const lacksPayload = (task: DetailedTask): boolean =>
  (task.status === "completed" && task.result === undefined) ||
  (task.status === "failed" && task.error === undefined) ||
  (task.status === "input_required" && task.inputRequests === undefined)

/**
 * Following by notifications. The first `tasks/get` comes one poll interval after the acknowledgement unless
 * a notification about the task came first (a change between the task's creation and the acknowledgement is
 * not notified), then every `SAFETY_POLL`. A status without its payload is fetched with `tasks/get`, at once
 * the first time and then at most once per poll interval: a server that keeps notifying such statuses (say,
 * flapping between `completed` without a result and `working`) is asked at the poll's pace, not once per
 * notification. Once the stream ends, the task is polled.
 */
const notified = (
  requests: TaskRequests,
  taskId: string,
  notifications: Queue.Dequeue<Notification, Cause.Done>,
  first: DetailedTask
) =>
  Effect.map(Clock.currentTimeMillis, (acknowledgedAt): Next => {
    const poll = polling(requests, taskId)
    let ended = false
    let heard = false
    let interval = Duration.toMillis(pollDelay(first.pollIntervalMs))
    let nextGetAt = acknowledgedAt + interval
    let lastGetAt: number | undefined = undefined
    const get = Effect.gen(function*() {
      lastGetAt = yield* Clock.currentTimeMillis
      const task = yield* getTask(requests, taskId)
      nextGetAt = (yield* Clock.currentTimeMillis) + Duration.toMillis(SAFETY_POLL)
      return task
    })
    return (task) =>
      Effect.gen(function*() {
        if (task.pollIntervalMs !== undefined) interval = Duration.toMillis(pollDelay(task.pollIntervalMs))
        while (!ended) {
          const now = yield* Clock.currentTimeMillis
          if (nextGetAt <= now) return yield* get
          const waited = yield* Effect.timeoutOption(nextNotified(notifications, taskId), Duration.millis(nextGetAt - now))
          if (Option.isNone(waited)) return yield* get
          if (Option.isNone(waited.value)) {
            ended = true
            break
          }
          const at = yield* Clock.currentTimeMillis
          if (!heard) {
            heard = true
            nextGetAt = at + Duration.toMillis(SAFETY_POLL)
          }
          if (!lacksPayload(waited.value.value)) return waited.value.value
          nextGetAt = Math.min(nextGetAt, lastGetAt === undefined ? at : lastGetAt + interval)
        }
        return yield* poll(task)
      })
  })

/** The task's status until it is terminal, its input served on the way. */
const toTerminal = (method: string, first: DetailedTask, requests: ModernTaskRequests) =>
  Effect.scoped(Effect.gen(function*() {
    const taskId = first.taskId
    const feed = requests.watch === undefined || TERMINAL.has(first.status) ? undefined : yield* requests.watch(taskId)
    const next = feed === undefined ? polling(requests, taskId) : yield* notified(requests, taskId, feed, first)
    const serve = inputServer(method, taskId, requests)
    let task = first
    yield* reportStatus(requests, "modern", task)
    while (!TERMINAL.has(task.status)) {
      yield* serve(task)
      task = yield* next(task)
      yield* reportStatus(requests, "modern", task)
    }
    return task
  }))

/**
 * A terminal task's outcome: the result of a completed one, the error of a failed or cancelled one. A completed
 * status without its result is an invalid answer (of `tasks/get`, or of the request when its first answer was
 * already completed): the client has no result to return, and makes none up.
 */
const outcome = (
  method: string,
  first: DetailedTask,
  last: DetailedTask
): Effect.Effect<unknown, McpProtocolError | McpInvalidResponseError> => {
  if (last.status === "completed") {
    return last.result !== undefined ? Effect.succeed(last.result) : Effect.fail(
      new McpInvalidResponseError({
        method: last === first ? method : "tasks/get",
        reason: `task ${JSON.stringify(last.taskId)} is completed but carries no result`,
        response: last
      })
    )
  }
  const error = last.error ?? {}
  const taskId = last.taskId
  return Effect.fail(
    new McpProtocolError({
      method,
      code: typeof error["code"] === "number" ? error["code"] : -32603,
      message: typeof error["message"] === "string"
        ? error["message"]
        : last.status === "cancelled"
        ? `task ${taskId} was cancelled${last.statusMessage === undefined ? "" : `: ${last.statusMessage}`}`
        : `task ${taskId} failed${last.statusMessage === undefined ? "" : `: ${last.statusMessage}`}`,
      ...(error["data"] === undefined ? {} : { data: error["data"] })
    })
  )
}

/**
 * Follow a task a modern server created in place of a result (see the module's comment) and return the
 * `result` of the completed task. A failed task is its JSON-RPC error; a cancelled one is an error too.
 *
 * @internal
 */
export const followModernTask = (
  method: string,
  created: unknown,
  requests: ModernTaskRequests,
  onCreated?: ((task: CreatedTask) => Effect.Effect<void>) | undefined
): Effect.Effect<unknown, McpClientError> =>
  Effect.gen(function*() {
    const first = yield* decodeDetailed(created).pipe(Effect.mapError(invalid(method, created)))
    if (onCreated !== undefined) yield* onCreated({ taskId: first.taskId, era: "modern", method, ttl: taskTtl(first) })
    const last = yield* toTerminal(method, first, requests).pipe(cancelUnlessDone(requests, first.taskId))
    return yield* outcome(method, first, last)
  })
