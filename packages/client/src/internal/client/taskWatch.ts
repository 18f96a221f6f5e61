/**
 * A modern task's notifications: a `subscriptions/listen` for its id, for as long as the task is followed.
 * No capability says a server sends them: its acknowledgement is the only word. A connection whose server
 * did not grant the id, refused the listen or never acknowledged it (within the call's request timeout) is
 * remembered, and its later tasks are polled without asking again; a new connection asks again.
 */
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { TaskWatch } from "../modernTasks.js"
import type { Link, Session } from "./connection.js"
import type { Listen } from "./listen.js"

/** The watch of tasks created on `current`, their acknowledgement awaited at most `ackTimeout`. @internal */
export type TaskWatcher = (current: Session, ackTimeout: Duration.Duration) => TaskWatch

/** @internal */
export const make = (listen: Listen): TaskWatcher => {
  const polled = new WeakSet<Link>()
  return (current, ackTimeout) => (taskId) =>
    Effect.gen(function*() {
      if (polled.has(current.link)) return undefined
      const opened = yield* listen.open(current, { taskIds: [taskId] })
      const granted = Option.flatten(yield* Effect.timeoutOption(opened.acknowledged, ackTimeout))
      if (Option.isSome(granted) && granted.value.taskIds?.includes(taskId) === true) return opened.notifications
      polled.add(current.link)
      yield* opened.close
      return undefined
    })
}
