/**
 * The engine's refresh when the token store's cross-process lock cannot be had (a fleet store whose Redis is
 * unreachable runs `alone` for every `exclusive`): a refresh ahead of expiry keeps the access token while it
 * still lives, rather than spend a refresh token another process may be spending too; an expired token, or
 * one the MCP server refused, is refreshed alone.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import { TestClock } from "effect/testing"
import * as engine from "../src/internal/auth/engine.js"
import * as store from "../src/internal/auth/tokens.js"
import { type ScriptedAs, scriptedAs, unauthorized } from "./fixtures/oauthScripted.js"

/** A memory store whose lock can never be had: `exclusive` always runs `alone` (or the effect, lacking one). */
const unlockable = (): store.Store & { readonly aloneRuns: () => number } => {
  const kept = store.memory()
  let runs = 0
  return {
    ...kept,
    exclusive: (_server, effect, alone) => {
      if (alone === undefined) return effect
      runs++
      return alone
    },
    aloneRuns: () => runs
  }
}

const refreshes = (as: ScriptedAs) =>
  as.seen.filter((seen) => seen.path === "/token" && seen.form.get("grant_type") === "refresh_token").length

/** An engine signed in (access-1, refresh-1, one hour) through the scripted server, over `tokens`. */
const signedIn = (as: ScriptedAs, tokens: store.Store) =>
  Effect.gen(function*() {
    const onAuthorize = async (url: URL) => {
      const response = await fetch(url, { redirect: "manual" })
      await response.body?.cancel()
      return response.headers.get("location") ?? ""
    }
    const auth = yield* engine.make(new URL(as.mcpUrl), { redirectUrl: "http://127.0.0.1:9/callback", onAuthorize }, tokens)
    assert.isTrue(yield* auth.onChallenge({}, 401, unauthorized(as.origin)))
    assert.deepStrictEqual(yield* auth.headers("POST", new URL(as.mcpUrl)), { authorization: "Bearer access-1" })
    return auth
  })

describe("McpAuth without the store's lock", () => {
  it.effect("a token inside its expiry margin but alive is sent as it is: no refresh reaches the server", () =>
    Effect.gen(function*() {
      const as = yield* scriptedAs
      const tokens = unlockable()
      const auth = yield* signedIn(as, tokens)
      // 15 s of its hour left: inside the 30 s margin, so a refresh is due ahead of expiry.
      yield* TestClock.adjust("3585 seconds")
      assert.deepStrictEqual(yield* auth.headers("POST", new URL(as.mcpUrl)), { authorization: "Bearer access-1" })
      assert.strictEqual(refreshes(as), 0)
      assert.strictEqual(tokens.aloneRuns(), 1)
    }))

  it.effect("an expired token is refreshed alone", () =>
    Effect.gen(function*() {
      const as = yield* scriptedAs
      const tokens = unlockable()
      const auth = yield* signedIn(as, tokens)
      yield* TestClock.adjust("3601 seconds")
      assert.deepStrictEqual(yield* auth.headers("POST", new URL(as.mcpUrl)), { authorization: "Bearer access-2" })
      assert.strictEqual(refreshes(as), 1)
      assert.strictEqual(tokens.aloneRuns(), 1)
    }))

  it.effect("an expired token another process has renewed in the store: its live token is taken, no refresh", () =>
    Effect.gen(function*() {
      const as = yield* scriptedAs
      const tokens = unlockable()
      const auth = yield* signedIn(as, tokens)
      yield* TestClock.adjust("3601 seconds")
      const now = yield* Clock.currentTimeMillis
      yield* tokens.save({
        server: as.mcpUrl,
        issuer: as.origin,
        tokens: { accessToken: "renewed-elsewhere", tokenType: "bearer", refreshToken: "r", issuedAt: now, expiresAt: now + 3_600_000 }
      })
      assert.deepStrictEqual(yield* auth.headers("POST", new URL(as.mcpUrl)), { authorization: "Bearer renewed-elsewhere" })
      assert.strictEqual(refreshes(as), 0)
    }))

  it.effect("a live token the MCP server refuses (401) is refreshed alone", () =>
    Effect.gen(function*() {
      const as = yield* scriptedAs
      const tokens = unlockable()
      const auth = yield* signedIn(as, tokens)
      yield* TestClock.adjust("60 seconds")
      assert.isTrue(yield* auth.onChallenge({ authorization: "Bearer access-1" }, 401, unauthorized(as.origin)))
      assert.strictEqual(refreshes(as), 1)
      assert.deepStrictEqual(yield* auth.headers("POST", new URL(as.mcpUrl)), { authorization: "Bearer access-2" })
      assert.strictEqual(tokens.aloneRuns(), 1)
    }))
})
