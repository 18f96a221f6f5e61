import { ResultCache } from "@mcp-effect/client"
import { assert, describe, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import { TestClock } from "effect/testing"

const key = (authContext = "me", params = "null"): ResultCache.CacheKey => ({
  namespace: "server",
  authContext,
  method: "tools/list",
  params
})

/** A fetch that counts its runs and answers `value` with the hints given. */
const counted = <A>(value: A, ttlMs: number | undefined, cacheScope?: "public" | "private") => {
  const state = { runs: 0 }
  const fetch = Effect.sync(() => {
    state.runs++
    return { value, ttlMs, cacheScope }
  })
  return { state, fetch }
}

describe("ResultCache (isolated)", () => {
  it.effect("fresh while now < receivedAt + ttlMs; refresh always fetches; capped at maxTtl", () =>
    Effect.gen(function*() {
      const cache = yield* ResultCache.make({ maxTtl: "10 seconds" })
      const { fetch, state } = counted("v", 60_000)
      yield* cache.get(key(), fetch)
      yield* TestClock.adjust("9999 millis")
      yield* cache.get(key(), fetch)
      assert.strictEqual(state.runs, 1)
      yield* TestClock.adjust("1 millis") // maxTtl 10 s caps the 60 s
      yield* cache.get(key(), fetch)
      assert.strictEqual(state.runs, 2)
      yield* cache.get(key(), fetch, { refresh: true })
      assert.strictEqual(state.runs, 3)
    }))

  it.effect("ttlMs 0 is never stored; private entries stay in their authorization context, public ones do not", () =>
    Effect.gen(function*() {
      const cache = yield* ResultCache.make()
      const zero = counted("z", 0)
      yield* cache.get(key(), zero.fetch)
      yield* cache.get(key(), zero.fetch)
      assert.strictEqual(zero.state.runs, 2)
      assert.strictEqual(yield* cache.size, 0)
      const mine = counted("private", 60_000, "private")
      yield* cache.get(key("alice", "p"), mine.fetch)
      yield* cache.get(key("bob", "p"), mine.fetch)
      assert.strictEqual(mine.state.runs, 2)
      const everyone = counted("public", 60_000, "public")
      yield* cache.get(key("alice", "q"), everyone.fetch)
      yield* cache.get(key("bob", "q"), everyone.fetch)
      assert.strictEqual(everyone.state.runs, 1)
    }))

  it.effect("at most capacity entries, the oldest dropped first; an invalidation drops a method's entries", () =>
    Effect.gen(function*() {
      const cache = yield* ResultCache.make({ capacity: 2 })
      const { fetch, state } = counted("v", 60_000)
      for (const page of ["1", "2", "3"]) yield* cache.get(key("me", page), fetch)
      assert.strictEqual(yield* cache.size, 2)
      yield* cache.get(key("me", "1"), fetch)
      assert.strictEqual(state.runs, 4)
      yield* cache.invalidate({ namespace: "server", method: "tools/list" })
      assert.strictEqual(yield* cache.size, 0)
    }))

  it.effect("an answer fetched across an invalidation is handed out but not stored", () =>
    Effect.gen(function*() {
      const cache = yield* ResultCache.make()
      const gate = yield* Deferred.make<void>()
      const slow = Deferred.await(gate).pipe(Effect.as({ value: "old", ttlMs: 60_000, cacheScope: undefined }))
      const fiber = yield* Effect.forkChild(cache.get(key(), slow))
      yield* Effect.yieldNow
      yield* cache.invalidate({ namespace: "server", method: "tools/list" })
      yield* Deferred.succeed(gate, undefined)
      assert.strictEqual(yield* Fiber.join(fiber), "old")
      assert.strictEqual(yield* cache.size, 0)
    }))

  it.effect("one fetch for simultaneous callers; each waits under its own interruption; the last to leave stops it", () =>
    Effect.gen(function*() {
      const cache = yield* ResultCache.make()
      const gate = yield* Deferred.make<void>()
      let runs = 0
      let stopped = false
      const slow = Effect.suspend(() => {
        runs++
        return Deferred.await(gate).pipe(
          Effect.as({ value: "shared", ttlMs: 0, cacheScope: undefined }),
          Effect.onInterrupt(() => Effect.sync(() => void (stopped = true)))
        )
      })
      const first = yield* Effect.forkChild(cache.get(key(), slow))
      const second = yield* Effect.forkChild(cache.get(key(), slow))
      yield* Effect.repeat(Effect.yieldNow, { times: 5 })
      yield* Fiber.interrupt(first)
      assert.isFalse(stopped)
      yield* Deferred.succeed(gate, undefined)
      assert.strictEqual(yield* Fiber.join(second), "shared")
      assert.strictEqual(runs, 1)

      // Both gone: the fetch is stopped.
      const gate2 = yield* Deferred.make<void>()
      const hanging = Effect.suspend(() => {
        runs++
        return Deferred.await(gate2).pipe(
          Effect.as({ value: "never", ttlMs: 0, cacheScope: undefined }),
          Effect.onInterrupt(() => Effect.sync(() => void (stopped = true)))
        )
      })
      const a = yield* Effect.forkChild(cache.get(key("me", "x"), hanging))
      const b = yield* Effect.forkChild(cache.get(key("me", "x"), hanging))
      yield* Effect.repeat(Effect.yieldNow, { times: 5 })
      yield* Fiber.interrupt(a)
      yield* Fiber.interrupt(b)
      yield* Effect.repeat(Effect.yieldNow, { times: 5 })
      assert.isTrue(stopped)
      assert.isTrue(Exit.hasInterrupts(yield* Fiber.await(b)))
    }))
})
