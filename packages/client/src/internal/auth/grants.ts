/**
 * The grants: authorization code with PKCE (S256 only, `state` and RFC 9207 `iss` checked), refresh,
 * `client_credentials`, the JWT bearer grant (workload identity), and enterprise-managed authorization
 * (token exchange at the identity provider, then the JWT bearer grant). Every token request carries the
 * `resource` parameter (RFC 8707).
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as oauth from "oauth4webapi"
import { McpAuthError } from "../../McpAuthError.js"
import { hook } from "./budgets.js"
import { httpOptions, secureUrl } from "./discovery.js"
import type { DpopKey } from "./dpop.js"
import type { ActiveClient } from "./identity.js"
import { basicAuth, secretMethod } from "./identity.js"
import { call, importPrivateKey, toAuthError } from "./oauthCalls.js"
import type { ClientCredentials, EnterpriseManaged, HookResult, JwtBearer } from "./options.js"

/** @internal */
export interface GrantContext {
  readonly as: oauth.AuthorizationServer
  readonly resource: string
  readonly scopes: ReadonlyArray<string> | undefined
  readonly dpop: DpopKey | undefined
}

const JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer"
const TOKEN_EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange"

const tokenOptions = (context: GrantContext, signal: AbortSignal) => {
  const endpoint = new URL(context.as.token_endpoint ?? context.as.issuer)
  return {
    ...httpOptions(endpoint),
    signal,
    additionalParameters: { resource: context.resource },
    ...(context.dpop === undefined ? {} : { DPoP: context.dpop.handle })
  }
}

const scopeParam = (scopes: ReadonlyArray<string> | undefined): Record<string, string> =>
  scopes === undefined || scopes.length === 0 ? {} : { scope: scopes.join(" ") }

/** Run a caller's hook (value, Promise or Effect), within the sign-in budget. @internal */
export const runHook = <A>(step: "authorization" | "token", what: string, thunk: () => HookResult<A>) =>
  hook(step, what, runHookNow(step, what, thunk))

const runHookNow = <A>(step: "authorization" | "token", what: string, thunk: () => HookResult<A>) =>
  Effect.suspend((): Effect.Effect<A, McpAuthError> => {
    const fail = toAuthError(step, what)
    let out: HookResult<A>
    try {
      out = thunk()
    } catch (error) {
      return Effect.fail(fail(error))
    }
    if (Effect.isEffect(out)) return (out as Effect.Effect<A, unknown>).pipe(Effect.mapError(fail))
    if (typeof out === "object" && out !== null && "then" in out && typeof out.then === "function") {
      const promise = out as PromiseLike<A>
      return Effect.tryPromise({ try: () => Promise.resolve(promise), catch: fail })
    }
    return Effect.succeed(out as A)
  })

/** The authorization request URL and what checking its answer needs. @internal */
export interface AuthorizationRequest {
  readonly url: URL
  readonly state: string
  readonly verifier: string
}

/** Build the authorization request (PKCE S256, state, resource, scope). @internal */
export const authorizationRequest = (
  context: GrantContext,
  client: ActiveClient,
  redirectUrl: URL,
  requirePkceMetadata: boolean
) =>
  Effect.gen(function*() {
    const as = context.as
    if (requirePkceMetadata && !(as.code_challenge_methods_supported ?? []).includes("S256")) {
      return yield* new McpAuthError({
        step: "authorization",
        detail: `the authorization server ${as.issuer} does not advertise PKCE with S256 (code_challenge_methods_supported); refusing to authorize`
      })
    }
    if (as.authorization_endpoint === undefined) {
      return yield* new McpAuthError({ step: "authorization", detail: `${as.issuer} has no authorization endpoint` })
    }
    // The URL a person is sent to: https (or http on loopback) only, whatever the metadata said.
    const url = yield* secureUrl(as.authorization_endpoint, "the authorization endpoint", "authorization")
    const verifier = oauth.generateRandomCodeVerifier()
    const state = oauth.generateRandomState()
    const challenge = yield* Effect.promise(() => oauth.calculatePKCECodeChallenge(verifier))
    const params: Record<string, string> = {
      response_type: "code",
      client_id: client.client.client_id,
      redirect_uri: redirectUrl.href,
      code_challenge: challenge,
      code_challenge_method: "S256",
      state,
      resource: context.resource,
      ...scopeParam(context.scopes)
    }
    for (const [key, value] of Object.entries(params)) url.searchParams.set(key, value)
    const request: AuthorizationRequest = { url, state, verifier }
    return request
  })

/** Check the redirect (state, `iss` by simple string comparison) and redeem the code. @internal */
export const redeemCode = (
  context: GrantContext,
  client: ActiveClient,
  request: AuthorizationRequest,
  redirectUrl: URL,
  landed: URL
) =>
  Effect.gen(function*() {
    const params = yield* Effect.try({
      try: () => oauth.validateAuthResponse(context.as, client.client, landed, request.state),
      catch: toAuthError("authorization", "the authorization response")
    })
    return yield* call(
      "token",
      "the authorization code exchange",
      (signal) =>
        oauth.authorizationCodeGrantRequest(
          context.as,
          client.client,
          client.auth,
          params,
          redirectUrl.href,
          request.verifier,
          tokenOptions(context, signal)
        ),
      (response) => oauth.processAuthorizationCodeResponse(context.as, client.client, response)
    )
  })

/** @internal */
export const refresh = (context: GrantContext, client: ActiveClient, refreshToken: string) =>
  call(
    "refresh",
    "the refresh token request",
    (signal) => oauth.refreshTokenGrantRequest(context.as, client.client, client.auth, refreshToken, tokenOptions(context, signal)),
    (response) => oauth.processRefreshTokenResponse(context.as, client.client, response)
  )

const credentialAuth = (context: GrantContext, credentials: ClientCredentials) =>
  Effect.gen(function*() {
    if (credentials.privateKey !== undefined) {
      const alg = credentials.signingAlgorithm ?? "ES256"
      const key = yield* importPrivateKey(credentials.privateKey, alg)
      return oauth.PrivateKeyJwt(key)
    }
    const secret = credentials.clientSecret
    if (secret === undefined) return oauth.None()
    return secretMethod(context.as, true) === "client_secret_post"
      ? oauth.ClientSecretPost(secret)
      : basicAuth(secret)
  })

/** @internal */
export const clientCredentials = (context: GrantContext, credentials: ClientCredentials) =>
  Effect.gen(function*() {
    const auth = yield* credentialAuth(context, credentials)
    const client: oauth.Client = { client_id: credentials.clientId }
    return yield* call(
      "token",
      "the client_credentials token request",
      (signal) =>
        oauth.clientCredentialsGrantRequest(
          context.as,
          client,
          auth,
          // oauth4webapi takes this grant's parameters here only (its `additionalParameters` are not sent).
          { resource: context.resource, ...scopeParam(context.scopes) },
          tokenOptions(context, signal)
        ),
      (response) => oauth.processClientCredentialsResponse(context.as, client, response)
    )
  })

const jwtBearerGrant = (
  context: GrantContext,
  client: oauth.Client,
  auth: oauth.ClientAuth,
  assertion: string,
  what: string
) =>
  call(
    "token",
    what,
    (signal) => {
      const options = { ...httpOptions(new URL(context.as.token_endpoint ?? context.as.issuer)), signal }
      return oauth.genericTokenEndpointRequest(context.as, client, auth, JWT_BEARER, {
        assertion,
        resource: context.resource,
        ...scopeParam(context.scopes)
      }, context.dpop === undefined ? options : { ...options, DPoP: context.dpop.handle })
    },
    (response) => oauth.processGenericTokenEndpointResponse(context.as, client, response)
  )

/** The JWT bearer grant with the workload's assertion: one request, its failure surfaced. @internal */
export const workloadJwtBearer = (context: GrantContext, grant: JwtBearer) =>
  Effect.gen(function*() {
    const assertion = typeof grant.assertion === "string"
      ? grant.assertion
      : yield* runHook("token", "the workload assertion", grant.assertion)
    return yield* jwtBearerGrant(
      context,
      { client_id: grant.clientId },
      oauth.None(),
      assertion,
      "the JWT bearer token request"
    )
  })

/** Token exchange at the identity provider for an ID-JAG, then the JWT bearer grant at the server's AS. @internal */
export const enterpriseManaged = (context: GrantContext, grant: EnterpriseManaged) =>
  Effect.gen(function*() {
    const idToken = typeof grant.idToken === "string"
      ? grant.idToken
      : yield* runHook("token", "the identity provider ID token", grant.idToken)
    const endpoint = new URL(grant.idpTokenEndpoint)
    const idp: oauth.AuthorizationServer = { issuer: grant.idpIssuer ?? endpoint.origin, token_endpoint: endpoint.href }
    const idpClient: oauth.Client = { client_id: grant.idpClientId }
    const idpAuth = grant.idpClientSecret === undefined ? oauth.None() : oauth.ClientSecretPost(grant.idpClientSecret)
    const exchanged = yield* call(
      "token",
      "the token exchange at the identity provider",
      (signal) =>
        oauth.genericTokenEndpointRequest(idp, idpClient, idpAuth, TOKEN_EXCHANGE, {
          subject_token: idToken,
          subject_token_type: "urn:ietf:params:oauth:token-type:id_token",
          requested_token_type: "urn:ietf:params:oauth:token-type:id-jag",
          audience: context.as.issuer,
          resource: context.resource,
          ...scopeParam(context.scopes)
        }, { ...httpOptions(endpoint), signal }),
      (response) =>
        oauth.processGenericTokenEndpointResponse(idp, idpClient, response, {
          recognizedTokenTypes: { n_a: () => undefined }
        })
    )
    const secret = grant.clientSecret
    const auth = secret === undefined
      ? oauth.None()
      : secretMethod(context.as, true) === "client_secret_post"
      ? oauth.ClientSecretPost(secret)
      : basicAuth(secret)
    return yield* jwtBearerGrant(context, { client_id: grant.clientId }, auth, exchanged.access_token, "the JWT bearer grant with the ID-JAG")
  })
