/**
 * The server's word that a URL elicitation is done: `notifications/elicitation/complete { elicitationId }`
 * (legacy servers only; it MAY never come). The command follows every notification of its server from the
 * start, so none is missed, and acts only on the ids it waits for: each is announced once, when it comes.
 * Other ids are ignored (the spec's rule); the last few are remembered without a word, in case one comes
 * just before the command starts waiting for it.
 */
import type { McpClient } from "@mcp-effect/client"
import type { Notification } from "@mcp-effect/client/McpSchema"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import type { StatusLine } from "../terminal/statusLine.js"

export const COMPLETE = "notifications/elicitation/complete"

/** How many ids that nobody waited for are remembered. */
const REMEMBERED = 32

export interface Completions {
  /** Wait for this id from now on: the returned signal is done when its completion comes (or came). */
  readonly expect: (elicitationId: string) => Effect.Effect<Deferred.Deferred<void>>
  /** A completion from the server (unknown and repeated ids change nothing). */
  readonly complete: (elicitationId: string) => Effect.Effect<void>
}

export const make = (status: StatusLine): Completions => {
  const waiting = new Map<string, Deferred.Deferred<void>>()
  const unclaimed: Array<string> = []
  const expect = (elicitationId: string) =>
    Effect.sync(() => {
      const known = waiting.get(elicitationId)
      if (known !== undefined) return known
      const signal = Deferred.makeUnsafe<void>()
      waiting.set(elicitationId, signal)
      const early = unclaimed.indexOf(elicitationId)
      if (early >= 0) {
        unclaimed.splice(early, 1)
        Deferred.doneUnsafe(signal, Effect.void)
      }
      return signal
    })
  const complete = (elicitationId: string) =>
    Effect.sync(() => {
      const signal = waiting.get(elicitationId)
      if (signal === undefined) {
        if (!unclaimed.includes(elicitationId)) unclaimed.push(elicitationId)
        if (unclaimed.length > REMEMBERED) unclaimed.shift()
        return
      }
      // The waiter may run at once: the line is written first.
      if (Deferred.isDoneUnsafe(signal)) return
      status.line("mcp-effect: the server says the browser step is done")
      Deferred.doneUnsafe(signal, Effect.void)
    })
  return { expect, complete }
}

const completedId = (notification: Notification): string | undefined => {
  if (notification.method !== COMPLETE) return undefined
  const id = notification.params?.["elicitationId"]
  return typeof id === "string" ? id : undefined
}

/**
 * Follow the client's notifications for the life of the scope. Subscribed before this returns, so a
 * completion sent at any later time is seen.
 */
export const follow = (client: McpClient.Service, completions: Completions): Effect.Effect<void, never, Scope.Scope> =>
  client.notifications.pipe(
    Stream.runForEach((notification) => {
      const id = completedId(notification)
      return id === undefined ? Effect.void : completions.complete(id)
    }),
    Effect.forkScoped({ startImmediately: true }),
    Effect.asVoid
  )
