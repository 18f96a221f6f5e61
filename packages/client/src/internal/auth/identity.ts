/**
 * Who the client is at an authorization server, in the spec's order: pre-registered credentials, a Client ID
 * Metadata Document URL, Dynamic Client Registration; and how it authenticates at the token endpoint
 * (exactly a method the server supports).
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as oauth from "oauth4webapi"
import { McpAuthError } from "../../McpAuthError.js"
import { isRecord } from "../../McpSchema.js"
import { base64OfText } from "../bytes.js"
import { boundedFetch } from "./bounded.js"
import { exchange } from "./budgets.js"
import { secureUrl } from "./discovery.js"
import { importPrivateKey } from "./oauthCalls.js"
import type { AuthOptions } from "./options.js"
import type { StoredClient } from "./tokens.js"

/** @internal */
export interface ActiveClient {
  readonly issuer: string
  readonly client: oauth.Client
  readonly auth: oauth.ClientAuth
  readonly stored: StoredClient
  /** Where the identity came from. */
  readonly origin: "pre-registered" | "metadata-document" | "registered" | "stored"
}

/** The method to authenticate with a secret (or none), among those the server supports. @internal */
export const secretMethod = (as: oauth.AuthorizationServer, hasSecret: boolean): string => {
  // RFC 8414: absent means client_secret_basic.
  const supported = as.token_endpoint_auth_methods_supported ?? ["client_secret_basic"]
  if (!hasSecret) return "none"
  if (supported.includes("client_secret_basic")) return "client_secret_basic"
  if (supported.includes("client_secret_post")) return "client_secret_post"
  return "client_secret_basic"
}

/**
 * `client_secret_basic` with each part percent-encoded the way `encodeURIComponent` does (RFC 6749 §2.3.1):
 * oauth4webapi also escapes unreserved characters such as `-`, which servers that do not decode refuse.
 *
 * @internal
 */
export const basicAuth = (secret: string): oauth.ClientAuth => (_as, client, _body, headers) => {
  const credentials = `${encodeURIComponent(client.client_id)}:${encodeURIComponent(secret)}`
  headers.set("authorization", `Basic ${base64OfText(credentials)}`)
}

/** oauth4webapi's client authentication for a stored identity. @internal */
export const clientAuth = (stored: StoredClient): oauth.ClientAuth => {
  const secret = stored.clientSecret
  if (secret === undefined || stored.authMethod === "none") return oauth.None()
  return stored.authMethod === "client_secret_post" ? oauth.ClientSecretPost(secret) : basicAuth(secret)
}

/** @internal */
export const activate = (issuer: string, stored: StoredClient, origin: ActiveClient["origin"]): ActiveClient => ({
  issuer,
  client: { client_id: stored.clientId, token_endpoint_auth_method: stored.authMethod },
  auth: clientAuth(stored),
  stored,
  origin
})

const isNativeRedirect = (redirect: URL) =>
  !(redirect.protocol === "http:" || redirect.protocol === "https:") || redirect.hostname === "127.0.0.1" ||
  redirect.hostname === "localhost" || redirect.hostname === "[::1]"

/** The registration request's method: what the server supports, a secret-based one first. @internal */
const registrationMethod = (as: oauth.AuthorizationServer, publicClient: boolean): string => {
  const supported = as.token_endpoint_auth_methods_supported ?? ["client_secret_basic"]
  if (publicClient) return "none"
  return ["client_secret_basic", "client_secret_post", "none"].find((method) => supported.includes(method)) ?? "none"
}

/**
 * Whether the client registers as a public one (`token_endpoint_auth_method: none`): in a page (a `document`
 * here) or with tokens kept in Web Storage, where any script of the origin could read a client secret, so none is
 * asked for. A server that registers no public client refuses the registration, and says so.
 */
const isPublicClient = (options: AuthOptions): boolean => options.tokenStorage !== undefined || "document" in globalThis

/** Dynamic Client Registration (RFC 7591) at `as`. @internal */
export const register = (as: oauth.AuthorizationServer, options: AuthOptions, redirectUrl: URL) =>
  Effect.gen(function*() {
    if (as.registration_endpoint === undefined) {
      return yield* new McpAuthError({
        step: "registration",
        detail:
          `the authorization server ${as.issuer} offers no dynamic client registration and no pre-registered client or usable client metadata document was given`
      })
    }
    yield* secureUrl(as.registration_endpoint, "the registration endpoint")
    const publicClient = isPublicClient(options)
    if (publicClient && as.token_endpoint_auth_methods_supported?.includes("none") === false) {
      return yield* new McpAuthError({
        step: "registration",
        detail: `the authorization server ${as.issuer} registers no public client (token_endpoint_auth_method none), ` +
          "and a page cannot keep a client secret: give clientMetadataUrl or a pre-registered client"
      })
    }
    const requested = registrationMethod(as, publicClient)
    const metadata: Partial<oauth.Client> = {
      client_name: options.clientName ?? "mcp-effect",
      redirect_uris: [redirectUrl.href],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: requested,
      application_type: options.applicationType ?? (isNativeRedirect(redirectUrl) ? "native" : "web")
    }
    // Sent and read here rather than by oauth4webapi: it insists on `client_secret_expires_at`, which many
    // servers leave out.
    const endpoint = as.registration_endpoint
    const registered = yield* exchange(
      "registration",
      `the registration request to ${endpoint}`,
      Effect.tryPromise({
        try: async (signal) => {
          const response = await boundedFetch(endpoint, {
            method: "POST",
            headers: { "content-type": "application/json", accept: "application/json" },
            body: JSON.stringify(metadata),
            signal
          })
          const body: unknown = await response.json().catch(() => undefined)
          return { status: response.status, body: isRecord(body) ? body : {} }
        },
        catch: (cause) =>
          new McpAuthError({
            step: "registration",
            detail: `cannot reach ${endpoint}: ${cause instanceof Error ? cause.message : String(cause)}`
          })
      })
    )
    const body = registered.body
    if (registered.status < 200 || registered.status >= 300 || typeof body["client_id"] !== "string") {
      return yield* new McpAuthError({
        step: "registration",
        detail: `registering at ${endpoint} failed (HTTP ${registered.status})`,
        ...(typeof body["error"] === "string" ? { error: body["error"] } : {}),
        ...(typeof body["error_description"] === "string" ? { errorDescription: body["error_description"] } : {}),
        status: registered.status
      })
    }
    const secret = typeof body["client_secret"] === "string" ? body["client_secret"] : undefined
    const answered = typeof body["token_endpoint_auth_method"] === "string" ? body["token_endpoint_auth_method"] : undefined
    const method = secret === undefined ? "none" : answered ?? secretMethod(as, true)
    const stored: StoredClient = {
      clientId: body["client_id"],
      clientSecret: secret,
      authMethod: method,
      redirectUri: redirectUrl.href
    }
    return stored
  })

/**
 * A pre-registered client usable at `issuer`: one bound to it, or an unbound one never used elsewhere.
 *
 * @internal
 */
export const preRegistered = (
  as: oauth.AuthorizationServer,
  options: AuthOptions,
  boundTo: string | undefined
): StoredClient | undefined => {
  const client = options.client
  if (client === undefined) return undefined
  const issuer = client.issuer ?? boundTo
  if (issuer !== undefined && new URL(issuer).href !== new URL(as.issuer).href) return undefined
  const supported = as.token_endpoint_auth_methods_supported ?? ["client_secret_basic"]
  const useKey = client.privateKey !== undefined &&
    (supported.includes("private_key_jwt") || client.clientSecret === undefined)
  return {
    clientId: client.clientId,
    clientSecret: client.clientSecret,
    authMethod: useKey ? "private_key_jwt" : secretMethod(as, client.clientSecret !== undefined)
  }
}

/**
 * The active pre-registered client: with `private_key_jwt`, its key imported for oauth4webapi.
 *
 * @internal
 */
export const activatePreRegistered = (issuer: string, stored: StoredClient, options: AuthOptions) =>
  Effect.gen(function*() {
    const key = options.client?.privateKey
    const active = activate(issuer, stored, "pre-registered")
    if (stored.authMethod !== "private_key_jwt" || key === undefined) return active
    const imported = yield* importPrivateKey(key, options.client?.signingAlgorithm ?? "ES256")
    const withKey: ActiveClient = { ...active, auth: oauth.PrivateKeyJwt(imported) }
    return withKey
  })
