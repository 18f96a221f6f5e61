/**
 * Against a real server written by others: @modelcontextprotocol/server-everything (legacy era) over stdio.
 */
import { connectStdio, McpClient, NodeMcpClient } from "@mcp-effect/client/node"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { createRequire } from "node:module"

const server = createRequire(import.meta.url).resolve("@modelcontextprotocol/server-everything/dist/index.js")
const command = { command: process.execPath, args: [server, "stdio"] }

const texts = (result: { readonly content: ReadonlyArray<{ readonly type: string }> }) =>
  result.content.flatMap((block) => "text" in block && typeof block.text === "string" ? [block.text] : [])

describe("server-everything over stdio", () => {
  it.live("is legacy; lists its tools; calls them (Effect API)", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      assert.strictEqual(yield* client.era, "legacy")
      assert.strictEqual((yield* client.serverInfo)?.name, "mcp-servers/everything")
      const tools = yield* client.listTools()
      const names = tools.map((tool) => tool.name)
      assert.includeMembers(names, ["echo", "get-sum", "trigger-long-running-operation"])
      // No hooks set, so no capability declared: the server leaves out the tools that would ask.
      assert.notInclude(names, "trigger-elicitation-request")
      assert.notInclude(names, "trigger-sampling-request")
      assert.deepStrictEqual(texts(yield* client.callTool("echo", { message: "hello" })), ["Echo: hello"])
      assert.deepStrictEqual(texts(yield* client.callTool("get-sum", { a: 2, b: 3 })), ["The sum of 2 and 3 is 5."])
      const annotated = tools.find((tool) => tool.name === "trigger-long-running-operation")
      assert.deepStrictEqual(annotated?.annotations, {
        readOnlyHint: true,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: false
      })
      // This SDK reports an unknown tool as a tool error result, not a JSON-RPC error.
      const unknown = yield* client.callTool("no-such-tool")
      assert.isTrue(unknown.isError)
      assert.include(texts(unknown).join(""), "not found")
    }).pipe(Effect.provide(NodeMcpClient.layerStdio(command))))

  it("hooks answer its elicitation, sampling and roots requests; progress arrives in order (Promise API)", async () => {
    const progress: Array<McpClient.ProgressReport> = []
    const logs: Array<McpClient.LogMessage> = []
    const client = await connectStdio({
      ...command,
      onElicit: ({ params }) => {
        assert.strictEqual(typeof params["requestedSchema"], "object")
        return { action: "accept", content: { name: "Ada" } }
      },
      onSample: async () => ({ role: "assistant", content: { type: "text", text: "sampled!" }, model: "fake" }),
      onListRoots: () => ({ roots: [{ uri: "file:///srv/app", name: "app" }] }),
      onProgress: (report) => void progress.push(report),
      logLevel: "debug",
      onLog: (message) => void logs.push(message)
    })
    try {
      const names = (await client.listTools()).map((tool) => tool.name)
      assert.includeMembers(names, ["trigger-elicitation-request", "trigger-sampling-request", "get-roots-list"])
      const elicited = texts(await client.callTool("trigger-elicitation-request", {}))
      assert.include(elicited.join("\n"), "Name: Ada")
      const sampled = texts(await client.callTool("trigger-sampling-request", { prompt: "hi", maxTokens: 10 }))
      assert.include(sampled.join("\n"), "sampled!")
      const roots = texts(await client.callTool("get-roots-list", {}))
      assert.include(roots.join("\n"), "file:///srv/app")
      const done = await client.callTool("trigger-long-running-operation", { duration: 0.3, steps: 3 })
      const reportsAtAnswer = progress.length
      assert.include(texts(done).join(""), "completed")
      assert.deepStrictEqual(progress, [
        { progress: 1, total: 3 },
        { progress: 2, total: 3 },
        { progress: 3, total: 3 }
      ])
      assert.strictEqual(reportsAtAnswer, 3)
      assert.isTrue(logs.some((log) => String(log.data).includes("Roots updated")))
    } finally {
      await client.close()
    }
  })

  it("the Promise client has the LLM bridge built in; after close it answers with is_error results", async () => {
    const client = await connectStdio(command)
    const declarations = await client.toolsForLlm()
    const echo = declarations.find((tool) => tool.function.name === "echo")
    assert.strictEqual(echo?.type, "function")
    assert.strictEqual(echo?.function.parameters["type"], "object")
    const calls = [
      { id: "c1", type: "function", function: { name: "echo", arguments: JSON.stringify({ message: "one" }) } },
      { id: "c2", type: "function", function: { name: "get-sum", arguments: "{\"a\": 1, \"b\": 2}" } },
      { id: "c3", type: "function", function: { name: "echo", arguments: "not json" } }
    ]
    const results = await client.executeToolCalls(calls)
    assert.deepStrictEqual(results.map((r) => [r.tool_call_id, r.is_error]), [["c1", false], ["c2", false], ["c3", true]])
    assert.include(String(results[0]?.content), "Echo: one")
    await client.close()
    const after = await client.executeToolCalls(calls.slice(0, 1))
    assert.deepStrictEqual(after.map((r) => [r.tool_call_id, r.is_error]), [["c1", true]])
  })
})
