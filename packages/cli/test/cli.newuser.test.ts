/**
 * What a new user met (issue 28), the command as a real process against the scripted server of
 * `client/test/fixtures/newuser-server.mjs`: a malformed tool does not hide the others, and is named on stderr
 * (item 11).
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as path from "node:path"
import { run } from "./fixtures/run.js"

const server = path.join(import.meta.dirname, "../../client/test/fixtures/newuser-server.mjs")

describe("a tool whose inputSchema is not an object (item 11)", () => {
  it.live("tools lists the others; stderr names the one left out and why", () =>
    Effect.gen(function*() {
      const ran = yield* run(["tools", "--", process.execPath, server, "--bad-tool"])
      assert.strictEqual(ran.code, 0, ran.stderr)
      const names = ran.stdout.trimEnd().split("\n").slice(2).map((line) => line.split(/\s+/)[0])
      assert.deepStrictEqual(names, ["echo", "deep", "form"])
      assert.match(ran.stderr, /mcp-effect: tool broken left out: not a valid tool: .*inputSchema/)
    }))

  it.live("call of a good tool works; of the bad one, a usage error after the line that says why it is missing", () =>
    Effect.gen(function*() {
      const good = yield* run(["call", "echo", "text=still here", "--", process.execPath, server, "--bad-tool"])
      assert.strictEqual(good.code, 0, good.stderr)
      assert.strictEqual(good.stdout, "still here\n")
      const bad = yield* run(["call", "broken", "--", process.execPath, server, "--bad-tool"])
      assert.strictEqual(bad.code, 2)
      assert.match(bad.stderr, /tool broken left out: not a valid tool/)
      assert.include(bad.stderr, "no tool \"broken\" (tools: echo, deep, form)")
    }))
})
