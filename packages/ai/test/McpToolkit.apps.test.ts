/**
 * MCP Apps and the `effect/ai` toolkit: a tool an App server marks visible to apps only never becomes an AI
 * tool (the spec: hosts drop it from the model's list).
 */
import { McpToolkit } from "@mcp-effect/ai"
import { McpClient, McpTransport } from "@mcp-effect/client"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"

const tools = [
  { name: "show", inputSchema: { type: "object" }, _meta: { ui: { resourceUri: "ui://demo/app.html" } } },
  { name: "refresh", inputSchema: { type: "object" }, _meta: { ui: { visibility: ["app"] } } },
  { name: "both", inputSchema: { type: "object" }, _meta: { ui: { visibility: ["model", "app"] } } }
]

const server = McpTransport.layerMemory({
  onMessage: (message, peer) => {
    const result = message["method"] === "server/discover"
      ? { resultType: "complete", supportedVersions: ["2026-07-28"], capabilities: { tools: {} } }
      : message["method"] === "tools/list"
      ? { resultType: "complete", tools }
      : undefined
    if (message["id"] === undefined) return Effect.void
    return peer.send(
      result === undefined
        ? { jsonrpc: "2.0", id: message["id"], error: { code: -32601, message: "no" } }
        : { jsonrpc: "2.0", id: message["id"], result }
    )
  }
})

describe("McpToolkit and MCP Apps", () => {
  it.effect("an app-only tool is not an AI tool", () =>
    Effect.gen(function*() {
      const toolkit = yield* McpToolkit.make()
      assert.deepStrictEqual(Object.keys(toolkit.tools).sort(), ["both", "show"])
    }).pipe(Effect.provide(McpClient.layer({ apps: true }).pipe(Layer.provide(server)))))
})
