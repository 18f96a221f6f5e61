/**
 * What a new user met (issue 28), against a scripted legacy server over real stdio
 * (`fixtures/newuser-server.mjs`): one broken tool does not hide the others (item 11), and the version the
 * client tells servers is the package's (item 10).
 */
import { McpClient, NodeMcpClient } from "@mcp-effect/client"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Stream from "effect/Stream"
import { readFileSync } from "node:fs"
import * as path from "node:path"

const script = path.join(import.meta.dirname, "fixtures/newuser-server.mjs")
const scripted = (...args: ReadonlyArray<string>) =>
  NodeMcpClient.layerStdio({ command: process.execPath, args: [script, ...args] })

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
      const pkg: unknown = JSON.parse(readFileSync(path.join(import.meta.dirname, "../package.json"), "utf8"))
      const version = typeof pkg === "object" && pkg !== null && "version" in pkg ? pkg.version : undefined
      assert.strictEqual(McpClient.CLIENT_VERSION, version)
      const told = yield* client.request("newuser/clientInfo")
      assert.deepStrictEqual(told, { clientInfo: { name: "mcp-effect-client", version } })
    }).pipe(Effect.provide(scripted())))
})
