/**
 * What the client does alone inside a call is bounded by that call's `requestTimeout` (issue 33, item 15): a
 * machine-to-machine client (`clientCredentials`, a refresh) whose token endpoint hangs or trickles ends the
 * call at its request timeout (3 s here), not at `exchangeTimeout` (30 s); the next call succeeds once the
 * endpoint answers again. The person's own time (`onAuthorize`) is still not the call's. Real loopback servers
 * for the endpoints; the clock is `TestClock`.
 */
import { McpAuth, McpTimeoutError } from "@mcp-effect/client"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import type * as Scope from "effect/Scope"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import * as store from "../src/internal/auth/tokens.js"
import { authorizedClient, follow } from "./fixtures/authorizedClient.js"
import { heldEndpoint } from "./fixtures/heldEndpoint.js"
import { CLIENT_SECRET, protectedMcp, scriptedAs, type ScriptedAs } from "./fixtures/oauthScripted.js"
import { advance, really } from "./fixtures/testClock.js"

const REDIRECT = "http://127.0.0.1:9/callback"
const machine = { clientCredentials: { clientId: "job", clientSecret: CLIENT_SECRET } }

/**
 * A token endpoint that answers 200 with a JSON head and then trickles its body, one byte now and nothing
 * after: the answer has started but never ends. `arrived` resolves at the first request.
 */
const tricklingEndpoint: Effect.Effect<{ readonly origin: string; readonly arrived: Promise<void> }, never, Scope.Scope> =
  Effect.acquireRelease(
    Effect.promise(() =>
      new Promise<{ readonly origin: string; readonly arrived: Promise<void>; readonly close: () => void }>((resolve) => {
        let arrive: () => void = () => undefined
        const arrived = new Promise<void>((done) => (arrive = done))
        const server = createServer((request, response) => {
          request.resume()
          response.writeHead(200, { "content-type": "application/json" })
          response.write("{")
          arrive()
        })
        server.listen(0, "127.0.0.1", () =>
          resolve({
            origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
            arrived,
            close: () => {
              server.closeAllConnections()
              server.close()
            }
          }))
      })
    ),
    (endpoint) => Effect.sync(endpoint.close)
  )

/**
 * `call` (forked) reaches the endpoint at `arrived`; it is still waiting 1 s before its 3 s request timeout and
 * has ended at 3 s, failed as a timeout of the call (an `McpTimeoutError`, or the `McpAuthError` naming the
 * call's `requestTimeout`). Returns the error.
 */
const endsAtRequestTimeout = <A, E, R>(arrived: Promise<void>, call: Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    const fiber = yield* Effect.forkChild(Effect.flip(call))
    yield* really(Effect.promise(() => arrived), "the request to reach the token endpoint")
    yield* advance("2 seconds")
    assert.isUndefined(fiber.pollUnsafe(), "ended before its request timeout")
    yield* advance("1 second")
    const error = yield* really(Fiber.join(fiber), "the call to end at its request timeout (3 s), not exchangeTimeout (30 s)")
    const authError = McpAuth.authErrorOf(error)
    if (authError === undefined) {
      assert.instanceOf(error, McpTimeoutError)
    } else {
      assert.include(authError.message, "requestTimeout")
    }
    return error
  })

const tokenPaths = (as: ScriptedAs) => as.seen.filter((request) => request.path === "/token")

describe("a machine-to-machine authorization inside a call, request timeout 3 s", () => {
  it.effect("client_credentials, the token endpoint hangs: the call ends at 3 s; the next call succeeds once it answers", () =>
    Effect.gen(function*() {
      const as = yield* scriptedAs
      const hung = yield* heldEndpoint
      const mcp = yield* protectedMcp(as)
      as.switches.metadata = { token_endpoint: `${hung.origin}/token` }
      const client = yield* authorizedClient(mcp.url, machine, { requestTimeout: "3 seconds" })
      yield* endsAtRequestTimeout(hung.arrived, client.callTool("echo"))
      // The request to the hung endpoint is given up on, not left open.
      yield* really(Effect.promise(() => hung.abandoned), "the token request to be aborted")
      // The endpoint answers again (the authorization server's own): the next call gets a token and its result.
      as.switches.metadata = {}
      const called = yield* really(client.callTool("echo"), "the next call")
      assert.deepStrictEqual(called.content, [{ type: "text", text: "ok" }])
      assert.lengthOf(tokenPaths(as), 1)
    }))

  it.effect("client_credentials, the token endpoint trickles its answer: the call ends at 3 s; the next call succeeds", () =>
    Effect.gen(function*() {
      const as = yield* scriptedAs
      const trickling = yield* tricklingEndpoint
      const mcp = yield* protectedMcp(as)
      as.switches.metadata = { token_endpoint: `${trickling.origin}/token` }
      const client = yield* authorizedClient(mcp.url, machine, { requestTimeout: "3 seconds" })
      yield* endsAtRequestTimeout(trickling.arrived, client.callTool("echo"))
      as.switches.metadata = {}
      const called = yield* really(client.callTool("echo"), "the next call")
      assert.deepStrictEqual(called.content, [{ type: "text", text: "ok" }])
    }))

  it.effect("the refresh of an expired token hangs: the call ends at 3 s; the next call succeeds once it answers", () =>
    Effect.gen(function*() {
      const as = yield* scriptedAs
      const hung = yield* heldEndpoint
      const mcp = yield* protectedMcp(as)
      const tokens = store.memory()
      yield* tokens.save({
        server: mcp.url,
        issuer: as.origin,
        tokens: { accessToken: "stale", tokenType: "bearer", refreshToken: "refresh-0", expiresAt: 0, issuedAt: -60_000 },
        client: { clientId: as.clientId, clientSecret: CLIENT_SECRET, authMethod: "client_secret_basic", redirectUri: REDIRECT }
      })
      const person = { redirectUrl: REDIRECT, onAuthorize: follow }
      // The era probe goes first and meets the hung refresh too: connected before the endpoint hangs.
      const client = yield* authorizedClient(mcp.url, person, { requestTimeout: "3 seconds" }, tokens)
      as.switches.metadata = { token_endpoint: `${hung.origin}/token` }
      // Discovery is known (it was not when the tokens were loaded): the refresh goes to the hung endpoint.
      const error = yield* endsAtRequestTimeout(hung.arrived, client.callTool("echo"))
      assert.notInclude(String(error), "exchangeTimeout")
      as.switches.metadata = {}
      const called = yield* really(client.callTool("echo"), "the next call")
      assert.deepStrictEqual(called.content, [{ type: "text", text: "ok" }])
    }))
})
