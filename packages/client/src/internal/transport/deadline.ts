/**
 * The one deadline mechanism of a connection: a sweeper fiber that sleeps on the `Clock` (so `TestClock` drives
 * it) until the earliest deadline and expires what is due, and ends when nothing is left to watch (`add` starts
 * it again). Registering a deadline costs a clock read and a set insertion; nothing is forked, raced or scheduled
 * per request. Timers with the same timeout only ever add later deadlines, so in steady state the sweeper wakes
 * about once per timeout period, not once per request.
 *
 * Every kind of timeout goes through it: a request's own (the peer), idle-with-progress (a timer whose `at`
 * moves forward), the whole call's budget and a caller's wait for a shared fetch (`within`). Only the era probe
 * keeps `Effect.timeout`, once per connection.
 *
 * A hold (`pause` ... `resume`) stops every deadline's clock while the connection waits on something that is
 * not its requests' own work (an OAuth sign-in): nothing expires meanwhile, and afterwards each deadline has the
 * time it had left when the hold began.
 */
import * as Clock from "effect/Clock"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import type * as Scope from "effect/Scope"

/**
 * A duration in milliseconds, read directly when it is held in milliseconds (every timeout the client makes):
 * `Duration.toMillis` builds a matcher of four closures on each call, and a request reads its timeout once.
 *
 * @internal
 */
export const millisOf = (duration: Duration.Duration): number =>
  duration.value._tag === "Millis" ? duration.value.millis : Duration.toMillis(duration)

/**
 * A deadline: `expire` is called once, on the sweeper, when the clock reaches `at` (unless removed before).
 * `at` may be moved later at any time; moving it earlier needs `reschedule`.
 *
 * @internal
 */
export interface Timer {
  at: number
  readonly expire: () => Effect.Effect<void> | void
}

/** @internal */
export interface Deadlines {
  /** The current time on the connection's clock, in milliseconds. */
  readonly now: () => number
  /** Watch a timer (an infinite `at` is never watched). */
  readonly add: (timer: Timer) => void
  readonly remove: (timer: Timer) => void
  /** Tell the sweeper that a watched timer's `at` moved earlier. */
  readonly reschedule: (timer: Timer) => void
  /**
   * Bound a whole effect by a deadline of its own: fails with `onTimeout()` once `millis` have passed. For
   * budgets that span several requests or a wait on a shared result, never for a single request.
   */
  readonly within: <A, E, R, E2>(
    effect: Effect.Effect<A, E, R>,
    millis: number,
    onTimeout: () => E2
  ) => Effect.Effect<A, E | E2, R>
  /** Stop every deadline's clock until the matching `resume` (holds nest). */
  readonly pause: () => void
  /** End one hold; at the last, every deadline is moved later by the time the hold lasted. */
  readonly resume: () => void
}

/** @internal */
export const make: Effect.Effect<Deadlines, never, Scope.Scope> = Effect.gen(function*() {
  const clock = yield* Clock.Clock
  const timers = new Set<Timer>()
  let armedFor = Infinity
  let wake = Deferred.makeUnsafe<void>()
  let holds = 0
  let heldSince = 0
  // The sweeper runs while there is something to watch or a hold to wait out, and ends when there is not: an
  // idle connection (most of a connection's life) keeps no fiber for it. It is started again by `add`.
  let sweeper: Fiber.Fiber<void> | undefined
  let closed = false
  const runFork = Effect.runForkWith(yield* Effect.context<never>())
  yield* Effect.addFinalizer(() =>
    Effect.suspend(() => {
      closed = true
      return sweeper === undefined ? Effect.void : Fiber.interrupt(sweeper)
    })
  )

  const now = () => clock.currentTimeMillisUnsafe()

  const sweep: Effect.Effect<void> = Effect.suspend(() => {
    if (holds > 0) {
      // Held: nothing expires, and no new deadline wakes the sweeper before `resume` does.
      armedFor = -Infinity
      wake = Deferred.makeUnsafe<void>()
      return Effect.andThen(Deferred.await(wake), sweep)
    }
    const current = now()
    let next = Infinity
    const due: Array<Timer> = []
    for (const timer of timers) {
      if (timer.at <= current) {
        timers.delete(timer)
        due.push(timer)
      } else if (timer.at < next) {
        next = timer.at
      }
    }
    if (due.length === 0 && next === Infinity) {
      armedFor = Infinity
      sweeper = undefined
      return Effect.void
    }
    armedFor = next
    wake = Deferred.makeUnsafe<void>()
    const expiring = due.length === 0 ? Effect.void : Effect.forEach(due, (timer) => {
      const out = timer.expire()
      return out === undefined ? Effect.void : out
    }, { discard: true })
    const sleep = next === Infinity
      ? Effect.void
      : Effect.raceFirst(clock.sleep(Duration.millis(next - current)), Deferred.await(wake))
    return Effect.andThen(Effect.andThen(expiring, sleep), sweep)
  })

  const add = (timer: Timer) => {
    if (!Number.isFinite(timer.at)) return
    // Added during a hold: it counts from now, not from the start of the hold it is about to be moved by.
    if (holds > 0) timer.at -= now() - heldSince
    timers.add(timer)
    if (sweeper === undefined) {
      if (!closed) sweeper = runFork(sweep)
    } else if (timer.at < armedFor) {
      armedFor = timer.at
      Deferred.doneUnsafe(wake, Exit.void)
    }
  }
  const remove = (timer: Timer) => {
    timers.delete(timer)
  }
  const reschedule = (timer: Timer) => {
    if (timers.has(timer) && timer.at < armedFor) {
      armedFor = timer.at
      Deferred.doneUnsafe(wake, Exit.void)
    }
  }

  const within = <A, E, R, E2>(effect: Effect.Effect<A, E, R>, millis: number, onTimeout: () => E2) =>
    !Number.isFinite(millis) ? effect : Effect.raceFirst(
      effect,
      Effect.callback<never, E2>((resume) => {
        const timer: Timer = { at: now() + millis, expire: () => resume(Effect.fail(onTimeout())) }
        add(timer)
        return Effect.sync(() => remove(timer))
      })
    )

  const pause = () => {
    if (holds++ === 0) heldSince = now()
  }
  const resume = () => {
    if (holds === 0 || --holds > 0) return
    const held = now() - heldSince
    for (const timer of timers) timer.at += held
    armedFor = -Infinity
    Deferred.doneUnsafe(wake, Exit.void)
  }

  const deadlines: Deadlines = { now, add, remove, reschedule, within, pause, resume }
  return deadlines
})
