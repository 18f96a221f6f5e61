/**
 * A task-based call's status on the live line: `task working: Gathering sources...`, from each status the client
 * takes while it follows the task (`onTaskStatus`: its answers to `tasks/get`) and from the task status
 * notifications the server sends (`notifications/tasks/status` of legacy tasks, `notifications/tasks` of the
 * modern extension, which may come before the client polls), as the progress bar is shown. Only the call's own task is shown: the client names it
 * (`onTaskCreated`) once the server has accepted it, and a status that came before (a server may report the
 * first stage before its answer) is kept until then, the latest of a few tasks at most.
 */
import type { McpClient } from "@mcp-effect/client"
import { McpSchema } from "@mcp-effect/client"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import type { StatusLine } from "./statusLine.js"

/** How many tasks' statuses are kept while the call's own task is not named yet. */
const KEPT = 16

const METHODS: ReadonlySet<string> = new Set(["notifications/tasks/status", "notifications/tasks"])

export interface TaskStatuses {
  /** The `onTaskCreated` hook: the call's task, whose statuses are shown from now on. */
  readonly created: (task: McpClient.CreatedTask) => Effect.Effect<void>
  /** The `onTaskStatus` hook: a status the client took while following the call's task. */
  readonly status: (task: McpClient.TaskStatus) => Effect.Effect<void>
  /** Follow the server's task status notifications for the life of the scope. */
  readonly follow: (client: McpClient.Service) => Effect.Effect<void, never, Scope.Scope>
}

interface Reported {
  readonly taskId: string
  readonly text: string
}

/** The line a task's status shows. */
const lineOf = (status: string, message: unknown) => `task ${status}${typeof message === "string" ? `: ${message}` : ""}`

/** A task status notification's task and the line it shows; `undefined` for anything else. */
export const reportOf = (notification: McpSchema.Notification): Reported | undefined => {
  if (!METHODS.has(notification.method)) return undefined
  const task = notification.params
  if (!McpSchema.isRecord(task) || typeof task["taskId"] !== "string" || typeof task["status"] !== "string") return undefined
  return { taskId: task["taskId"], text: lineOf(task["status"], task["statusMessage"]) }
}

export const make = (status: StatusLine): TaskStatuses => {
  const latest = new Map<string, string>()
  let current: string | undefined
  const seen = (report: Reported) => {
    if (report.taskId === current) return status.note(report.text)
    if (current !== undefined) return
    latest.delete(report.taskId)
    latest.set(report.taskId, report.text)
    // The oldest goes first (a Map keeps insertion order): memory stays bounded whatever the server sends.
    for (const id of latest.keys()) if (latest.size > KEPT) latest.delete(id)
  }
  return {
    created: (task) =>
      Effect.sync(() => {
        current = task.taskId
        const text = latest.get(task.taskId)
        latest.clear()
        if (text !== undefined) status.note(text)
      }),
    status: (task) => Effect.sync(() => seen({ taskId: task.taskId, text: lineOf(task.status, task.statusMessage) })),
    follow: (client) =>
      client.notifications.pipe(
        Stream.runForEach((notification) =>
          Effect.sync(() => {
            const report = reportOf(notification)
            if (report !== undefined) seen(report)
          })
        ),
        Effect.forkScoped({ startImmediately: true }),
        Effect.asVoid
      )
  }
}
