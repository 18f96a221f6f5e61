/**
 * `mcp-effect types` in a real terminal (tmux), against the hostile codegen server (issue 33, item 11): the
 * module printed on the terminal and the notes on stderr carry the server's bidi controls, C0, C1 and ESC
 * sequences only as visible escapes; the screen is not cleared, the cursor not moved, no hyperlink drawn.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { createRequire } from "node:module"
import * as path from "node:path"
import { bin } from "./fixtures/run.js"
import { hasTmux, terminal, tmuxSuite } from "./fixtures/tmux.js"

const require = createRequire(import.meta.url)
const hostileCodegen = require.resolve("@mcp-effect/test-servers/hostile-codegen")
const cwd = path.join(import.meta.dirname, "../../..")
const cli = `${process.execPath} ${bin}`

/** What the terminal must never be sent by the server: C0 but newline and tab, DEL, C1, bidi controls. */
const HIDDEN = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/

describe.skipIf(!hasTmux)(tmuxSuite("mcp-effect types in a terminal (tmux)"), () => {
  it.live("the module and the notes of a server whose names carry Trojan Source reach the terminal escaped", () =>
    Effect.gen(function*() {
      const term = yield* terminal(cwd)
      yield* term.type("echo MARK-BEFORE")
      // The module's last lines and the notes (stderr) on the screen; the whole module through `tail`, a pipe
      // like any other, and at the terminal itself.
      yield* term.type(`${cli} types -- ${process.execPath} ${hostileCodegen} --depth 10 | tail -n 5; echo EXIT=$?`)
      const piped = yield* term.waitFor(/EXIT=\d+/)
      assert.include(piped, "EXIT=0")
      assert.include(piped, "MARK-BEFORE") // not cleared by an ESC [2J
      assert.include(piped, "mcp-effect: trojan\\u202a\\u202b\\u202c\\u202d\\u202e") // a note, its name made visible
      assert.include(piped, "export const changedTools")
      yield* term.type("clear")
      yield* term.type(`${cli} types -- ${process.execPath} ${hostileCodegen} --depth 10; echo EXIT=$?`)
      yield* term.waitFor(/EXIT=\d+/)
      const history = yield* term.history
      assert.include(history, "EXIT=0")
      // In the module: names and values as `\u` escapes in strings; in doc comments the controls are dropped.
      assert.include(history, "\"out\\u202a\\u202b\\u202c\\u202d\\u202e\\u2066")
      assert.include(history, "\\u001b[2J\\u001b]8;;https://evil.example/\\u0007")
      assert.include(history, "reads one way, runs another [2J]8;;https://evil.example/")
      const raw = yield* term.rawScreen
      assert.notMatch(raw.replace(/\u001b\[[0-9;]*m/g, ""), HIDDEN) // only tmux's own colour codes, if any
      assert.notInclude(raw, "evil.example/\u0007")
    }))
})
