/**
 * `mcp-effect` as a real process over stdio, against the bundled example server (official SDK, both eras)
 * and `@modelcontextprotocol/server-everything`: both output formats and the exit codes.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { everything, official, officialStdio, run } from "./fixtures/run.js"

const json = (text: string): unknown => JSON.parse(text)

describe("mcp-effect over stdio, the bundled example server", () => {
  it.live("tools: a table, and --json", () =>
    Effect.gen(function*() {
      const human = yield* run(["tools", ...officialStdio()])
      assert.strictEqual(human.code, 0)
      const lines = human.stdout.split("\n")
      assert.match(lines[0] ?? "", /^NAME\s+PARAMETERS\s+ANNOTATIONS\s+DESCRIPTION$/)
      assert.match(human.stdout, /^echo\s+text: string\s+read-only,idempotent\s+Returns its text argument$/m)
      const machine = yield* run(["tools", "--json", ...officialStdio()])
      assert.strictEqual(machine.code, 0)
      const tools = json(machine.stdout) as ReadonlyArray<{ name: string; inputSchema: unknown }>
      assert.includeMembers(tools.map((t) => t.name), ["echo", "add", "slow", "confirm", "fail"])
      const schema = yield* run(["tools", "--schema", ...officialStdio()])
      assert.include(schema.stdout, "add\n  input:\n")
      assert.include(schema.stdout, "  output:\n")
    }))

  it.live("call: values coerced by the input schema, --args, the result in both formats", () =>
    Effect.gen(function*() {
      const human = yield* run(["call", "add", "a=2", "b=3.5", ...officialStdio()])
      assert.strictEqual(human.code, 0)
      assert.include(human.stdout, "5.5\n  structured:")
      const machine = yield* run(["call", "add", "--args", "{\"a\":1}", "b=41", "--json", ...officialStdio()])
      assert.strictEqual(machine.code, 0)
      assert.deepStrictEqual((json(machine.stdout) as { structuredContent: unknown }).structuredContent, { sum: 42 })
      // `-- command args...` instead of --stdio; a string stays a string.
      const echo = yield* run(["call", "echo", "text=007", "--", process.execPath, official])
      assert.strictEqual(echo.stdout, "007\n")
    }))

  it.live("exit codes: 1 for a tool error, 2 for usage errors, 3 for a server that cannot be used", () =>
    Effect.gen(function*() {
      const failed = yield* run(["call", "fail", ...officialStdio()])
      assert.strictEqual(failed.code, 1)
      assert.include(failed.stdout, "this tool always fails")
      const failedJson = yield* run(["call", "fail", "--json", ...officialStdio()])
      assert.strictEqual(failedJson.code, 1)
      assert.strictEqual((json(failedJson.stdout) as { isError: boolean }).isError, true)

      const badValue = yield* run(["call", "add", "a=two", "b=1", ...officialStdio()])
      assert.strictEqual(badValue.code, 2)
      assert.include(badValue.stderr, "argument a: expected number, got \"two\"")
      const noTool = yield* run(["call", "nope", ...officialStdio()])
      assert.strictEqual(noTool.code, 2)
      assert.include(noTool.stderr, "no tool \"nope\"")
      const noServer = yield* run(["tools"], { cwd: "/" })
      assert.strictEqual(noServer.code, 2)
      assert.include(noServer.stderr, "no server given")
      const unknownCommand = yield* run(["frobnicate"])
      assert.strictEqual(unknownCommand.code, 2)
      const twoServers = yield* run(["tools", "--url", "http://127.0.0.1:1/mcp", ...officialStdio()])
      assert.strictEqual(twoServers.code, 2)

      const gone = yield* run(["tools", "--stdio", `${process.execPath} -e process.exit(7)`])
      assert.strictEqual(gone.code, 3)
      assert.match(gone.stderr, /^mcp-effect: /)
      const refused = yield* run(["info", "--url", "http://127.0.0.1:9/mcp", "--timeout", "5"])
      assert.strictEqual(refused.code, 3)
    }))

  it.live("info in both eras; progress and log messages on stderr; elicitation declined without a terminal; roots", () =>
    Effect.gen(function*() {
      const modern = json((yield* run(["info", "--json", ...officialStdio()])).stdout) as Record<string, unknown>
      assert.strictEqual(modern["era"], "modern")
      assert.strictEqual(typeof modern["connectMs"], "number")
      const legacy = yield* run(["info", ...officialStdio("--era", "legacy")])
      assert.match(legacy.stdout, /^era:\s+legacy \(protocol 2025-/m)
      assert.match(legacy.stdout, /^server:\s+official-demo 1\.0\.0$/m)

      const slow = yield* run(["call", "slow", "ms=300", ...officialStdio()])
      assert.strictEqual(slow.code, 0)
      assert.strictEqual(slow.stdout, "done\n")
      assert.include(slow.stderr, "[########----------------]  33% (1/3) step 1\n")
      assert.include(slow.stderr, "[########################] 100% (3/3) step 3\n")

      const logged = yield* run(["call", "log", "message=hello", "--log-level", "info", ...officialStdio()])
      assert.strictEqual(logged.stderr, "[info] official-demo: hello\n")
      const debug = yield* run(["call", "log", "message=hi", "--log-level", "debug", ...officialStdio("--era", "legacy")])
      assert.include(debug.stderr, "[debug] official-demo: hi")
      const quiet = yield* run(["call", "log", "message=hello", ...officialStdio()])
      assert.strictEqual(quiet.stderr, "")

      const declined = yield* run(["call", "confirm", "question=Sure?", ...officialStdio()])
      assert.strictEqual(declined.code, 0)
      assert.strictEqual(declined.stdout, "declined\n")
      assert.include(declined.stderr, "declined the server's question (not at a terminal): Sure?")

      const roots = yield* run(["call", "roots", "--root", "/srv/a", "--root", "/srv/b", ...officialStdio()])
      assert.strictEqual(roots.stdout, "file:///srv/a, file:///srv/b\n")
    }))

  it.live("resources, templates, read, prompts, prompt", () =>
    Effect.gen(function*() {
      const resources = yield* run(["resources", ...officialStdio()])
      assert.match(resources.stdout, /^demo:\/\/greeting\s+greeting\s+text\/plain\s+A fixed greeting$/m)
      const templates = json((yield* run(["templates", "--json", ...officialStdio()])).stdout) as ReadonlyArray<{ uriTemplate: string }>
      assert.deepStrictEqual(templates.map((t) => t.uriTemplate), ["demo://items/{id}"])
      assert.strictEqual((yield* run(["read", "demo://items/7", ...officialStdio()])).stdout, "item 7\n")
      const read = json((yield* run(["read", "demo://greeting", "--json", ...officialStdio()])).stdout) as { contents: ReadonlyArray<{ text: string }> }
      assert.strictEqual(read.contents[0]?.text, "Hello from the official SDK")
      assert.match((yield* run(["prompts", ...officialStdio()])).stdout, /^greet\s+name\s+Greets someone by name$/m)
      assert.strictEqual((yield* run(["prompt", "greet", "name=Ann", ...officialStdio()])).stdout, "user: Hello, Ann!\n")
    }))
})

describe("mcp-effect over stdio, @modelcontextprotocol/server-everything", () => {
  const stdio = ["--", process.execPath, everything, "stdio"]

  it.live("tools, a call, completion, a prompt, in both formats", () =>
    Effect.gen(function*() {
      const tools = json((yield* run(["tools", "--json", ...stdio])).stdout) as ReadonlyArray<{ name: string }>
      assert.includeMembers(tools.map((t) => t.name), ["echo", "get-sum", "trigger-long-running-operation"])
      const echo = yield* run(["call", "echo", "message=hi there", ...stdio])
      assert.strictEqual(echo.code, 0)
      assert.strictEqual(echo.stdout, "Echo: hi there\n")
      const sum = json((yield* run(["call", "get-sum", "a=2", "b=40", "--json", ...stdio])).stdout) as { content: ReadonlyArray<{ text: string }> }
      assert.include(sum.content[0]?.text ?? "", "42")
      const info = json((yield* run(["info", "--json", ...stdio])).stdout) as { era: string; serverInfo: { name: string } }
      assert.strictEqual(info.serverInfo.name, "mcp-servers/everything")
      const progress = yield* run(["call", "trigger-long-running-operation", "duration=1", "steps=4", ...stdio])
      assert.strictEqual(progress.code, 0)
      assert.include(progress.stderr, "100% (4/4)")
      assert.strictEqual((yield* run(["complete", "completable-prompt", "department=S", ...stdio])).stdout, "Sales\nSupport\n")
      const completed = yield* run(["complete", "completable-prompt", "name=", "department=Sales", "--json", ...stdio])
      assert.deepStrictEqual((json(completed.stdout) as { completion: { values: unknown } }).completion.values, ["David", "Eve", "Frank"])
      assert.strictEqual((yield* run(["prompt", "args-prompt", "city=Paris", ...stdio])).stdout, "user: What's weather in Paris?\n")
      const prompts = yield* run(["prompts", ...stdio])
      assert.strictEqual(prompts.code, 0)
      assert.match(prompts.stdout, /^NAME\s+ARGUMENTS\s+DESCRIPTION$/m)
    }))
})
