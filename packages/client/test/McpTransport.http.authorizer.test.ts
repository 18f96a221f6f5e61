import { McpError, type McpTransport } from "@mcp-effect/client"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { json, makeClient, MODERN_DISCOVER, result, scripted, toolResult } from "./fixtures/httpServer.js"

/** An authorizer that hands out `token-<n>` and records what it was asked and shown. */
const recording = (decide: (challenge: McpTransport.HttpChallenge) => "retry" | "fail") => {
  const asked: Array<McpTransport.HttpRequestInfo> = []
  const challenges: Array<McpTransport.HttpChallenge> = []
  let issued = 0
  const authorizer: McpTransport.HttpAuthorizer = {
    headers: (request) =>
      Effect.sync(() => {
        asked.push(request)
        return { authorization: `Bearer token-${issued}` }
      }),
    onChallenge: (challenge) =>
      Effect.sync(() => {
        challenges.push(challenge)
        issued++
        return decide(challenge)
      })
  }
  return { authorizer, asked, challenges }
}

describe("the HTTP authorizer seam", () => {
  it.live("asked before every HTTP request; a 401 is shown to it and the request sent once more", () =>
    Effect.gen(function*() {
      const server = yield* scripted((seen, res) => {
        if (seen.headers["authorization"] !== "Bearer token-1") {
          res.writeHead(401, { "www-authenticate": "Bearer resource_metadata=\"https://as.example/meta\"" })
          return res.end()
        }
        return json(res, 200, result(seen, seen.json?.["method"] === "server/discover" ? MODERN_DISCOVER : toolResult("ok")))
      })
      const { asked, authorizer, challenges } = recording(() => "retry")
      const client = yield* makeClient(server.url, {}, { authorizer, headers: { authorization: "Bearer static" } })
      const called = yield* client.callTool("echo")
      assert.deepStrictEqual(called.content, [{ type: "text", text: "ok" }])
      // The first POST was refused once, sent again with fresh headers; then every request had them (the
      // authorizer's win over the caller's static ones). The tools are listed first for x-mcp-header.
      assert.deepStrictEqual(server.seen.map((seen) => [seen.json?.["method"], seen.headers["authorization"]]), [
        ["server/discover", "Bearer token-0"],
        ["server/discover", "Bearer token-1"],
        ["tools/list", "Bearer token-1"],
        ["tools/call", "Bearer token-1"]
      ])
      assert.strictEqual(challenges.length, 1)
      assert.strictEqual(challenges[0]?.status, 401)
      assert.strictEqual(challenges[0]?.headers["www-authenticate"], "Bearer resource_metadata=\"https://as.example/meta\"")
      assert.deepInclude(challenges[0]?.request, { method: "POST", mcpMethod: "server/discover", attempt: 0 })
      assert.deepStrictEqual(challenges[0]?.sent, { authorization: "Bearer token-0" })
      assert.deepStrictEqual(asked.map((info) => [info.mcpMethod, info.attempt]), [
        ["server/discover", 0],
        ["server/discover", 1],
        ["tools/list", 0],
        ["tools/call", 0]
      ])
    }))

  it.live("\"fail\" (or a second 401) leaves the 401 as the request's McpTransportError", () =>
    Effect.gen(function*() {
      const server = yield* scripted((_, res) => {
        res.writeHead(403, { "www-authenticate": "Bearer error=\"insufficient_scope\"" })
        res.end()
      })
      const { authorizer, challenges } = recording((challenge) => challenge.request.attempt === 0 ? "retry" : "fail")
      const client = yield* makeClient(server.url, {}, { authorizer })
      const error = yield* client.era.pipe(Effect.flip)
      assert.deepInclude(error, { _tag: "McpTransportError", reason: "Http", status: 403 })
      // The retried request's 403 is shown again (attempt 1); "fail" ends it there.
      assert.strictEqual(server.seen.length, 2)
      assert.deepStrictEqual(challenges.map((challenge) => challenge.request.attempt), [0, 1])
    }))

  it.live("a failing authorizer fails the request with its error, and nothing is sent", () =>
    Effect.gen(function*() {
      const server = yield* scripted((seen, res) => json(res, 200, result(seen, MODERN_DISCOVER)))
      const authorizer: McpTransport.HttpAuthorizer = {
        headers: () => Effect.fail(new McpError.McpTransportError({ reason: "Auth", detail: "no token and no way to get one" })),
        onChallenge: () => Effect.succeed("fail")
      }
      const client = yield* makeClient(server.url, {}, { authorizer })
      const error = yield* client.era.pipe(Effect.flip)
      assert.deepInclude(error, { _tag: "McpTransportError", reason: "Auth" })
      assert.strictEqual(server.seen.length, 0)
    }))
})
