/**
 * What a new user met (issue 28), against a scripted legacy server over real stdio
 * (`fixtures/newuser-server.mjs`): one broken tool does not hide the others (item 11), and the version the
 * client tells servers is the package's (item 10), an elicitation answer that breaks the form's rules is declined
 * with a warning that names the field and the rule (item 2).
 */
import { InputFulfiller, McpClient, NodeMcpClient } from "@mcp-effect/client/node"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Logger from "effect/Logger"
import * as Stream from "effect/Stream"
import { readFileSync } from "node:fs"
import * as path from "node:path"

const script = path.join(import.meta.dirname, "../fixtures/newuser-server.mjs")
const scripted = (...args: ReadonlyArray<string>) =>
  NodeMcpClient.layerStdio({ command: process.execPath, args: [script, ...args] })

const textOf = (result: { readonly content: ReadonlyArray<unknown> }): string => {
  const block = result.content[0]
  return typeof block === "object" && block !== null && "text" in block && typeof block.text === "string" ? block.text : ""
}

/** The fixture's form (`form`): an email, a code `^[A-Z]{3}-[0-9]+$`, a nick of 2 to 5, a date. */
const valid = { email: "ada@example.com", code: "ABC-12", nick: "ada", day: "2026-12-04" }

/** Call `form` with a hook that answers `content`; what the server was told, and the warnings logged. */
const answerForm = (content: Readonly<Record<string, string>>) =>
  Effect.gen(function*() {
    const logged: Array<string> = []
    const logger = Logger.make(({ logLevel, message }) => {
      if (logLevel === "Warn") logged.push(Array.isArray(message) ? message.join(" ") : String(message))
    })
    const told = yield* Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      return textOf(yield* client.callTool("form", {}))
    }).pipe(
      Effect.provide(NodeMcpClient.layerStdio({
        command: process.execPath,
        args: [script],
        onElicit: () => ({ action: "accept", content })
      })),
      Effect.provide(Logger.layer([logger]))
    )
    return { told: JSON.parse(told) as unknown, logged }
  })

describe("a tool whose inputSchema is not an object (item 11)", () => {
  it.live("the good tools are listed, the bad one left out and reported as InvalidTool", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      const reported = yield* client.diagnostics.pipe(
        Stream.filter((d) => d._tag === "InvalidTool"),
        Stream.take(1),
        Stream.runCollect,
        Effect.forkChild
      )
      yield* Effect.yieldNow
      const tools = yield* client.listTools()
      assert.deepStrictEqual(tools.map((t) => t.name), ["echo", "deep", "form"])
      const [diagnostic] = yield* Fiber.join(reported)
      assert.strictEqual(diagnostic?._tag, "InvalidTool")
      if (diagnostic?._tag === "InvalidTool") {
        assert.strictEqual(diagnostic.name, "broken")
        assert.include(diagnostic.reason, "inputSchema")
      }
      // The good tools still work.
      const result = yield* client.callTool("echo", { text: "still here" })
      assert.deepStrictEqual(result.content, [{ type: "text", text: "still here" }])
    }).pipe(Effect.provide(scripted("--bad-tool"))))
})

describe("one source for the version (item 10)", () => {
  it.live("servers are told the package's version in clientInfo", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      const pkg: unknown = JSON.parse(readFileSync(path.join(import.meta.dirname, "../../package.json"), "utf8"))
      const version = typeof pkg === "object" && pkg !== null && "version" in pkg ? pkg.version : undefined
      assert.strictEqual(McpClient.CLIENT_VERSION, version)
      const told = yield* client.request("newuser/clientInfo")
      assert.deepStrictEqual(told, { clientInfo: { name: "mcp-effect-client", version } })
    }).pipe(Effect.provide(scripted())))
})

describe("an elicitation answer that breaks the form's rules (item 2)", () => {
  it.live("a valid answer is accepted as it is", () =>
    Effect.gen(function*() {
      const { told, logged } = yield* answerForm(valid)
      assert.deepStrictEqual(told, { action: "accept", content: valid })
      assert.deepStrictEqual(logged, [])
    }))

  it.live("not an email: declined, and a warning names the field and the rule", () =>
    Effect.gen(function*() {
      const { told, logged } = yield* answerForm({ ...valid, email: "not-an-email" })
      assert.deepStrictEqual(told, { action: "decline" })
      assert.strictEqual(logged.length, 1)
      assert.include(logged[0], "\"email\"")
      assert.include(logged[0], "format: email")
    }))

  it.live("a pattern the answer does not match: declined, and the warning names it", () =>
    Effect.gen(function*() {
      const { told, logged } = yield* answerForm({ ...valid, code: "abc-12" })
      assert.deepStrictEqual(told, { action: "decline" })
      assert.strictEqual(logged.length, 1)
      assert.include(logged[0], "\"code\"")
      assert.include(logged[0], "pattern: ^[A-Z]{3}-[0-9]+$")
    }))

  it.live("a length out of bounds and a bad date: declined, each field and rule named", () =>
    Effect.gen(function*() {
      const { told, logged } = yield* answerForm({ ...valid, nick: "x", day: "yesterday" })
      assert.deepStrictEqual(told, { action: "decline" })
      assert.strictEqual(logged.length, 1)
      assert.include(logged[0], "\"nick\"")
      assert.include(logged[0], "minLength: 2")
      assert.include(logged[0], "\"day\"")
      assert.include(logged[0], "format: date")
    }))
})

describe("checkElicitField: one field's answer against its schema", () => {
  it.effect("each rule named: format, length, range, pattern", () =>
    Effect.gen(function*() {
      const rules = (schema: Readonly<Record<string, unknown>>, value: unknown) =>
        Effect.map(InputFulfiller.checkElicitField("f", schema, value), (problems) => problems.map((p) => p.rule))
      assert.deepStrictEqual(yield* rules({ type: "string", format: "email" }, "a@b.c"), [])
      assert.deepStrictEqual(yield* rules({ type: "string", format: "email" }, "nope"), ["format: email"])
      assert.deepStrictEqual(yield* rules({ type: "string", format: "uri" }, "not a uri"), ["format: uri"])
      assert.deepStrictEqual(yield* rules({ type: "string", format: "date" }, "2026-02-30"), ["format: date"])
      assert.deepStrictEqual(yield* rules({ type: "string", format: "date" }, "2026-02-28"), [])
      assert.deepStrictEqual(yield* rules({ type: "string", format: "date-time" }, "2026-02-28"), ["format: date-time"])
      assert.deepStrictEqual(yield* rules({ type: "string", format: "date-time" }, "2026-02-28T10:00:00Z"), [])
      assert.deepStrictEqual(yield* rules({ type: "string", maxLength: 2 }, "abc"), ["maxLength: 2"])
      assert.deepStrictEqual(yield* rules({ type: "integer", minimum: 1, maximum: 3 }, 4), ["maximum: 3"])
      assert.deepStrictEqual(yield* rules({ type: "string", pattern: "^a+$" }, "b"), ["pattern: ^a+$"])
    }))

  it.effect("a server's pattern runs on RE2: a backtracking bomb answers at once; one RE2 does not take is not applied", () =>
    Effect.gen(function*() {
      // With a backtracking engine `^(a+)+$` on 40 a's and a "!" takes 2^40 steps.
      const bomb = yield* InputFulfiller.checkElicitField("f", { type: "string", pattern: "^(a+)+$" }, `${"a".repeat(40)}!`)
      assert.deepStrictEqual(bomb.map((p) => p.rule), ["pattern: ^(a+)+$"])
      const lookahead = yield* InputFulfiller.checkElicitField("f", { type: "string", pattern: "^(?=a)" }, "b")
      assert.deepStrictEqual(lookahead, [])
    }))
})
