/**
 * The client's notification and diagnostic hubs: a sliding `PubSub` made by the first subscriber, so a
 * client nobody listens to holds no ring buffer. What is published before then reaches nobody (as with a
 * `PubSub` that has no subscriber); every subscriber after it shares the one `PubSub`.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Stream from "effect/Stream"
import * as Hub from "../src/internal/client/hub.js"

describe("Hub.sliding", () => {
  it.effect("published before any subscriber: reaches nobody; after: reaches each subscriber", () =>
    Effect.gen(function*() {
      const hub = Hub.sliding<number>(4)
      yield* hub.publish(1)
      const first = yield* Effect.forkChild(Stream.runCollect(Stream.take(hub.subscribe, 2)), { startImmediately: true })
      const second = yield* Effect.forkChild(Stream.runCollect(Stream.take(hub.subscribe, 2)), { startImmediately: true })
      yield* Effect.yieldNow
      yield* hub.publish(2)
      yield* hub.publish(3)
      assert.deepStrictEqual(yield* Fiber.join(first), [2, 3])
      assert.deepStrictEqual(yield* Fiber.join(second), [2, 3])
    }))

})
