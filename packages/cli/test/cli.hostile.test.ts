/**
 * `mcp-effect` against servers that misbehave on purpose (issue 17, items 10 and 11): a server whose every
 * string attacks the terminal (nothing it says reaches the terminal as a control, in either output format),
 * and a configuration of many servers (`servers` starts at most `--concurrency` of them at once). Each run is
 * bounded in time: a bound against hanging, not a speed measurement.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { type ChildProcess, execFileSync, spawn } from "node:child_process"
import { mkdtempSync, readdirSync, readFileSync, symlinkSync, truncateSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { launch, type Ran, run, type RunOptions } from "./fixtures/run.js"

const require = createRequire(import.meta.url)
const terminalServer = require.resolve("@mcp-effect/test-servers/hostile-terminal")
const hostile = require.resolve("@mcp-effect/test-servers/hostile")
/** A small server that echoes its argument or its `X-Api-Key` header back (see the file). */
const configServer = path.join(import.meta.dirname, "../../client/test/fixtures/configServer.mjs")

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

const BOUND = "60 seconds"

const bounded = (args: ReadonlyArray<string>, options?: RunOptions): Effect.Effect<Ran, Error> =>
  run(args, options).pipe(
    Effect.timeoutOrElse({
      duration: BOUND,
      orElse: () => Effect.fail(new Error(`mcp-effect ${args.join(" ")}: no end within ${BOUND}`))
    })
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

/** The live processes whose command line mentions `tag` (Linux /proc). */
const tagged = (tag: string): number => {
  let count = 0
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue
    try {
      if (!readFileSync(`/proc/${entry}/cmdline`, "utf8").includes(tag)) continue
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8")
      if (stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z") count++
    } catch {
      // gone meanwhile
    }
  }
  return count
}

/** Run `servers` while counting, every 20 ms, the servers alive at once; the run and the most seen. */
const census = (tag: string, args: ReadonlyArray<string>, cwd: string) => {
  let most = 0
  return bounded(args, {
    cwd,
    started: (child) => {
      const timer = setInterval(() => void (most = Math.max(most, tagged(tag))), 20)
      child.once("exit", () => clearInterval(timer))
    }
  }).pipe(Effect.map((ran) => ({ ran, most })))
}

describe("servers with many entries (item 11)", () => {
  it.live("at most --concurrency servers (default 8) run at once; every entry is checked", () =>
    Effect.gen(function*() {
      const tag = `cli-fanout-${process.pid}-${Date.now()}`
      const count = 20
      const dir = mkdtempSync(path.join(tmpdir(), "mcp-effect-cli-"))
      const mcpServers = Object.fromEntries(Array.from({ length: count }, (_, i) => [
        `s${i}`,
        // Each server reads nothing for 300 ms, so the checks overlap when they may.
        { command: process.execPath, args: [hostile, "--tag", tag, "--start-delay", "300"] }
      ]))
      writeFileSync(path.join(dir, ".mcp.json"), JSON.stringify({ mcpServers }))

      const byDefault = yield* census(tag, ["servers", "--json"], dir)
      assert.strictEqual(byDefault.ran.code, 0, byDefault.ran.stderr)
      const rows = JSON.parse(byDefault.ran.stdout) as ReadonlyArray<{ ok: boolean }>
      assert.strictEqual(rows.filter((row) => row.ok).length, count)
      assert.isAtMost(byDefault.most, 8, "servers alive at once")
      assert.isAtLeast(byDefault.most, 2, "the checks run in parallel")

      const three = yield* census(tag, ["servers", "--concurrency", "3"], dir)
      assert.strictEqual(three.ran.code, 0, three.ran.stderr)
      assert.isAtMost(three.most, 3, "servers alive at once")

      const zero = yield* bounded(["servers", "--concurrency", "0"], { cwd: dir })
      assert.strictEqual(zero.code, 2)
    }))
})

/** A process that writes zeros into the FIFO for as long as anyone reads it; killed with the scope. */
const endlessWriter = (file: string) =>
  Effect.acquireRelease(
    Effect.sync(() => spawn("sh", ["-c", `exec cat /dev/zero > "${file}"`], { stdio: "ignore" })),
    (child: ChildProcess) => Effect.sync(() => void child.kill("SIGKILL"))
  )

describe("configuration files that are not regular files (issue 25, item 4)", () => {
  it.live("a FIFO as ./.mcp.json: tools and servers end at once with a usage error naming it (plain and --json)", () =>
    Effect.gen(function*() {
      const dir = mkdtempSync(path.join(tmpdir(), "mcp-effect-cli-"))
      execFileSync("mkfifo", [path.join(dir, ".mcp.json")])
      for (const args of [["tools"], ["servers"], ["tools", "--json"], ["servers", "--json"]]) {
        const ran = yield* bounded(args, { cwd: dir })
        assert.strictEqual(ran.code, 2, `${args.join(" ")}: ${ran.stderr}`)
        const said = args.includes("--json")
          ? (JSON.parse(ran.stdout) as { error: { message: string } }).error.message
          : ran.stderr
        assert.include(said, ".mcp.json: not a regular file (a FIFO)")
      }
    }))

  it.live("a FIFO fed without end, and a link to /dev/zero, given with --config: refused, nothing read", () =>
    Effect.gen(function*() {
      const dir = mkdtempSync(path.join(tmpdir(), "mcp-effect-cli-"))
      const fed = path.join(dir, "fed.json")
      execFileSync("mkfifo", [fed])
      yield* endlessWriter(fed)
      const zero = path.join(dir, "zero.json")
      symlinkSync("/dev/zero", zero)
      for (const [file, kind] of [[fed, "a FIFO"], [zero, "a character device"]] as const) {
        for (const command of ["tools", "servers"]) {
          const ran = yield* bounded([command, "--config", file])
          assert.strictEqual(ran.code, 2, ran.stderr)
          assert.include(ran.stderr, `${file}: not a regular file (${kind})`)
        }
      }
    }).pipe(Effect.scoped))

  it.live("a 1 GiB configuration (sparse): larger than 4 MiB, refused without reading it", () =>
    Effect.gen(function*() {
      const file = path.join(mkdtempSync(path.join(tmpdir(), "mcp-effect-cli-")), "mcp.json")
      writeFileSync(file, "")
      truncateSync(file, 1024 * 1024 * 1024)
      for (const command of ["tools", "servers"]) {
        const ran = yield* bounded([command, "--config", file])
        assert.strictEqual(ran.code, 2, ran.stderr)
        assert.include(ran.stderr, `${file}: larger than 4 MiB`)
      }
    }))
})

describe("secrets from ${VAR} stay out of the output (issue 25, item 6)", () => {
  const SECRET = "s3cr3t-Value-42"

  /** Neither output shows the secret (nor its percent- or base64-encoded forms); each shows what it should. */
  const assertClean = (ran: Ran, what: string, ...expected: ReadonlyArray<string>) => {
    const said = ran.stdout + ran.stderr
    for (const form of [SECRET, encodeURIComponent(SECRET), Buffer.from(SECRET).toString("base64")]) {
      assert.notInclude(said, form, `${what}: the secret reached the output`)
    }
    for (const text of expected) assert.include(said, text, what)
  }

  it.live("a command that cannot start, a server that echoes its argument (JSON-RPC error, stderr), an HTTP server that echoes its header (JSON-RPC error, 500 body): plain and --json", () =>
    Effect.gen(function*() {
      const echoing = yield* launch([configServer, "--http"])
      const status = yield* launch([configServer, "--http", "--status-echo"])
      const dir = mkdtempSync(path.join(tmpdir(), "mcp-effect-cli-"))
      writeFileSync(path.join(dir, ".mcp.json"), JSON.stringify({
        mcpServers: {
          missing: { command: "/opt/${S}/server" },
          echo: { command: process.execPath, args: [configServer, "--echo", "${S}"] },
          stderr: { command: process.execPath, args: [configServer, "--stderr", "${S}"] },
          dies: { command: process.execPath, args: [configServer, "--die-with", "${env:S}"] },
          rpc: { url: echoing, headers: { "X-Api-Key": "${S}" } },
          status: { url: status, headers: { "X-Api-Key": "${S}" } }
        }
      }))
      const options = { cwd: dir, env: { S: SECRET } }
      for (const json of [[], ["--json"]]) {
        const servers = yield* bounded(["servers", ...json], options)
        assert.strictEqual(servers.code, 1, servers.stderr)
        assertClean(servers, `servers ${json.join("")}`, "/opt/${S}/server", "ENOENT", "bad argument [redacted]",
          "fatal: [redacted]", "key [redacted] refused", "the key [redacted] was refused")
        const cases = [
          ["missing", ["tools"], ["/opt/${S}/server", "ENOENT"]],
          ["echo", ["tools"], ["bad argument [redacted]"]],
          ["stderr", ["call", "die"], ["started with [redacted]", "dying with [redacted]"]],
          ["dies", ["tools"], ["fatal: [redacted]"]],
          ["rpc", ["tools"], ["key [redacted] refused"]],
          ["status", ["tools"], ["the key [redacted] was refused"]]
        ] as const
        for (const [server, command, expected] of cases) {
          const ran = yield* bounded([...command, "--server", server, ...json], options)
          assert.strictEqual(ran.code, 3, `${server}: ${ran.stdout}${ran.stderr}`)
          assertClean(ran, `${command.join(" ")} --server ${server} ${json.join("")}`, ...expected)
        }
      }
    }).pipe(Effect.scoped))

  it.live("--url with --header: the header's value is kept out of what the server echoes", () =>
    Effect.gen(function*() {
      const echoing = yield* launch([configServer, "--http"])
      for (const json of [[], ["--json"]]) {
        const ran = yield* bounded(["tools", "--url", echoing, "--header", `X-Api-Key: ${SECRET}`, ...json])
        assert.strictEqual(ran.code, 3, ran.stderr)
        assertClean(ran, `tools --url ${json.join("")}`, "key [redacted] refused")
      }
    }).pipe(Effect.scoped))
})
