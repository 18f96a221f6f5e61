/**
 * The MCP authorization policy around the OAuth mechanics: what to send before each request, what to do on
 * each 401/403 (refresh, authorize, step up, a DPoP nonce), which scopes to ask for, when to give up, and
 * migration to a new authorization server (fresh registration there, never the old server's credentials).
 *
 * @internal
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import type * as oauth from "oauth4webapi"
import { McpAuthError } from "../../McpAuthError.js"
import { challengeInfo, type ChallengeInfo, unionScopes } from "./challenge.js"
import { type Discovered, discover } from "./discovery.js"
import { chooseAlg, type DpopKey, makeKey, proof } from "./dpop.js"
import * as grants from "./grants.js"
import { activate, type ActiveClient, preRegistered, register } from "./identity.js"
import type { AuthOptions } from "./options.js"
import type { Store, StoredTokens } from "./store.js"

/** How long before expiry a token is refreshed. */
const EXPIRY_MARGIN_MS = 30_000
/** How many authorizations one scope set gets before a server that keeps asking is an error. */
const MAX_AUTHORIZATIONS_PER_SCOPES = 2
/** A token this young that is refused again means the server will not take what we get. */
const FRESH_MS = 30_000

interface State {
  loaded: boolean
  discovered: Discovered | undefined
  client: ActiveClient | undefined
  /** The issuer a pre-registered client without one was first used with. */
  preRegisteredAt: string | undefined
  tokens: (StoredTokens & { readonly issuer: string }) | undefined
  requested: ReadonlyArray<string> | undefined
  dpop: DpopKey | undefined
  /** Whether the resource server's challenges offer the DPoP scheme. */
  dpopOffered: boolean
  authorizations: Map<string, number>
  freshRefusals: number
}

/** @internal */
export interface Engine {
  readonly headers: (method: string, url: URL) => Effect.Effect<Record<string, string>, McpAuthError>
  readonly onChallenge: (
    sent: Readonly<Record<string, string>>,
    status: number,
    headers: Readonly<Record<string, string>>
  ) => Effect.Effect<boolean, McpAuthError>
}

/** @internal */
export const make = (server: URL, options: AuthOptions, store: Store): Effect.Effect<Engine> =>
  Effect.map(Effect.makeSemaphore(1), (lock) => {
    const state: State = {
      loaded: false,
      discovered: undefined,
      client: undefined,
      preRegisteredAt: undefined,
      tokens: undefined,
      requested: undefined,
      dpop: undefined,
      dpopOffered: false,
      authorizations: new Map(),
      freshRefusals: 0
    }
    const serverKey = server.href

    const authorizationValue = (): string | undefined => {
      const tokens = state.tokens
      if (tokens === undefined) return undefined
      return tokens.tokenType === "dpop" ? `DPoP ${tokens.accessToken}` : `Bearer ${tokens.accessToken}`
    }

    const load = Effect.gen(function*() {
      if (state.loaded) return
      state.loaded = true
      const entries = yield* store.load(serverKey)
      const latest = entries
        .filter((entry) => entry.tokens !== undefined && entry.tokens.tokenType !== "dpop")
        .sort((a, b) => (b.tokens?.issuedAt ?? 0) - (a.tokens?.issuedAt ?? 0))[0]
      if (latest?.tokens !== undefined) state.tokens = { ...latest.tokens, issuer: latest.issuer }
    })

    const persist = Effect.suspend(() => {
      const issuer = state.tokens?.issuer ?? state.client?.issuer
      if (issuer === undefined) return Effect.void
      const tokens = state.tokens === undefined ? undefined : (({ issuer: _, ...rest }) => rest)(state.tokens)
      const client = state.client?.issuer === issuer && state.client.origin === "registered" ? state.client.stored : undefined
      return store.save({ server: serverKey, issuer, tokens: tokens?.tokenType === "dpop" ? undefined : tokens, client })
    })

    const keep = (issuer: string, response: oauth.TokenEndpointResponse, previousRefresh?: string) =>
      Effect.gen(function*() {
        const now = yield* Clock.currentTimeMillis
        state.tokens = {
          issuer,
          accessToken: response.access_token,
          tokenType: response.token_type === "dpop" && state.dpop !== undefined ? "dpop" : "bearer",
          refreshToken: response.refresh_token ?? previousRefresh,
          expiresAt: response.expires_in === undefined ? undefined : now + response.expires_in * 1000,
          scope: response.scope,
          issuedAt: now
        }
        yield* persist
      })

    const clearTokens = Effect.suspend(() => {
      state.tokens = undefined
      return persist
    })

    const discoverNow = (info: ChallengeInfo | undefined) =>
      Effect.gen(function*() {
        const found = yield* discover(server, info?.resourceMetadata, state.tokens?.issuer)
        const issuer = found.as.issuer
        if (state.tokens !== undefined && state.tokens.issuer !== issuer) state.tokens = undefined
        if (state.client !== undefined && state.client.issuer !== issuer) state.client = undefined
        if (state.discovered?.as.issuer !== issuer) state.dpop = undefined
        state.discovered = found
        return found
      })

    const discovered = Effect.suspend(() =>
      state.discovered === undefined ? discoverNow(undefined) : Effect.succeed(state.discovered)
    )

    /**
     * DPoP when asked for, or by default when the resource server's challenge offers the DPoP scheme and the
     * authorization server advertises proof algorithms (a DPoP-bound token is useless to a Bearer-only server).
     */
    const useDpop = (as: oauth.AuthorizationServer) =>
      Effect.gen(function*() {
        if (options.dpop === false) return undefined
        const offered = as["dpop_signing_alg_values_supported"]
        const algs = Array.isArray(offered) ? offered.filter((a): a is string => typeof a === "string") : undefined
        if (options.dpop !== true && (algs === undefined || !state.dpopOffered)) return undefined
        const alg = chooseAlg(algs) ?? "ES256"
        if (state.dpop === undefined) state.dpop = yield* makeKey(alg)
        return state.dpop
      })

    const context = (found: Discovered, scopes: ReadonlyArray<string> | undefined) =>
      Effect.map(useDpop(found.as), (dpop): grants.GrantContext => ({
        as: found.as,
        resource: found.resource,
        scopes,
        dpop
      }))

    /** The client identity at the current authorization server. */
    const identity = (found: Discovered, redirectUrl: URL) =>
      Effect.gen(function*() {
        const as = found.as
        if (state.client !== undefined && state.client.issuer === as.issuer) return state.client
        const pre = preRegistered(as, options, state.preRegisteredAt)
        if (pre !== undefined) {
          state.preRegisteredAt ??= as.issuer
          state.client = activate(as.issuer, pre, "pre-registered")
          return state.client
        }
        const entries = yield* store.load(serverKey)
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
        yield* persist
        return state.client
      })

    const withOffline = (as: oauth.AuthorizationServer, scopes: ReadonlyArray<string> | undefined) =>
      options.offlineAccess !== false && (as.scopes_supported ?? []).includes("offline_access") &&
        !(scopes ?? []).includes("offline_access")
        ? [...(scopes ?? []), "offline_access"]
        : scopes

    const authorizationCode = (found: Discovered, scopes: ReadonlyArray<string> | undefined) =>
      Effect.gen(function*() {
        const onAuthorize = options.onAuthorize
        if (onAuthorize === undefined || options.redirectUrl === undefined) {
          return yield* new McpAuthError({
            step: "authorization",
            detail: "the server requires authorization: give `onAuthorize` and `redirectUrl` (or a non-interactive grant)"
          })
        }
        const redirectUrl = new URL(options.redirectUrl)
        const client = yield* identity(found, redirectUrl)
        const ctx = yield* context(found, withOffline(found.as, scopes))
        const request = yield* grants.authorizationRequest(ctx, client, redirectUrl, !found.synthetic)
        const landed = yield* grants.runHook("authorization", "onAuthorize", () => onAuthorize(request.url))
        const landedUrl = yield* Effect.try({
          try: () => new URL(landed),
          catch: () => new McpAuthError({ step: "authorization", detail: "onAuthorize did not give back a URL" })
        })
        return yield* grants.redeemCode(ctx, client, request, redirectUrl, landedUrl)
      })

    /** Get a new token by the configured grant. */
    const authorize = (found: Discovered, scopes: ReadonlyArray<string> | undefined) =>
      Effect.gen(function*() {
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
        const response = options.clientCredentials !== undefined
          ? yield* grants.clientCredentials(yield* context(found, scopes), options.clientCredentials)
          : options.enterprise !== undefined
          ? yield* grants.enterpriseManaged(yield* context(found, scopes), options.enterprise)
          : options.jwtBearer !== undefined
          ? yield* grants.workloadJwtBearer(yield* context(found, scopes), options.jwtBearer)
          : yield* authorizationCode(found, scopes)
        yield* keep(found.as.issuer, response)
      })

    /** Refresh the current token; `false` when there is nothing to refresh with or the grant was refused. */
    const tryRefresh = Effect.gen(function*() {
      const tokens = state.tokens
      if (tokens?.refreshToken === undefined) return false
      const found = yield* discovered
      if (found.as.issuer !== tokens.issuer) return false
      const client = state.client?.issuer === tokens.issuer
        ? state.client
        : options.onAuthorize !== undefined && options.redirectUrl !== undefined
        ? yield* identity(found, new URL(options.redirectUrl))
        : undefined
      if (client === undefined) return false
      const ctx = yield* context(found, undefined)
      const refreshed = yield* grants.refresh(ctx, client, tokens.refreshToken).pipe(
        Effect.map((response) => ({ response })),
        Effect.catchIf(
          (error) => error.error === "invalid_grant",
          () => Effect.succeed(undefined)
        )
      )
      if (refreshed === undefined) {
        yield* clearTokens
        return false
      }
      yield* keep(tokens.issuer, refreshed.response, tokens.refreshToken)
      return true
    })

    /** Expired, or close enough: within 30 s of expiry, or the last quarter of a shorter life. */
    const expired = (tokens: StoredTokens, now: number) =>
      tokens.expiresAt !== undefined &&
      tokens.expiresAt - Math.min(EXPIRY_MARGIN_MS, (tokens.expiresAt - tokens.issuedAt) / 4) <= now

    const headers = (method: string, url: URL) =>
      Effect.gen(function*() {
        if (options.bearerToken !== undefined) return { authorization: `Bearer ${options.bearerToken}` }
        if (!state.loaded) yield* lock.withPermits(1)(load)
        const now = yield* Clock.currentTimeMillis
        if (state.tokens !== undefined && expired(state.tokens, now) && state.tokens.refreshToken !== undefined) {
          yield* lock.withPermits(1)(
            Effect.suspend(() =>
              state.tokens !== undefined && expired(state.tokens, now) ? Effect.asVoid(tryRefresh) : Effect.void
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

    const stepUp = (info: ChallengeInfo) =>
      Effect.gen(function*() {
        if (info.error !== "insufficient_scope") return false
        const found = yield* discovered
        yield* authorize(found, unionScopes(state.requested, info.scope))
        return true
      })

    const unauthorized = (sent: Readonly<Record<string, string>>, info: ChallengeInfo, status: number) =>
      Effect.gen(function*() {
        if (options.bearerToken !== undefined) {
          return yield* new McpAuthError({ step: "authorization", detail: "the server refused the bearer token given", status })
        }
        const sentToken = sent["authorization"] !== undefined
        const tokens = state.tokens
        const now = yield* Clock.currentTimeMillis
        const found = yield* discoverNow(info)
        if (sentToken && state.tokens !== undefined && (yield* tryRefresh)) return true
        if (sentToken && tokens !== undefined && now - tokens.issuedAt < FRESH_MS) {
          state.freshRefusals++
          if (state.freshRefusals >= 2) {
            return yield* new McpAuthError({
              step: "authorization",
              detail: "the server refuses the tokens the authorization server has just issued; giving up",
              status
            })
          }
        }
        yield* clearTokens
        yield* authorize(found, info.scope ?? found.prm?.scopesSupported)
        return true
      })

    const onChallenge = (sent: Readonly<Record<string, string>>, status: number, headers: Readonly<Record<string, string>>) =>
      lock.withPermits(1)(Effect.gen(function*() {
        const info = challengeInfo(headers["www-authenticate"])
        if (info.schemes.includes("dpop")) state.dpopOffered = true
        if (status === 401 && info.error === "use_dpop_nonce" && state.dpop !== undefined) {
          const nonce = headers["dpop-nonce"]
          if (nonce === undefined || nonce === state.dpop.rsNonce) return false
          state.dpop.rsNonce = nonce
          return true
        }
        // Another request already got a newer token: just send this one again.
        const current = authorizationValue()
        if (current !== undefined && sent["authorization"] !== current) return true
        if (status === 403) return yield* stepUp(info)
        return yield* unauthorized(sent, info, status)
      }))

    return { headers, onChallenge }
  })
