/**
 * The authorization policy (`McpAuth`'s engine) against a scripted authorization server on loopback: what is
 * sent where, refresh before expiry (TestClock), a refused refresh, step-up and its bound, and the checks that
 * stop the flow (resource mismatch, no PKCE, wrong `iss`) before anything reaches the wrong place.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import { TestClock } from "effect/testing"
import * as jose from "jose"
import * as engine from "../src/internal/auth/engine.js"
import type { AuthOptions } from "../src/internal/auth/options.js"
import * as store from "../src/internal/auth/tokens.js"
import { McpAuthError } from "../src/McpAuthError.js"
import { CLIENT_SECRET, insufficientScope, scriptedAs, type ScriptedAs, unauthorized } from "./fixtures/oauthScripted.js"

const REDIRECT = "http://127.0.0.1:9/callback"

/** A browser that follows the authorization URL one hop and reports where it was sent. */
const browser = () => {
  const opened: Array<URL> = []
  const onAuthorize = async (url: URL) => {
    opened.push(url)
    const response = await fetch(url, { redirect: "manual" })
    await response.body?.cancel()
    return response.headers.get("location") ?? ""
  }
  return { opened, onAuthorize }
}

const setup = (as: ScriptedAs, extra: Partial<AuthOptions> = {}) =>
  Effect.gen(function*() {
    const user = browser()
    const options: AuthOptions = { clientName: "policy-test", redirectUrl: REDIRECT, onAuthorize: user.onAuthorize, ...extra }
    const auth = yield* engine.make(new URL(as.mcpUrl), options, store.memory())
    return { auth, user }
  })

const failureOf = <A>(exit: Exit.Exit<A, McpAuthError>): McpAuthError => {
  if (Exit.isSuccess(exit)) throw new Error("expected a failure")
  // Effect 4's Cause is flat: a single failure is the one `Fail` reason.
  const reasons = exit.cause.reasons
  const failure = reasons.length === 1 && reasons[0] !== undefined && Cause.isFailReason(reasons[0]) ? reasons[0].error : undefined
  if (!(failure instanceof McpAuthError)) throw new Error(`expected an McpAuthError, got ${String(exit.cause)}`)
  return failure
}

describe("McpAuth policy", () => {
  it.effect("a 401 runs discovery, registration and the code flow with PKCE S256, state, resource and the challenge's scope", () =>
    Effect.gen(function*() {
      const as = yield* scriptedAs
      const { auth, user } = yield* setup(as)
      assert.deepStrictEqual(yield* auth.headers("POST", new URL(as.mcpUrl)), {})
      assert.isTrue(yield* auth.onChallenge({}, 401, unauthorized(as.origin, "read")))
      assert.deepStrictEqual(as.paths(), [
        "/.well-known/oauth-protected-resource/mcp",
        "/.well-known/oauth-authorization-server",
        "/register",
        "/authorize",
        "/token"
      ])
      const authorize = user.opened[0]
      assert.isDefined(authorize)
      assert.strictEqual(authorize?.searchParams.get("code_challenge_method"), "S256")
      assert.match(authorize?.searchParams.get("code_challenge") ?? "", /^[\w-]{43}$/)
      assert.strictEqual(authorize?.searchParams.get("resource"), as.mcpUrl)
      assert.strictEqual(authorize?.searchParams.get("scope"), "read")
      assert.strictEqual(authorize?.searchParams.get("client_id"), as.clientId)
      const token = as.seen.find((request) => request.path === "/token")
      assert.strictEqual(token?.form.get("grant_type"), "authorization_code")
      assert.strictEqual(token?.form.get("resource"), as.mcpUrl)
      assert.match(token?.form.get("code_verifier") ?? "", /^[\w-]{43,128}$/)
      assert.strictEqual(token?.authorization, `Basic ${Buffer.from(`${as.clientId}:${CLIENT_SECRET}`).toString("base64")}`)
      assert.deepStrictEqual(yield* auth.headers("POST", new URL(as.mcpUrl)), { authorization: "Bearer access-1" })
    }))

  it.effect("refreshes before expiry (TestClock) with the resource parameter, without asking the user again", () =>
    Effect.gen(function*() {
      const as = yield* scriptedAs
      const { auth, user } = yield* setup(as)
      yield* auth.onChallenge({}, 401, unauthorized(as.origin))
      yield* TestClock.adjust("3585 seconds")
      assert.deepStrictEqual(yield* auth.headers("POST", new URL(as.mcpUrl)), { authorization: "Bearer access-2" })
      const refresh = as.seen.filter((request) => request.form.get("grant_type") === "refresh_token")
      assert.strictEqual(refresh.length, 1)
      assert.strictEqual(refresh[0]?.form.get("refresh_token"), "refresh-1")
      assert.strictEqual(refresh[0]?.form.get("resource"), as.mcpUrl)
      assert.strictEqual(user.opened.length, 1)
    }))

  it.effect("a refused refresh (invalid_grant) clears the tokens and authorizes once more", () =>
    Effect.gen(function*() {
      const as = yield* scriptedAs
      const { auth, user } = yield* setup(as)
      yield* auth.onChallenge({}, 401, unauthorized(as.origin))
      as.switches.refuseRefresh = true
      assert.isTrue(yield* auth.onChallenge({ authorization: "Bearer access-1" }, 401, unauthorized(as.origin)))
      assert.strictEqual(user.opened.length, 2)
      assert.deepStrictEqual(yield* auth.headers("POST", new URL(as.mcpUrl)), { authorization: "Bearer access-2" })
      // The same client registration is reused at the same authorization server.
      assert.strictEqual(as.paths().filter((path) => path === "/register").length, 1)
    }))

  it.effect("step-up asks for the union of scopes, and a server that never stops asking gets a tagged error", () =>
    Effect.gen(function*() {
      const as = yield* scriptedAs
      const { auth, user } = yield* setup(as)
      yield* auth.onChallenge({}, 401, unauthorized(as.origin, "read"))
      assert.isTrue(yield* auth.onChallenge({ authorization: "Bearer access-1" }, 403, insufficientScope(as.origin, "write")))
      assert.strictEqual(user.opened[1]?.searchParams.get("scope"), "read write")
      assert.isTrue(yield* auth.onChallenge({ authorization: "Bearer access-2" }, 403, insufficientScope(as.origin, "write")))
      const exit = yield* Effect.exit(auth.onChallenge({ authorization: "Bearer access-3" }, 403, insufficientScope(as.origin, "write")))
      const error = failureOf(exit)
      assert.strictEqual(error.step, "authorization")
      assert.match(error.message, /keeps refusing/)
      assert.strictEqual(user.opened.length, 3)
      // A 403 that is not about scope is left to the caller.
      assert.isFalse(yield* auth.onChallenge({ authorization: "Bearer access-3" }, 403, { "www-authenticate": "Bearer error=\"invalid_token\"" }))
    }))

  it.effect("a PRM resource that is not this server is refused before any authorization server request", () =>
    Effect.gen(function*() {
      const as = yield* scriptedAs
      as.switches.prmResource = "https://evil.example/mcp"
      const { auth, user } = yield* setup(as)
      const error = failureOf(yield* Effect.exit(auth.onChallenge({}, 401, unauthorized(as.origin))))
      assert.strictEqual(error.step, "discovery")
      assert.match(error.message, /evil\.example/)
      assert.deepStrictEqual(as.paths(), ["/.well-known/oauth-protected-resource/mcp"])
      assert.strictEqual(user.opened.length, 0)
    }))

  it.effect("no PKCE S256 in the metadata: refused before the user is asked", () =>
    Effect.gen(function*() {
      const as = yield* scriptedAs
      as.switches.pkce = false
      const { auth, user } = yield* setup(as)
      const error = failureOf(yield* Effect.exit(auth.onChallenge({}, 401, unauthorized(as.origin))))
      assert.strictEqual(error.step, "authorization")
      assert.match(error.message, /PKCE/)
      assert.strictEqual(user.opened.length, 0)
    }))

  it.effect("a wrong or missing iss on the redirect stops the flow before the token request", () =>
    Effect.gen(function*() {
      for (const iss of ["wrong", "omit"] as const) {
        const as = yield* scriptedAs
        as.switches.iss = iss
        const { auth } = yield* setup(as)
        const error = failureOf(yield* Effect.exit(auth.onChallenge({}, 401, unauthorized(as.origin))))
        assert.strictEqual(error.step, "authorization")
        assert.notInclude(as.paths(), "/token")
      }
    }))

  it.effect("errors name the step and what the server said, and carry no secret or token", () =>
    Effect.gen(function*() {
      const as = yield* scriptedAs
      const { auth } = yield* setup(as)
      yield* auth.onChallenge({}, 401, unauthorized(as.origin))
      as.switches.refuseClient = true
      const error = failureOf(yield* Effect.exit(auth.onChallenge({ authorization: "Bearer access-1" }, 401, unauthorized(as.origin))))
      assert.strictEqual(error.step, "refresh")
      assert.strictEqual(error.error, "invalid_client")
      assert.strictEqual(error.errorDescription, "unknown client")
      const everything = `${error.message} ${JSON.stringify(error)} ${String(error)}`
      for (const secret of [CLIENT_SECRET, "access-1", "refresh-1", "code-1"]) assert.notInclude(everything, secret)
    }))

  it.effect("a new authorization server in the PRM: registered there afresh, the old one's client never presented", () =>
    Effect.gen(function*() {
      const as1 = yield* scriptedAs
      const as2 = yield* scriptedAs
      as1.switches.noRefresh = true
      const { auth, user } = yield* setup(as1)
      yield* auth.onChallenge({}, 401, unauthorized(as1.origin))
      as1.switches.authorizationServers = [as2.origin]
      assert.isTrue(yield* auth.onChallenge({ authorization: "Bearer access-1" }, 401, unauthorized(as1.origin)))
      assert.include(as2.paths(), "/register")
      assert.strictEqual(user.opened[1]?.origin, as2.origin)
      assert.strictEqual(user.opened[1]?.searchParams.get("client_id"), as2.clientId)
      for (const request of as2.seen) {
        assert.notInclude(`${request.query} ${request.form} ${request.authorization ?? ""}`, as1.clientId)
        assert.notInclude(Buffer.from((request.authorization ?? "").replace(/^Basic /, ""), "base64").toString(), as1.clientId)
      }
      assert.deepStrictEqual(yield* auth.headers("POST", new URL(as1.mcpUrl)), { authorization: "Bearer access-1" })
      assert.strictEqual(as2.seen.filter((request) => request.path === "/token").length, 1)
    }))

  it.effect("a stored registration is reused for the same redirect URL only", () =>
    Effect.gen(function*() {
      const as = yield* scriptedAs
      as.switches.noRefresh = true
      const tokens = store.memory()
      const run = (redirectUrl: string) =>
        Effect.gen(function*() {
          const user = browser()
          const auth = yield* engine.make(new URL(as.mcpUrl), { redirectUrl, onAuthorize: user.onAuthorize }, tokens)
          // Whatever was stored is refused: a fresh authorization each time.
          yield* auth.onChallenge({ authorization: "Bearer stale" }, 401, unauthorized(as.origin))
        })
      yield* run(REDIRECT)
      yield* run(REDIRECT)
      assert.strictEqual(as.paths().filter((path) => path === "/register").length, 1)
      yield* run("http://127.0.0.1:10/other")
      assert.strictEqual(as.paths().filter((path) => path === "/register").length, 2)
    }))

  it.effect("workload JWT bearer grant: the assertion as `assertion`, a refusal surfaced and never retried", () =>
    Effect.gen(function*() {
      const as = yield* scriptedAs
      as.switches.noRefresh = true
      const { auth, user } = yield* setup(as, { jwtBearer: { clientId: "workload", assertion: "header.payload.signature" } })
      assert.isTrue(yield* auth.onChallenge({}, 401, unauthorized(as.origin)))
      const grant = as.seen.find((request) => request.path === "/token")
      assert.strictEqual(grant?.form.get("grant_type"), "urn:ietf:params:oauth:grant-type:jwt-bearer")
      assert.strictEqual(grant?.form.get("assertion"), "header.payload.signature")
      assert.strictEqual(grant?.form.get("client_id"), "workload")
      assert.notInclude(as.paths(), "/register")
      assert.strictEqual(user.opened.length, 0)

      as.switches.refuseClient = true
      for (let attempt = 0; attempt < 2; attempt++) {
        const error = failureOf(yield* Effect.exit(auth.onChallenge({ authorization: "Bearer access-1" }, 401, unauthorized(as.origin))))
        assert.strictEqual(error.step, "token")
        assert.strictEqual(error.error, "invalid_client")
      }
      // One grant, one refused grant: the second challenge gets the same error without a request.
      assert.deepStrictEqual(
        as.seen.filter((request) => request.path === "/token").map((request) => request.form.get("grant_type")),
        ["urn:ietf:params:oauth:grant-type:jwt-bearer", "urn:ietf:params:oauth:grant-type:jwt-bearer"]
      )
    }))

  it.effect("a pre-registered client with a key authenticates with private_key_jwt where the server supports it", () =>
    Effect.gen(function*() {
      const as = yield* scriptedAs
      as.switches.authMethods = ["private_key_jwt", "client_secret_basic"]
      const keys = yield* Effect.promise(() => jose.generateKeyPair("ES256", { extractable: true }))
      const pem = yield* Effect.promise(() => jose.exportPKCS8(keys.privateKey))
      const { auth } = yield* setup(as, { client: { clientId: "pre-1", privateKey: pem } })
      yield* auth.onChallenge({}, 401, unauthorized(as.origin))
      assert.notInclude(as.paths(), "/register")
      const token = as.seen.find((request) => request.path === "/token")
      assert.strictEqual(token?.form.get("client_assertion_type"), "urn:ietf:params:oauth:client-assertion-type:jwt-bearer")
      assert.strictEqual(token?.authorization, undefined)
      const verified = yield* Effect.promise(() =>
        jose.jwtVerify(token?.form.get("client_assertion") ?? "", keys.publicKey, { audience: as.origin })
      )
      assert.strictEqual(verified.payload.iss, "pre-1")
      assert.strictEqual(verified.payload.sub, "pre-1")
    }))

  it.effect("a bearer token given as it is: sent as it is, and a 401 is an error", () =>
    Effect.gen(function*() {
      const as = yield* scriptedAs
      const { auth } = yield* setup(as, { bearerToken: "given-token" })
      assert.deepStrictEqual(yield* auth.headers("POST", new URL(as.mcpUrl)), { authorization: "Bearer given-token" })
      const error = failureOf(yield* Effect.exit(auth.onChallenge({ authorization: "Bearer given-token" }, 401, unauthorized(as.origin))))
      assert.strictEqual(error.step, "authorization")
      assert.notInclude(error.message, "given-token")
      assert.deepStrictEqual(as.paths(), [])
    }))
})
