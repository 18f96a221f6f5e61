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
 *   an endpoint (metadata, registration, token, refresh) its own (`exchangeTimeout`, 30 s by default), and the
 *   requests waiting on them are not charged for either;
 * - extensions: `client_credentials` (secret, `private_key_jwt`), the JWT bearer grant (workload identity),
 *   enterprise-managed authorization, DPoP (a fresh proof per request, server nonces honoured).
 *
 * Tokens go only to the server they were issued for, never in a URL, and never appear in errors or logs: the
 * credentials the client holds are redacted from what servers say in errors.
 *
 * ```ts
 * const receiver = await McpAuth.loopbackReceiver({ open: (url) => openBrowser(url) })
 * const client = await connectHttp({
 *   url: "https://example.com/mcp",
 *   auth: { clientName: "my app", redirectUrl: receiver.redirectUrl, onAuthorize: receiver.onAuthorize }
 * })
 * ```
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import type * as HttpClient from "effect/http/HttpClient"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import type { Engine } from "./internal/auth/engine.js"
import type * as loopback from "./internal/auth/loopback.js"
import type { AuthOptions } from "./internal/auth/options.js"
import * as store from "./internal/auth/store.js"
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
export type { LoopbackOptions, LoopbackReceiver } from "./internal/auth/loopback.js"
export type { StoredClient, StoredEntry, StoredTokens } from "./internal/auth/store.js"
export { AuthStep, McpAuthError } from "./McpAuthError.js"

/**
 * Where tokens and client registrations are kept, one entry per MCP server and authorization server.
 *
 * @since 0.1.0
 * @category tags
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
 * Tokens in a JSON file, created with mode 0600. Programs may share it: each save is locked across processes
 * (`<file>.lock`) and changes only its own entry; an unreadable file is kept aside as `<file>.corrupt-<time>`.
 * Only a regular file of at most 1 MiB is read: anything else there (a FIFO, a device, a huge file) is left as
 * it is, and the authorization fails with an `McpAuthError` naming it.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerFileStore = (path: string): Layer.Layer<TokenStore> =>
  Layer.sync(TokenStore, () => TokenStore.of(store.file(path)))

/**
 * Remove the stored sign-ins of one MCP server (its URL as the client was given it), or of every server, from
 * a token file of `layerFileStore` / `tokenFile`: under the file's lock, as saves take it, so that a sign-in
 * saved meanwhile by another program is kept. The number of entries removed.
 *
 * @since 0.1.0
 * @category utils
 */
export const forgetStored = (tokenFile: string, server?: string | undefined): Effect.Effect<number, Error> =>
  Effect.flatMap(
    Effect.try({
      try: () => server === undefined ? undefined : new URL(server).href,
      catch: () => new Error(`not a URL: ${JSON.stringify(server)}`)
    }),
    (href) => store.removeFromFile(tokenFile, href)
  )

/**
 * @since 0.1.0
 * @category models
 */
export interface Service {
  /** The transport's authorizer for one MCP server URL. */
  readonly forServer: (url: string | URL) => Effect.Effect<McpTransport.HttpAuthorizer>
}

/**
 * @since 0.1.0
 * @category tags
 */
export class McpAuth extends Context.Service<McpAuth, Service>()("@mcp-effect/client/McpAuth") {}

// The OAuth engine (oauth4webapi and a dozen modules) and the loopback receiver (node:http, whose ESM facade
// loads Node's bundled undici, http2, tls and zlib) are loaded on first use: most programs never authorize.
let engineModule: Promise<typeof import("./internal/auth/engine.js")> | undefined
const loadEngine = () => (engineModule ??= import("./internal/auth/engine.js"))
let loopbackModule: Promise<typeof import("./internal/auth/loopback.js")> | undefined
const loadLoopback = () => (loopbackModule ??= import("./internal/auth/loopback.js"))

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
 * The authorization service. Uses the `TokenStore` if one is provided, else `tokenFile`, else memory.
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
        () => options.tokenFile === undefined ? store.memory() : store.file(options.tokenFile)
      )
      return McpAuth.of({
        forServer: (url) =>
          Effect.promise(loadEngine).pipe(
            Effect.flatMap((engine) => engine.make(new URL(url), options, tokens)),
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
  options: McpTransport.HttpOptions
): Layer.Layer<McpTransport.McpTransport, never, McpAuth | HttpClient.HttpClient> =>
  Layer.unwrap(
    Effect.gen(function*() {
      const auth = yield* McpAuth
      const authorizer = yield* auth.forServer(options.url)
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

/**
 * Start a loopback redirect receiver on 127.0.0.1: its `redirectUrl` and `onAuthorize` go straight into the
 * options; `close()` when done.
 *
 * @since 0.1.0
 * @category constructors
 */
export const loopbackReceiver = (options?: loopback.LoopbackOptions): Promise<loopback.LoopbackReceiver> =>
  loadLoopback().then((module) => module.start(options))

/**
 * The loopback receiver as a scoped resource.
 *
 * @since 0.1.0
 * @category constructors
 */
export const loopbackReceiverScoped = (
  options?: loopback.LoopbackOptions
): Effect.Effect<loopback.LoopbackReceiver, never, Scope.Scope> =>
  Effect.acquireRelease(Effect.promise(() => loopbackReceiver(options)), (receiver) => Effect.promise(receiver.close))
