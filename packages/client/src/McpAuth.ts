/**
 * OAuth authorization for Streamable HTTP servers, as the MCP authorization chapters (2025-11-25,
 * 2026-07-28) describe it. The HTTP transport asks this service for headers before each request and hands it
 * every 401/403; the OAuth mechanics are `oauth4webapi`'s and `jose`'s, the MCP policy is here:
 *
 * - discovery: Protected Resource Metadata from the challenge, then the path-based and the root well-known
 *   URI; authorization server metadata (RFC 8414, then OpenID Connect, path-aware) with its `issuer` checked;
 *   a PRM `resource` must be the resource its location was built from (RFC 9728 §3.3): this server (the root
 *   document may also name its origin), compared up to case, default port and one trailing slash; a broader
 *   one (the origin for a path-based document, a parent path) is refused before anything reaches an
 *   authorization server, stricter on purpose than a prefix match;
 *   2025-03-26 servers (no PRM) at their origin, then the default endpoints;
 * - the authorization code flow with PKCE S256 (refused when not advertised), `state` and RFC 9207 `iss`
 *   (simple string comparison), the `resource` parameter; the client is pre-registered, a Client ID Metadata
 *   Document URL, or registered dynamically (with `application_type`); the token endpoint authentication is
 *   one the server supports;
 * - scopes from the challenge, else the PRM's `scopes_supported`, else none; step-up on `403
 *   insufficient_scope` with the union of scopes, at most 3 step-ups in any 10 minutes and 32 scopes;
 *   `offline_access` only when the authorization server lists it;
 * - every authorization server endpoint, metadata URL and the authorization URL given to a person is https
 *   (or http on loopback), checked before use; PRM without `resource` is refused;
 * - refresh before expiry and on a 401; a refused refresh first looks at the token store (another program may
 *   have rotated the token), else clears the tokens and authorizes once more; a server that refuses what it
 *   has just issued is given up on after two authorizations per scope set (a token that lived its life
 *   resets that count); a new authorization server in the PRM means a fresh registration there;
 * - a sign-in has its own budget (`signInTimeout`, the person's time in `onAuthorize`), each HTTP exchange with
 *   an endpoint (metadata, registration, token, refresh) its own (`exchangeTimeout`, 30 s by default); what the
 *   client does alone for a call (an exchange, an assertion) also ends with that call's `requestTimeout`, while
 *   the person's time is not the call's: a machine-to-machine client whose token endpoint hangs fails the call
 *   at its timeout, and the next call authorizes afresh;
 * - extensions: `client_credentials` (secret, `private_key_jwt`), the JWT bearer grant (workload identity),
 *   enterprise-managed authorization, DPoP (a fresh proof per request, server nonces honoured).
 *
 * Tokens go only to the server they were issued for, never in a URL, and never appear in errors or logs: the
 * credentials the client holds are redacted from what servers say in errors.
 *
 * The token file (`tokenFile`, `layerFileStore`) and the loopback redirect receiver need Node: they are
 * `NodeMcpAuth`'s, in `@mcp-effect/client/node`. Anywhere else tokens stay in memory unless a `TokenStore` is
 * provided.
 *
 * ```ts
 * import { connectHttp, NodeMcpAuth } from "@mcp-effect/client/node"
 *
 * const receiver = await NodeMcpAuth.loopbackReceiver({ open: (url) => openBrowser(url) })
 * const client = await connectHttp({
 *   url: "https://example.com/mcp",
 *   auth: { clientName: "my app", redirectUrl: receiver.redirectUrl, onAuthorize: receiver.onAuthorize }
 * })
 * ```
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as HttpClient from "effect/http/HttpClient"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type { Engine } from "./internal/auth/engine.js"
import type { AuthOptions } from "./internal/auth/options.js"
import * as keyValueStore from "./internal/auth/keyValueStore.js"
import * as store from "./internal/auth/tokens.js"
import { McpAuthError } from "./McpAuthError.js"
import { McpTransportError } from "./McpError.js"
import * as McpTransport from "./McpTransport.js"

export type {
  AuthOptions,
  ClientCredentials,
  EnterpriseManaged,
  HookResult,
  JwtBearer,
  PreRegisteredClient
} from "./internal/auth/options.js"
export type { StoredClient, StoredEntry, StoredTokens } from "./internal/auth/tokens.js"
export type { WebStorage } from "./internal/auth/keyValueStore.js"
export { AuthStep, McpAuthError } from "./McpAuthError.js"

/**
 * Where tokens and client registrations are kept, one entry per MCP server and authorization server.
 *
 * @since 0.1.0
 * @category services
 */
export class TokenStore extends Context.Service<TokenStore, store.Store>()("@mcp-effect/client/McpAuth/TokenStore") {}

/**
 * Tokens in memory (the default when no `TokenStore` is provided).
 *
 * @since 0.1.0
 * @category layers
 */
export const layerMemoryStore: Layer.Layer<TokenStore> = Layer.sync(TokenStore, () => TokenStore.of(store.memory()))

/**
 * @since 0.1.0
 * @category models
 */
export interface Service {
  /**
   * The transport's authorizer for one MCP server URL. `requestTimeout`: the timeout of the client's requests,
   * which also bounds what the client does alone to authorize one of them (an exchange with a token endpoint,
   * an assertion), so that a hung endpoint fails the call at its timeout rather than at `exchangeTimeout`.
   */
  readonly forServer: (
    url: string | URL,
    options?: { readonly requestTimeout?: Duration.Input | undefined }
  ) => Effect.Effect<McpTransport.HttpAuthorizer>
}

/**
 * @since 0.1.0
 * @category services
 */
export class McpAuth extends Context.Service<McpAuth, Service>()("@mcp-effect/client/McpAuth") {}

// The OAuth engine (oauth4webapi and a dozen modules) is loaded on first use: most programs never authorize.
let engineModule: Promise<typeof import("./internal/auth/engine.js")> | undefined
const loadEngine = () => (engineModule ??= import("./internal/auth/engine.js"))

/** The transport's view of one server's OAuth engine. */
const authorizerOf = (auth: Engine): McpTransport.HttpAuthorizer => ({
  // An OAuth failure fails the request as it is: the caller catches the `McpAuthError` by its tag.
  headers: (request) => auth.headers(request.method, request.url),
  // Only a POST (a message) may start an authorization: the GET stream and the closing DELETE just carry what
  // there is.
  onChallenge: (challenge) =>
    challenge.request.method !== "POST"
      ? Effect.succeed("fail" as const)
      : auth.onChallenge(challenge.sent, challenge.status, challenge.headers).pipe(
        Effect.map((again) => again ? "retry" as const : "fail" as const)
      ),
  onResponse: (response) => auth.onResponse(response.headers),
  holdDuring: auth.holdDuring
})

/**
 * A store that refuses to be used: `tokenFile` was given where nothing reads files. Failing names the fix,
 * rather than keeping the tokens in memory while the caller believes they are saved.
 */
const noFileStore = (tokenFile: string): store.Store => {
  const refused = new McpAuthError({
    step: "discovery",
    detail: `tokenFile (${tokenFile}) is read and written by the Node entry point: use connectHttp or ` +
      `NodeMcpClient.layerHttp from "@mcp-effect/client/node", or provide NodeMcpAuth.layerFileStore(path) ` +
      `(or any TokenStore)`
  })
  return { load: () => Effect.fail(refused), save: () => Effect.void }
}

/**
 * The authorization service. Uses the `TokenStore` if one is provided, else `tokenStorage` (a page's
 * `localStorage`), else memory. `tokenFile` needs a
 * `TokenStore` that reads it (`NodeMcpAuth.layerFileStore`, which `NodeMcpClient.layerHttp` and the Node
 * `connectHttp` provide): without one, the authorization fails with an `McpAuthError` saying so.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (options: AuthOptions): Layer.Layer<McpAuth> =>
  Layer.effect(
    McpAuth,
    Effect.map(Effect.serviceOption(TokenStore), (provided) => {
      const tokens = Option.getOrElse(
        provided,
        () =>
          options.tokenStorage !== undefined
            ? keyValueStore.fromWebStorage(options.tokenStorage)
            : options.tokenFile === undefined
            ? store.memory()
            : noFileStore(options.tokenFile)
      )
      return McpAuth.of({
        forServer: (url, server) =>
          Effect.promise(loadEngine).pipe(
            Effect.flatMap((engine) =>
              engine.make(
                new URL(url),
                options,
                tokens,
                server?.requestTimeout === undefined ? undefined : Duration.fromInputUnsafe(server.requestTimeout)
              )
            ),
            Effect.map(authorizerOf)
          )
      })
    })
  )

/**
 * The Streamable HTTP transport with this service as its authorization.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerHttp = (
  options: McpTransport.HttpOptions & { readonly requestTimeout?: Duration.Input | undefined }
): Layer.Layer<McpTransport.McpTransport, never, McpAuth | HttpClient.HttpClient> =>
  Layer.unwrap(
    Effect.gen(function*() {
      const auth = yield* McpAuth
      const authorizer = yield* auth.forServer(options.url, options)
      return McpTransport.layerHttp({ ...options, authorizer })
    })
  )

/**
 * The `McpAuthError` behind a failure, if it was one: the error itself, or the `cause` of an `McpTransportError`
 * (reason `"Auth"`, as a custom `HttpAuthorizer` may report one).
 *
 * @since 0.1.0
 * @category utils
 */
export const authErrorOf = (error: unknown): McpAuthError | undefined => {
  if (error instanceof McpAuthError) return error
  if (error instanceof McpTransportError && error.cause instanceof McpAuthError) return error.cause
  return undefined
}
