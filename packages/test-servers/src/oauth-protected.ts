/**
 * An OAuth-protected MCP server on loopback, built from pieces written by others:
 *
 * - the authorization server is `oidc-provider` (a certified OAuth 2.0 / OpenID Connect server): dynamic client
 *   registration, PKCE, resource indicators (RFC 8707), RFC 9207 `iss`, refresh tokens, revocation;
 * - the MCP server is the official SDK 1.x (`McpServer`, stateless Streamable HTTP) behind the SDK's
 *   `requireBearerAuth` middleware and `mcpAuthMetadataRouter` (Protected Resource Metadata).
 *
 * The user's part (login, consent) is approved at once: `/interaction/:uid` signs in `demo-user`, and every
 * grant is consented to. Tokens live in the provider's memory; `revokeAll()` ends every one of them.
 *
 * Opt-in, for a browser's client: CORS for one page origin (`cors`), and Client ID Metadata Documents as client
 * ids (`clientMetadataDocuments`).
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js"
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js"
import { InvalidTokenError } from "@modelcontextprotocol/sdk/server/auth/errors.js"
import { requireBearerAuth } from "@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js"
import { getOAuthProtectedResourceMetadataUrl, mcpAuthMetadataRouter } from "@modelcontextprotocol/sdk/server/auth/router.js"
import type { OAuthMetadata } from "@modelcontextprotocol/sdk/shared/auth.js"
import express from "express"
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import Provider, { type AccessToken, type Adapter, type AdapterPayload, type RefreshToken } from "oidc-provider"

export interface OAuthProtectedOptions {
  /** Access token lifetime in seconds (default 3600). */
  readonly accessTokenTtl?: number
  /** The scope the MCP server requires (default `mcp:tools`). */
  readonly scope?: string
  /** Rotate the refresh token on every refresh (single use: a reused one is refused and ends the grant). */
  readonly rotateRefreshTokens?: boolean
  /**
   * Let a page on `origin` (e.g. `http://127.0.0.1:5173`) call the MCP endpoint, its Protected Resource
   * Metadata, and the authorization server's metadata, registration and token endpoints (off by default:
   * the other tests' clients are not browsers, and CORS is a browser's rule).
   */
  readonly cors?: { readonly origin: string }
  /**
   * Accept Client ID Metadata Documents: a `client_id` that is an http(s) URL is fetched, and its document
   * (whose `client_id` must be that URL) is the client (advertised as `client_id_metadata_document_supported`).
   * oidc-provider does not fetch them by itself: its storage is then this module's, which does.
   */
  readonly clientMetadataDocuments?: boolean
  /**
   * Refuse every dynamic client registration with this reason: 400 `invalid_client_metadata` and the reason as
   * its `error_description` (RFC 7591 section 3.2.2), as a server with a policy the client does not meet answers.
   */
  readonly refuseRegistration?: string
}

export interface OAuthProtected {
  readonly mcpUrl: string
  readonly issuer: string
  /** How many times the authorization server completed each thing. */
  readonly counts: {
    authorizations: number
    registrations: number
    grants: Record<string, number>
    /** Refresh requests the token endpoint refused. */
    refusedRefreshes: number
  }
  /** Hold every token request this long before answering it; one whose client went away is dropped. */
  readonly setTokenDelay: (ms: number) => void
  /** The client an access token was issued to (undefined for a token the server does not know). */
  readonly clientOf: (accessToken: string) => Promise<string | undefined>
  /** Revoke every access and refresh token issued so far. */
  readonly revokeAll: () => Promise<void>
  /** Revoke the access tokens only (as if they had expired at the server). */
  readonly revokeAccessTokens: () => Promise<void>
  readonly close: () => Promise<void>
}

const listen = (server: Server) =>
  new Promise<number>((resolve, reject) => {
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => resolve((server.address() as AddressInfo).port))
  })

const closeServer = (server: Server) =>
  new Promise<void>((resolve) => {
    server.closeAllConnections()
    server.close(() => resolve())
  })

const mcpServer = () => {
  const server = new McpServer({ name: "oauth-protected-demo", version: "1.0.0" })
  server.registerTool(
    "whoami",
    { description: "Who the bearer token belongs to" },
    (extra) => ({ content: [{ type: "text", text: `hello ${String(extra.authInfo?.extra?.["sub"] ?? "?")}` }] })
  )
  return server
}

/** What a page may send to the MCP endpoint and the authorization server (and every `Mcp-*` header). */
const ALLOWED_HEADERS = new Set(["authorization", "dpop", "content-type", "accept", "last-event-id"])
const EXPOSED_HEADERS = "WWW-Authenticate, Mcp-Session-Id, DPoP-Nonce"

/**
 * CORS for a request from `origin`: the response headers are set, and a preflight is answered here (returns
 * true: the request is done). A request from any other origin gets no CORS header, so the browser refuses it.
 */
const allowOrigin = (origin: string, req: IncomingMessage, res: ServerResponse): boolean => {
  res.setHeader("Vary", "Origin")
  if (req.headers.origin !== origin) return false
  res.setHeader("Access-Control-Allow-Origin", origin)
  res.setHeader("Access-Control-Expose-Headers", EXPOSED_HEADERS)
  if (req.method !== "OPTIONS") return false
  const requested = (req.headers["access-control-request-headers"] ?? "").split(",").map((h) => h.trim().toLowerCase())
  const allowed = requested.filter((h) => ALLOWED_HEADERS.has(h) || h.startsWith("mcp-"))
  res.writeHead(204, {
    "Access-Control-Allow-Methods": "GET, POST, DELETE",
    "Access-Control-Allow-Headers": allowed.join(", "),
    "Access-Control-Max-Age": "600"
  })
  res.end()
  return true
}

/** A Client ID Metadata Document's client, or undefined when `id` is no URL or its document does not fit. */
const fetchClientMetadata = async (id: string): Promise<AdapterPayload | undefined> => {
  if (!/^https?:\/\//.test(id)) return undefined
  const response = await fetch(id, { headers: { accept: "application/json" } }).catch(() => undefined)
  if (response === undefined || !response.ok) return undefined
  const document: unknown = await response.json().catch(() => undefined)
  if (typeof document !== "object" || document === null || Reflect.get(document, "client_id") !== id) return undefined
  // A document names a public client: no secret can be published in it.
  return { ...(document as AdapterPayload), token_endpoint_auth_method: "none" }
}

/**
 * oidc-provider's storage in memory (as its development adapter keeps it), one map per model; the `Client`
 * model also answers a URL client id with its Client ID Metadata Document, fetched at each look-up (a test
 * server: no cache to keep fresh).
 */
const memoryAdapter = (model: string): Adapter => {
  const entries = new Map<string, { payload: AdapterPayload; expiresAt: number }>()
  const live = (id: string): AdapterPayload | undefined => {
    const entry = entries.get(id)
    if (entry === undefined) return undefined
    if (entry.expiresAt > Date.now()) return entry.payload
    entries.delete(id)
    return undefined
  }
  const findBy = (field: "uid" | "userCode", value: string) =>
    [...entries.keys()].map(live).find((payload) => payload?.[field] === value)
  return {
    upsert: async (id, payload, expiresIn) =>
      void entries.set(id, { payload, expiresAt: expiresIn === undefined ? Infinity : Date.now() + expiresIn * 1000 }),
    find: async (id) => live(id) ?? (model === "Client" ? fetchClientMetadata(id) : undefined),
    findByUid: async (uid) => findBy("uid", uid),
    findByUserCode: async (userCode) => findBy("userCode", userCode),
    consume: async (id) => {
      const payload = live(id)
      if (payload !== undefined) payload.consumed = Math.floor(Date.now() / 1000)
    },
    destroy: async (id) => void entries.delete(id),
    revokeByGrantId: async (grantId) => {
      for (const [id, entry] of entries) if (entry.payload.grantId === grantId) entries.delete(id)
    }
  }
}

export const startOAuthProtected = async (options: OAuthProtectedOptions = {}): Promise<OAuthProtected> => {
  const scope = options.scope ?? "mcp:tools"
  const asServer = createServer()
  const asPort = await listen(asServer)
  const rsServer = createServer()
  const rsPort = await listen(rsServer)
  const issuer = `http://127.0.0.1:${asPort}`
  const mcpUrl = `http://127.0.0.1:${rsPort}/mcp`

  const counts = { authorizations: 0, registrations: 0, grants: {} as Record<string, number>, refusedRefreshes: 0 }
  let tokenDelay = 0
  const accessTokens: Array<AccessToken> = []
  const refreshTokens: Array<RefreshToken> = []

  // eslint-disable-next-line prefer-const
  let provider: Provider
  provider = new Provider(issuer, {
    clients: [],
    ...(options.clientMetadataDocuments === true
      ? { adapter: memoryAdapter, discovery: { client_id_metadata_document_supported: true } }
      : {}),
    scopes: ["openid", "offline_access"],
    features: {
      devInteractions: { enabled: false },
      registration: { enabled: true },
      revocation: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => mcpUrl,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx, resource) => {
          if (resource !== mcpUrl) throw new Error(`unknown resource ${resource}`)
          return { scope, audience: mcpUrl, accessTokenTTL: options.accessTokenTtl ?? 3600, accessTokenFormat: "opaque" }
        }
      }
    },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    // The token and revocation endpoints answer a cross-origin page only from the configured origin.
    clientBasedCORS: (_ctx, origin) => options.cors !== undefined && origin === options.cors.origin,
    findAccount: (_ctx, sub) => ({ accountId: sub, claims: () => ({ sub }) }),
    issueRefreshToken: () => true,
    ...(options.rotateRefreshTokens === true ? { rotateRefreshToken: true } : {}),
    ttl: { AccessToken: options.accessTokenTtl ?? 3600, RefreshToken: 86_400, Grant: 86_400, Session: 86_400, Interaction: 600, AuthorizationCode: 60 }
  })
  provider.on("grant.success", (ctx) => {
    const type = String(ctx.oidc.params?.["grant_type"] ?? "?")
    counts.grants[type] = (counts.grants[type] ?? 0) + 1
  })
  provider.on("grant.error", (ctx) => {
    if (ctx.oidc.params?.["grant_type"] === "refresh_token") counts.refusedRefreshes++
  })
  provider.on("registration_create.success", () => void counts.registrations++)
  provider.on("access_token.saved", (token) => void accessTokens.push(token))
  provider.on("refresh_token.saved", (token) => void refreshTokens.push(token))

  const callback = provider.callback()
  asServer.on("request", (req, res) => {
    // oidc-provider gives its registration endpoint no CORS: this wrapper does, for the configured origin.
    if (options.cors !== undefined && req.url === "/reg" && allowOrigin(options.cors.origin, req, res)) return
    if (options.refuseRegistration !== undefined && req.method === "POST" && req.url === "/reg") {
      res.writeHead(400, { "content-type": "application/json", "cache-control": "no-store" })
      return void res.end(JSON.stringify({ error: "invalid_client_metadata", error_description: options.refuseRegistration }))
    }
    const match = /^\/interaction\/([^/?]+)/.exec(req.url ?? "")
    if (match === null && tokenDelay > 0 && req.method === "POST" && req.url === "/token") {
      return void setTimeout(() => {
        if (req.socket.destroyed) return void res.destroy()
        callback(req, res)
      }, tokenDelay)
    }
    if (match === null) return void callback(req, res)
    finishInteraction(req, res).catch((error: unknown) => {
      res.statusCode = 400
      res.end(error instanceof Error ? error.message : String(error))
    })
  })

  /** Sign `demo-user` in, then consent to every scope asked for. */
  const finishInteraction = async (req: IncomingMessage, res: ServerResponse) => {
    const details = await provider.interactionDetails(req, res)
    if (details.prompt.name === "login") {
      counts.authorizations++
      return provider.interactionFinished(req, res, { login: { accountId: "demo-user" } }, { mergeWithLastSubmission: false })
    }
    const accountId = details.session?.accountId ?? "demo-user"
    const clientId = String(details.params["client_id"])
    const grant = details.grantId === undefined
      ? new provider.Grant({ accountId, clientId })
      : await provider.Grant.find(details.grantId) ?? new provider.Grant({ accountId, clientId })
    const missing = details.prompt.details as {
      missingOIDCScope?: Array<string>
      missingResourceScopes?: Record<string, Array<string>>
    }
    if (missing.missingOIDCScope !== undefined) grant.addOIDCScope(missing.missingOIDCScope.join(" "))
    for (const [resource, scopes] of Object.entries(missing.missingResourceScopes ?? {})) {
      grant.addResourceScope(resource, scopes.join(" "))
    }
    const grantId = await grant.save()
    return provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true })
  }

  const metadata = await (await fetch(`${issuer}/.well-known/openid-configuration`)).json() as OAuthMetadata
  const app = express()
  if (options.cors !== undefined) {
    const { origin } = options.cors
    app.use((req, res, next) => void (allowOrigin(origin, req, res) || next()))
  }
  app.use(express.json())
  app.use(mcpAuthMetadataRouter({ oauthMetadata: metadata, resourceServerUrl: new URL(mcpUrl), scopesSupported: [scope] }))
  const verifier = {
    verifyAccessToken: async (token: string) => {
      const found = await provider.AccessToken.find(token)
      if (found === undefined || found.isExpired) throw new InvalidTokenError("unknown or expired token")
      return {
        token,
        clientId: found.clientId ?? "?",
        scopes: (found.scope ?? "").split(" ").filter((s) => s !== ""),
        expiresAt: found.exp ?? Math.floor(Date.now() / 1000) + 60,
        resource: new URL(mcpUrl),
        extra: { sub: found.accountId }
      }
    }
  }
  app.post(
    "/mcp",
    requireBearerAuth({ verifier, requiredScopes: [scope], resourceMetadataUrl: getOAuthProtectedResourceMetadataUrl(new URL(mcpUrl)) }),
    async (req, res) => {
      const server = mcpServer()
      // Stateless: no session id generator.
      const transport = new StreamableHTTPServerTransport({ enableJsonResponse: true } as ConstructorParameters<
        typeof StreamableHTTPServerTransport
      >[0])
      res.on("close", () => {
        void transport.close()
        void server.close()
      })
      await server.connect(transport)
      await transport.handleRequest(req, res, req.body)
    }
  )
  app.all("/mcp", (_req, res) => void res.status(405).set("allow", "POST").end())
  rsServer.on("request", app)

  return {
    mcpUrl,
    issuer,
    counts,
    setTokenDelay: (ms) => void (tokenDelay = ms),
    clientOf: async (accessToken) => (await provider.AccessToken.find(accessToken))?.clientId,
    revokeAll: async () => {
      for (const token of [...accessTokens, ...refreshTokens]) await token.destroy()
    },
    revokeAccessTokens: async () => {
      for (const token of accessTokens) await token.destroy()
    },
    close: async () => {
      await closeServer(rsServer)
      await closeServer(asServer)
    }
  }
}

/**
 * A browser for the authorization URL: follows the authorization server's redirects (keeping its cookies)
 * until one points at `redirectUrl`, and returns that URL.
 */
export const followAuthorization = async (authorizationUrl: URL, redirectUrl: string): Promise<string> => {
  const cookies = new Map<string, string>()
  let next = authorizationUrl.href
  for (let hop = 0; hop < 10; hop++) {
    if (next.startsWith(redirectUrl)) return next
    const response = await fetch(next, {
      redirect: "manual",
      headers: { cookie: [...cookies].map(([name, value]) => `${name}=${value}`).join("; ") }
    })
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(";")
      const at = pair?.indexOf("=") ?? -1
      if (pair !== undefined && at > 0) cookies.set(pair.slice(0, at).trim(), pair.slice(at + 1).trim())
    }
    const location = response.headers.get("location")
    await response.body?.cancel()
    if (location === null) throw new Error(`the authorization server answered HTTP ${response.status} without a redirect`)
    next = new URL(location, next).href
  }
  throw new Error("too many redirects")
}
