import { type McpSchema, ToolScheduler } from "@mcp-effect/client"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Ref from "effect/Ref"
import { TestClock } from "effect/testing"
import * as Fiber from "effect/Fiber"

const safe = { readOnlyHint: true, idempotentHint: true }
const annotations = (table: Record<string, McpSchema.ToolAnnotations>): ToolScheduler.AnnotationLookup => (tool) => table[tool]

describe("ToolScheduler (isolated)", () => {
  it("plans serially unless every call is to a read-only idempotent tool; merges identical calls", () => {
    const scheduler = ToolScheduler.make()
    const lookup = annotations({ read: safe, write: { readOnlyHint: false } })
    assert.strictEqual(scheduler.plan([{ tool: "read", key: "a" }], lookup).mode, "serial")
    assert.strictEqual(scheduler.plan([{ tool: "read", key: "a" }, { tool: "write", key: "b" }], lookup).mode, "serial")
    assert.strictEqual(scheduler.plan([{ tool: "read", key: "a" }, { tool: "read", key: "b" }], undefined).mode, "serial")
    assert.strictEqual(scheduler.plan([{ tool: undefined, key: undefined }, { tool: "read", key: "b" }], lookup).mode, "serial")
    const plan = scheduler.plan(
      [{ tool: "read", key: "a" }, { tool: "read", key: "b" }, { tool: "read", key: "a" }, { tool: "read", key: undefined }],
      lookup
    )
    assert.deepStrictEqual({ mode: plan.mode, groups: plan.groups, concurrency: plan.concurrency }, {
      mode: "concurrent",
      groups: [[0, 2], [1], [3]],
      concurrency: 4
    })
    assert.strictEqual(ToolScheduler.make({ toolConcurrency: 1 }).plan([{ tool: "read", key: "a" }, { tool: "read", key: "b" }], lookup).mode, "serial")
    assert.strictEqual(ToolScheduler.make({ toolConcurrency: Number.NaN }).toolConcurrency, 1)
  })

  it.effect("runs a widened batch at most toolConcurrency at a time; answers in call order; a merged call runs once", () =>
    Effect.gen(function*() {
      const running = yield* Ref.make(0)
      const peak = yield* Ref.make(0)
      const runs = yield* Ref.make(0)
      const job = (key: string, delay: number) => ({
        tool: "read",
        key,
        run: Effect.gen(function*() {
          yield* Ref.update(runs, (n) => n + 1)
          const now = yield* Ref.updateAndGet(running, (n) => n + 1)
          yield* Ref.update(peak, (p) => Math.max(p, now))
          yield* Effect.sleep(`${delay} millis`)
          yield* Ref.update(running, (n) => n - 1)
          return key
        })
      })
      const scheduler = ToolScheduler.make({ toolConcurrency: 2 })
      const jobs = [job("a", 30), job("b", 10), job("c", 20), job("a", 5), job("d", 1)]
      const fiber = yield* Effect.forkChild(scheduler.run(jobs, annotations({ read: safe })))
      yield* TestClock.adjust("1 second")
      const answers = yield* Fiber.join(fiber)
      assert.deepStrictEqual(answers, ["a", "b", "c", "a", "d"])
      assert.strictEqual(yield* Ref.get(peak), 2)
      assert.strictEqual(yield* Ref.get(runs), 4)
    }))

  it.effect("a serial batch runs one call after the other, every call (no merging)", () =>
    Effect.gen(function*() {
      const order: Array<string> = []
      const job = (key: string) => ({ tool: "write", key, run: Effect.sync(() => order.push(key)).pipe(Effect.as(key)) })
      const answers = yield* ToolScheduler.make().run([job("x"), job("x"), job("y")], annotations({}))
      assert.deepStrictEqual(answers, ["x", "x", "y"])
      assert.deepStrictEqual(order, ["x", "x", "y"])
    }))
})
