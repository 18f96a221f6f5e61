/**
 * A FIFO (or anything but a regular file) at a lock's path (`<file>.lock`), for both files that use the lock:
 * the pin file and the token file. Reading it would block forever (opening a FIFO waits for a writer); the
 * lock never reads it, never removes it, and waits the documented 10 s for it as for a live lock, then fails
 * saying what is there. The wait is on the test clock: it ends when the clock passes 10 s, not before.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import { TestClock } from "effect/testing"
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as McpPinning from "../src/McpPinning.js"
import * as NodeMcpAuth from "../src/NodeMcpAuth.js"
import * as NodeMcpPinning from "../src/NodeMcpPinning.js"
import { advance } from "./fixtures/testClock.js"

const folder = Effect.acquireRelease(
  Effect.sync(() => fs.mkdtempSync(path.join(os.tmpdir(), "mcp-lock-fifo-"))),
  (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
)

const mkfifo = (at: string) => execFileSync("mkfifo", [at])

/**
 * Run `effect` forked and move the test clock a quarter second at a time (letting its file work finish in real
 * time in between) until it ends; its exit and the test time it took.
 */
const onTestClock = <A, E>(effect: Effect.Effect<A, E>) =>
  Effect.gen(function*() {
    const fiber = yield* Effect.forkChild(effect)
    let elapsed = 0
    for (let step = 0; step < 200 && fiber.pollUnsafe() === undefined; step++) {
      // Real time for the fiber's file I/O (the result is decided by the test clock, not by this pause).
      yield* TestClock.withLive(Effect.sleep("5 millis"))
      if (fiber.pollUnsafe() !== undefined) break
      yield* advance("250 millis")
      elapsed += 250
    }
    // Past 50 s of the clock the wait has not ended: it hangs (the FIFO was read).
    if (fiber.pollUnsafe() === undefined) {
      // Not awaited: a lock being taken is uninterruptible, and this one never will be.
      yield* Effect.forkDetach(Fiber.interrupt(fiber))
      return assert.fail(`still waiting after ${elapsed} ms of the test clock`)
    }
    return { exit: yield* Fiber.await(fiber), elapsed }
  })

describe("a FIFO at the lock path", () => {
  it.effect("the pin file: the save waits 10 s of the clock, then fails naming the FIFO; the FIFO is left as it is", () =>
    Effect.gen(function*() {
      const dir = yield* folder
      const file = path.join(dir, "pins.json")
      mkfifo(`${file}.lock`)
      const store = NodeMcpPinning.fileStore(file)
      const { exit, elapsed } = yield* onTestClock(store.save("scope", []))
      assert.isTrue(Exit.isFailure(exit))
      const error = Exit.isFailure(exit) ? exit.cause.reasons[0] : undefined
      const failure = error?._tag === "Fail" ? error.error : undefined
      assert.strictEqual(failure?._tag, "McpPinStoreError")
      assert.include(failure?.message ?? "", "is not a lock file (it is a FIFO)")
      // The documented wait: not before 10 s of the clock (and it ends: see onTestClock).
      assert.isAtLeast(elapsed, 10_000)
      assert.isTrue(fs.lstatSync(`${file}.lock`).isFIFO())
      assert.isFalse(fs.existsSync(file))
      // Reads take no lock: the store still reads (nothing pinned yet).
      assert.deepStrictEqual(yield* McpPinning.list(store, "scope"), [])
    }))

  it.effect("the token file: forgetting stored sign-ins waits 10 s of the clock, then fails naming the FIFO", () =>
    Effect.gen(function*() {
      const dir = yield* folder
      const file = path.join(dir, "tokens.json")
      fs.writeFileSync(file, JSON.stringify({ "https://example.com/mcp|issuer": { server: "https://example.com/mcp" } }), {
        mode: 0o600
      })
      mkfifo(`${file}.lock`)
      const { exit, elapsed } = yield* onTestClock(NodeMcpAuth.forgetStored(file))
      assert.isTrue(Exit.isFailure(exit))
      const error = Exit.isFailure(exit) ? exit.cause.reasons[0] : undefined
      const failure = error?._tag === "Fail" ? error.error : undefined
      assert.include(failure?.message ?? "", "is not a lock file (it is a FIFO)")
      assert.isAtLeast(elapsed, 10_000)
      assert.isTrue(fs.lstatSync(`${file}.lock`).isFIFO())
    }))

  it.effect("a directory at the lock path is waited on the same way (never removed)", () =>
    Effect.gen(function*() {
      const dir = yield* folder
      const file = path.join(dir, "pins.json")
      fs.mkdirSync(`${file}.lock`)
      const { exit, elapsed } = yield* onTestClock(NodeMcpPinning.fileStore(file).save("scope", []))
      assert.isTrue(Exit.isFailure(exit))
      assert.isAtLeast(elapsed, 10_000)
      assert.isTrue(fs.statSync(`${file}.lock`).isDirectory())
    }))
})
