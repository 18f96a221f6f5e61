/**
 * The client over modern Streamable HTTP: `x-mcp-header` arguments mirrored into `Mcp-Param-*` headers, tools
 * with invalid annotations left out of `listTools`, and a `-32020` answered by listing again once.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { json, makeClient, MODERN_DISCOVER, result, rpcError, scripted, toolResult } from "./fixtures/httpServer.js"

const tenantTool = {
  name: "run_query",
  inputSchema: {
    type: "object",
    properties: {
      tenant: { type: "string", "x-mcp-header": "Tenant" },
      limit: { type: "integer", "x-mcp-header": "Limit" },
      dry: { type: "boolean", "x-mcp-header": "Dry" },
      sql: { type: "string" }
    }
  }
}
const badTool = {
  name: "bad",
  inputSchema: { type: "object", properties: { ratio: { type: "number", "x-mcp-header": "Ratio" } } }
}

describe("x-mcp-header over modern HTTP", () => {
  it.live("mirrors marked arguments, omits absent ones, and leaves invalid tools out", () =>
    Effect.gen(function*() {
      const server = yield* scripted((seen, res) => {
        switch (seen.json?.["method"]) {
          case "server/discover":
            return json(res, 200, result(seen, MODERN_DISCOVER))
          case "tools/list":
            return json(res, 200, result(seen, { resultType: "complete", tools: [tenantTool, badTool], ttlMs: 60_000, cacheScope: "public" }))
          default:
            return json(res, 200, result(seen, toolResult("ok")))
        }
      })
      const client = yield* makeClient(server.url)
      const tools = yield* client.listTools()
      assert.deepStrictEqual(tools.map((t) => t.name), ["run_query"])
      yield* client.callTool("run_query", { tenant: "acme", limit: 10, dry: false, sql: "select 1" })
      yield* client.callTool("run_query", { tenant: "héllo", sql: "x" })
      const [first, second] = server.requests("tools/call")
      assert.strictEqual(first?.headers["mcp-param-tenant"], "acme")
      assert.strictEqual(first?.headers["mcp-param-limit"], "10")
      assert.strictEqual(first?.headers["mcp-param-dry"], "false")
      assert.strictEqual(second?.headers["mcp-param-tenant"], `=?base64?${Buffer.from("héllo").toString("base64")}?=`)
      assert.strictEqual(second?.headers["mcp-param-limit"], undefined)
      // The catalogue came from the cache: one tools/list for all of it.
      assert.strictEqual(server.requests("tools/list").length, 1)
    }))

  it.live("a -32020 header mismatch lists the tools again and retries once", () =>
    Effect.gen(function*() {
      let lists = 0
      const server = yield* scripted((seen, res) => {
        switch (seen.json?.["method"]) {
          case "server/discover":
            return json(res, 200, result(seen, MODERN_DISCOVER))
          case "tools/list":
            lists++
            return json(res, 200, result(seen, {
              resultType: "complete",
              tools: lists === 1 ? [{ name: "run_query", inputSchema: { type: "object" } }] : [tenantTool],
              ttlMs: 60_000
            }))
          default:
            return seen.headers["mcp-param-tenant"] === undefined
              ? json(res, 400, rpcError(seen.json?.["id"], -32020, "Header mismatch: Mcp-Param-Tenant missing"))
              : json(res, 200, result(seen, toolResult("ok")))
        }
      })
      const client = yield* makeClient(server.url)
      const answer = yield* client.callTool("run_query", { tenant: "acme" })
      assert.deepStrictEqual(answer.content, [{ type: "text", text: "ok" }])
      assert.strictEqual(server.requests("tools/call").length, 2)
      assert.strictEqual(server.requests("tools/list").length, 2)
    }))
})
