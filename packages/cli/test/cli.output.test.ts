/**
 * Output as people expect it, as a real process: errors as JSON under `--json` (same exit codes), an empty result
 * and a word on stderr for a capability the server lacks, a structured result printed once, a tool's parameters
 * on one line, blobs saved with `--out` (base64 under `--json`), and a connect timeout apart from the call's.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { officialStdio, run } from "./fixtures/run.js"

const fixture = path.join(import.meta.dirname, "fixtures/output-server.mjs")
const stdio = (...args: ReadonlyArray<string>) => ["--stdio", [process.execPath, fixture, ...args].join(" ")]
const json = (text: string): unknown => JSON.parse(text)

describe("mcp-effect output", () => {
  it.live("--json: a failure is JSON on stdout too, with the usual exit code", () =>
    Effect.gen(function*() {
      const usage = yield* run(["call", "nosuch", "--json", ...officialStdio()])
      assert.strictEqual(usage.code, 2)
      const error = (json(usage.stdout) as { error: { tag: string; message: string } }).error
      assert.strictEqual(error.tag, "UsageError")
      assert.match(error.message, /^no tool "nosuch" \(tools: echo, add, /)
      const spawn = yield* run(["tools", "--json", "--stdio", "no-such-server-for-this-test"])
      assert.strictEqual(spawn.code, 3)
      assert.deepInclude(json(spawn.stdout), {
        error: {
          tag: "McpTransportError",
          message: "MCP transport failure (Spawn): cannot start no-such-server-for-this-test: spawn no-such-server-for-this-test ENOENT",
          reason: "Spawn",
          detail: "cannot start no-such-server-for-this-test: spawn no-such-server-for-this-test ENOENT"
        }
      })
      // Without --json the error stays a line on stderr.
      const text = yield* run(["tools", "--stdio", "no-such-server-for-this-test"])
      assert.strictEqual(text.code, 3)
      assert.strictEqual(text.stdout, "")
      assert.match(text.stderr, /^mcp-effect: MCP transport failure \(Spawn\)/)
    }))

  it.live("a capability the server lacks: an empty result, exit 0, and a word on stderr", () =>
    Effect.gen(function*() {
      for (const [command, capability] of [["resources", "resources"], ["templates", "resources"], ["prompts", "prompts"]]) {
        const human = yield* run([command, ...stdio()])
        assert.strictEqual(human.code, 0, human.stderr)
        assert.strictEqual(human.stdout, "(none)\n")
        assert.strictEqual(human.stderr, `mcp-effect: the server has no ${capability} (capability not declared)\n`)
        const machine = yield* run([command, "--json", ...stdio()])
        assert.strictEqual(machine.code, 0)
        assert.deepStrictEqual(json(machine.stdout), [])
      }
    }))

  it.live("tools: each tool's parameters on one line; a structured result printed once", () =>
    Effect.gen(function*() {
      const tools = yield* run(["tools", ...stdio()])
      assert.strictEqual(tools.code, 0)
      assert.match(tools.stdout, /^NAME\s+PARAMETERS\s+ANNOTATIONS\s+DESCRIPTION\n/)
      assert.match(tools.stdout, /^sum\s+values: number\[\], label\?: string\s+Adds a list$/m)
      assert.match(tools.stdout, /^pixel\s+A 3-byte image$/m)
      const sum = yield* run(["call", "sum", "--args", "{\"values\":[1,2,3]}", ...stdio()])
      assert.strictEqual(sum.code, 0)
      // The text block only repeats the structured content: shown once.
      assert.strictEqual(sum.stdout, "  structured:\n    {\n      \"sum\": 6\n    }\n")
    }))

  it.live("blobs: saved with --out, base64 under --json", () =>
    Effect.gen(function*() {
      const dir = mkdtempSync(path.join(tmpdir(), "mcp-effect-out-"))
      try {
        const image = path.join(dir, "pixel.png")
        const call = yield* run(["call", "pixel", "--out", image, ...stdio()])
        assert.strictEqual(call.code, 0, call.stderr)
        assert.deepStrictEqual([...readFileSync(image)], [1, 2, 3])
        assert.strictEqual(call.stderr, `mcp-effect: saved 3 bytes to ${image}\n`)
        const blob = path.join(dir, "bytes.bin")
        const read = yield* run(["read", "blob://bytes", "--out", blob, ...stdio("--blob")])
        assert.strictEqual(read.code, 0, read.stderr)
        assert.deepStrictEqual([...readFileSync(blob)], [0, 255, 7])
        const machine = yield* run(["read", "blob://bytes", "--json", ...stdio("--blob")])
        assert.deepStrictEqual(json(machine.stdout), {
          contents: [{ uri: "blob://bytes", mimeType: "application/octet-stream", blob: "AP8H" }]
        })
      } finally {
        rmSync(dir, { recursive: true, force: true })
      }
    }))

  it.live("a server that never answers is reported after --connect-timeout, apart from --timeout", () =>
    Effect.gen(function*() {
      const started = Date.now()
      const silent = yield* run(["tools", "--connect-timeout", "2", "--timeout", "600", "--json", ...stdio("--silent")])
      const elapsed = Date.now() - started
      assert.strictEqual(silent.code, 3)
      // The server wrote nothing at all (stdout or stderr): the error says so, with the usual causes.
      const { error } = json(silent.stdout) as { readonly error: Record<string, unknown> }
      assert.strictEqual(error["tag"], "ConnectTimeoutError")
      assert.strictEqual(error["seconds"], 2)
      assert.strictEqual(error["silentServer"], "")
      assert.match(
        String(error["message"]),
        /^the server did not answer within the connect timeout of 2 s \(--connect-timeout\); the server wrote nothing on stdout\. Usual causes: .*; it wrote nothing on stderr either$/s
      )
      assert.isBelow(elapsed, 30_000)
      // A call longer than the connect timeout keeps its own limit.
      const slow = yield* run(["call", "slow", "ms=3000", "--connect-timeout", "2", ...officialStdio()])
      assert.strictEqual(slow.code, 0, slow.stderr)
      assert.strictEqual(slow.stdout, "done\n")
    }))
})
