/**
 * The era probe's real-time watchdog, for in-memory servers under `TestClock`: the probe timeout runs on the
 * fiber's clock, which a test clock holds still, so a fake server that ignores `server/discover` would hang the
 * test. This watches the probe once (a probe is once per connection) on a real timer, and fails it loudly when
 * real time passed but the fiber's clock did not.
 *
 * @internal
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import { McpProbeStalledError } from "../McpError.js"

/** A real timer (`setTimeout`), independent of the fiber's `Clock`; cleared when interrupted. */
const realSleep = (millis: number): Effect.Effect<void> =>
  Effect.callback<void>((resume) => {
    const timer = setTimeout(() => resume(Effect.void), millis)
    return Effect.sync(() => clearTimeout(timer))
  })

/** @internal */
export const watch = <A, E, R>(
  probe: Effect.Effect<A, E, R>,
  after: Duration.Duration | undefined,
  probeTimeout: Duration.Duration
): Effect.Effect<A, E | McpProbeStalledError, R> => {
  if (after === undefined || !Duration.isFinite(after)) return probe
  const millis = Duration.toMillis(after)
  return Effect.clockWith((clock) => {
    const clockStart = clock.currentTimeMillisUnsafe()
    const realStart = Date.now()
    const stalled = Effect.flatMap(realSleep(millis), () => {
      const real = Date.now() - realStart
      // The live clock moved with real time: the probe timeout fires on its own; never interfere with it.
      return clock.currentTimeMillisUnsafe() - clockStart >= real / 2
        ? Effect.never
        : Effect.fail(new McpProbeStalledError({ realMillis: real, probeTimeoutMillis: Duration.toMillis(probeTimeout) }))
    })
    return Effect.raceFirst(probe, stalled)
  })
}
