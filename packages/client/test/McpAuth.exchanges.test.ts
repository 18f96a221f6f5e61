/**
 * Every HTTP exchange of an authorization has its own budget (issue 25 item 11): an endpoint that accepts the
 * connection and never answers ends that exchange at `exchangeTimeout` (30 s by default) with an `McpAuthError`
 * naming the step and the timeout, not at the person's `signInTimeout` (5 minutes). One real loopback server
 * that never answers stands in for each endpoint in turn; the clock is `TestClock` (the budgets are Effect
 * timeouts, which interrupt, and so abort, the real request). The calls here have a request timeout longer than
 * the exchange budget (2 minutes): a shorter one ends the exchange first (`McpAuth.callTimeout.test.ts`).
 */
import { McpAuth } from "@mcp-effect/client"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as engine from "../src/internal/auth/engine.js"
import * as store from "../src/internal/auth/tokens.js"
import { authorizedClient, follow } from "./fixtures/authorizedClient.js"
import { type Held, heldEndpoint } from "./fixtures/heldEndpoint.js"
import * as http from "./fixtures/httpServer.js"
import { CLIENT_SECRET, protectedMcp, scriptedAs, type ScriptedAs } from "./fixtures/oauthScripted.js"
import { advance, really } from "./fixtures/testClock.js"

const REDIRECT = "http://127.0.0.1:9/callback"
/** Longer than the exchange budget, so that the budget is what ends a hung exchange. */
const REQUEST_TIMEOUT = "2 minutes"

const machine = { clientCredentials: { clientId: "job", clientSecret: CLIENT_SECRET } }
const person = { redirectUrl: REDIRECT, onAuthorize: follow }

/**
 * `run` (forked) reaches the hung endpoint; it has not ended 1 s before `limit` of the test clock, and has ended
 * at `limit` with an `McpAuthError` of `step` naming the exchange budget. Nothing else is waited for.
 */
const endsAtExchangeBudget = <A, E, R>(
  hung: Held,
  run: Effect.Effect<A, E, R>,
  step: McpAuth.AuthStep,
  limit: "30 seconds" | "4 seconds" = "30 seconds"
) =>
  Effect.gen(function*() {
    const fiber = yield* Effect.forkChild(Effect.flip(run))
    yield* really(Effect.promise(() => hung.arrived), "the request to reach the hung endpoint")
    yield* advance(limit === "30 seconds" ? "29 seconds" : "3 seconds")
    assert.isUndefined(fiber.pollUnsafe(), "ended before its exchange budget")
    yield* advance("1 second")
    const error = yield* really(Fiber.join(fiber), "the call to end at its exchange budget")
    const authError = McpAuth.authErrorOf(error)
    assert.strictEqual(authError?.step, step, String(error))
    assert.match(authError?.message ?? "", new RegExp(`within ${limit === "30 seconds" ? "30s" : "4s"} \\(exchangeTimeout\\)`))
    // The request itself is given up on, not left open.
    yield* really(Effect.promise(() => hung.abandoned), "the request to be aborted")
    return authError
  })

/** A client_credentials client of a server protected by `as`, with a request timeout of 2 minutes. */
const machineCall = (mcpUrl: string, options: Partial<McpAuth.AuthOptions> = {}) =>
  Effect.flatMap(
    authorizedClient(mcpUrl, { ...machine, ...options }, { requestTimeout: REQUEST_TIMEOUT }),
    (client) => client.callTool("echo")
  )

const tokenPaths = (as: ScriptedAs) => as.seen.filter((request) => request.path === "/token")

describe("a client_credentials call, request timeout 2 minutes, against an endpoint that never answers", () => {
  it.effect("protected resource metadata: the call ends at the exchange budget, at discovery", () =>
    Effect.gen(function*() {
      const hung = yield* heldEndpoint
      const mcp = yield* http.scripted((_seen, res) =>
        res.writeHead(401, { "www-authenticate": `Bearer resource_metadata="${hung.origin}/prm"` }).end()
      )
      const error = yield* endsAtExchangeBudget(hung, machineCall(mcp.url), "discovery")
      assert.include(error?.message, `${hung.origin}/prm`)
    }))

  it.effect("authorization server metadata: the call ends at the exchange budget, at discovery", () =>
    Effect.gen(function*() {
      const as = yield* scriptedAs
      const hung = yield* heldEndpoint
      const mcp = yield* protectedMcp(as)
      as.switches.authorizationServers = [hung.origin]
      yield* endsAtExchangeBudget(hung, machineCall(mcp.url), "discovery")
      assert.deepStrictEqual(hung.asked, ["/.well-known/oauth-authorization-server"])
    }))

  it.effect("the token endpoint: the call ends at the exchange budget, at token", () =>
    Effect.gen(function*() {
      const as = yield* scriptedAs
      const hung = yield* heldEndpoint
      const mcp = yield* protectedMcp(as)
      as.switches.metadata = { token_endpoint: `${hung.origin}/token` }
      const error = yield* endsAtExchangeBudget(hung, machineCall(mcp.url), "token")
      assert.strictEqual(
        error?.message,
        "authorization failed at token: no answer to the client_credentials token request within 30s (exchangeTimeout)"
      )
      assert.deepStrictEqual(hung.asked, ["/token"])
    }))

  it.effect("the enterprise identity provider's token exchange: the call ends at the exchange budget, at token", () =>
    Effect.gen(function*() {
      const as = yield* scriptedAs
      const hung = yield* heldEndpoint
      const mcp = yield* protectedMcp(as)
      const enterprise = { clientId: "app", idpTokenEndpoint: `${hung.origin}/idp/token`, idpClientId: "idp-app", idToken: "id-token" }
      const client = yield* authorizedClient(mcp.url, { enterprise }, { requestTimeout: REQUEST_TIMEOUT })
      yield* endsAtExchangeBudget(hung, client.callTool("echo"), "token")
      assert.deepStrictEqual(hung.asked, ["/idp/token"])
      assert.lengthOf(tokenPaths(as), 0)
    }))

  it.effect("exchangeTimeout sets the budget", () =>
    Effect.gen(function*() {
      const as = yield* scriptedAs
      const hung = yield* heldEndpoint
      const mcp = yield* protectedMcp(as)
      as.switches.metadata = { token_endpoint: `${hung.origin}/token` }
      yield* endsAtExchangeBudget(hung, machineCall(mcp.url, { exchangeTimeout: "4 seconds" }), "token", "4 seconds")
    }))
})

describe("a sign-in (authorization code) against an endpoint that never answers", () => {
  it.effect("dynamic client registration: the call ends at the exchange budget, at registration", () =>
    Effect.gen(function*() {
      const as = yield* scriptedAs
      const hung = yield* heldEndpoint
      const mcp = yield* protectedMcp(as)
      as.switches.metadata = { registration_endpoint: `${hung.origin}/register` }
      const client = yield* authorizedClient(mcp.url, person, { requestTimeout: REQUEST_TIMEOUT })
      yield* endsAtExchangeBudget(hung, client.callTool("echo"), "registration")
      assert.deepStrictEqual(hung.asked, ["/register"])
    }))

  it.effect("the authorization code exchange: the call ends at the exchange budget, at token", () =>
    Effect.gen(function*() {
      const as = yield* scriptedAs
      const hung = yield* heldEndpoint
      const mcp = yield* protectedMcp(as)
      as.switches.metadata = { token_endpoint: `${hung.origin}/token` }
      const client = yield* authorizedClient(mcp.url, person, { requestTimeout: REQUEST_TIMEOUT })
      yield* endsAtExchangeBudget(hung, client.callTool("echo"), "token")
      assert.deepStrictEqual(hung.asked, ["/token"])
      assert.lengthOf(tokenPaths(as), 0)
    }))

  it.effect("the refresh of an expired token: the request ends at the exchange budget, at refresh", () =>
    Effect.gen(function*() {
      const as = yield* scriptedAs
      const hung = yield* heldEndpoint
      as.switches.metadata = { token_endpoint: `${hung.origin}/token` }
      const tokens = store.memory()
      yield* tokens.save({
        server: as.mcpUrl,
        issuer: as.origin,
        tokens: { accessToken: "stale", tokenType: "bearer", refreshToken: "refresh-0", expiresAt: 0, issuedAt: -60_000 },
        client: { clientId: as.clientId, clientSecret: CLIENT_SECRET, authMethod: "client_secret_basic", redirectUri: REDIRECT }
      })
      const auth = yield* engine.make(new URL(as.mcpUrl), person, tokens)
      yield* endsAtExchangeBudget(hung, auth.headers("POST", new URL(as.mcpUrl)), "refresh")
      assert.deepStrictEqual(hung.asked, ["/token"])
    }))
})
