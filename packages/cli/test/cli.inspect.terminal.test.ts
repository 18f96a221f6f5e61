/**
 * `mcp-effect inspect` at a real terminal (tmux): it prints its one line and nothing else, and Ctrl-C gives the
 * prompt back with no process left: not the server the page started through the relay (a busy one, which does
 * not stop when its stdin closes), nor that server's child.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Schedule from "effect/Schedule"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { bin } from "./fixtures/run.js"
import { hasTmux, terminal, tmuxSuite } from "./fixtures/tmux.js"

const cli = `${process.execPath} ${bin}`
const busy = path.join(import.meta.dirname, "fixtures/busy-server.mjs")

const running = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

/** What the page does first: ask the relay to start the server (with the token of the line). */
const startServer = (origin: string, token: string) =>
  Effect.promise(() =>
    fetch(`${origin}/api/stdio`, { method: "POST", headers: { "x-inspector-token": token }, body: '{"target":"0"}' })
      .then((response) => response.status)
  )

describe.skipIf(!hasTmux)(tmuxSuite("inspect in a terminal (tmux)"), () => {
  it.live("prints its one line; Ctrl-C ends it and every process it started", () =>
    Effect.gen(function*() {
      const dir = mkdtempSync(path.join(tmpdir(), "mcp-effect-inspect-"))
      const pids = path.join(dir, "pids")
      const term = yield* terminal(dir)
      yield* term.type(`BROWSER=none ${cli} inspect -- ${process.execPath} ${busy} ${pids}; echo EXIT=$?`)
      const screen = yield* term.waitFor(/mcp-effect inspector: http:\/\/127\.0\.0\.1:\d+\/#token=\S+/)
      const match = /mcp-effect inspector: (http:\/\/127\.0\.0\.1:\d+)\/#token=(\S+)/.exec(screen)
      const [, origin = "", token = ""] = match ?? []
      // The command's output is that one line: the screen is the typed command, then the line.
      const after = screen.split("\n").slice(-1)
      assert.match(after[0] ?? "", /^mcp-effect inspector: http:\/\/127\.0\.0\.1:\d+\/#token=[A-Za-z0-9_-]{43}$/)
      assert.strictEqual(yield* startServer(origin, token), 201)
      const [server = 0, child = 0] = yield* Effect.try(() => readFileSync(pids, "utf8").split(" ").map(Number)).pipe(
        Effect.filterOrFail((ids) => ids.length === 2 && ids.every((id) => id > 0), () => new Error("no pids yet")),
        Effect.retry(Schedule.spaced("50 millis").pipe(Schedule.upTo({ duration: "10 seconds" })))
      )
      assert.isTrue(running(server) && running(child))
      const pressed = Date.now()
      yield* term.press("C-c")
      const done = yield* term.waitFor(/EXIT=\d+/)
      assert.include(done, "EXIT=130")
      // As every command: the prompt is back within 1.5 s (the screen is polled every 100 ms), a busy server or not.
      assert.isBelow(Date.now() - pressed, 1500)
      yield* Effect.sync(() => [server, child].filter(running)).pipe(
        Effect.filterOrFail((left) => left.length === 0, (left) => new Error(`still running: ${left.join(", ")}`)),
        Effect.retry(Schedule.spaced("50 millis").pipe(Schedule.upTo({ duration: "10 seconds" })))
      )
      rmSync(dir, { recursive: true, force: true })
    }))
})
