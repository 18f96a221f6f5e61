/**
 * The MCP authorization policy around the OAuth mechanics: what to send before each request, what to do on
 * each 401/403 (refresh, authorize, step up, a DPoP nonce), which scopes to ask for, and when to give up.
 * The state it works on, and migration to a new authorization server, are in `session.ts`.
 *
 * @internal
 */
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import type * as oauth from "oauth4webapi"
import { McpAuthError } from "../../McpAuthError.js"
import type { DeadlineHolds } from "../../McpTransport.js"
import { redact } from "../redact.js"
import { Budgets } from "./budgets.js"
import { challengeInfo, type ChallengeInfo, unionScopes } from "./challenge.js"
import type { Discovered } from "./discovery.js"
import { proof, proofNonce } from "./dpop.js"
import * as grants from "./grants.js"
import type { AuthOptions, JwtBearer } from "./options.js"
import * as S from "./session.js"
import * as shared from "./shared.js"
import type { Store } from "./tokens.js"

/** How many authorizations one scope set gets before a server that keeps asking is an error. */
const MAX_AUTHORIZATIONS_PER_SCOPES = 2
/** Step-ups (403 `insufficient_scope`) a session takes in any `STEP_UP_WINDOW_MS`. */
const MAX_STEP_UPS = 3
const STEP_UP_WINDOW_MS = 10 * 60_000
/** The most scopes a step-up asks for. */
const MAX_SCOPES = 32
/** A token this young that is refused again means the server will not take what we get. */
const FRESH_MS = 30_000

type Headers = Readonly<Record<string, string>>

/** @internal */
export interface Engine {
  readonly headers: (method: string, url: URL) => Effect.Effect<Record<string, string>, McpAuthError>
  /**
   * A 401/403 to a request sent with `sent` (the headers `headers` gave it, when the transport says; without
   * them, a token renewed while this challenge waited its turn counts as newer than the one sent).
   */
  readonly onChallenge: (sent: Headers | undefined, status: number, headers: Headers) => Effect.Effect<boolean, McpAuthError>
  /** The head of any answer of the MCP server: a `DPoP-Nonce` it carries is kept for the next proof. */
  readonly onResponse: (headers: Headers) => void
  /** A connection's deadlines, held while an authorization runs, for the life of the scope. */
  readonly holdDuring: (holds: DeadlineHolds) => Effect.Effect<void, never, Scope.Scope>
}

const withOffline = (options: AuthOptions, as: oauth.AuthorizationServer, scopes: ReadonlyArray<string> | undefined) =>
  options.offlineAccess !== false && (as.scopes_supported ?? []).includes("offline_access") &&
    !(scopes ?? []).includes("offline_access")
    ? [...(scopes ?? []), "offline_access"]
    : scopes

/**
 * Authorization work, one at a time: it holds the connections' deadlines while it runs or waits its turn. It
 * has no budget of its own: each HTTP exchange in it has the exchange budget, each wait on the person (or a
 * caller's hook) the sign-in budget (`budgets.ts`).
 */
const exclusive = <A>(session: S.Session, effect: Effect.Effect<A, McpAuthError>) =>
  S.busy(session, session.lock.withPermits(1)(effect))

/** The authorization code flow: the request, the caller's `onAuthorize`, the checked redirect, the code. */
const authorizationCode = (session: S.Session, found: Discovered, scopes: ReadonlyArray<string> | undefined) =>
  Effect.gen(function*() {
    const options = session.options
    const onAuthorize = options.onAuthorize
    if (onAuthorize === undefined || options.redirectUrl === undefined) {
      return yield* new McpAuthError({
        step: "authorization",
        detail: "the server requires authorization: give `onAuthorize` and `redirectUrl` (or a non-interactive grant)"
      })
    }
    const redirectUrl = new URL(options.redirectUrl)
    const client = yield* S.identity(session, found, redirectUrl)
    const context = yield* S.grantContext(session, found, withOffline(options, found.as, scopes))
    const request = yield* grants.authorizationRequest(context, client, redirectUrl, !found.synthetic)
    // The person's time, not the call's.
    const landed = yield* S.personal(
      session,
      grants.runHook("authorization", "the sign-in (onAuthorize)", () => onAuthorize(request.url))
    )
    const landedUrl = yield* Effect.try({
      try: () => new URL(landed),
      catch: () => new McpAuthError({ step: "authorization", detail: "onAuthorize did not give back a URL" })
    })
    return yield* grants.redeemCode(context, client, request, redirectUrl, landedUrl)
  })

/**
 * The workload JWT bearer grant: its failure is surfaced as it is, and with a fixed assertion the grant is
 * not tried again (a function giving fresh assertions may be).
 */
const workloadGrant = (session: S.Session, context: grants.GrantContext, grant: JwtBearer) =>
  Effect.gen(function*() {
    return yield* grants.workloadJwtBearer(context, grant).pipe(
      Effect.tapError((error) =>
        Effect.sync(() => {
          if (typeof grant.assertion === "string") session.state.refusedAssertion = error
        })
      )
    )
  })

/** Get a new token by the configured grant, at most twice per scope set (until a token lives its life). */
const authorize = (session: S.Session, found: Discovered, scopes: ReadonlyArray<string> | undefined) =>
  Effect.gen(function*() {
    const { options, state } = session
    if (options.jwtBearer !== undefined && state.refusedAssertion !== undefined) return yield* state.refusedAssertion
    const key = [...(scopes ?? [])].sort().join(" ")
    const count = state.authorizations.get(key) ?? 0
    if (count >= MAX_AUTHORIZATIONS_PER_SCOPES) {
      return yield* new McpAuthError({
        step: "authorization",
        detail: `the server keeps refusing after ${count} authorizations for scope "${key}"; giving up`
      })
    }
    state.authorizations.set(key, count + 1)
    state.requested = scopes
    const context = S.grantContext(session, found, scopes)
    const response = options.clientCredentials !== undefined
      ? yield* grants.clientCredentials(yield* context, options.clientCredentials)
      : options.enterprise !== undefined
      ? yield* grants.enterpriseManaged(yield* context, options.enterprise)
      : options.jwtBearer !== undefined
      ? yield* workloadGrant(session, yield* context, options.jwtBearer)
      : yield* authorizationCode(session, found, scopes)
    yield* S.keep(session, found.as.issuer, response)
  })

/**
 * Refresh the current token; `false` when there is nothing to refresh with or the grant was refused. Single
 * flight across processes when the store has a cross-process lock (`shared.ts`): under it, tokens another
 * process stored meanwhile are taken instead. A refused refresh (`invalid_grant`) looks at the store first:
 * another program sharing it may have refreshed already (a rotating authorization server takes each refresh
 * token once), and its live token is taken as it is (with the registration it was issued to), or refreshed once
 * with its own refresh token. `ahead`: a refresh before the token expires (not after a refusal), which keeps the
 * live token when the store's lock cannot be had.
 */
const tryRefresh = (session: S.Session, ahead: boolean): Effect.Effect<boolean, McpAuthError> =>
  shared.singleFlight(
    session,
    (tokens) => Effect.map(Clock.currentTimeMillis, (now) => !S.expired(tokens, now)),
    refreshNow(session),
    ahead
  )

const refreshNow = (session: S.Session, reread = true): Effect.Effect<boolean, McpAuthError> =>
  Effect.gen(function*() {
    const { options, state } = session
    const tokens = state.tokens
    if (tokens?.refreshToken === undefined) return false
    const found = yield* S.discovered(session)
    if (found.as.issuer !== tokens.issuer) return false
    const client = state.client?.issuer === tokens.issuer
      ? state.client
      : options.onAuthorize !== undefined && options.redirectUrl !== undefined
      ? yield* S.identity(session, found, new URL(options.redirectUrl))
      : undefined
    if (client === undefined) return false
    const context = yield* S.grantContext(session, found, undefined)
    const refreshed = yield* grants.refresh(context, client, tokens.refreshToken).pipe(
      Effect.map((response) => ({ response })),
      Effect.catchIf((error) => error.error === "invalid_grant", () => Effect.succeed(undefined))
    )
    if (refreshed === undefined) {
      const stored = reread ? yield* S.newerStored(session, tokens) : undefined
      if (stored !== undefined) {
        state.tokens = stored.tokens
        shared.adoptRegistration(session, stored.tokens.issuer, stored.client)
        const now = yield* Clock.currentTimeMillis
        return S.expired(stored.tokens, now) ? yield* refreshNow(session, false) : true
      }
      yield* S.clearTokens(session)
      return false
    }
    yield* S.keep(session, tokens.issuer, refreshed.response, tokens.refreshToken)
    return true
  })

/** The headers of one request: the token (refreshed first when it is about to expire), a DPoP proof. */
const headers = (session: S.Session, method: string, url: URL) =>
  Effect.gen(function*() {
    const { options, state } = session
    if (options.bearerToken !== undefined) return { authorization: `Bearer ${options.bearerToken}` }
    if (!state.loaded) yield* exclusive(session, S.load(session))
    const now = yield* Clock.currentTimeMillis
    if (state.tokens !== undefined && S.expired(state.tokens, now) && state.tokens.refreshToken !== undefined) {
      yield* exclusive(
        session,
        Effect.suspend(() =>
          state.tokens !== undefined && S.expired(state.tokens, now) ? Effect.asVoid(tryRefresh(session, true)) : Effect.void
        )
      )
    }
    const tokens = state.tokens
    if (tokens === undefined) return {}
    if (tokens.tokenType === "dpop" && state.dpop !== undefined) {
      return {
        authorization: `DPoP ${tokens.accessToken}`,
        dpop: yield* proof(state.dpop, method, url, tokens.accessToken)
      }
    }
    return { authorization: `Bearer ${tokens.accessToken}` }
  })

/**
 * 403 `insufficient_scope`: authorize again with the union of what was asked for and what is asked now. Bounded
 * per session over time, not per call: at most `MAX_STEP_UPS` in any `STEP_UP_WINDOW_MS`, and never more than
 * `MAX_SCOPES` scopes, so a server that asks for a new scope every time costs a few sign-ins, not a few per call.
 */
const stepUp = (session: S.Session, info: ChallengeInfo) =>
  Effect.gen(function*() {
    if (info.error !== "insufficient_scope") return false
    const state = session.state
    const now = yield* Clock.currentTimeMillis
    state.stepUps = state.stepUps.filter((at) => now - at < STEP_UP_WINDOW_MS)
    const scopes = unionScopes(state.requested, info.scope)
    if (state.stepUps.length >= MAX_STEP_UPS || scopes.length > MAX_SCOPES) {
      return yield* new McpAuthError({
        step: "authorization",
        detail: scopes.length > MAX_SCOPES
          ? `the server asks for more than ${MAX_SCOPES} scopes; giving up on step-up`
          : `the server asked for more scopes ${state.stepUps.length} times within ${
            Duration.format(Duration.millis(STEP_UP_WINDOW_MS))
          }; giving up on step-up`,
        status: 403
      })
    }
    state.stepUps.push(now)
    const found = yield* S.discovered(session)
    yield* authorize(session, found, scopes)
    return true
  })

/** 401: discover afresh (the authorization server may have changed), refresh if possible, else authorize. */
const unauthorized = (session: S.Session, sentToken: boolean, info: ChallengeInfo, status: number) =>
  Effect.gen(function*() {
    const state = session.state
    if (session.options.bearerToken !== undefined) {
      return yield* new McpAuthError({ step: "authorization", detail: "the server refused the bearer token given", status })
    }
    const tokens = state.tokens
    const now = yield* Clock.currentTimeMillis
    const found = yield* S.discoverNow(session, info)
    if (sentToken && state.tokens !== undefined && (yield* tryRefresh(session, false))) return true
    if (sentToken && tokens !== undefined) {
      const served = now - tokens.issuedAt >= FRESH_MS || S.expired(tokens, now)
      // A token that lived its life (or long enough) was taken: the authorizations that led to it succeeded,
      // and the bound is for a server that refuses what it has just issued, not for tokens that expire.
      if (served) state.authorizations.clear()
      state.freshRefusals = served ? 0 : state.freshRefusals + 1
      if (state.freshRefusals >= 2) {
        return yield* new McpAuthError({
          step: "authorization",
          detail: "the server refuses the tokens the authorization server has just issued; giving up",
          status
        })
      }
    }
    yield* shared.signInOnce(
      session,
      tokens,
      Effect.andThen(S.clearTokens(session), authorize(session, found, info.scope ?? found.prm?.scopesSupported))
    )
    return true
  })

const onChallenge = (session: S.Session, sent: Headers | undefined, status: number, responseHeaders: Headers) =>
  Effect.suspend(() => {
    const before = session.state.tokens
    return exclusive(session, challenged(session, sent, before, status, responseHeaders))
  })

const challenged = (
  session: S.Session,
  sent: Headers | undefined,
  before: S.Tokens | undefined,
  status: number,
  responseHeaders: Headers
) =>
  Effect.gen(function*() {
    const state = session.state
    const info = challengeInfo(responseHeaders["www-authenticate"])
    if (info.schemes.includes("dpop")) state.dpopOffered = true
    if (status === 401 && info.error === "use_dpop_nonce" && state.dpop !== undefined) {
      const nonce = responseHeaders["dpop-nonce"]
      if (nonce === undefined) return false
      state.dpop.rsNonce = nonce
      // Sent again only with a nonce the refused proof did not carry (the answer's head may have been seen
      // already, so the kept nonce says nothing about the refused request).
      return proofNonce(sent?.["dpop"]) !== nonce
    }
    // Another request already got a newer token: just send this one again.
    const current = S.authorizationValue(session)
    if (sent !== undefined && current !== undefined && sent["authorization"] !== current) return true
    if (sent === undefined && state.tokens !== undefined && state.tokens !== before) return true
    if (status === 403) return yield* stepUp(session, info)
    const sentToken = sent === undefined ? before !== undefined : sent["authorization"] !== undefined
    return yield* unauthorized(session, sentToken, info, status)
  })

/**
 * An error as it leaves the engine: what the servers said in it (an `error_description`, a message) without
 * any credential the session holds, nor the ones just refused (a token may be cleared before the error).
 */
const cleaned = (session: S.Session, also: ReadonlyArray<string | undefined> = []) => (error: McpAuthError) => {
  const secrets = [...S.credentials(session), ...also]
  return new McpAuthError({
    step: error.step,
    detail: redact(error.detail, secrets),
    ...(error.error === undefined ? {} : { error: error.error }),
    ...(error.errorDescription === undefined ? {} : { errorDescription: redact(error.errorDescription, secrets) }),
    ...(error.status === undefined ? {} : { status: error.status })
  })
}

/**
 * The session's budgets for work done for one request: with `callTimeout` (the client's `requestTimeout`), the
 * call's budget starts now, and the person's sign-in time meanwhile is given back to it.
 */
const forCall = <A, E>(session: S.Session, callTimeout: Duration.Duration | undefined, effect: Effect.Effect<A, E>) =>
  callTimeout === undefined
    ? Effect.provideService(effect, Budgets, session.budgets)
    : Effect.flatMap(Clock.currentTimeMillis, (start) => {
      const person = S.personTime(session, start)
      const end = start + Duration.toMillis(callTimeout)
      const remaining = Effect.map(Clock.currentTimeMillis, (now) => end + (S.personTime(session, now) - person) - now)
      return Effect.provideService(effect, Budgets, { ...session.budgets, call: { limit: callTimeout, remaining } })
    })

/**
 * The engine of one MCP server. `callTimeout`: the timeout of the requests it authorizes (the client's
 * `requestTimeout`), which bounds what the engine does alone for one of them.
 *
 * @internal
 */
export const make = (
  server: URL,
  options: AuthOptions,
  store: Store,
  callTimeout?: Duration.Duration | undefined
): Effect.Effect<Engine> =>
  Effect.map(S.makeSession(server, options, store), (session): Engine => ({
    headers: (method, url) =>
      forCall(session, callTimeout, headers(session, method, url)).pipe(Effect.mapError(cleaned(session))),
    onChallenge: (sent, status, responseHeaders) =>
      Effect.suspend(() => {
        const held = S.credentials(session)
        return forCall(session, callTimeout, onChallenge(session, sent, status, responseHeaders)).pipe(
          Effect.mapError(cleaned(session, [...held, sent?.["authorization"]]))
        )
      }),
    onResponse: (responseHeaders) => {
      const nonce = responseHeaders["dpop-nonce"]
      if (nonce !== undefined && nonce !== "" && session.state.dpop !== undefined) session.state.dpop.rsNonce = nonce
    },
    holdDuring: (holds) => S.holdDuring(session, holds)
  }))
