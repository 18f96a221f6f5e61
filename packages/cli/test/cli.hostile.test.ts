/**
 * `mcp-effect` against servers that misbehave on purpose (issue 17): a server whose every string attacks the
 * terminal (nothing it says reaches the terminal as a control, in either output format). Each run is bounded
 * in time: a bound against hanging, not a speed measurement.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { createRequire } from "node:module"
import { type Ran, run, type RunOptions } from "./fixtures/run.js"

const require = createRequire(import.meta.url)
const terminalServer = require.resolve("@mcp-effect/test-servers/hostile-terminal")

/** Every string of the terminal server carries this (see `hostile-terminal.ts`). */
const EVIL = [
  "\u001b]52;c;cGF3bmVk\u0007",
  "\u001b[2J",
  "\u001b[10;10H",
  "\u001b]8;;https://evil.example/\u001b\\link\u001b]8;;\u001b\\",
  "\u202e",
  "\u009b31m",
  "\r",
  "\u2066\u200f\u061c"
].join("")

/** What the terminal must never receive from a server: C0 but newline and tab, DEL, C1, bidi controls. */
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/

/** How EVIL is shown. */
const SHOWN = "\\x1b]52;c;cGF3bmVk\\x07\\x1b[2J\\x1b[10;10H\\x1b]8;;https://evil.example/\\x1b\\link\\x1b]8;;\\x1b\\" +
  "\\u202e\\x9b31m\\x0d\\u2066\\u200f\\u061c"

const BOUND = "30 seconds"

const bounded = (args: ReadonlyArray<string>, options?: RunOptions): Effect.Effect<Ran, Error> =>
  run(args, options).pipe(
    Effect.timeoutFail({ duration: BOUND, onTimeout: () => new Error(`mcp-effect ${args.join(" ")}: no end within ${BOUND}`) })
  )

const clean = (ran: Ran, what: string) => {
  const raw = CONTROL.exec(ran.stdout + ran.stderr)
  assert.isNull(raw, `${what}: a raw control reached the terminal (U+${(raw?.[0].codePointAt(0) ?? 0).toString(16)})`)
}

describe("a server whose strings attack the terminal (item 10)", () => {
  const server = ["--", process.execPath, terminalServer]

  it.live("human output: every server string is shown with its controls made visible", () =>
    Effect.gen(function*() {
      const tools = yield* bounded(["tools", "--schema", ...server])
      const call = yield* bounded(["call", "show", "--log-level", "info", ...server])
      const ask = yield* bounded(["call", "ask", ...server])
      const fail = yield* bounded(["call", "fail", ...server])
      const unknown = yield* bounded(["call", "nope", ...server])
      const prompts = yield* bounded(["prompts", ...server])
      const prompt = yield* bounded(["prompt", "greet", ...server])
      const info = yield* bounded(["info", ...server])
      for (const [what, ran] of Object.entries({ tools, call, ask, fail, unknown, prompts, prompt, info })) clean(ran, what)
      // Tool names, descriptions (in the table and in the input schema).
      assert.include(tools.stdout, `evil${SHOWN}`)
      assert.include(tools.stdout, `shows things ${SHOWN}`)
      assert.include(tools.stdout, "\"description\": \"a text \\u001b]52;c;cGF3bmVk\\u0007")
      // A result, a log message, a progress report, an elicitation, errors.
      assert.include(call.stdout, `result ${SHOWN}`)
      assert.include(call.stderr, `[info] log${SHOWN}: logged ${SHOWN}`)
      assert.include(call.stderr, `step ${SHOWN}`)
      assert.include(ask.stderr, `question ${SHOWN}`)
      assert.strictEqual(fail.code, 3)
      assert.include(fail.stderr, `failed ${SHOWN}`)
      assert.include(unknown.stderr, `evil${SHOWN}`)
      // Prompts, the server's name and instructions.
      assert.include(prompts.stdout, `greet${SHOWN}`)
      assert.include(prompt.stdout, `# a prompt ${SHOWN}`)
      assert.include(prompt.stdout, `user: hello ${SHOWN}`)
      assert.include(info.stdout, `terminal${SHOWN}`)
      assert.include(info.stdout, `instructions ${SHOWN}`)
    }))

  it.live("--json: C1 and bidi controls are escaped too, and the JSON still means the server's strings", () =>
    Effect.gen(function*() {
      const tools = yield* bounded(["tools", "--json", ...server])
      const call = yield* bounded(["call", "show", "--json", ...server])
      const info = yield* bounded(["info", "--json", ...server])
      for (const [what, ran] of Object.entries({ tools, call, info })) clean(ran, what)
      const listed = JSON.parse(tools.stdout) as ReadonlyArray<{ name: string; description: string }>
      assert.include(listed.map((t) => t.name), `evil${EVIL}`)
      assert.include(tools.stdout, "\\u202e")
      const result = JSON.parse(call.stdout) as { content: ReadonlyArray<{ text: string }>; structuredContent: unknown }
      assert.strictEqual(result.content[0]?.text, `result ${EVIL}`)
      assert.deepStrictEqual(result.structuredContent, { said: `structured ${EVIL}` })
      assert.strictEqual((JSON.parse(info.stdout) as { instructions: string }).instructions, `instructions ${EVIL}`)
    }))
})
