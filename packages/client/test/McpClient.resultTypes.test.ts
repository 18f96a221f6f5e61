/**
 * The first type guess a new user makes (issue 28, item 9): the types `callTool`, `listTools`, `readResource`
 * and `getPrompt` give are named where a caller looks first, on `McpClient` (`McpClient.CallToolResult`) and at
 * the package's top level, and are the same types as `McpSchema`'s. The annotations below are the type-level test (`npm run check`);
 * the calls run against an in-memory server.
 */
import type {
  CallToolResult,
  ContentBlock,
  GetPromptResult,
  Prompt,
  ReadResourceResult,
  Resource,
  ResourceContents,
  ResourceTemplate,
  Tool
} from "@mcp-effect/client"
import { McpClient, McpSchema, McpTestServer } from "@mcp-effect/client"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"

const server = McpTestServer.make({
  tools: [McpTestServer.tool({ name: "hi", handler: () => Effect.succeed("hello") })],
  resources: [{ uri: "mem://a", name: "a", read: () => Effect.succeed("A") }],
  prompts: [{ name: "p", get: () => Effect.succeed("P") }]
})

/** Both spellings name one type: each is assignable to the other. */
const same = <A, B extends A>(_: (a: A) => B): void => undefined

describe("the result types, where a caller looks first (item 9)", () => {
  it.effect("McpClient.CallToolResult, McpClient.Tool, ... and the top-level names are McpSchema's types", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      const tools: ReadonlyArray<McpClient.Tool> = yield* client.listTools()
      const result: McpClient.CallToolResult = yield* client.callTool("hi", {})
      const block: McpClient.ContentBlock | undefined = result.content[0]
      const resources: ReadonlyArray<McpClient.Resource> = yield* client.listResources()
      const templates: ReadonlyArray<McpClient.ResourceTemplate> = yield* client.listResourceTemplates()
      const read: McpClient.ReadResourceResult = yield* client.readResource("mem://a")
      const contents: McpClient.ResourceContents | undefined = read.contents[0]
      const prompts: ReadonlyArray<McpClient.Prompt> = yield* client.listPrompts()
      const prompt: McpClient.GetPromptResult = yield* client.getPrompt("p")
      const topLevel: [
        ReadonlyArray<Tool>,
        CallToolResult,
        ContentBlock | undefined,
        ReadonlyArray<Resource>,
        ReadonlyArray<ResourceTemplate>,
        ReadResourceResult,
        ResourceContents | undefined,
        ReadonlyArray<Prompt>,
        GetPromptResult
      ] = [tools, result, block, resources, templates, read, contents, prompts, prompt]
      same<McpClient.CallToolResult, McpSchema.CallToolResult>((a) => a)
      same<CallToolResult, McpSchema.CallToolResult>((a) => a)
      same<McpSchema.CallToolResult, McpClient.CallToolResult>((a) => a)
      same<McpClient.Tool, McpSchema.Tool>((a) => a)
      same<McpClient.ReadResourceResult, McpSchema.ReadResourceResult>((a) => a)
      same<McpClient.GetPromptResult, McpSchema.GetPromptResult>((a) => a)
      assert.deepStrictEqual(tools.map((t) => t.name), ["hi"])
      assert.strictEqual(block?.type === "text" ? block.text : undefined, "hello")
      assert.strictEqual(contents !== undefined && "text" in contents ? contents.text : undefined, "A")
      assert.strictEqual(resources[0]?.uri, "mem://a")
      assert.deepStrictEqual(templates, [])
      assert.strictEqual(topLevel[1], result)
      assert.deepStrictEqual(prompts.map((p) => p.name), ["p"])
      assert.strictEqual(prompt.messages[0]?.content.type === "text" ? prompt.messages[0].content.text : undefined, "P")
    }).pipe(Effect.provide(server.layer())))
})
