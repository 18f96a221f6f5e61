/**
 * What the authorization engine knows about one MCP server (discovery, client identity, tokens, the DPoP key)
 * and the small steps that read or change it. The policy that decides when to take them is in `engine.ts`.
 *
 * @internal
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import * as Semaphore from "effect/Semaphore"
import type * as oauth from "oauth4webapi"
import type { McpAuthError } from "../../McpAuthError.js"
import type { DeadlineHolds } from "../../McpTransport.js"
import { type Budgets, fromOptions, outsideCall } from "./budgets.js"
import type { ChallengeInfo } from "./challenge.js"
import { type Discovered, discover } from "./discovery.js"
import { chooseAlg, type DpopKey, makeKey } from "./dpop.js"
import type { GrantContext } from "./grants.js"
import { activate, type ActiveClient, activatePreRegistered, preRegistered, register } from "./identity.js"
import type { AuthOptions } from "./options.js"
import type { Store, StoredClient, StoredTokens } from "./tokens.js"

/** How long before expiry a token is refreshed (at most). */
const EXPIRY_MARGIN_MS = 30_000

/** @internal */
export type Tokens = StoredTokens & { readonly issuer: string }

/** @internal */
export interface State {
  loaded: boolean
  discovered: Discovered | undefined
  client: ActiveClient | undefined
  /** The issuer a pre-registered client without one was first used with. */
  preRegisteredAt: string | undefined
  tokens: Tokens | undefined
  requested: ReadonlyArray<string> | undefined
  dpop: DpopKey | undefined
  /** Whether the resource server's challenges offer the DPoP scheme. */
  dpopOffered: boolean
  /** Authorizations per scope set (sorted, space-joined). */
  authorizations: Map<string, number>
  /** When the recent step-ups were (epoch milliseconds, within the step-up window). */
  stepUps: Array<number>
  /** Consecutive 401s to tokens just issued. */
  freshRefusals: number
  /** A refused JWT bearer grant with a fixed assertion: surfaced again, never retried. */
  refusedAssertion: McpAuthError | undefined
}

/** @internal */
export interface Session {
  readonly server: URL
  readonly options: AuthOptions
  readonly store: Store
  readonly lock: Semaphore.Semaphore
  readonly state: State
  /** How long an exchange and a sign-in may take (`exchangeTimeout`, `signInTimeout`). */
  readonly budgets: Budgets
  /** The deadlines of the connections using this session, held while it authorizes. */
  readonly holds: Set<DeadlineHolds>
  /** How many fibers are authorizing or waiting to (the deadlines are held while it is above 0). */
  busy: number
  /** The person's time so far (ms of the fiber's clock): the sign-ins ended, and when the one under way began. */
  personMillis: number
  personSince: number | undefined
}

/** @internal */
export const makeSession = (server: URL, options: AuthOptions, store: Store): Effect.Effect<Session> =>
  Effect.map(Semaphore.make(1), (lock) => ({
    server,
    options,
    store,
    lock,
    budgets: fromOptions(options),
    holds: new Set(),
    busy: 0,
    personMillis: 0,
    personSince: undefined,
    state: {
      loaded: false,
      discovered: undefined,
      client: undefined,
      preRegisteredAt: undefined,
      tokens: undefined,
      requested: undefined,
      dpop: undefined,
      dpopOffered: false,
      authorizations: new Map(),
      stepUps: [],
      freshRefusals: 0,
      refusedAssertion: undefined
    }
  }))

/**
 * Run `effect` as authorization work: while any runs (or waits for the lock), every connection's deadlines
 * are held.
 *
 * @internal
 */
export const busy = <A, E>(session: Session, effect: Effect.Effect<A, E>): Effect.Effect<A, E> =>
  Effect.acquireUseRelease(
    Effect.sync(() => {
      if (session.busy++ === 0) for (const holds of session.holds) holds.pause()
    }),
    () => effect,
    () =>
      Effect.sync(() => {
        if (--session.busy === 0) for (const holds of session.holds) holds.resume()
      })
  )

/** The person's time in sign-ins so far (ms), at `now`: the calls' budgets do not count it. @internal */
export const personTime = (session: Session, now: number): number =>
  session.personMillis + (session.personSince === undefined ? 0 : now - session.personSince)

/**
 * Run `effect` as the person's time (the `onAuthorize` sign-in): it counts against no call's budget, its own
 * (`signInTimeout`) aside. One sign-in at a time (under the session's lock).
 *
 * @internal
 */
export const personal = <A, E>(session: Session, effect: Effect.Effect<A, E>): Effect.Effect<A, E> =>
  Effect.acquireUseRelease(
    Effect.flatMap(Clock.currentTimeMillis, (now) => Effect.sync(() => void (session.personSince = now))),
    () => outsideCall(effect),
    () =>
      Effect.flatMap(Clock.currentTimeMillis, (now) =>
        Effect.sync(() => {
          session.personMillis += now - (session.personSince ?? now)
          session.personSince = undefined
        }))
  )

/** A connection's deadlines, held whenever the session authorizes, for the life of the scope. @internal */
export const holdDuring = (session: Session, holds: DeadlineHolds): Effect.Effect<void, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.sync(() => {
      session.holds.add(holds)
      if (session.busy > 0) holds.pause()
    }),
    () =>
      Effect.sync(() => {
        session.holds.delete(holds)
        if (session.busy > 0) holds.resume()
      })
  )

/** Every credential the session holds or was given (tokens, secrets, assertions). @internal */
export const credentials = (session: Session): ReadonlyArray<string | undefined> => {
  const { options, state } = session
  const assertion = options.jwtBearer?.assertion
  const idToken = options.enterprise?.idToken
  return [
    state.tokens?.accessToken,
    state.tokens?.refreshToken,
    state.client?.stored.clientSecret,
    options.bearerToken,
    options.client?.clientSecret,
    options.clientCredentials?.clientSecret,
    options.enterprise?.clientSecret,
    options.enterprise?.idpClientSecret,
    typeof assertion === "string" ? assertion : undefined,
    typeof idToken === "string" ? idToken : undefined
  ]
}

/** The `Authorization` value of the current token. @internal */
export const authorizationValue = (session: Session): string | undefined => {
  const tokens = session.state.tokens
  if (tokens === undefined) return undefined
  return tokens.tokenType === "dpop" ? `DPoP ${tokens.accessToken}` : `Bearer ${tokens.accessToken}`
}

/**
 * Take the newest stored tokens for this server, once: a store that cannot be read fails each request until it
 * can (its error is not taken for an empty store). @internal
 */
export const load = (session: Session) =>
  Effect.gen(function*() {
    const state = session.state
    if (state.loaded) return
    const entries = yield* session.store.load(session.server.href)
    state.loaded = true
    const latest = entries
      .filter((entry) => entry.tokens !== undefined && entry.tokens.tokenType !== "dpop")
      .sort((a, b) => (b.tokens?.issuedAt ?? 0) - (a.tokens?.issuedAt ?? 0))[0]
    if (latest?.tokens !== undefined) state.tokens = { ...latest.tokens, issuer: latest.issuer }
  })

/**
 * The stored tokens of the same authorization server, if they are not `tokens` (another program using the
 * same store has renewed them), with the client registration they were issued to.
 *
 * @internal
 */
export const newerStored = (session: Session, tokens: Tokens) =>
  Effect.map(
    session.store.load(session.server.href),
    (entries): { readonly tokens: Tokens; readonly client: StoredClient | undefined } | undefined => {
      const entry = entries.find((entry) => entry.issuer === tokens.issuer)
      const stored = entry?.tokens
      if (stored === undefined || stored.tokenType === "dpop") return undefined
      if (stored.accessToken === tokens.accessToken && stored.refreshToken === tokens.refreshToken) return undefined
      return { tokens: { ...stored, issuer: tokens.issuer }, client: entry?.client }
    }
  )

/** Save the tokens (not DPoP-bound ones: their key is not kept) and a registered client. @internal */
export const persist = (session: Session) =>
  Effect.suspend(() => {
    const state = session.state
    const issuer = state.tokens?.issuer ?? state.client?.issuer
    if (issuer === undefined) return Effect.void
    const tokens = state.tokens === undefined ? undefined : (({ issuer: _, ...rest }) => rest)(state.tokens)
    // A registration read back from the store is kept too (else saving refreshed tokens would drop it).
    const client = state.client?.issuer === issuer &&
        (state.client.origin === "registered" || state.client.origin === "stored")
      ? state.client.stored
      : undefined
    return session.store.save({
      server: session.server.href,
      issuer,
      tokens: tokens?.tokenType === "dpop" ? undefined : tokens,
      client
    })
  })

/** Keep a token response. @internal */
export const keep = (session: Session, issuer: string, response: oauth.TokenEndpointResponse, previousRefresh?: string) =>
  Effect.gen(function*() {
    const now = yield* Clock.currentTimeMillis
    session.state.tokens = {
      issuer,
      accessToken: response.access_token,
      tokenType: response.token_type === "dpop" && session.state.dpop !== undefined ? "dpop" : "bearer",
      refreshToken: response.refresh_token ?? previousRefresh,
      expiresAt: response.expires_in === undefined ? undefined : now + response.expires_in * 1000,
      scope: response.scope,
      issuedAt: now
    }
    yield* persist(session)
  })

/** @internal */
export const clearTokens = (session: Session) =>
  Effect.suspend(() => {
    session.state.tokens = undefined
    return persist(session)
  })

/**
 * Discover afresh. A different authorization server than the tokens' drops the tokens, the client identity
 * and the DPoP key: nothing of the old server is ever presented to the new one.
 *
 * @internal
 */
export const discoverNow = (session: Session, info: ChallengeInfo | undefined) =>
  Effect.gen(function*() {
    const state = session.state
    const found = yield* discover(session.server, info?.resourceMetadata, state.tokens?.issuer)
    const issuer = found.as.issuer
    if (state.tokens !== undefined && state.tokens.issuer !== issuer) state.tokens = undefined
    if (state.client !== undefined && state.client.issuer !== issuer) state.client = undefined
    if (state.discovered?.as.issuer !== issuer) state.dpop = undefined
    state.discovered = found
    return found
  })

/** What discovery found, discovering first if nothing was yet. @internal */
export const discovered = (session: Session) =>
  Effect.suspend(() =>
    session.state.discovered === undefined ? discoverNow(session, undefined) : Effect.succeed(session.state.discovered)
  )

/**
 * The DPoP key to bind tokens to: when asked for, or by default when the resource server's challenge offers
 * the DPoP scheme and the authorization server advertises proof algorithms (a DPoP-bound token is useless to
 * a Bearer-only server).
 *
 * @internal
 */
export const useDpop = (session: Session, as: oauth.AuthorizationServer) =>
  Effect.gen(function*() {
    const { options, state } = session
    if (options.dpop === false) return undefined
    const offered = as["dpop_signing_alg_values_supported"]
    const algs = Array.isArray(offered) ? offered.filter((a): a is string => typeof a === "string") : undefined
    if (options.dpop !== true && (algs === undefined || !state.dpopOffered)) return undefined
    if (state.dpop === undefined) state.dpop = yield* makeKey(chooseAlg(algs) ?? "ES256")
    return state.dpop
  })

/** @internal */
export const grantContext = (session: Session, found: Discovered, scopes: ReadonlyArray<string> | undefined) =>
  Effect.map(useDpop(session, found.as), (dpop): GrantContext => ({
    as: found.as,
    resource: found.resource,
    scopes,
    dpop
  }))

/**
 * The client identity at the current authorization server, in the spec's order: pre-registered, a stored
 * registration (for the same redirect URL), a Client ID Metadata Document, Dynamic Client Registration.
 *
 * @internal
 */
export const identity = (session: Session, found: Discovered, redirectUrl: URL) =>
  Effect.gen(function*() {
    const { options, state } = session
    const as = found.as
    if (state.client !== undefined && state.client.issuer === as.issuer) return state.client
    const pre = preRegistered(as, options, state.preRegisteredAt)
    if (pre !== undefined) {
      state.preRegisteredAt ??= as.issuer
      state.client = yield* activatePreRegistered(as.issuer, pre, options)
      return state.client
    }
    const entries = yield* session.store.load(session.server.href)
    const kept = entries.find((entry) => entry.issuer === as.issuer && entry.client !== undefined)?.client
    if (kept !== undefined && (kept.redirectUri === undefined || kept.redirectUri === redirectUrl.href)) {
      state.client = activate(as.issuer, kept, "stored")
      return state.client
    }
    if (options.clientMetadataUrl !== undefined && as["client_id_metadata_document_supported"] === true) {
      state.client = activate(as.issuer, { clientId: options.clientMetadataUrl, authMethod: "none" }, "metadata-document")
      return state.client
    }
    const registered = yield* register(as, options, redirectUrl)
    state.client = activate(as.issuer, registered, "registered")
    yield* persist(session)
    return state.client
  })

/** Expired, or close enough: within 30 s of expiry, or the last quarter of a shorter life. @internal */
export const expired = (tokens: StoredTokens, now: number): boolean =>
  tokens.expiresAt !== undefined &&
  tokens.expiresAt - Math.min(EXPIRY_MARGIN_MS, (tokens.expiresAt - tokens.issuedAt) / 4) <= now
