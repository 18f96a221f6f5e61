/**
 * URL-mode elicitation with nobody at a terminal (stdin empty, output piped): the link is always printed on
 * stderr, never opened (nobody could consent), and the elicitation declined; a `-32042` is retried by itself
 * once the server says the browser step is done, within `--timeout`. A fake `$BROWSER` records what would
 * have been opened.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { fakeBrowser } from "./fixtures/browser.js"
import { everything, run, scripted } from "./fixtures/run.js"

const legacy = ["--stdio", `${process.execPath} ${scripted} --mode legacy`]
const modern = ["--stdio", `${process.execPath} ${scripted} --mode modern`]

describe("mcp-effect and URL elicitation, not at a terminal", () => {
  it.live("a URL elicitation during a call: printed in full on stderr, not opened, declined", () =>
    Effect.gen(function*() {
      const browser = yield* fakeBrowser
      const ran = yield* run(["call", "url_elicit", ...legacy], { env: browser.env })
      assert.strictEqual(ran.code, 0, ran.stderr)
      assert.strictEqual(ran.stdout, "url elicitation: declined\n")
      assert.include(ran.stderr, "the server asks you to open a link: Connect your example.com account")
      assert.include(ran.stderr, "  https://example.com/connect?step=1\n")
      assert.include(ran.stderr, "not opened and declined: not at a terminal")
      // Not at a terminal the site is not drawn in bold.
      assert.notInclude(ran.stderr, "\x1b")
      const modernRan = yield* run(["call", "url_elicit", ...modern], { env: browser.env })
      assert.strictEqual(modernRan.stdout, "url elicitation: declined\n")
      assert.include(modernRan.stderr, "https://example.com/connect?step=1")
      yield* Effect.sleep("300 millis")
      assert.deepStrictEqual(yield* browser.opened, [])
    }))

  it.live("--json piped, server-everything's request path: the URL on stderr, JSON says declined, nothing opened", () =>
    Effect.gen(function*() {
      const browser = yield* fakeBrowser
      const ran = yield* run(
        ["call", "trigger-url-elicitation", "url=https://example.com/verify", "--json", "--", process.execPath, everything, "stdio"],
        { env: browser.env }
      )
      assert.strictEqual(ran.code, 0, ran.stderr)
      assert.include(ran.stderr, "https://example.com/verify")
      const result = JSON.parse(ran.stdout) as { content: ReadonlyArray<{ text: string }> }
      assert.include(result.content[0]?.text ?? "", "User declined to open the URL")
      yield* Effect.sleep("300 millis")
      assert.deepStrictEqual(yield* browser.opened, [])
    }))

  it.live("-32042: the link printed, the server's completion awaited, the request sent again by itself", () =>
    Effect.gen(function*() {
      const browser = yield* fakeBrowser
      const ran = yield* run(["call", "url_required", "complete_ms=700", ...legacy], { env: browser.env })
      assert.strictEqual(ran.code, 0, ran.stderr)
      assert.strictEqual(ran.stdout, "url required: done after 1 refusal(s)\n")
      assert.include(ran.stderr, "  https://example.com/connect?step=1\n")
      assert.include(ran.stderr, "not opened (not at a terminal): open it yourself")
      assert.include(ran.stderr, "waiting up to 60 s for the server to say the browser step is done")
      assert.include(ran.stderr, "the server says the browser step is done\nmcp-effect: sending the request again\n")
      yield* Effect.sleep("300 millis")
      assert.deepStrictEqual(yield* browser.opened, [])
    }))

  it.live("-32042 whose completion never comes (only a stranger's id): the server's error after --timeout, with a hint", () =>
    Effect.gen(function*() {
      const started = Date.now()
      const ran = yield* run(["call", "url_required", "wrong_id=true", "complete_ms=100", "--timeout", "2", ...legacy])
      assert.isAtLeast(Date.now() - started, 2000)
      assert.strictEqual(ran.code, 3)
      assert.strictEqual(ran.stdout, "")
      assert.notInclude(ran.stderr, "the server says the browser step is done")
      assert.notInclude(ran.stderr, "sending the request again")
      assert.include(ran.stderr, "open the link above, then run the command again")
      assert.match(ran.stderr, /mcp-effect: tools\/call: This request requires more information\. \(-32042\)\n$/)
    }))

  it.live("-32042 again and again: the request is sent again at most 3 times, then the server's error", () =>
    Effect.gen(function*() {
      const ran = yield* run(["call", "url_required", "refusals=10", "complete_ms=50", ...legacy])
      assert.strictEqual(ran.code, 3)
      assert.strictEqual(ran.stdout, "")
      assert.strictEqual(ran.stderr.split("the server says the browser step is done").length - 1, 3)
      assert.strictEqual(ran.stderr.split("sending the request again").length - 1, 3)
      assert.match(ran.stderr, /mcp-effect: tools\/call: This request requires more information\. \(-32042\)\n$/)
    }))

  it.live("hostile links: controls made visible, look-alike sites warned of, other schemes never opened", () =>
    Effect.gen(function*() {
      const browser = yield* fakeBrowser
      const controls = yield* run([
        "call",
        "url_elicit",
        "--args",
        JSON.stringify({ message: "Sign in\u001b[2J\u001b]52;c;ZXZpbA==\u0007 now\u202e", url: "https://example.com/\u001b]8;;x\u0007" }),
        ...legacy
      ], { env: browser.env })
      assert.strictEqual(controls.stdout, "url elicitation: declined\n")
      assert.notMatch(controls.stderr, /[\u001b\u0007\u202e]/)
      assert.include(controls.stderr, "Sign in\\x1b[2J\\x1b]52;c;ZXZpbA==\\x07 now\\u202e")
      // The URL as it would be opened: the parser escapes controls inside it and strips them at its ends.
      assert.include(controls.stderr, "  https://example.com/%1B]8;;x\n")

      const lookAlike = yield* run([
        "call",
        "url_elicit",
        "message=Sign in to github.com",
        "url=https://github.com@xn--gthub-n4a.example/login",
        ...legacy
      ], { env: browser.env })
      assert.include(lookAlike.stderr, "warning: the site's name is internationalized (Punycode \"xn--\")")
      assert.include(lookAlike.stderr, "warning: the link has a user name before \"@\": the site is xn--gthub-n4a.example")
      assert.include(lookAlike.stderr, "warning: the message names github.com but the link goes to xn--gthub-n4a.example")

      for (const url of ["javascript:alert(1)", "file:///etc/passwd"]) {
        const ran = yield* run(["call", "url_elicit", `url=${url}`, ...legacy], { env: browser.env })
        assert.strictEqual(ran.stdout, "url elicitation: declined\n")
        assert.include(ran.stderr, `  ${url}\nmcp-effect: not opened: only http and https links are opened`)
      }
      yield* Effect.sleep("300 millis")
      assert.deepStrictEqual(yield* browser.opened, [])
    }))
})
