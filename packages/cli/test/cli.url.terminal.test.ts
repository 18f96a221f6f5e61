/**
 * URL-mode elicitation at a real terminal (tmux), with a fake `$BROWSER` that records what it is asked to
 * open: the link shown in full (its site in bold) before a yes/no question whose default is no; nothing
 * opened before or without a yes, nor ever a link that is not http(s); the wait for the server's completion;
 * `-32042` retried on the completion or on Enter.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as path from "node:path"
import { fakeBrowser } from "./fixtures/browser.js"
import { bin, everything, scripted } from "./fixtures/run.js"
import { hasTmux, terminal, tmuxSuite } from "./fixtures/tmux.js"

const cwd = path.join(import.meta.dirname, "../../..")
const cli = `${process.execPath} ${bin}`
const legacy = `--stdio '${process.execPath} ${scripted} --mode legacy'`
const modern = `--stdio '${process.execPath} ${scripted} --mode modern'`
const reference = `-- ${process.execPath} ${everything} stdio`
const CONSENT = /\? Open it in your browser\? › \(y\/N\)/

const count = (text: string, part: string) => text.split(part).length - 1

describe.skipIf(!hasTmux)(tmuxSuite("mcp-effect and URL elicitation in a terminal (tmux)"), () => {
  it.live("server-everything's request path: the link shown, nothing opened before yes, then opened and completed", () =>
    Effect.gen(function*() {
      const browser = yield* fakeBrowser
      const term = yield* terminal(cwd)
      const url = "https://example.com/connect"
      yield* term.type(`${browser.shellEnv} ${cli} call trigger-url-elicitation url=${url} ${reference}; echo EXIT=$?`)
      const asked = yield* term.waitFor(CONSENT)
      assert.include(asked, "the server asks you to open a link: Please open the link to complete this action.")
      assert.include(asked, `  ${url}`)
      // The site is bold (tmux shows the end of bold as a reset).
      assert.match(yield* term.rawScreen, /https:\/\/\x1b\[1mexample\.com\x1b\[(0|22)m[^/]*\/connect/)
      yield* Effect.sleep("300 millis")
      assert.deepStrictEqual(yield* browser.opened, [])
      yield* term.press("y")
      const done = yield* term.waitFor(/EXIT=\d+/)
      assert.include(done, "EXIT=0")
      assert.include(done, "User completed the URL elicitation flow.")
      assert.deepStrictEqual(yield* browser.openedAtLeast(1), [url])
    }))

  it.live("server-everything's error path (-32042): consent, Enter to retry, then the request path's link", () =>
    Effect.gen(function*() {
      const browser = yield* fakeBrowser
      const term = yield* terminal(cwd)
      const url = "https://example.com/connect"
      yield* term.type(`${browser.shellEnv} ${cli} call trigger-url-elicitation url=${url} errorPath=true ${reference}; echo EXIT=$?`)
      assert.include(yield* term.waitFor(CONSENT), "  https://modelcontextprotocol.io/")
      yield* term.press("y")
      yield* term.waitFor(/waiting for you to finish in the browser… \(press Enter to retry now, Ctrl-C to stop\)/)
      assert.deepStrictEqual(yield* browser.openedAtLeast(1), ["https://modelcontextprotocol.io/"])
      yield* term.press("Enter")
      const second = yield* term.waitFor(/sending the request again[\s\S]*\? Open it in your browser\? ›/)
      assert.include(second, `  ${url}`)
      yield* term.press("y")
      const done = yield* term.waitFor(/EXIT=\d+/)
      assert.include(done, "EXIT=0")
      assert.include(done, "User completed the URL elicitation flow.")
      assert.deepStrictEqual(yield* browser.openedAtLeast(2), ["https://modelcontextprotocol.io/", url])
    }))

  it.live("a legacy server's completion: waiting after yes, then done when it comes (a stranger's id and a repeat ignored)", () =>
    Effect.gen(function*() {
      const browser = yield* fakeBrowser
      const term = yield* terminal(cwd)
      yield* term.type(`${browser.shellEnv} ${cli} call url_elicit complete_ms=1500 ${legacy}; echo EXIT=$?`)
      yield* term.waitFor(CONSENT)
      yield* term.press("y")
      const waiting = yield* term.waitFor(/waiting for you to finish in the browser…/)
      assert.notInclude(waiting, "the browser step is done")
      const done = yield* term.waitFor(/EXIT=\d+/)
      assert.include(done, "EXIT=0")
      assert.include(done, "url elicitation: accepted")
      assert.strictEqual(count(yield* term.history, "the server says the browser step is done"), 1)
      assert.deepStrictEqual(yield* browser.openedAtLeast(1), ["https://example.com/connect?step=1"])
    }))

  it.live("-32042 from a legacy server: after yes the request is sent again by itself when the completion comes", () =>
    Effect.gen(function*() {
      const browser = yield* fakeBrowser
      const term = yield* terminal(cwd)
      yield* term.type(`${browser.shellEnv} ${cli} call url_required complete_ms=1500 ${legacy}; echo EXIT=$?`)
      yield* term.waitFor(CONSENT)
      yield* term.press("y")
      // No Enter: the completion alone sends the request again.
      const done = yield* term.waitFor(/EXIT=\d+/)
      assert.include(done, "EXIT=0")
      assert.include(done, "the server says the browser step is done\nmcp-effect: sending the request again")
      assert.include(done, "url required: done after 1 refusal(s)")
      assert.deepStrictEqual(yield* browser.openedAtLeast(1), ["https://example.com/connect?step=1"])
    }))

  it.live("-32042 at a terminal: Ctrl-C while waiting stops with the server's error, nothing sent again", () =>
    Effect.gen(function*() {
      const browser = yield* fakeBrowser
      const term = yield* terminal(cwd)
      yield* term.type(`${browser.shellEnv} ${cli} call url_required complete_ms=60000 ${legacy}; echo EXIT=$?`)
      yield* term.waitFor(CONSENT)
      yield* term.press("y")
      yield* term.waitFor(/press Enter to retry now, Ctrl-C to stop/)
      yield* term.press("C-c")
      const stopped = yield* term.waitFor(/EXIT=\d+/)
      assert.include(stopped, "EXIT=3")
      assert.include(stopped, "mcp-effect: tools/call: This request requires more information. (-32042)")
      assert.notInclude(stopped, "sending the request again")
      assert.deepStrictEqual(yield* browser.openedAtLeast(1), ["https://example.com/connect?step=1"])
    }))

  it.live("no (the default), Esc, and a declined -32042: nothing opened; the server's error for -32042", () =>
    Effect.gen(function*() {
      const browser = yield* fakeBrowser
      const term = yield* terminal(cwd)
      // A shell as slow as a busy machine's (load 8 on two cores): the last command's prompt and EXIT= stay on
      // the screen a while after `clear` is typed, and must not be taken for the next one's.
      yield* term.type("clear() { sleep 1; command clear; }")
      yield* term.type(`${browser.shellEnv} ${cli} call url_elicit ${legacy}; echo EXIT=$?`)
      yield* term.waitFor(CONSENT)
      yield* term.press("Enter")
      assert.include(yield* term.waitFor(/EXIT=\d+/), "url elicitation: declined")
      yield* term.clear
      yield* term.type(`${browser.shellEnv} ${cli} call url_elicit ${legacy}; echo EXIT=$?`)
      yield* term.waitFor(CONSENT)
      yield* term.press("Escape")
      assert.include(yield* term.waitFor(/EXIT=\d+/), "url elicitation: cancelled")
      yield* term.clear
      yield* term.type(`${browser.shellEnv} ${cli} call url_required ${legacy}; echo EXIT=$?`)
      yield* term.waitFor(CONSENT)
      yield* term.press("n")
      const refused = yield* term.waitFor(/EXIT=\d+/)
      assert.include(refused, "EXIT=3")
      assert.include(refused, "mcp-effect: tools/call: This request requires more information. (-32042)")
      yield* Effect.sleep("300 millis")
      assert.deepStrictEqual(yield* browser.opened, [])
    }))

  it.live("javascript: and file: links are never offered nor opened, even at a terminal", () =>
    Effect.gen(function*() {
      const browser = yield* fakeBrowser
      const term = yield* terminal(cwd)
      for (const url of ["javascript:alert(1)", "file:///etc/passwd"]) {
        yield* term.clear
        yield* term.type(`${browser.shellEnv} ${cli} call url_elicit 'url=${url}' ${legacy}; echo EXIT=$?`)
        const done = yield* term.waitFor(/EXIT=\d+/)
        assert.include(done, "not opened: only http and https links are opened")
        assert.include(done, "url elicitation: declined")
        assert.notInclude(done, "Open it in your browser?")
      }
      yield* Effect.sleep("300 millis")
      assert.deepStrictEqual(yield* browser.opened, [])
    }))

  it.live("a modern server (input_required): yes opens the link and the retried call gives the result", () =>
    Effect.gen(function*() {
      const browser = yield* fakeBrowser
      const term = yield* terminal(cwd)
      yield* term.type(`${browser.shellEnv} ${cli} call url_elicit 'url=https://example.com/pay?id=7' ${modern}; echo EXIT=$?`)
      yield* term.waitFor(CONSENT)
      yield* term.press("y")
      const done = yield* term.waitFor(/EXIT=\d+/)
      assert.include(done, "EXIT=0")
      assert.include(done, "url elicitation: accepted")
      // No elicitationId in the modern era: nothing to wait for.
      assert.notInclude(done, "waiting for you to finish")
      assert.deepStrictEqual(yield* browser.openedAtLeast(1), ["https://example.com/pay?id=7"])
    }))
})
