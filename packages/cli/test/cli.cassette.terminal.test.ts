/**
 * `record --url` at a real terminal (tmux): one line with its loopback URL, a session through it, then Ctrl-C
 * leaves a complete cassette and the prompt back (exit 130).
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { bin, launch, official, run } from "./fixtures/run.js"
import { hasTmux, terminal, tmuxSuite } from "./fixtures/tmux.js"

describe.skipIf(!hasTmux)(tmuxSuite("mcp-effect record --url in a terminal (tmux)"), () => {
  it.live("prints its URL on one line; Ctrl-C ends it with a complete file", () =>
    Effect.gen(function*() {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mcp-cassette-tmux-"))
      const file = path.join(dir, "session.ndjson")
      const upstream = yield* launch([official, "--http", "--port", "0", "--era", "legacy"])
      const term = yield* terminal(dir)
      yield* term.type(`${process.execPath} ${bin} record ${file} --url ${upstream}; echo EXIT=$?`)
      const screen = yield* term.waitFor(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/m)
      const url = /^(http:\/\/127\.0\.0\.1:\d+\/mcp)$/m.exec(screen)?.[1] ?? ""
      const call = yield* run(["call", "add", "a=20", "b=22", "--url", url])
      assert.strictEqual(call.code, 0, call.stderr)
      assert.include(call.stdout, "42")
      yield* term.press("C-c")
      const done = yield* term.waitFor(/EXIT=\d+/)
      assert.include(done, "EXIT=130")
      assert.include(done, `mcp-effect: recorded`)
      const lines = fs.readFileSync(file, "utf8").trim().split("\n").map((l) => JSON.parse(l) as Record<string, unknown>)
      assert.deepInclude(lines[0], { format: "mcp-effect/cassette", era: "legacy", transport: "http" })
      const calls = lines.filter((l) => (l["message"] as { method?: string } | undefined)?.method === "tools/call")
      assert.strictEqual(calls.length, 1)
      assert.isTrue(lines.some((l) => JSON.stringify(l).includes(`"sum":42`)), "the answer is in the file")
      // Nothing but the cassette was written where the user pointed.
      assert.deepStrictEqual(fs.readdirSync(dir), ["session.ndjson"])
    }), 60_000)
})
