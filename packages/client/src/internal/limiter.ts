import * as Effect from "effect/Effect"

/**
 * At most `permits` effects at once, the rest waiting first in, first out. Made for thousands of waiters (a
 * server flooding the client with requests): granting a permit wakes exactly one waiter, so each release costs
 * O(1), where `Effect.Semaphore` re-checks every waiter on every release. A waiter can be interrupted while it
 * waits; a permit it was just granted goes to the next.
 *
 * @internal
 */
export interface Limiter {
  readonly withPermit: <A, E, R>(self: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
}

/** @internal */
export const make = (permits: number): Limiter => {
  let free = Math.max(1, Math.floor(permits))
  const waiting: Array<{ granted: boolean; readonly grant: () => void }> = []
  let head = 0

  const release = () => {
    while (head < waiting.length) {
      const next = waiting[head++]
      if (head > 1024 && head * 2 > waiting.length) {
        waiting.splice(0, head)
        head = 0
      }
      if (next !== undefined && !next.granted) {
        next.granted = true
        return next.grant()
      }
    }
    free++
  }

  const acquire = Effect.callback<void>((resume) => {
    if (free > 0) {
      free--
      return resume(Effect.void)
    }
    const entry = { granted: false, grant: () => resume(Effect.void) }
    waiting.push(entry)
    return Effect.sync(() => {
      // Interrupted while waiting: give up the place, or pass on a permit granted in the meantime.
      if (entry.granted) release()
      else entry.granted = true
    })
  })

  return {
    withPermit: (self) =>
      Effect.uninterruptibleMask((restore) =>
        restore(acquire).pipe(Effect.andThen(restore(self).pipe(Effect.ensuring(Effect.sync(release)))))
      )
  }
}
