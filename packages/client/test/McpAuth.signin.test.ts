/**
 * Sign-in and tokens over a whole client (issue 17): a scripted MCP server that takes only the tokens the
 * scripted authorization server issued, and the client's own deadlines. A person in the browser takes 30 s of
 * `TestClock`; the era probe's 5 s and the request's timeout are not charged for it.
 */
import { McpAuth } from "@mcp-effect/client"
import { assert, describe, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import { authorizedClient, follow } from "./fixtures/authorizedClient.js"
import { heldEndpoint } from "./fixtures/heldEndpoint.js"
import { dpopMcp, protectedMcp, scriptedAs, type ScriptedAs } from "./fixtures/oauthScripted.js"
import { advance, really } from "./fixtures/testClock.js"

const REDIRECT = "http://127.0.0.1:9/callback"

/** A person who answers after `think` of the fiber's clock; `opened` completes when the browser opens. */
const slowPerson = (think: Duration.Input) =>
  Effect.map(Deferred.make<void>(), (opened) => {
    const urls: Array<URL> = []
    const onAuthorize = (url: URL) =>
      Effect.gen(function*() {
        urls.push(url)
        yield* Deferred.succeed(opened, undefined)
        yield* Effect.sleep(think)
        return yield* follow(url)
      })
    return { opened, urls, onAuthorize }
  })

const tokenRequests = (as: ScriptedAs) => as.seen.filter((request) => request.path === "/token")

describe("a sign-in has its own budget", () => {
  it.effect("a person who takes 30 s in the browser signs in: the probe's 5 s and the request's 10 s stand still", () =>
    Effect.gen(function*() {
      const as = yield* scriptedAs
      const mcp = yield* protectedMcp(as)
      const person = yield* slowPerson("30 seconds")
      const client = yield* authorizedClient(
        mcp.url,
        { redirectUrl: REDIRECT, onAuthorize: person.onAuthorize },
        { requestTimeout: "10 seconds", probeTimeout: "5 seconds" }
      )
      const call = yield* Effect.forkChild(client.callTool("echo"))
      yield* really(Deferred.await(person.opened), "the browser")
      yield* advance("30 seconds")
      const called = yield* Fiber.join(call)
      assert.deepStrictEqual(called.content, [{ type: "text", text: "ok" }])
      // One browser, one code redeemed; the next call uses the token.
      assert.lengthOf(person.urls, 1)
      assert.lengthOf(tokenRequests(as), 1)
      yield* client.callTool("echo")
      assert.lengthOf(person.urls, 1)
    }))

  it.effect("the sign-in's own budget (signInTimeout) ends a sign-in that never finishes, with a tagged error", () =>
    Effect.gen(function*() {
      const as = yield* scriptedAs
      const mcp = yield* protectedMcp(as)
      const person = yield* slowPerson("1 hour")
      const client = yield* authorizedClient(mcp.url, {
        redirectUrl: REDIRECT,
        onAuthorize: person.onAuthorize,
        signInTimeout: "2 minutes"
      })
      const call = yield* Effect.forkChild(Effect.flip(client.callTool("echo")))
      yield* really(Deferred.await(person.opened), "the browser")
      yield* advance("119 seconds")
      assert.isNull(call.pollUnsafe() === undefined ? null : "done")
      yield* advance("2 seconds")
      const error = yield* Fiber.join(call)
      const authError = McpAuth.authErrorOf(error)
      assert.strictEqual(authError?.step, "authorization")
      assert.match(authError?.message ?? String(error), /did not finish within 2m/)
      assert.lengthOf(tokenRequests(as), 0)
    }))

  it.effect("the person's budget is the person's: 1m50s in the browser of a 2m budget, then a 20 s code exchange, signs in", () =>
    Effect.gen(function*() {
      const as = yield* scriptedAs
      const slowTokens = yield* heldEndpoint
      const mcp = yield* protectedMcp(as)
      as.switches.metadata = { token_endpoint: `${slowTokens.origin}/token` }
      const person = yield* slowPerson("110 seconds")
      const client = yield* authorizedClient(mcp.url, {
        redirectUrl: REDIRECT,
        onAuthorize: person.onAuthorize,
        signInTimeout: "2 minutes"
      })
      const call = yield* Effect.forkChild(client.callTool("echo"))
      yield* really(Deferred.await(person.opened), "the browser")
      yield* advance("110 seconds")
      yield* really(Effect.promise(() => slowTokens.arrived), "the code exchange")
      // 2m10s since the sign-in began: past its budget, within the exchange's 30 s.
      yield* advance("20 seconds")
      as.live.add("slow-1")
      slowTokens.answer({ access_token: "slow-1", token_type: "Bearer", expires_in: 3600 })
      const called = yield* really(Fiber.join(call), "the call")
      assert.deepStrictEqual(called.content, [{ type: "text", text: "ok" }])
      assert.deepStrictEqual(slowTokens.asked, ["/token"])
    }))

  it.effect("after the sign-in, the request's own timeout goes on: a server that then hangs times out in the probe's 5 s", () =>
    Effect.gen(function*() {
      const as = yield* scriptedAs
      let hang = false
      const mcp = yield* protectedMcp(as, () => hang ? "hang" : "answer")
      const person = yield* slowPerson("30 seconds")
      const client = yield* authorizedClient(mcp.url, { redirectUrl: REDIRECT, onAuthorize: person.onAuthorize })
      const era = yield* Effect.forkChild(Effect.flip(client.era))
      yield* really(Deferred.await(person.opened), "the browser")
      hang = true
      yield* advance("30 seconds")
      // The retried probe is at the server and gets no answer: its deadline is live again.
      yield* really(Effect.promise(() => mcp.hung), "the retried probe")
      yield* advance("5 seconds")
      const error = yield* Fiber.join(era)
      assert.strictEqual(error._tag, "McpTimeoutError")
    }))
})

describe("a machine client (client_credentials)", () => {
  it.effect("lives through many token expiries: each expired token is replaced, never counted as a refusal", () =>
    Effect.gen(function*() {
      const as = yield* scriptedAs
      as.switches.noRefresh = true
      const mcp = yield* protectedMcp(as)
      const client = yield* authorizedClient(mcp.url, { clientCredentials: { clientId: "job", clientSecret: "job-secret" } })
      for (let hour = 0; hour < 5; hour++) {
        const called = yield* client.callTool("echo")
        assert.deepStrictEqual(called.content, [{ type: "text", text: "ok" }])
        // The hour passes: the client's clock, and the server no longer takes the token.
        yield* advance("3601 seconds")
        as.live.clear()
      }
      assert.deepStrictEqual(tokenRequests(as).map((request) => request.form.get("grant_type")), Array(5).fill("client_credentials"))
    }))

  it.effect("a client_credentials token request carries the resource parameter (RFC 8707)", () =>
    Effect.gen(function*() {
      const as = yield* scriptedAs
      const mcp = yield* protectedMcp(as)
      const client = yield* authorizedClient(mcp.url, { clientCredentials: { clientId: "job", clientSecret: "job-secret" } })
      yield* client.callTool("echo")
      const [grant] = tokenRequests(as)
      assert.strictEqual(grant?.form.get("grant_type"), "client_credentials")
      assert.strictEqual(grant?.form.get("resource"), mcp.url)
    }))

  it.effect("a server that keeps refusing fresh credentials is still given up on, after a bounded number of grants", () =>
    Effect.gen(function*() {
      const as = yield* scriptedAs
      as.switches.noRefresh = true
      const mcp = yield* protectedMcp(as, () => "unauthorized")
      const client = yield* authorizedClient(mcp.url, { clientCredentials: { clientId: "job", clientSecret: "job-secret" } })
      const error = yield* Effect.flip(client.callTool("echo"))
      assert.strictEqual(McpAuth.authErrorOf(error)?.step, "authorization")
      assert.isAtMost(tokenRequests(as).length, 3)
    }))
})

describe("an OAuth failure reaches the caller as an McpAuthError", () => {
  it.effect("a call that cannot be authorized fails with McpAuthError, caught by its tag", () =>
    Effect.gen(function*() {
      const as = yield* scriptedAs
      as.switches.noRefresh = true
      const mcp = yield* protectedMcp(as, () => "unauthorized")
      const client = yield* authorizedClient(mcp.url, { clientCredentials: { clientId: "job", clientSecret: "job-secret" } })
      const step = yield* client.callTool("echo").pipe(
        Effect.map(() => "called"),
        Effect.catchTag("McpAuthError", (error) => Effect.succeed(error.step))
      )
      assert.strictEqual(step, "authorization")
    }))
})

describe("DPoP", () => {
  it.effect("the nonce of a successful answer is kept: the next request carries it, with no 401 to pay for it", () =>
    Effect.gen(function*() {
      const as = yield* scriptedAs
      const mcp = yield* dpopMcp(as)
      const client = yield* authorizedClient(mcp.url, {
        clientCredentials: { clientId: "job", clientSecret: "job-secret" },
        dpop: true
      })
      yield* client.callTool("echo")
      const before = mcp.seen.length
      for (let call = 0; call < 5; call++) {
        const called = yield* client.callTool("echo")
        assert.deepStrictEqual(called.content, [{ type: "text", text: "ok" }])
      }
      // One request per call: each answer's DPoP-Nonce went into the next proof.
      assert.strictEqual(mcp.seen.length - before, 5)
      assert.strictEqual(tokenRequests(as).length, 1)
    }))

  it.effect("the authorization server's nonce of a successful token answer is kept for the next token request", () =>
    Effect.gen(function*() {
      const as = yield* scriptedAs
      const mcp = yield* dpopMcp(as)
      as.switches.dpopNonce = true
      as.switches.noRefresh = true
      const client = yield* authorizedClient(mcp.url, {
        clientCredentials: { clientId: "job", clientSecret: "job-secret" },
        dpop: true
      })
      yield* client.callTool("echo")
      // The first token request pays for the nonce (400 use_dpop_nonce, then again).
      assert.strictEqual(tokenRequests(as).length, 2)
      for (let hour = 0; hour < 3; hour++) {
        yield* advance("3601 seconds")
        as.live.clear()
        yield* client.callTool("echo")
      }
      // Each later grant carried the nonce of the answer before: one token request per expiry.
      assert.strictEqual(tokenRequests(as).length, 2 + 3)
    }))
})

describe("step-up", () => {
  it.effect("a server that asks for a new scope on every call: a few sign-ins per connection over time, not a few per call", () =>
    Effect.gen(function*() {
      const as = yield* scriptedAs
      let asked = 0
      const mcp = yield* protectedMcp(as, (seen) =>
        seen.json?.["method"] === "tools/call" ? { insufficientScope: `scope-${++asked}` } : "answer")
      const user = yield* slowPerson("0 seconds")
      const client = yield* authorizedClient(mcp.url, { redirectUrl: REDIRECT, onAuthorize: user.onAuthorize })
      for (let call = 0; call < 5; call++) {
        const error = yield* Effect.flip(client.callTool("echo"))
        // Refused after the step-ups allowed: the 403 as it came (McpTransportError), or the sign-in that failed.
        assert.oneOf(error._tag, ["McpAuthError", "McpTransportError"])
      }
      // The first sign-in, then at most 3 step-ups in the window: not 3 more on every call.
      assert.isAtMost(user.urls.length, 4)
      // Later, the window has passed: again a bounded number, and the scope list stays bounded for ever.
      for (let window = 0; window < 20; window++) {
        yield* advance("11 minutes")
        yield* Effect.flip(client.callTool("echo"))
      }
      assert.isAtMost(user.urls.length, 4 + 20 * 3)
      const lastScopes = user.urls.at(-1)?.searchParams.get("scope")?.split(" ") ?? []
      assert.isAtMost(lastScopes.length, 32)
    }))
})
