/**
 * `mcp-effect` in a real terminal (tmux): an elicitation form answered at the prompts, the live progress
 * bar redrawn in place, and Ctrl-C during a call.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { bin, everything, official } from "./fixtures/run.js"
import { hasTmux, terminal, tmuxSuite } from "./fixtures/tmux.js"

const cwd = path.join(import.meta.dirname, "../../..")
const cli = `${process.execPath} ${bin}`
const demo = `--stdio '${process.execPath} ${official}'`

describe.skipIf(!hasTmux)(tmuxSuite("mcp-effect in a terminal (tmux)"), () => {
  it.live("--help is coloured at a terminal, and not with NO_COLOR or when piped", () =>
    Effect.gen(function*() {
      const term = yield* terminal(cwd)
      yield* term.type(`${cli} read --help; echo TTY=$?`)
      yield* term.waitFor(/TTY=0/)
      assert.match(yield* term.rawScreen, /\x1b\[[0-9;]*mUSAGE/)
      yield* term.clear
      yield* term.type(`NO_COLOR=1 ${cli} read --help; echo NO_COLOR=$?`)
      yield* term.waitFor(/NO_COLOR=0/)
      const plain = yield* term.rawScreen
      assert.include(plain, "USAGE")
      assert.notMatch(plain, /\x1b\[[0-9;]*m(USAGE|DESCRIPTION)/)
      yield* term.clear
      yield* term.type(`${cli} read --help | cat; echo PIPED=$?`)
      yield* term.waitFor(/PIPED=0/)
      assert.notMatch(yield* term.rawScreen, /\x1b\[[0-9;]*m(USAGE|DESCRIPTION)/)
    }))

  it.live("a yes/no elicitation answered at the prompt", () =>
    Effect.gen(function*() {
      const term = yield* terminal(cwd)
      yield* term.type(`${cli} call confirm 'question=Deploy now?' ${demo}; echo EXIT=$?`)
      yield* term.waitFor(/\? ok › \(y\/N\)/)
      assert.include(yield* term.screen, "? The server asks: Deploy now?")
      yield* term.press("y")
      const done = yield* term.waitFor(/EXIT=\d+/)
      assert.include(done, "✔ ok … yes")
      assert.include(done, "confirmed: true")
      assert.include(done, "EXIT=0")
    }))

  it.live("with stdout piped the question is declined, not drawn into the pipe", () =>
    Effect.gen(function*() {
      const term = yield* terminal(cwd)
      yield* term.type(`${cli} call confirm question=Piped? --json ${demo} | cat; echo EXIT=$?`)
      const done = yield* term.waitFor(/EXIT=\d+/)
      assert.include(done, "declined the server's question (not at a terminal): Piped?")
      assert.include(done, "\"text\": \"declined\"")
      assert.notInclude(done, "? ok")
    }))

  it.live("a form of text, boolean, number and enum fields, with the schema's defaults", () =>
    Effect.gen(function*() {
      const term = yield* terminal(cwd)
      yield* term.type(`${cli} call trigger-elicitation-request -- ${process.execPath} ${everything} stdio; echo EXIT=$?`)
      yield* term.waitFor(/\? String \(Your full, legal name\) ›/)
      yield* term.type("Ada Lovelace")
      yield* term.waitFor(/\? Boolean .* › \(y\/N\)/)
      yield* term.press("y")
      yield* term.waitFor(/\? String with default .* › It was a dark and stormy night\./)
      yield* term.press("Enter")
      yield* term.waitFor(/\? String with email format/)
      yield* term.type("ada@example.com")
      yield* term.waitFor(/\? String with uri format/)
      yield* term.press("Enter")
      yield* term.waitFor(/\? String with date format/)
      yield* term.press("Enter")
      yield* term.waitFor(/\? Integer .*›/)
      yield* term.press("Enter")
      yield* term.waitFor(/\? Number in range 1-1000 .*›/)
      yield* term.press("Enter")
      yield* term.waitFor(/❯ Monica/)
      yield* term.press("Down", "Enter")
      for (const prompt of [/Untitled Multiple Select Enum/, /\? Titled Single Select Enum/, /\? Titled Multiple Select Enum/, /\? Legacy Titled/]) {
        yield* term.waitFor(prompt)
        yield* term.press("Enter")
      }
      assert.include(yield* term.waitFor(/EXIT=\d+/), "EXIT=0")
      const flat = (yield* term.history).replace(/\s+/g, " ")
      assert.include(flat, "✅ User provided the requested information!")
      assert.include(flat, "\"name\": \"Ada Lovelace\"")
      assert.include(flat, "\"check\": true")
      assert.include(flat, "\"firstLine\": \"It was a dark and stormy night.\"")
      assert.include(flat, "\"integer\": 42")
      assert.include(flat, "\"untitledSingleSelectEnum\": \"Rachel\"")
      assert.include(flat, "\"legacyTitledEnum\": \"pet-1\"")
    }))

  it.live("the progress bar is redrawn in place, then cleared; Ctrl-C cancels a call with exit 130", () =>
    Effect.gen(function*() {
      const term = yield* terminal(cwd)
      yield* term.type(`${cli} call slow ms=4500 steps=3 ${demo}; echo EXIT=$?`)
      const midway = yield* term.waitFor(/\[#{8}-{16}\]  33% \(1\/3\) step 1/)
      assert.notMatch(midway, /EXIT=\d/)
      const later = yield* term.waitFor(/67% \(2\/3\) step 2/)
      // One line, redrawn: the 33% report is gone from the screen.
      assert.notInclude(later, "33%")
      const done = yield* term.waitFor(/EXIT=\d+/)
      // The bar is cleared before the result is printed: the result starts its own line.
      assert.match(done, /^done\nEXIT=0$/m)
      assert.notMatch(done, /%/)

      yield* term.clear
      yield* term.type(`${cli} call slow ms=60000 steps=60 ${demo}; echo EXIT=$?`)
      yield* term.waitFor(/\(1\/60\) step 1/)
      yield* term.press("C-c")
      const interrupted = yield* term.waitFor(/EXIT=\d+/)
      assert.include(interrupted, "EXIT=130")
    }))

  it.live("servers asks VS Code's inputs at the terminal (a password unseen), and the entries that use them connect", () =>
    Effect.gen(function*() {
      const project = mkdtempSync(path.join(tmpdir(), "mcp-effect-inputs-"))
      mkdirSync(path.join(project, ".vscode"))
      writeFileSync(path.join(project, ".vscode/mcp.json"), JSON.stringify({
        inputs: [
          { type: "promptString", id: "era", description: "Which era" },
          { type: "promptString", id: "token", description: "API token", password: true }
        ],
        servers: {
          secret: { type: "stdio", command: process.execPath, args: [official, "--era", "${input:era}"], env: { TOKEN: "${input:token}" } }
        }
      }))
      const term = yield* terminal(project)
      yield* term.type(`HOME=${project} ${cli} servers; echo EXIT=$?`)
      yield* term.waitFor(/\? Which era/)
      yield* term.type("legacy")
      yield* term.waitFor(/\? API token/)
      yield* term.type("s3cret-value")
      const done = yield* term.waitFor(/EXIT=\d+/)
      assert.match(done, /^secret\s+stdio\s+legacy\s+\d+\s+ok /m)
      assert.include(done, "EXIT=0")
      assert.notInclude(yield* term.history, "s3cret-value")
      rmSync(project, { recursive: true, force: true })
    }))
})
