import { assert, describe, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import { TestClock } from "effect/testing"
import * as Deferred from "effect/Deferred"
import * as Fiber from "effect/Fiber"
import * as Limiter from "../src/internal/limiter.js"
import * as ReconnectGate from "../src/internal/transport/reconnectGate.js"

describe("reconnect gate (item 8)", () => {
  it.effect("retry: 0 is raised to the floor, and no more than the bound reconnect in any minute (TestClock)", () =>
    Effect.gen(function*() {
      const gate = ReconnectGate.make(Duration.millis(500), 30)
      let reconnects = 0
      // A server that says retry: 0 every time, for ten minutes of clock time.
      yield* Effect.gen(function*() {
        while (true) {
          yield* Effect.sleep(yield* gate.delay(Duration.zero))
          reconnects++
        }
      }).pipe(Effect.forkChild)
      yield* TestClock.adjust("10 seconds")
      assert.strictEqual(reconnects, 20, "the floor: one per 500 ms")
      yield* TestClock.adjust("590 seconds")
      assert.isAtMost(reconnects, 10 * 30 + 30, "the bound: 30 a minute")
      assert.isAtLeast(reconnects, 10 * 30 - 30)
    }))

  it.effect("a longer wanted delay is kept", () =>
    Effect.gen(function*() {
      const gate = ReconnectGate.make(Duration.millis(500), 30)
      assert.strictEqual(Duration.toMillis(yield* gate.delay(Duration.seconds(3))), 3000)
    }))
})

describe("hook limiter (item 9)", () => {
  it.effect("at most N at once, first in first out; an interrupted waiter gives up its place", () =>
    Effect.gen(function*() {
      const limiter = Limiter.make(1)
      const order: Array<string> = []
      const gate = yield* Deferred.make<void>()
      const holder = yield* Effect.forkChild(limiter.withPermit(Deferred.await(gate)))
      yield* Effect.yieldNow
      const quitter = yield* Effect.forkChild(limiter.withPermit(Effect.sync(() => order.push("quitter"))))
      const first = yield* Effect.forkChild(limiter.withPermit(Effect.sync(() => order.push("first"))))
      const second = yield* Effect.forkChild(limiter.withPermit(Effect.sync(() => order.push("second"))))
      yield* Effect.yieldNow
      yield* Fiber.interrupt(quitter)
      assert.deepStrictEqual(order, [])
      yield* Deferred.succeed(gate, undefined)
      yield* Fiber.join(holder)
      yield* Fiber.join(first)
      yield* Fiber.join(second)
      assert.deepStrictEqual(order, ["first", "second"])
      // Every permit came back.
      assert.strictEqual(yield* limiter.withPermit(Effect.succeed("free")), "free")
    }))
})
