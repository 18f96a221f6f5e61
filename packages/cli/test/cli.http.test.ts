/**
 * `mcp-effect --url` as a real process against Streamable HTTP servers on loopback: the bundled example
 * server (modern, and `--era legacy`) and `@modelcontextprotocol/server-everything` (legacy, sessionful).
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { everything, launch, loopback, official, run } from "./fixtures/run.js"

const json = (text: string): unknown => JSON.parse(text)

describe("mcp-effect over Streamable HTTP", () => {
  it.live("the example server: info, tools, a call with progress, a tool error, --header", () =>
    Effect.gen(function*() {
      const url = yield* launch([official, "--http", "--port", "0"])
      const info = json((yield* run(["info", "--json", "--url", url, "--header", "X-Trace: 1"])).stdout) as { era: string }
      assert.strictEqual(info.era, "modern")
      const tools = yield* run(["tools", "--url", url])
      assert.match(tools.stdout, /^add\s+a: number, b: number\s+read-only,idempotent\s+Adds two numbers$/m)
      const slow = yield* run(["call", "slow", "ms=300", "steps=2", "--url", url])
      assert.strictEqual(slow.code, 0)
      assert.strictEqual(slow.stdout, "done\n")
      assert.include(slow.stderr, "[############------------]  50% (1/2) step 1\n")
      assert.include(slow.stderr, "100% (2/2) step 2\n")
      const failed = yield* run(["call", "fail", "--json", "--url", url])
      assert.strictEqual(failed.code, 1)
      assert.strictEqual((json(failed.stdout) as { isError: boolean }).isError, true)
      const badHeader = yield* run(["tools", "--url", url, "--header", "no separator"])
      assert.strictEqual(badHeader.code, 2)
      const legacyUrl = yield* launch([official, "--http", "--port", "0", "--era", "legacy"])
      const legacy = yield* run(["info", "--url", legacyUrl])
      assert.match(legacy.stdout, /^era:\s+legacy/m)
    }))

  it.live("server-everything: a call, progress, roots, in both formats", () =>
    Effect.gen(function*() {
      const url = yield* launch(["--import", loopback, everything, "streamableHttp"])
      const echo = yield* run(["call", "echo", "message=over http", "--url", url])
      assert.strictEqual(echo.stdout, "Echo: over http\n")
      const info = json((yield* run(["info", "--json", "--url", url])).stdout) as { era: string; serverInfo: { name: string } }
      assert.strictEqual(info.era, "legacy")
      assert.strictEqual(info.serverInfo.name, "mcp-servers/everything")
      const long = yield* run(["call", "trigger-long-running-operation", "duration=1", "steps=2", "--json", "--url", url])
      assert.strictEqual(long.code, 0)
      assert.include(long.stderr, "[############------------]  50% (1/2)\n")
      assert.include((json(long.stdout) as { content: ReadonlyArray<{ text: string }> }).content[0]?.text ?? "", "Steps: 2")
      const roots = yield* run(["call", "get-roots-list", "--root", "/srv/project", "--url", url])
      assert.include(roots.stdout, "file:///srv/project")
    }))
})
