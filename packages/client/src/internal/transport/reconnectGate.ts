import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"

/**
 * How long to wait before reconnecting a stream, whatever the server asked for (`retry: 0`): never less than
 * `floor`, and never more than `perMinute` reconnections in any minute (past that, the next waits until the
 * oldest of them is a minute old). On the `Clock`, so `TestClock` drives it.
 *
 * @internal
 */
export interface ReconnectGate {
  readonly delay: (wanted: Duration.Duration) => Effect.Effect<Duration.Duration>
}

const WINDOW = 60_000

/** @internal */
export const make = (floor: Duration.Duration, perMinute: number): ReconnectGate => {
  const planned: Array<number> = []
  const limit = Math.max(1, Math.floor(perMinute))
  return {
    delay: (wanted) =>
      Effect.map(Clock.currentTimeMillis, (now) => {
        while (planned.length > 0 && (planned[0] ?? 0) <= now - WINDOW) planned.shift()
        let wait = Math.max(Duration.toMillis(wanted), Duration.toMillis(floor))
        const oldest = planned[0]
        if (planned.length >= limit && oldest !== undefined) wait = Math.max(wait, oldest + WINDOW - now)
        planned.push(now + wait)
        return Duration.millis(wait)
      })
  }
}
