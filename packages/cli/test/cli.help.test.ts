/**
 * `mcp-effect --help` and usage errors as a real process: every command and subcommand has help, every
 * flag and argument a description of its own, the exit codes are in the help, nothing is coloured when stdout
 * is not a terminal (or NO_COLOR is set), and a command line that does not parse exits with 2, its errors on
 * stderr and stdout left empty.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { readFileSync } from "node:fs"
import * as path from "node:path"
import { run } from "./fixtures/run.js"

/** The one source of the command's version: its package.json. */
const packageVersion = (name: string): unknown =>
  JSON.parse(readFileSync(path.join(import.meta.dirname, `../../${name}/package.json`), "utf8")).version

const commands = [
  [],
  ["info"],
  ["tools"],
  ["call"],
  ["resources"],
  ["templates"],
  ["read"],
  ["prompts"],
  ["prompt"],
  ["complete"],
  ["servers"],
  ["import"],
  ["auth"],
  ["auth", "login"],
  ["auth", "logout"],
  ["types"],
  ["pins"],
  ["pins", "approve"],
  ["card"]
]

/** The rows of a help section (`FLAGS`, `ARGUMENTS`, `GLOBAL FLAGS`): name and description. */
const rows = (help: string, section: string) => {
  const start = help.indexOf(`\n${section}\n`)
  if (start === -1) return []
  const body = help.slice(start + section.length + 2).split("\n\n")[0] ?? ""
  // `--name, -n type  description`, `name type  description` (a long name leaves one space), `--flag  description`.
  return body.split("\n").map((line) => {
    const match = /^(\S+(?:, \S+)?)(?: (?:string|integer|<\S+>))?\s+(.*)$/.exec(line.trim())
    return { name: match?.[1] ?? line, description: match?.[2] ?? "" }
  })
}

describe("mcp-effect --help", () => {
  it.live("every command: its help on stdout, exit 0, each flag and argument described, the exit codes, no colour", () =>
    Effect.gen(function*() {
      const helps = yield* Effect.forEach(commands, (path) => run([...path, "--help"], { env: { FORCE_COLOR: "" } }), {
        concurrency: 4
      })
      for (const [i, help] of helps.entries()) {
        const path = commands[i]?.join(" ") ?? ""
        assert.strictEqual(help.code, 0, `${path}: ${help.stderr}`)
        assert.strictEqual(help.stderr, "", path)
        assert.include(help.stdout, `USAGE\n  mcp-effect ${path}`.trimEnd(), path)
        assert.include(help.stdout, "EXIT CODES\n  0 success; 1 the tool returned isError", path)
        assert.notInclude(help.stdout, "\x1b[", path)
        for (const section of ["FLAGS", "ARGUMENTS", "GLOBAL FLAGS"]) {
          for (const row of rows(help.stdout, section)) {
            assert.isAbove(row.description.length, 10, `${path}: ${section} ${row.name} has no description`)
            assert.notInclude(row.description, "user-defined", `${path}: ${row.name}`)
          }
        }
      }
      const [root, , tools, call] = helps
      for (const name of ["info", "tools", "call", "resources", "templates", "read", "prompts", "prompt", "complete", "servers", "auth", "types", "pins", "card"]) {
        assert.match(root?.stdout ?? "", new RegExp(`^  ${name}\\s{2,}\\S`, "m"))
      }
      assert.match(root?.stdout ?? "", /^  --log-level \S+\s+show the server's log messages/m)
      for (const flag of ["--config, -c", "--server, -s", "--stdio", "--url", "--header, -H", "--callback-port", "--json", "--root", "--timeout", "--schema"]) {
        assert.include(tools?.stdout ?? "", `\n  ${flag} `)
      }
      assert.match(call?.stdout ?? "", /^  mcp-effect call \[flags\] <tool> \[<key=value\.\.\.>\]$/m)
      assert.match(call?.stdout ?? "", /^  --args string\s+the whole arguments object as JSON$/m)
      // The commands of issue 29: their flags and examples.
      const help = (path: string) => helps[commands.findIndex((c) => c.join(" ") === path)]?.stdout ?? ""
      for (const flag of ["--pins", "--scope"]) {
        assert.include(tools?.stdout ?? "", `\n  ${flag} `)
        assert.include(call?.stdout ?? "", `\n  ${flag} `)
      }
      assert.include(help("types"), "\n  --out string ")
      assert.include(help("types"), "\n  --client-module string ")
      assert.include(help("types"), "\n  mcp-effect types --out tools.ts -- ")
      assert.include(help("pins"), "\n  mcp-effect pins --pins pins.json -s everything")
      assert.match(help("pins"), /^  approve\s{2,}\S/m)
      assert.include(help("pins approve"), "\n  mcp-effect pins approve search --pins pins.json -s everything")
      for (const flag of ["--check", "--catalog"]) assert.include(help("card"), `\n  ${flag} `)
      assert.include(help("card"), "\n  mcp-effect card https://example.com/mcp --check")
    }))

  it.live("NO_COLOR (and a piped stdout) keep FORCE_COLOR from colouring; FORCE_COLOR alone colours", () =>
    Effect.gen(function*() {
      const forced = yield* run(["--help"], { env: { FORCE_COLOR: "1", NO_COLOR: "" } })
      assert.include(forced.stdout, "\x1b[")
      const noColor = yield* run(["--help"], { env: { FORCE_COLOR: "1", NO_COLOR: "1" } })
      assert.strictEqual(noColor.code, 0)
      assert.notInclude(noColor.stdout, "\x1b[")
    }))

  it.live("--version; help without a subcommand; usage errors: exit 2, the error and a pointer to --help on stderr, nothing on stdout", () =>
    Effect.gen(function*() {
      const version = yield* run(["--version"])
      assert.strictEqual(version.code, 0)
      assert.strictEqual(version.stdout, `${packageVersion("cli")}\n`)
      assert.strictEqual(packageVersion("cli"), packageVersion("client"), "the packages are released together")
      // A command without its subcommand shows its help: exit 0, since asking what there is is no error.
      for (const path of [[], ["auth"]]) {
        const help = yield* run(path)
        assert.strictEqual(help.code, 0, path.join(" "))
        assert.include(help.stdout, "SUBCOMMANDS")
        assert.strictEqual(help.stderr, "")
      }

      const unknown = yield* run(["frobnicate"])
      assert.strictEqual(unknown.code, 2)
      assert.strictEqual(unknown.stdout, "")
      assert.include(unknown.stderr, "Unknown subcommand \"frobnicate\"")
      assert.include(unknown.stderr, "Run 'mcp-effect --help' for usage.")
      const badValue = yield* run(["tools", "--timeout", "soon"])
      assert.strictEqual(badValue.code, 2)
      assert.strictEqual(badValue.stdout, "")
      assert.include(badValue.stderr, "--timeout")
      assert.include(badValue.stderr, "Run 'mcp-effect tools --help' for usage.")
      const missing = yield* run(["call", "--json"])
      assert.strictEqual(missing.code, 2)
      assert.include(missing.stderr, "tool")
      const unknownFlag = yield* run(["tools", "--nope"], { env: { FORCE_COLOR: "" } })
      assert.strictEqual(unknownFlag.code, 2)
      assert.include(unknownFlag.stderr, "--nope")
      assert.notInclude(unknownFlag.stderr, "\x1b[")
    }))
})
