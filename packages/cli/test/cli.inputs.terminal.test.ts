/**
 * VS Code's `inputs` at a real terminal (tmux): only the inputs the chosen entries use are asked, and a prompt
 * left with Esc does not leave the command's output on the prompt's line.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { bin, official } from "./fixtures/run.js"
import { hasTmux, terminal, tmuxSuite } from "./fixtures/tmux.js"

const cli = `${process.execPath} ${bin}`

/** A project whose `.vscode/mcp.json` declares two inputs: `plain` uses none, `secret` uses `token`. */
const project = () => {
  const dir = mkdtempSync(path.join(tmpdir(), "mcp-effect-inputs-"))
  mkdirSync(path.join(dir, ".vscode"))
  writeFileSync(path.join(dir, ".vscode/mcp.json"), JSON.stringify({
    inputs: [
      { type: "promptString", id: "token", description: "API token", password: true },
      { type: "promptString", id: "unused", description: "Nobody uses this" }
    ],
    servers: {
      plain: { type: "stdio", command: process.execPath, args: [official] },
      secret: { type: "stdio", command: process.execPath, args: [official], env: { TOKEN: "${input:token}" } }
    }
  }))
  return dir
}

describe.skipIf(!hasTmux)(tmuxSuite("VS Code's inputs in a terminal (tmux)"), () => {
  it.live("an entry that uses no input is not asked for any; one that uses one is asked for it alone", () =>
    Effect.gen(function*() {
      const dir = project()
      const term = yield* terminal(dir)
      yield* term.type(`${cli} tools --config .vscode/mcp.json --server plain; echo EXIT=$?`)
      const plain = yield* term.waitFor(/EXIT=\d+|\? API token|\? Nobody/)
      assert.notMatch(plain, /\? (API token|Nobody)/)
      assert.match(plain, /^echo\s/m)
      assert.include(plain, "EXIT=0")

      yield* term.clear
      yield* term.type(`${cli} tools --config .vscode/mcp.json --server secret; echo EXIT=$?`)
      yield* term.waitFor(/\? API token/)
      yield* term.type("s3cret-value")
      const secret = yield* term.waitFor(/EXIT=\d+/)
      assert.notInclude(secret, "Nobody uses this")
      assert.include(secret, "EXIT=0")
      assert.notInclude(yield* term.history, "s3cret-value")
      rmSync(dir, { recursive: true, force: true })
    }))

  it.live("servers asks only the inputs its entries use; after Esc the table starts a line of its own", () =>
    Effect.gen(function*() {
      const dir = project()
      const term = yield* terminal(dir)
      yield* term.type(`${cli} servers --config .vscode/mcp.json; echo EXIT=$?`)
      yield* term.waitFor(/\? API token/)
      yield* term.press("Escape")
      const done = yield* term.waitFor(/EXIT=\d+/)
      assert.notInclude(done, "Nobody uses this")
      assert.match(done, /^NAME\s+TRANSPORT/m)
      assert.match(done, /^plain\s+stdio\s+\S+\s+\d+\s+ok /m)
      assert.match(done, /^secret\s+\?\s+-\s+-\s+error: field "env.TOKEN": input token has no value/m)
      rmSync(dir, { recursive: true, force: true })
    }))
})
