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
})
