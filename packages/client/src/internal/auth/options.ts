/**
 * The caller's authorization options (re-exported by `McpAuth`).
 *
 * @internal
 */
import type * as Duration from "effect/Duration"
import type * as Effect from "effect/Effect"
import type * as jose from "jose"
import type { WebStorage } from "./keyValueStore.js"

/**
 * A value, a Promise or an Effect, like the client's other hooks.
 *
 * @since 0.1.0
 * @category models
 */
export type HookResult<A> = A | PromiseLike<A> | Effect.Effect<A, unknown>

/**
 * A client registered with the authorization server beforehand.
 *
 * @since 0.1.0
 * @category models
 */
export interface PreRegisteredClient {
  readonly clientId: string
  readonly clientSecret?: string | undefined
  /** PKCS#8 PEM or a `CryptoKey`: `private_key_jwt` at the token endpoint, where the server supports it. */
  readonly privateKey?: string | jose.CryptoKey | undefined
  /** The JWS algorithm of `privateKey` (default ES256). */
  readonly signingAlgorithm?: string | undefined
  /**
   * The issuer the client is registered with. Without it the credentials are bound to the first
   * authorization server they are used with and never presented to another.
   */
  readonly issuer?: string | undefined
}

/**
 * The `client_credentials` grant (machine to machine, no user): a secret, or `private_key_jwt`.
 *
 * @since 0.1.0
 * @category models
 */
export interface ClientCredentials {
  readonly clientId: string
  readonly clientSecret?: string | undefined
  /** PKCS#8 PEM or a `CryptoKey`: authenticates with `private_key_jwt` instead of a secret. */
  readonly privateKey?: string | jose.CryptoKey | undefined
  /** The JWS algorithm of `privateKey` (default ES256). */
  readonly signingAlgorithm?: string | undefined
}

/**
 * The JWT bearer grant (RFC 7523) for workload identity: a JWT from the workload's identity provider.
 * Failures are surfaced as they are: no retry, no other grant.
 *
 * @since 0.1.0
 * @category models
 */
export interface JwtBearer {
  readonly clientId: string
  /** The assertion, or a function giving a fresh one for each token request. */
  readonly assertion: string | (() => HookResult<string>)
}

/**
 * Enterprise-managed authorization (SEP-990): the user's ID token is exchanged at the enterprise identity
 * provider (RFC 8693) for an ID-JAG, which the JWT bearer grant turns into an access token.
 *
 * @since 0.1.0
 * @category models
 */
export interface EnterpriseManaged {
  readonly clientId: string
  readonly clientSecret?: string | undefined
  readonly idpTokenEndpoint: string
  readonly idpIssuer?: string | undefined
  readonly idpClientId: string
  readonly idpClientSecret?: string | undefined
  /** The user's ID token from the identity provider. */
  readonly idToken: string | (() => HookResult<string>)
}

/**
 * How the client authorizes to an OAuth-protected Streamable HTTP server.
 *
 * Interactive (authorization code with PKCE): `redirectUrl` and `onAuthorize`, and a client identity found in
 * this order: `client` (pre-registered), `clientMetadataUrl` (when the server supports Client ID Metadata
 * Documents), Dynamic Client Registration. Without a user: `clientCredentials`, `jwtBearer`, `enterprise`, or
 * a `bearerToken` sent as it is.
 *
 * @since 0.1.0
 * @category models
 */
export interface AuthOptions {
  /** `client_name` at registration (default "mcp-effect"). */
  readonly clientName?: string | undefined
  /** Where the authorization server sends the browser back, e.g. a loopback receiver's URL. */
  readonly redirectUrl?: string | URL | undefined
  /**
   * The interactive step: open `authorizationUrl` for the user and give back the URL the browser was
   * redirected to (with `code`, `state`, `iss`).
   */
  readonly onAuthorize?: ((authorizationUrl: URL) => HookResult<string | URL>) | undefined
  readonly client?: PreRegisteredClient | undefined
  /** A Client ID Metadata Document URL, used as `client_id` where the server supports it. */
  readonly clientMetadataUrl?: string | undefined
  /** DCR `application_type` (default: `native` for a loopback or custom-scheme redirect, else `web`). */
  readonly applicationType?: "native" | "web" | undefined
  readonly clientCredentials?: ClientCredentials | undefined
  readonly jwtBearer?: JwtBearer | undefined
  readonly enterprise?: EnterpriseManaged | undefined
  /** A token sent as it is (`Authorization: Bearer …`); a 401 is then an error. */
  readonly bearerToken?: string | undefined
  /**
   * DPoP-bound tokens (RFC 9449): `true` always, `false` never; by default when the server's challenge offers
   * the `DPoP` scheme and the authorization server advertises `dpop_signing_alg_values_supported`.
   */
  readonly dpop?: boolean | undefined
  /**
   * Keep tokens and registrations in this JSON file (created 0600) when no `TokenStore` is provided: on Node,
   * Bun and Deno, through the Node entry (`@mcp-effect/client/node`).
   */
  readonly tokenFile?: string | undefined
  /**
   * Keep tokens and registrations in this Web Storage object (a page's `localStorage`) when no `TokenStore` is
   * provided: one key per MCP server, `mcp-effect/tokens/<server URL>`. (Effect code may provide any
   * `KeyValueStore` instead: `BrowserMcpAuth.layerKeyValueStore`.)
   */
  readonly tokenStorage?: WebStorage | undefined
  /** Ask for `offline_access` when the authorization server lists it (default true). */
  readonly offlineAccess?: boolean | undefined
  /**
   * The budget of a sign-in (default 5 minutes): the time `onAuthorize` may take (a person in the browser), and
   * likewise a function giving an assertion or an ID token. It is not charged to the request that met the
   * challenge: that request's timeout (and the era probe's) stands still while the authorization runs and goes
   * on once the credentials are there.
   */
  readonly signInTimeout?: Duration.Input | undefined
  /**
   * The budget of each HTTP exchange of an authorization (default 30 seconds): a metadata document, a
   * registration, a token request, a refresh. Inside a call it also ends with that call's `requestTimeout`
   * (what the client does alone is the call's time; the person's `onAuthorize` is not): an endpoint that does
   * not answer fails the authorization with an `McpAuthError` naming the step and the limit that ended it.
   */
  readonly exchangeTimeout?: Duration.Input | undefined
}
