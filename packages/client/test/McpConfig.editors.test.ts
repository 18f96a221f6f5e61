/**
 * Configuration people already have: VS Code's `servers` shape (`type: stdio | http | sse`, `inputs` with
 * `${input:ID}`), and a broken entry reported while the rest connect (`connectServers`, `onBroken: "report"`).
 */
import { McpConfig, NodePromise } from "@mcp-effect/client/node"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import { createRequire } from "node:module"
import { tmpdir } from "node:os"
import * as path from "node:path"

const official = createRequire(import.meta.url).resolve("@mcp-effect/test-servers/official")

const vscode = {
  inputs: [{ type: "promptString", id: "token", description: "API token", password: true }],
  servers: {
    demo: { type: "stdio", command: process.execPath, args: [official], env: { TOKEN: "${input:token}" } },
    web: { type: "http", url: "http://127.0.0.1:1/mcp" },
    old: { type: "sse", url: "http://127.0.0.1:1/sse" }
  }
}

describe("McpConfig: VS Code's shape", () => {
  it.effect("servers with type stdio/http/sse, ${input:ID} from the inputs option", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(McpConfig.inputsOf(vscode), [{ id: "token", description: "API token", password: true }])
      const entries = yield* McpConfig.readEntries(vscode, { env: {}, inputs: { token: "s3cret" } })
      const [demo, web, old] = entries
      assert(demo !== undefined && Result.isSuccess(demo) && demo.success.transport === "stdio")
      assert.deepStrictEqual(demo.success.env, { TOKEN: "s3cret" })
      assert(web !== undefined && Result.isSuccess(web) && web.success.transport === "http")
      assert.strictEqual(web.success.url, "http://127.0.0.1:1/mcp")
      assert(old !== undefined && Result.isFailure(old))
      assert.strictEqual(old.failure.entry, "old")
      assert.strictEqual(old.failure.field, "type")
      // Without a value for the input, that entry alone is malformed, and says what is missing.
      const [missing] = yield* McpConfig.readEntries(vscode, { env: {} })
      assert(missing !== undefined && Result.isFailure(missing))
      assert.strictEqual(missing.failure.field, "env.TOKEN")
      assert.include(missing.failure.detail, "input token has no value")
    }))
})

describe("McpConfig: one broken entry is reported, the rest connect", () => {
  const document = {
    mcpServers: {
      good: { command: process.execPath, args: [official] },
      broken: { command: path.join(tmpdir(), "no-such-mcp-server") },
      malformed: { args: ["no command"] }
    }
  }

  it.live("make with onBroken: report", () =>
    Effect.gen(function*() {
      const servers = yield* McpConfig.make(document, { onBroken: "report" })
      assert.deepStrictEqual([...servers.clients.keys()], ["good"])
      assert.deepStrictEqual(yield* servers.registry.prefixes, ["good"])
      assert.deepStrictEqual(
        servers.failures.map((failure) => [failure._tag, failure.entry]),
        [["McpConfigError", "malformed"], ["McpConfigServerError", "broken"]]
      )
    }))

  it.live("connectServers (Promise) reports by default", () =>
    Effect.gen(function*() {
      const servers = yield* Effect.promise(() => NodePromise.connectServers(document))
      try {
        assert.deepStrictEqual(Object.keys(servers.clients), ["good"])
        assert.deepStrictEqual(servers.failures.map((failure) => failure.entry), ["malformed", "broken"])
        const good = servers.clients["good"]
        assert(good !== undefined)
        assert.strictEqual(yield* Effect.promise(() => good.era()), "modern")
      } finally {
        yield* Effect.promise(() => servers.close())
      }
      // onBroken: "fail" keeps the former behaviour.
      const rejected = yield* Effect.promise(() =>
        NodePromise.connectServers(document, { onBroken: "fail" }).then(
          () => "connected",
          (error: { readonly _tag: string }) => error._tag
        )
      )
      assert.strictEqual(rejected, "McpConfigError")
    }))
})
