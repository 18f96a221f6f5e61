/**
 * The connection's deadlines held while something that is not the requests' own work runs (an OAuth sign-in):
 * nothing expires during a hold, each deadline keeps the time it had left, and one added during a hold counts
 * from when it was added.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { TestClock } from "effect/testing"
import * as Deadline from "../src/internal/transport/deadline.js"

describe("deadline holds", () => {
  it.effect("a hold stops every deadline's clock; nested holds end at the last resume", () =>
    Effect.gen(function*() {
      const deadlines = yield* Deadline.make
      const expired: Array<string> = []
      const timer = (name: string, millis: number): Deadline.Timer => ({
        at: deadlines.now() + millis,
        expire: () => void expired.push(name)
      })
      deadlines.add(timer("five", 5_000))
      yield* TestClock.adjust("1 second")
      deadlines.pause()
      deadlines.pause()
      yield* TestClock.adjust("30 seconds")
      // Added 30 s into the hold: 2 s of its own once the hold ends.
      deadlines.add(timer("two", 2_000))
      yield* TestClock.adjust("30 seconds")
      assert.deepStrictEqual(expired, [])
      deadlines.resume()
      yield* TestClock.adjust("1 minute")
      assert.deepStrictEqual(expired, [])
      deadlines.resume()
      yield* TestClock.adjust("1999 millis")
      assert.deepStrictEqual(expired, [])
      yield* TestClock.adjust("1 milli")
      assert.deepStrictEqual(expired, ["two"])
      yield* TestClock.adjust("2 seconds")
      assert.deepStrictEqual(expired, ["two", "five"])
    }))

  it.effect("once nothing is left to watch the sweeper stops; a deadline added later still expires on time", () =>
    Effect.gen(function*() {
      const deadlines = yield* Deadline.make
      const expired: Array<string> = []
      const timer = (name: string, millis: number): Deadline.Timer => ({
        at: deadlines.now() + millis,
        expire: () => void expired.push(name)
      })
      deadlines.add(timer("first", 1_000))
      const removed = timer("removed", 500)
      deadlines.add(removed)
      deadlines.remove(removed)
      yield* TestClock.adjust("1 second")
      assert.deepStrictEqual(expired, ["first"])
      // Long after: the sweeper has ended; these start it again, the earlier one first.
      yield* TestClock.adjust("1 hour")
      deadlines.add(timer("later", 3_000))
      deadlines.add(timer("sooner", 2_000))
      yield* TestClock.adjust("1999 millis")
      assert.deepStrictEqual(expired, ["first"])
      yield* TestClock.adjust("1 milli")
      assert.deepStrictEqual(expired, ["first", "sooner"])
      yield* TestClock.adjust("1 second")
      assert.deepStrictEqual(expired, ["first", "sooner", "later"])
      // A hold started and ended with nothing to watch leaves nothing behind, and the next deadline still fires.
      deadlines.pause()
      deadlines.resume()
      deadlines.add(timer("after hold", 100))
      yield* TestClock.adjust("100 millis")
      assert.deepStrictEqual(expired, ["first", "sooner", "later", "after hold"])
    }))
})
