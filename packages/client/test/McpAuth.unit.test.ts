/**
 * The pieces of `McpAuth` that need no authorization server: challenge parsing, the discovery order, the
 * resource check, the file token store and the loopback redirect receiver.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as fs from "node:fs/promises"
import * as os from "node:os"
import * as path from "node:path"
import { challengeInfo, parseChallenges, unionScopes } from "../src/internal/auth/challenge.js"
import { asMetadataUrls, fetchResourceMetadata, fetchServerMetadata, prmUrls, sameResource } from "../src/internal/auth/discovery.js"
import * as store from "../src/internal/node/tokenFile.js"
import * as NodeMcpAuth from "../src/NodeMcpAuth.js"

describe("WWW-Authenticate", () => {
  it("reads quoted and bare parameters of several challenges", () => {
    const parsed = parseChallenges(
      "Bearer realm=\"mcp\", error=\"insufficient_scope\", scope=\"a b\", DPoP algs=\"ES256\", error=use_dpop_nonce"
    )
    assert.deepStrictEqual(parsed, [
      { scheme: "bearer", params: { realm: "mcp", error: "insufficient_scope", scope: "a b" } },
      { scheme: "dpop", params: { algs: "ES256", error: "use_dpop_nonce" } }
    ])
    const info = challengeInfo("Bearer resource_metadata=\"https://x/.well-known/oauth-protected-resource\", scope=\"read  write\"")
    assert.strictEqual(info.resourceMetadata, "https://x/.well-known/oauth-protected-resource")
    assert.deepStrictEqual(info.scope, ["read", "write"])
    assert.strictEqual(challengeInfo(undefined).scope, undefined)
    assert.deepStrictEqual(parseChallenges("Bearer realm=\"a \\\"quoted\\\" b\""), [
      { scheme: "bearer", params: { realm: "a \"quoted\" b" } }
    ])
  })

  it("scope union keeps order and drops repeats", () => {
    assert.deepStrictEqual(unionScopes(["a", "b"], ["b", "c"], undefined), ["a", "b", "c"])
  })
})

describe("discovery order", () => {
  it("PRM: the challenge's URL, then path-based, then root, each with the resources its document may name", () => {
    const server = new URL("https://mcp.example/tenant/mcp")
    const shown = (locations: ReturnType<typeof prmUrls>) =>
      locations.map((location) => [location.url.href, ...location.names])
    assert.deepStrictEqual(shown(prmUrls(server, "https://meta.example/prm.json")), [
      ["https://meta.example/prm.json", "https://mcp.example/tenant/mcp"],
      ["https://mcp.example/.well-known/oauth-protected-resource/tenant/mcp", "https://mcp.example/tenant/mcp"],
      ["https://mcp.example/.well-known/oauth-protected-resource", "https://mcp.example", "https://mcp.example/tenant/mcp"]
    ])
    assert.deepStrictEqual(shown(prmUrls(new URL("https://mcp.example/"), undefined)), [
      ["https://mcp.example/.well-known/oauth-protected-resource", "https://mcp.example", "https://mcp.example/"]
    ])
  })

  it("authorization server metadata: RFC 8414 then OpenID Connect, path-aware", () => {
    assert.deepStrictEqual(asMetadataUrls(new URL("https://as.example/tenant1")).map(String), [
      "https://as.example/.well-known/oauth-authorization-server/tenant1",
      "https://as.example/.well-known/openid-configuration/tenant1",
      "https://as.example/tenant1/.well-known/openid-configuration"
    ])
    assert.deepStrictEqual(asMetadataUrls(new URL("https://as.example")).map(String), [
      "https://as.example/.well-known/oauth-authorization-server",
      "https://as.example/.well-known/openid-configuration"
    ])
  })

  it("a PRM resource is this server's only when identical, up to case, default port and one trailing slash", () => {
    const server = "https://mcp.example/api/mcp"
    assert.isTrue(sameResource("https://mcp.example/api/mcp", server))
    assert.isTrue(sameResource("HTTPS://MCP.example:443/api/mcp/", server))
    assert.isTrue(sameResource("https://mcp.example/api/./mcp", server))
    assert.isTrue(sameResource("https://mcp.example", "https://mcp.example/"))
    assert.isFalse(sameResource("https://mcp.example/", server))
    assert.isFalse(sameResource("https://mcp.example/api", server))
    assert.isFalse(sameResource("https://mcp.example/API/mcp", server))
    assert.isFalse(sameResource("https://mcp.example/api/mcp/more", server))
    assert.isFalse(sameResource("https://mcp.example/api/mcp?tenant=b", server))
    assert.isFalse(sameResource("https://mcp.example/api/mcp#x", server))
    assert.isFalse(sameResource("https://mcp.example:8443/api/mcp", server))
    assert.isFalse(sameResource("https://evil.example/api/mcp", server))
    assert.isFalse(sameResource("http://mcp.example/api/mcp", server))
    assert.isFalse(sameResource("not a url", server))
  })
})

describe("token stores", () => {
  it.effect("the file store is created 0600 and keeps one entry per server and authorization server", () =>
    Effect.gen(function*() {
      const dir = yield* Effect.promise(() => fs.mkdtemp(path.join(os.tmpdir(), "mcp-auth-")))
      const file = path.join(dir, "nested", "tokens.json")
      const tokens = store.file(file)
      const entry = (issuer: string, accessToken: string): store.StoredEntry => ({
        server: "https://mcp.example/mcp",
        issuer,
        tokens: { accessToken, tokenType: "bearer", issuedAt: 1 }
      })
      yield* tokens.save(entry("https://as1.example", "one"))
      yield* tokens.save(entry("https://as2.example", "two"))
      yield* tokens.save(entry("https://as1.example", "three"))
      const mode = (yield* Effect.promise(() => fs.stat(file))).mode & 0o777
      assert.strictEqual(mode, 0o600)
      const loaded = yield* store.file(file).load("https://mcp.example/mcp")
      assert.deepStrictEqual(loaded.map((e) => [e.issuer, e.tokens?.accessToken]).sort(), [
        ["https://as1.example", "three"],
        ["https://as2.example", "two"]
      ])
      assert.deepStrictEqual(yield* tokens.load("https://other.example/mcp"), [])
      yield* Effect.promise(() => fs.rm(dir, { recursive: true }))
    }))
})

describe("loopback redirect receiver", () => {
  it.effect("listens on 127.0.0.1 and hands back the URL the browser was sent to", () =>
    Effect.gen(function*() {
      const opened: Array<string> = []
      const receiver = yield* NodeMcpAuth.loopbackReceiverScoped({
        open: async (url) => {
          opened.push(url.href)
          // The "browser": the authorization server sends it to the redirect URL.
          const landing = await fetch(`${receiver.redirectUrl}?code=abc&state=xyz`)
          assert.strictEqual(landing.status, 200)
          await landing.text()
        }
      })
      assert.match(receiver.redirectUrl, /^http:\/\/127\.0\.0\.1:\d+\/callback$/)
      // Nothing is waiting: a stray request is turned away.
      const stray = yield* Effect.promise(() => fetch(`${receiver.redirectUrl}?code=stray`))
      assert.strictEqual(stray.status, 404)
      const landed = yield* Effect.promise(() => receiver.onAuthorize(new URL("https://as.example/authorize?x=1")))
      assert.strictEqual(landed, `${receiver.redirectUrl}?code=abc&state=xyz`)
      assert.deepStrictEqual(opened, ["https://as.example/authorize?x=1"])
    }))
})

describe("bounded answers", () => {
  it.effect("an answer over 1 MiB fails the exchange instead of being held", () =>
    Effect.gen(function*() {
      const server = yield* Effect.acquireRelease(
        Effect.promise(async () => {
          const { createServer } = await import("node:http")
          const s = createServer((_req, res) => {
            res.writeHead(200, { "content-type": "application/json" })
            const chunk = Buffer.alloc(64 * 1024, 32)
            let sent = 0
            const pump = () => {
              while (sent < 4 * 1024 * 1024) {
                sent += chunk.length
                if (!res.write(chunk)) return void res.once("drain", pump)
              }
              res.end()
            }
            pump()
          })
          await new Promise<void>((resolve) => s.listen(0, "127.0.0.1", resolve))
          return s
        }),
        (s) => Effect.promise(() => new Promise<void>((resolve) => {
          s.closeAllConnections()
          s.close(() => resolve())
        }))
      )
      const address = server.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      const error = yield* Effect.flip(fetchResourceMetadata(new URL(`http://127.0.0.1:${port}/mcp`), undefined))
      assert.strictEqual(error.step, "discovery")
      assert.match(error.message, /larger than/)
    }))

  it.effect("an authorization server on plain http elsewhere than loopback is refused", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(fetchServerMetadata("http://as.example"))
      assert.strictEqual(error.step, "discovery")
      assert.match(error.message, /https/)
    }))
})
