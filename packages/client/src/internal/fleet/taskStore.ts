/**
 * Tasks that outlive a worker: when a server accepts a call as a task, the fleet records its id, its server
 * and its era in Redis under the subject's key (sealed like the tokens, the key being the value's place, so a
 * record copied under another subject does not open), living as long as the server keeps the task (its
 * `ttl`, at most `maxTtl`). `resume` reads it back in any process of the same subject and follows the task
 * through the client's own polling (`tasks/get` then `tasks/result`).
 *
 * @internal
 */
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as Redis from "effect/persistence/Redis"
import type { McpClientError } from "../../McpError.js"
import { McpProtocolError } from "../../McpError.js"
import type { JsonObject } from "../../McpSchema.js"
import * as ModernTasks from "../modernTasks.js"
import * as Tasks from "../tasks.js"
import { digest, type Sealer } from "./seal.js"

/** @internal */
export interface TaskRecord {
  readonly taskId: string
  readonly server: string
  readonly era: "legacy" | "modern"
  readonly method: string
  readonly createdAt: number
}

/** @internal */
export interface TaskStoreOptions {
  readonly redis: Redis.Redis["Service"]
  readonly sealer: Sealer
  readonly subject: string
  readonly prefix: string
  readonly timeout: Duration.Duration
  /** How long a record lives when the server gave no `ttl`, and at most. */
  readonly maxTtl: Duration.Duration
  readonly onRoundTrip?: (() => void) | undefined
}

/** @internal */
export interface TaskStore {
  /** Record a task the server created (a Redis failure is a warning: the task is then not shared). */
  readonly record: (server: string, task: Tasks.CreatedTask) => Effect.Effect<void>
  /** This subject's record of the task, `undefined` when there is none (unknown, expired, another subject's). */
  readonly read: (taskId: string) => Effect.Effect<TaskRecord | undefined, Redis.RedisError | "timeout">
  readonly remove: (taskId: string) => Effect.Effect<void>
}

const parseRecord = (text: string): TaskRecord | undefined => {
  try {
    const value: unknown = JSON.parse(text)
    if (typeof value !== "object" || value === null) return undefined
    const record = value as Partial<TaskRecord>
    return typeof record.taskId === "string" && typeof record.server === "string" &&
        (record.era === "legacy" || record.era === "modern") && typeof record.method === "string" &&
        typeof record.createdAt === "number"
      ? record as TaskRecord
      : undefined
  } catch {
    return undefined
  }
}

/** @internal */
export const make = (options: TaskStoreOptions): TaskStore => {
  const { redis, sealer } = options
  const subjectKey = digest(options.subject)
  const keyOf = (taskId: string) => `${options.prefix}:task:${subjectKey}:${digest(taskId)}`
  const maxMs = Math.max(1, Duration.toMillis(options.maxTtl))
  const bounded = <A>(effect: Effect.Effect<A, Redis.RedisError>) =>
    Effect.suspend(() => {
      options.onRoundTrip?.()
      return effect
    }).pipe(Effect.timeoutOrElse({ duration: options.timeout, orElse: () => Effect.fail("timeout" as const) }))
  const warn = (what: string) => (error: Redis.RedisError | "timeout") =>
    Effect.logWarning(`mcp fleet: Redis ${what} ${error === "timeout" ? "timed out" : "failed"}; the task is not shared`)

  const record = (server: string, task: Tasks.CreatedTask) =>
    Effect.flatMap(Clock.currentTimeMillis, (createdAt) => {
      const key = keyOf(task.taskId)
      const value: TaskRecord = { taskId: task.taskId, server, era: task.era, method: task.method, createdAt }
      const ttl = Math.min(maxMs, Math.max(1, Math.ceil(task.ttl ?? maxMs)))
      return bounded(redis.send("SET", key, sealer.seal(JSON.stringify(value), key), "PX", String(ttl))).pipe(
        Effect.asVoid,
        Effect.catch(warn("task write"))
      )
    })

  const read = (taskId: string) =>
    Effect.gen(function*() {
      const key = keyOf(taskId)
      const sealed = yield* bounded(redis.send<string | null>("GET", key))
      if (typeof sealed !== "string") return undefined
      const opened = sealer.open(sealed, key)
      const found = opened === undefined ? undefined : parseRecord(opened)
      if (found === undefined || found.taskId !== taskId) {
        yield* Effect.logWarning("mcp fleet: a stored task record did not open; discarded")
        yield* remove(taskId)
        return undefined
      }
      return found
    })

  const remove = (taskId: string): Effect.Effect<void> =>
    bounded(redis.send("DEL", keyOf(taskId))).pipe(Effect.asVoid, Effect.catch(warn("task delete")))

  return { record, read, remove }
}

/**
 * Follow a recorded task to its end with the client's own polling: legacy `tasks/get` (from the first poll
 * interval's floor) then `tasks/result`; modern `tasks/get` until terminal. A modern task that asks for input
 * fails: its input hooks live in the process that started it.
 *
 * @internal
 */
export const follow = (
  record: TaskRecord,
  request: (method: string, params: JsonObject) => Effect.Effect<unknown, McpClientError>
): Effect.Effect<unknown, McpClientError> =>
  record.era === "legacy"
    ? Tasks.pollLegacyTask({ request }, { taskId: record.taskId, status: "working", pollInterval: 0 })
    : ModernTasks.followModernTask(record.method, { taskId: record.taskId, status: "working", pollIntervalMs: 0 }, {
      request,
      // Its `serve` refuses the first round anyway.
      maxInputRounds: 1,
      serve: () =>
        Effect.fail(
          new McpProtocolError({
            method: record.method,
            code: -32603,
            message: `task ${record.taskId} asks for input; a resumed task cannot answer it`
          })
        )
    })
