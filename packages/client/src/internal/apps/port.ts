/**
 * What the bridge talks over: a port that sends to the App and delivers what arrives, each arrival marked with
 * whether it came from the App's own window. In a page it is `postMessage` (see `internal/apps/frame.ts`); in
 * tests, the in-memory port here.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as Queue from "effect/Queue"
import type { JsonObject } from "../../McpSchema.js"

/** One arrival. `fromApp` is false for a message of another window or origin, which the bridge drops. @internal */
export interface Incoming {
  readonly data: unknown
  readonly fromApp: boolean
  /** Where it came from, for the report of a dropped message. */
  readonly origin?: string | undefined
}

/** @internal */
export interface Port {
  readonly send: (message: JsonObject) => Effect.Effect<void>
  readonly incoming: Queue.Dequeue<Incoming>
}

/**
 * How many arrivals wait for the bridge before more are dropped: an App (or another window) that floods the
 * page cannot grow the host's memory.
 *
 * @internal
 */
export const INBOX_CAPACITY = 1024

/** The App's end of an in-memory port. @internal */
export interface MemoryApp {
  /** Post a message to the host, as the App (or, with `foreign`, as another window). */
  readonly post: (data: unknown, options?: { readonly foreign?: boolean | undefined }) => void
  /** What the host sent, in order. */
  readonly received: Queue.Dequeue<JsonObject>
}

/** A port and its App end, in memory. @internal */
export const memory: Effect.Effect<{ readonly port: Port; readonly app: MemoryApp }> = Effect.gen(function*() {
  const toHost = yield* Queue.dropping<Incoming>(INBOX_CAPACITY)
  const toApp = yield* Queue.unbounded<JsonObject>()
  const port: Port = { send: (message) => Effect.asVoid(Queue.offer(toApp, message)), incoming: toHost }
  const app: MemoryApp = {
    post: (data, options) =>
      void Queue.offerUnsafe(toHost, {
        data,
        fromApp: options?.foreign !== true,
        origin: options?.foreign === true ? "foreign" : "app"
      }),
    received: toApp
  }
  return { port, app }
})
