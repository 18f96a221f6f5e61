/**
 * Protected resource metadata is used only for the resource its location was built from (RFC 9728 §3.3, issue
 * 25 item 12): a document at `/.well-known/oauth-protected-resource/tenant/mcp`, or one the server's challenge
 * points to, must name this server; the root document (the MCP fallback for a server with a path) may name the
 * origin it was built from, or this server. A broader `resource` (the origin root, a parent path) is refused
 * before anything reaches an authorization server, so that no token is asked for a whole multi-tenant host.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { discover } from "../src/internal/auth/discovery.js"
import * as engine from "../src/internal/auth/engine.js"
import * as store from "../src/internal/auth/tokens.js"
import * as http from "./fixtures/httpServer.js"
import { CLIENT_SECRET, scriptedAs, type ScriptedAs, unauthorized } from "./fixtures/oauthScripted.js"

/**
 * A resource server's metadata locations: each path of `documents` answers its PRM document (with the
 * authorization server `as`), anything else 404. `resource(path)` gives the URL of a path on this host.
 */
const metadataHost = (as: ScriptedAs, documents: (origin: string) => Record<string, string>) =>
  Effect.gen(function*() {
    const asked: Array<string> = []
    let origin = ""
    const host = yield* http.scripted((_seen, res, req) => {
      const path = req.url ?? "/"
      asked.push(path)
      const resource = documents(origin)[path]
      if (resource === undefined) return http.json(res, 404, { error: "not_found" })
      return http.json(res, 200, { resource, authorization_servers: [as.origin] })
    })
    origin = new URL(host.url).origin
    return { origin, asked, at: (path: string) => new URL(path, origin) }
  })

const PATH_BASED = "/.well-known/oauth-protected-resource/tenant/mcp"
const ROOT = "/.well-known/oauth-protected-resource"

describe("a PRM resource broader than the server", () => {
  it.effect("the path-based document naming the origin root is refused: no token is asked for the whole origin", () =>
    Effect.gen(function*() {
      const as = yield* scriptedAs
      as.switches.prmResource = as.origin
      const auth = yield* engine.make(
        new URL(as.mcpUrl),
        { clientCredentials: { clientId: "job", clientSecret: CLIENT_SECRET } },
        store.memory()
      )
      const outcome = yield* Effect.result(auth.onChallenge({}, 401, unauthorized(as.origin)))
      const tokenFor = as.seen.filter((seen) => seen.path === "/token").map((seen) => seen.form.get("resource"))
      assert.deepStrictEqual(tokenFor, [], "a token was asked for")
      assert.deepStrictEqual(as.paths(), ["/.well-known/oauth-protected-resource/mcp"])
      assert.strictEqual(outcome._tag, "Failure")
      const error = outcome._tag === "Failure" ? outcome.failure : undefined
      assert.strictEqual(error?.step, "discovery")
      assert.include(error?.message, `names resource ${as.origin}`)
    }))

  it.effect("the path-based document naming a parent path (another tenant's prefix) is refused", () =>
    Effect.gen(function*() {
      const as = yield* scriptedAs
      const host = yield* metadataHost(as, (origin) => ({ [PATH_BASED]: `${origin}/tenant` }))
      const error = yield* Effect.flip(discover(host.at("/tenant/mcp"), undefined, undefined))
      assert.strictEqual(error.step, "discovery")
      assert.match(error.message, /names resource .*\/tenant, which is not this server/)
      assert.deepStrictEqual(host.asked, [PATH_BASED])
      assert.deepStrictEqual(as.paths(), [])
    }))

  it.effect("a document the challenge points to must name this server, not the origin", () =>
    Effect.gen(function*() {
      const as = yield* scriptedAs
      const host = yield* metadataHost(as, (origin) => ({ "/meta/prm.json": origin }))
      const error = yield* Effect.flip(discover(host.at("/tenant/mcp"), `${host.origin}/meta/prm.json`, undefined))
      assert.strictEqual(error.step, "discovery")
      assert.deepStrictEqual(host.asked, ["/meta/prm.json"])
      assert.deepStrictEqual(as.paths(), [])
    }))

  it.effect("the root document naming another path of the host is refused", () =>
    Effect.gen(function*() {
      const as = yield* scriptedAs
      const host = yield* metadataHost(as, (origin) => ({ [ROOT]: `${origin}/other/mcp` }))
      const error = yield* Effect.flip(discover(host.at("/tenant/mcp"), undefined, undefined))
      assert.strictEqual(error.step, "discovery")
      assert.deepStrictEqual(host.asked, [PATH_BASED, ROOT])
      assert.deepStrictEqual(as.paths(), [])
    }))
})

describe("a PRM resource for this server", () => {
  it.effect("the path-based document naming this server, up to case, default port and a trailing slash, is used", () =>
    Effect.gen(function*() {
      const as = yield* scriptedAs
      const host = yield* metadataHost(as, (origin) => ({
        [PATH_BASED]: `${origin.replace("http://127.0.0.1", "HTTP://127.0.0.1")}/tenant/mcp/`
      }))
      const found = yield* discover(host.at("/tenant/mcp"), undefined, undefined)
      assert.strictEqual(found.resource, `${host.origin.replace("http://127.0.0.1", "HTTP://127.0.0.1")}/tenant/mcp/`)
      assert.strictEqual(found.as.issuer, as.origin)
    }))

  it.effect("the root document (no path-based one) naming the origin it was built from is used, as RFC 9728 says", () =>
    Effect.gen(function*() {
      const as = yield* scriptedAs
      const host = yield* metadataHost(as, (origin) => ({ [ROOT]: origin }))
      const found = yield* discover(host.at("/tenant/mcp"), undefined, undefined)
      assert.strictEqual(found.resource, host.origin)
      assert.deepStrictEqual(host.asked, [PATH_BASED, ROOT])
    }))

  it.effect("the root document naming this server itself is used", () =>
    Effect.gen(function*() {
      const as = yield* scriptedAs
      const host = yield* metadataHost(as, (origin) => ({ [ROOT]: `${origin}/tenant/mcp` }))
      const found = yield* discover(host.at("/tenant/mcp"), undefined, undefined)
      assert.strictEqual(found.resource, `${host.origin}/tenant/mcp`)
    }))

  it.effect("a document the challenge points to naming this server is used", () =>
    Effect.gen(function*() {
      const as = yield* scriptedAs
      const host = yield* metadataHost(as, (origin) => ({ "/meta/prm.json": `${origin}/tenant/mcp` }))
      const found = yield* discover(host.at("/tenant/mcp"), `${host.origin}/meta/prm.json`, undefined)
      assert.strictEqual(found.resource, `${host.origin}/tenant/mcp`)
      assert.deepStrictEqual(host.asked, ["/meta/prm.json"])
    }))
})
