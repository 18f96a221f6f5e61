/**
 * What a new user met (issue 28), at a real terminal (tmux), against the scripted server of
 * `client/test/fixtures/newuser-server.mjs`: a form asks again when an answer breaks a rule (item 2); a link
 * the browser could not be given is answered `cancel`, not `accept` (item 13); a result or a schema nested
 * 100,000 deep is shown to a bounded depth (item 12); the `tools` table fits the terminal's width, `--wide` shows
 * every cell whole on one line (item 3); `--help` has EXAMPLES with the `--stdio "…"` and `-- cmd args` forms
 * (item 8).
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { fakeBrowser } from "./fixtures/browser.js"
import { bin, everything } from "./fixtures/run.js"
import { hasTmux, terminal, tmuxSuite } from "./fixtures/tmux.js"

const cwd = path.join(import.meta.dirname, "../../..")
const cli = `${process.execPath} ${bin}`
const server = path.join(import.meta.dirname, "../../client/test/fixtures/newuser-server.mjs")
const newuser = (...flags: ReadonlyArray<string>) => `-- ${process.execPath} ${server} ${flags.join(" ")}`.trimEnd()

describe.skipIf(!hasTmux)(tmuxSuite("what a new user met, in a terminal (tmux)"), () => {
  it.live("a form answer that breaks a rule (email, pattern, length, date) is asked again, saying the rule", () =>
    Effect.gen(function*() {
      const term = yield* terminal(cwd)
      yield* term.type(`${cli} call form ${newuser()}; echo EXIT=$?`)
      yield* term.waitFor(/\? Email ›/)
      yield* term.type("not-an-email")
      yield* term.waitFor(/is not an email address \(format: email\)/)
      // Still the email prompt: the answer was not taken.
      assert.notMatch(yield* term.screen, /\? Code/)
      yield* term.press("C-u")
      yield* term.type("ada@example.com")
      yield* term.waitFor(/\? Code ›/)
      yield* term.type("abc-12")
      yield* term.waitFor(/does not match the pattern \(pattern: \^\[A-Z\]\{3\}-\[0-9\]\+\$\)/)
      yield* term.press("C-u")
      yield* term.type("ABC-12")
      yield* term.waitFor(/\? Nick ›/)
      yield* term.type("x")
      yield* term.waitFor(/is shorter than 2 \(minLength: 2\)/)
      yield* term.press("C-u")
      yield* term.type("ada")
      yield* term.waitFor(/\? Day ›/)
      yield* term.type("2026-02-30")
      yield* term.waitFor(/is not a date \(YYYY-MM-DD\) \(format: date\)/)
      yield* term.press("C-u")
      yield* term.type("2026-02-28")
      const done = yield* term.waitFor(/EXIT=\d+/)
      assert.include(done, "EXIT=0")
      const flat = (yield* term.history).replace(/\s+/g, " ")
      assert.include(flat, "{\"action\":\"accept\",\"content\":{\"email\":\"ada@example.com\",\"code\":\"ABC-12\",\"nick\":\"ada\",\"day\":\"2026-02-28\"}}")
    }))

  it.live("a 300 KB link the browser cannot be started with: yes, then cancel (not accept), and a line says why", () =>
    Effect.gen(function*() {
      const browser = yield* fakeBrowser
      const dir = yield* Effect.acquireRelease(
        Effect.sync(() => mkdtempSync(path.join(tmpdir(), "mcp-effect-link-"))),
        (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
      )
      const log = path.join(dir, "stderr.log")
      const term = yield* terminal(cwd)
      // stderr (with the 300 KB link) goes to a file: the prompt is drawn on the terminal itself.
      yield* term.type(`clear; ${browser.shellEnv} ${cli} call link ${newuser("--long-url")} 2>${log}; echo EXIT=$?`)
      yield* term.waitFor(/Open it in your browser\?/)
      yield* term.press("y")
      const done = yield* term.waitFor(/EXIT=\d+/)
      assert.include(done, "action: cancel")
      assert.include(done, "EXIT=0")
      assert.deepStrictEqual(yield* browser.opened, [])
      const said = readFileSync(log, "utf8").split("\n").filter((line) => line.length < 1000)
      assert.isTrue(said.some((line) => /could not start the browser .*: answered cancel/.test(line)), said.join("\n"))
    }))

  it.live("a browser program that does not exist: cancel, saying ENOENT; BROWSER=none: accept, open it yourself", () =>
    Effect.gen(function*() {
      const term = yield* terminal(cwd)
      yield* term.type(`clear; BROWSER=/nonexistent/browser ${cli} call link ${newuser("--link")}; echo EXIT=$?`)
      yield* term.waitFor(/Open it in your browser\?/)
      yield* term.press("y")
      const missing = yield* term.waitFor(/EXIT=\d+/)
      assert.match(missing, /could not start the browser \(ENOENT: .*\): answered cancel/)
      assert.include(missing, "action: cancel")
      yield* term.type(`clear; BROWSER=none ${cli} call link ${newuser("--link")}; echo EXIT=$?`)
      yield* term.waitFor(/Open it in your browser\?/)
      yield* term.press("y")
      const none = yield* term.waitFor(/EXIT=\d+/)
      assert.include(none, "no browser is started (BROWSER=none): open the link above yourself")
      assert.include(none, "action: accept")
    }))

  it.live("a result nested 100,000 deep is shown to a bounded depth, as text and as --json", () =>
    Effect.gen(function*() {
      const term = yield* terminal(cwd)
      yield* term.type(`clear; ${cli} call deep ${newuser()} 2>&1 | grep -a -o -E '(Maximum call stack|nested deeper than [0-9]+ levels)' | uniq; echo EXIT=\${PIPESTATUS[0]}`)
      const shown = yield* term.waitFor(/EXIT=\d+/)
      assert.notInclude(shown, "Maximum call stack")
      assert.include(shown, "nested deeper than 64 levels")
      assert.include(shown, "EXIT=0")
      yield* term.type(`clear; ${cli} call deep --json ${newuser()} | node -e 'let t="";process.stdin.on("data",(c)=>t+=c).on("end",()=>console.log("PARSED", typeof JSON.parse(t).structuredContent))'; echo EXIT=\${PIPESTATUS[0]}`)
      const json = yield* term.waitFor(/EXIT=\d+/)
      assert.include(json, "PARSED object")
      assert.include(json, "EXIT=0")
    }))

  it.live("a tool whose input schema nests 100,000 deep: tools, tools --schema and --json list every tool", () =>
    Effect.gen(function*() {
      const term = yield* terminal(cwd)
      for (const flags of ["", "--schema", "--json"]) {
        yield* term.type(`clear; ${cli} tools ${flags} ${newuser("--deep-schema")} | grep -a -o -E '(echo|nested|union|deeper than)' | sort | uniq -c; echo EXIT=\${PIPESTATUS[0]}`)
        const shown = yield* term.waitFor(/EXIT=\d+/)
        assert.notInclude(shown, "Maximum call stack", flags)
        assert.match(shown, /\d+ echo/, flags)
        assert.match(shown, /\d+ nested/, flags)
        assert.match(shown, /\d+ union/, flags)
        if (flags !== "") assert.match(shown, /\d+ deeper than/, flags)
        assert.include(shown, "EXIT=0", flags)
      }
      for (const tool of ["nested", "union x=1"]) {
        yield* term.type(`clear; ${cli} call ${tool} ${newuser("--deep-schema")} 2>&1 | tail -c 300; echo EXIT=\${PIPESTATUS[0]}`)
        const called = yield* term.waitFor(/EXIT=\d+/)
        assert.notInclude(called, "Maximum call stack", tool)
        assert.notInclude(called, "unexpected", tool)
      }
    }))

  it.live("the tools table fits a 110-column terminal: no line wraps, descriptions wrapped in their column, not cut to 20", () =>
    Effect.gen(function*() {
      const term = yield* terminal(cwd)
      const server = `-- ${process.execPath} ${everything} stdio`
      yield* term.type(`clear; ${cli} tools ${server} 2>/dev/null; echo EXIT=$?`)
      yield* term.waitFor(/EXIT=0/)
      const lines = (yield* term.history).split("\n").filter((line) => !line.startsWith("$ ") && !line.startsWith("EXIT="))
      const tooLong = lines.filter((line) => [...line].length > 110)
      assert.deepStrictEqual(tooLong, [], "a line longer than the terminal wrapped")
      const flat = lines.join(" ").replace(/\s+/g, " ")
      // A description longer than 20 characters is shown in full, wrapped in its column.
      for (const word of ["Echoes", "back", "the", "input", "string"]) assert.include(flat, word)
      assert.match(lines.find((line) => line.startsWith("NAME")) ?? "", /^NAME\s+PARAMETERS\s+ANNOTATIONS\s+DESCRIPTION$/)
    }))

  it.live("tools --wide: every row on one line, whole, however wide", () =>
    Effect.gen(function*() {
      const term = yield* terminal(cwd)
      const server = `-- ${process.execPath} ${everything} stdio`
      yield* term.type(`clear; ${cli} tools --wide ${server} 2>/dev/null; echo EXIT=$?`)
      yield* term.waitFor(/EXIT=0/)
      const lines = (yield* term.history).split("\n")
      const echo = lines.find((line) => line.startsWith("echo "))
      assert.match(echo ?? "", /^echo\s+message: string\s+read-only,idempotent,closed-world\s+Echoes back the input string$/)
      assert.isTrue(lines.some((line) => [...line].length > 110), "a wide row is longer than the terminal")
    }))

  it.live("--help shows EXAMPLES: a server after --, --stdio \"…\", a call with arguments, a configuration entry", () =>
    Effect.gen(function*() {
      const term = yield* terminal(cwd)
      yield* term.type(`clear; ${cli} --help | grep -A14 '^EXAMPLES'; echo EXIT=\${PIPESTATUS[0]}`)
      const shown = yield* term.waitFor(/EXIT=\d+/)
      assert.include(shown, "EXIT=0")
      assert.match(shown, /^EXAMPLES$/m)
      assert.match(shown, /mcp-effect tools -- npx -y @modelcontextprotocol\/server-everything/)
      assert.match(shown, /mcp-effect tools --stdio "npx -y @modelcontextprotocol\/server-everything"/)
      assert.match(shown, /mcp-effect call get-sum a=1 b=2 -- /)
      assert.match(shown, /mcp-effect tools --url https:\/\//)
      yield* term.type(`clear; ${cli} call --help | grep -A8 '^EXAMPLES'; echo EXIT=\${PIPESTATUS[0]}`)
      const call = yield* term.waitFor(/EXIT=\d+/)
      assert.match(call, /mcp-effect call get-sum a=1 b=2 -- /)
      assert.match(call, /--args '\{/)
    }))
})
