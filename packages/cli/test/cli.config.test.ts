/**
 * `mcp-effect` with servers from a Claude-Desktop-style `mcpServers` file: `servers` checks every entry in
 * parallel and reports the broken ones without failing the others; `--server` picks one entry; Ctrl-C
 * (SIGINT) cancels a call on the wire and exits with 130.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { launch, official, run, scripted } from "./fixtures/run.js"

const json = (text: string): unknown => JSON.parse(text)

const directory = (files: Readonly<Record<string, unknown>>) => {
  const dir = mkdtempSync(path.join(tmpdir(), "mcp-effect-cli-"))
  for (const [name, content] of Object.entries(files)) writeFileSync(path.join(dir, name), JSON.stringify(content, null, 2))
  return dir
}

interface Row {
  readonly name: string
  readonly ok: boolean
  readonly era?: string
  readonly tools?: number
  readonly error?: string
}

describe("mcp-effect with a configuration file", () => {
  it.live("servers: every entry checked, a broken one reported without failing the others", () =>
    Effect.gen(function*() {
      const url = yield* launch([official, "--http", "--port", "0", "--era", "legacy"])
      const dir = directory({
        ".mcp.json": {
          mcpServers: {
            demo: { command: process.execPath, args: [official], env: { DEMO: "${HOME}" }, alwaysAllow: ["echo"] },
            remote: { type: "http", url, headers: { "X-Trace": "${USER:-someone}" } },
            broken: { command: path.join(tmpdir(), "no-such-mcp-server") },
            malformed: { command: "node", args: "not-an-array" }
          }
        }
      })
      const human = yield* run(["servers"], { cwd: dir })
      assert.strictEqual(human.code, 1)
      assert.match(human.stdout, /^NAME\s+TRANSPORT\s+ERA\s+TOOLS\s+STATUS$/m)
      assert.match(human.stdout, /^demo\s+stdio\s+modern\s+9\s+ok official-demo 1\.0\.0$/m)
      assert.match(human.stdout, /^remote\s+http\s+legacy\s+9\s+ok official-demo 1\.0\.0$/m)
      assert.match(human.stdout, /^broken\s+stdio\s+-\s+-\s+error: /m)
      assert.match(human.stdout, /^malformed\s+\?\s+-\s+-\s+error: field "args": must be an array of strings$/m)

      const rows = json((yield* run(["servers", "--json", "--config", path.join(dir, ".mcp.json")])).stdout) as ReadonlyArray<Row>
      assert.deepStrictEqual(rows.map((r) => [r.name, r.ok, r.era, r.tools]), [
        ["demo", true, "modern", 9],
        ["remote", true, "legacy", 9],
        ["broken", false, undefined, undefined],
        ["malformed", false, undefined, undefined]
      ])

      const picked = yield* run(["call", "echo", "text=from config", "--server", "remote"], { cwd: dir })
      assert.strictEqual(picked.code, 0)
      assert.strictEqual(picked.stdout, "from config\n")
      const ambiguous = yield* run(["tools"], { cwd: dir })
      assert.strictEqual(ambiguous.code, 2)
      assert.include(ambiguous.stderr, "has 4 servers; choose one with --server NAME (demo, remote, broken, malformed)")
      const brokenOne = yield* run(["tools", "-s", "broken"], { cwd: dir })
      assert.strictEqual(brokenOne.code, 3)
      const malformedOne = yield* run(["tools", "-s", "malformed"], { cwd: dir })
      assert.strictEqual(malformedOne.code, 2)
      assert.include(malformedOne.stderr, "field \"args\"")
      const unknown = yield* run(["tools", "-s", "nope"], { cwd: dir })
      assert.strictEqual(unknown.code, 2)
    }))

  it.live("./mcp.json is read when there is no ./.mcp.json; its only entry needs no --server", () =>
    Effect.gen(function*() {
      const dir = directory({ "mcp.json": { mcpServers: { only: { command: process.execPath, args: [official] } } } })
      const tools = yield* run(["tools", "--json"], { cwd: dir })
      assert.strictEqual(tools.code, 0)
      assert.include((json(tools.stdout) as ReadonlyArray<{ name: string }>).map((t) => t.name), "echo")
      const notJson = directory({})
      writeFileSync(path.join(notJson, ".mcp.json"), "{ nope")
      const bad = yield* run(["servers"], { cwd: notJson })
      assert.strictEqual(bad.code, 2)
      assert.include(bad.stderr, "not valid JSON")
    }))
})

describe("Ctrl-C", () => {
  it.live("SIGINT during a call cancels it on the wire (notifications/cancelled) and exits with 130", () =>
    Effect.gen(function*() {
      const log = path.join(mkdtempSync(path.join(tmpdir(), "mcp-effect-cli-")), "server.log")
      // The scripted server logs what it receives to stderr; the shell sends that to a file.
      const server = `sh -c 'exec ${process.execPath} ${scripted} --mode modern 2>>${log}'`
      const ran = yield* run(["call", "slow", "ms=60000", "--stdio", server], {
        started: (child) => {
          const poll = setInterval(() => {
            if (existsSync(log) && readFileSync(log, "utf8").includes("tools/call slow")) {
              clearInterval(poll)
              child.kill("SIGINT")
            }
          }, 50)
          child.once("exit", () => clearInterval(poll))
        }
      })
      assert.strictEqual(ran.code, 130)
      const seen = readFileSync(log, "utf8")
      assert.match(seen, /cancelled \d+/)
      assert.include(seen, "stdin closed; exiting")
    }))
})
