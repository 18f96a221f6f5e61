/**
 * Against a real peer built on Effect 4's own MCP server (`effect/ai` `McpServer`, see
 * `@mcp-effect/test-servers/effect`), over stdio and over Streamable HTTP on loopback, in the revisions it
 * serves: `--era both` (2026-07-28 and 2025-11-25), `--era modern`, `--era legacy`. Our client settles the era
 * itself, lists and uses what the server offers, keeps the lists for the server's cache hints (counted on the
 * server by its `stats` tool) and hands progress to `onProgress`.
 */
import { McpClient, NodeMcpClient } from "@mcp-effect/client/node"
import type { McpClientError } from "@mcp-effect/client"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Scope from "effect/Scope"
import { createRequire } from "node:module"
import { launch } from "../fixtures/httpServer.js"
import { textOf } from "../fixtures/util.js"

const script = createRequire(import.meta.url).resolve("@mcp-effect/test-servers/effect")

type ServerEra = "both" | "modern" | "legacy"
type Transport = "stdio" | "http"

/** Start the HTTP server (`--http --port 0`) and read its `listening <url>`; stopped when the scope closes. */
const launchHttp = (era: ServerEra): Effect.Effect<string, Error, Scope.Scope> =>
  launch(process.execPath, [script, "--http", "--port", "0", "--era", era])

/** Our client (`NodeMcpClient`) on the server, over `transport`, for `program`. */
const against = <A, E>(
  transport: Transport,
  era: ServerEra,
  program: Effect.Effect<A, E, McpClient.McpClient>,
  options: McpClient.ClientOptions = {}
): Effect.Effect<A, E | McpClientError | Error, Scope.Scope> =>
  Effect.gen(function*() {
    const layer: Layer.Layer<McpClient.McpClient, McpClientError> = transport === "stdio"
      ? NodeMcpClient.layerStdio({ command: process.execPath, args: [script, "--era", era], ...options })
      : NodeMcpClient.layerHttp({ url: yield* launchHttp(era), ...options })
    return yield* Effect.provide(program, layer)
  })

/** How many `tools/list` requests the server has answered (its `stats` tool). */
const listsServed = Effect.gen(function*() {
  const client = yield* McpClient.McpClient
  const stats: unknown = JSON.parse(textOf(yield* client.callTool("stats")))
  return typeof stats === "object" && stats !== null && "toolsList" in stats ? Number(stats.toolsList) : Number.NaN
})

const eras = [
  { server: "both", expected: "modern", protocol: "2026-07-28" },
  { server: "modern", expected: "modern", protocol: "2026-07-28" },
  { server: "legacy", expected: "legacy", protocol: "2025-11-25" }
] as const

/**
 * Lists are kept exactly as long as the server says: modern lists carry `ttlMs` 60000 (a second `listTools` is
 * served from the cache, `refresh` fetches again), legacy ones carry no hint (every `listTools` reaches the
 * server). Counted on the server by its `stats` tool.
 */
const cacheHintsHonoured = (era: "modern" | "legacy") =>
  Effect.gen(function*() {
    const client = yield* McpClient.McpClient
    const before = yield* listsServed
    // A refresh always reaches the server (and stores the fresh list); the plain call after it may not.
    const first = yield* client.listTools({ refresh: true })
    const second = yield* client.listTools()
    assert.deepStrictEqual(second, first)
    if (era === "modern") {
      assert.strictEqual(yield* listsServed, before + 1)
      yield* client.listTools({ refresh: true })
      assert.strictEqual(yield* listsServed, before + 2)
      yield* client.listTools()
      assert.strictEqual(yield* listsServed, before + 2)
    } else {
      assert.strictEqual(yield* listsServed, before + 2)
    }
  })

// One server process per test: everything a test checks runs against that one server.
for (const transport of ["stdio", "http"] as const) {
  describe(`Effect's McpServer over ${transport}`, () => {
    for (const { expected, protocol, server } of eras) {
      it.live(
        `--era ${server}: probed as ${expected}; lists, calls, a resource, a prompt; cache hints honoured; progress in order`,
        () =>
          Effect.gen(function*() {
            const reports: Array<McpClient.ProgressReport> = []
            yield* against(
              transport,
              server,
              Effect.gen(function*() {
                const client = yield* McpClient.McpClient
                const info = yield* client.info
                assert.strictEqual(info.era, expected)
                assert.strictEqual(info.protocolVersion, protocol)
                assert.strictEqual(info.serverInfo?.name, "effect-mcp-server")
                assert.strictEqual(yield* client.instructions, "Demo server built on Effect's McpServer")

                const tools = yield* client.listTools()
                assert.deepStrictEqual(tools.map((tool) => tool.name), ["echo", "add", "slow", "stats"])
                const echo = tools.find((tool) => tool.name === "echo")
                assert.deepStrictEqual(echo?.inputSchema["required"], ["text"])
                assert.strictEqual(textOf(yield* client.callTool("echo", { text: "héllo" })), "héllo")
                const sum = yield* client.callTool("add", { a: 2, b: 40 })
                assert.deepStrictEqual(sum.structuredContent, { sum: 42 })
                assert.notStrictEqual(sum.isError, true)

                const resources = yield* client.listResources()
                assert.deepStrictEqual(resources.map((resource) => resource.uri), ["effect://greeting"])
                const read = yield* client.readResource("effect://greeting")
                assert.deepStrictEqual(read.contents.map((content) => "text" in content ? content.text : ""), [
                  "Hello from Effect's McpServer"
                ])

                const prompts = yield* client.listPrompts()
                assert.deepStrictEqual(prompts.map((prompt) => prompt.name), ["greet"])
                assert.deepStrictEqual(
                  prompts[0]?.arguments?.map((argument) => [argument.name, argument.required]),
                  [["name", true]]
                )
                const prompt = yield* client.getPrompt("greet", { name: "Ada" })
                assert.deepStrictEqual(prompt.messages, [{
                  role: "user",
                  content: { type: "text", text: "Hello, Ada!" }
                }])

                yield* cacheHintsHonoured(expected)

                // Progress: every report reaches onProgress, in order, before the result.
                const slow = yield* client.callTool("slow", { steps: 3, ms: 150 }, { toolCallId: "call-1" })
                assert.deepStrictEqual({ text: textOf(slow), reportsAtResult: reports.length }, {
                  text: "done",
                  reportsAtResult: 3
                })
              }),
              { onProgress: (report) => void reports.push(report) }
            )
            assert.deepStrictEqual(reports, [1, 2, 3].map((step) => ({
              toolCallId: "call-1",
              progress: step,
              total: 3,
              message: `step ${step}`
            })))
          })
      )
    }
  })
}
