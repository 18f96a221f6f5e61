/**
 * A task-based call at a real terminal (tmux): the task's status messages are the live line while it runs (the
 * reference server's `simulate-research-query` goes through four stages, a second each), then the line is
 * cleared for the result.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as path from "node:path"
import { bin, everything } from "./fixtures/run.js"
import { hasTmux, terminal, tmuxSuite } from "./fixtures/tmux.js"

const cwd = path.join(import.meta.dirname, "../../..")
const cli = `${process.execPath} ${bin}`

describe.skipIf(!hasTmux)(tmuxSuite("a task-based call in a terminal (tmux)"), () => {
  it.live("the task's status messages are shown as the live line, in place, then cleared", () =>
    Effect.gen(function*() {
      const term = yield* terminal(cwd)
      yield* term.type(`${cli} call simulate-research-query topic=cats -- ${process.execPath} ${everything} stdio; echo EXIT=$?`)
      const first = yield* term.waitFor(/Gathering sources|EXIT=\d+/)
      assert.notMatch(first, /EXIT=\d/)
      assert.match(first, /^task working: Gathering sources\.\.\.$/m)
      const later = yield* term.waitFor(/Analyzing content|Synthesizing findings|EXIT=\d+/)
      assert.notMatch(later, /EXIT=\d/)
      // One line, redrawn: the first stage's message is gone from the screen.
      assert.notInclude(later, "Gathering sources")
      const done = yield* term.waitFor(/EXIT=\d+/)
      assert.include(done, "EXIT=0")
      assert.include(done, "simulated research report")
      assert.notMatch(done, /^task /m)
    }))
})
