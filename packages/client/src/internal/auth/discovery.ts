/**
 * Discovery, in the order the MCP authorization chapter gives: Protected Resource Metadata (RFC 9728) from
 * the challenge's `resource_metadata`, then the path-based and the root well-known URI; authorization server
 * metadata (RFC 8414, OpenID Connect discovery) at the issuer's well-known URIs, path-aware, with the
 * metadata `issuer` checked (RFC 8414 §3.3). Without PRM (2025-03-26 servers): the MCP server's origin is
 * the authorization server, and without its metadata the default endpoints there.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as oauth from "oauth4webapi"
import { McpAuthError } from "../../McpAuthError.js"
import { isRecord } from "../../McpSchema.js"
import { boundedFetch } from "./bounded.js"
import { exchange } from "./budgets.js"
import { isLoopback, isSecure } from "../secureUrl.js"

/** @internal */
export interface ResourceMetadata {
  readonly resource: string
  readonly authorizationServers: ReadonlyArray<string>
  readonly scopesSupported: ReadonlyArray<string> | undefined
}

/** @internal */
export interface Discovered {
  /** Undefined for a 2025-03-26 server (no PRM). */
  readonly prm: ResourceMetadata | undefined
  readonly as: oauth.AuthorizationServer
  /** Whether the metadata was made up from the default endpoints (no metadata document). */
  readonly synthetic: boolean
  /** The `resource` parameter (RFC 8707) to send. */
  readonly resource: string
}

/** https, or plain http on a loopback host: what any URL the flow uses or hands a person must be. @internal */
export { isSecure } from "../secureUrl.js"

/** `text` as a URL the flow may use (see `isSecure`), or why not. @internal */
export const secureUrl = (text: string, what: string, step: "discovery" | "authorization" = "discovery") =>
  Effect.suspend(() => {
    let url: URL
    try {
      url = new URL(text)
    } catch {
      return Effect.fail(new McpAuthError({ step, detail: `${what} is not a URL` }))
    }
    return isSecure(url)
      ? Effect.succeed(url)
      : Effect.fail(
        new McpAuthError({ step, detail: `${what} ${url.origin} is not https (plain http only on loopback); refusing to use it` })
      )
  })

/** The endpoints of the authorization server the flow uses: each must be https (or http on loopback). */
const ENDPOINTS = ["authorization_endpoint", "token_endpoint", "registration_endpoint"] as const

/** Check every endpoint of the metadata before anything is sent to one. @internal */
export const checkEndpoints = (as: oauth.AuthorizationServer) =>
  Effect.forEach(ENDPOINTS, (name) => {
    const value = as[name]
    return value === undefined ? Effect.void : Effect.asVoid(secureUrl(value, `the authorization server's ${name}`))
  }, { discard: true })

/** oauth4webapi options: bounded answers; plain http only to loopback hosts. @internal */
export const httpOptions = (url: URL): {
  [oauth.allowInsecureRequests]?: boolean
  [oauth.customFetch]: (url: string, init: RequestInit) => Promise<Response>
} =>
  url.protocol === "http:" && isLoopback(url)
    ? { [oauth.allowInsecureRequests]: true, [oauth.customFetch]: boundedFetch }
    : { [oauth.customFetch]: boundedFetch }

const failDiscovery = (detail: string, status?: number) =>
  new McpAuthError(status === undefined ? { step: "discovery", detail } : { step: "discovery", detail, status })

/** `location` against `base` (as it is when it is no URL at all: `secureUrl` says so). */
const resolved = (location: string, base: URL): string => {
  try {
    return new URL(location, base).href
  } catch {
    return location
  }
}

/** Redirects a metadata GET follows, each to https (or http on loopback) only. */
const MAX_REDIRECTS = 3

const get = (url: URL, hops = 0): Effect.Effect<Response, McpAuthError> =>
  exchange(
    "discovery",
    `GET ${url.href}`,
    Effect.tryPromise({
      try: (signal) => boundedFetch(url, { headers: { accept: "application/json" }, signal, redirect: "manual" }),
      catch: (cause) => failDiscovery(`cannot reach ${url.href}: ${cause instanceof Error ? cause.message : String(cause)}`)
    })
  ).pipe(Effect.flatMap((response) => {
    const location = response.status >= 300 && response.status < 400 ? response.headers.get("location") : null
    if (location === null) return Effect.succeed(response)
    if (hops >= MAX_REDIRECTS) return Effect.fail(failDiscovery(`${url.href} redirects more than ${MAX_REDIRECTS} times`))
    return Effect.flatMap(secureUrl(resolved(location, url), `${url.href} redirects to`), (next) => get(next, hops + 1))
  }))

const readJson = (response: Response, url: URL) =>
  Effect.tryPromise({
    try: () => response.json() as Promise<unknown>,
    catch: () => failDiscovery(`${url.href} did not answer JSON`, response.status)
  })

const strings = (value: unknown): ReadonlyArray<string> | undefined =>
  Array.isArray(value) ? value.filter((item): item is string => typeof item === "string") : undefined

/**
 * A place protected resource metadata may be fetched from, and the resource identifiers a document there may
 * name (RFC 9728 §3.3: the one the location was built from; anything else is not used).
 *
 * @internal
 */
export interface PrmLocation {
  readonly url: URL
  readonly names: ReadonlyArray<string>
}

/**
 * The PRM locations, in order: the challenge's `resource_metadata` (its document must name the URL the client
 * asked, this server); the path-based well-known URI built from this server (it must name this server); the
 * root well-known URI, built from the origin (it may name the origin, as RFC 9728 says, or this server itself,
 * which is narrower and what servers that publish only the root document name).
 *
 * @internal
 */
export const prmUrls = (server: URL, fromChallenge: string | undefined): ReadonlyArray<PrmLocation> => {
  const self = canonicalResource(server)
  const locations: Array<PrmLocation> = []
  if (fromChallenge !== undefined) {
    try {
      locations.push({ url: new URL(fromChallenge, server), names: [self] })
    } catch {
      // An unusable URL in the challenge: the well-known locations still apply.
    }
  }
  const path = server.pathname.replace(/\/$/, "")
  if (path !== "") locations.push({ url: new URL(`/.well-known/oauth-protected-resource${path}`, server.origin), names: [self] })
  locations.push({ url: new URL("/.well-known/oauth-protected-resource", server.origin), names: [server.origin, self] })
  return locations
}

/** The authorization server metadata locations for an issuer, in the spec's order. @internal */
export const asMetadataUrls = (issuer: URL): ReadonlyArray<URL> => {
  const path = issuer.pathname.replace(/\/$/, "")
  if (path === "") {
    return [
      new URL("/.well-known/oauth-authorization-server", issuer.origin),
      new URL("/.well-known/openid-configuration", issuer.origin)
    ]
  }
  return [
    new URL(`/.well-known/oauth-authorization-server${path}`, issuer.origin),
    new URL(`/.well-known/openid-configuration${path}`, issuer.origin),
    new URL(`${path}/.well-known/openid-configuration`, issuer.origin)
  ]
}

/**
 * Two resource identifiers compared after the normalisations of RFC 3986 §6.2.2 and §6.2.3 that the URL parser
 * applies (case of scheme and host, the default port, dot segments, an empty path as `/`), and one trailing
 * slash of the path ignored; nothing else: another path, a parent path, a query or a fragment differs.
 *
 * @internal
 */
export const sameResource = (resource: string, expected: string): boolean => {
  const normal = (text: string) => {
    const url = new URL(text)
    if (url.pathname.endsWith("/")) url.pathname = url.pathname.slice(0, -1)
    return url.href
  }
  try {
    return normal(resource) === normal(expected)
  } catch {
    return false
  }
}

/** The canonical URI of the server as a resource: no fragment, no query. @internal */
export const canonicalResource = (server: URL): string => {
  const url = new URL(server.href)
  url.hash = ""
  url.search = ""
  return url.href
}

/**
 * The PRM document at `location`, its `resource` checked: one without it, or naming another resource than the
 * location is for (a broader one would have the token asked for more than this server), is refused.
 */
const resourceMetadata = (location: PrmLocation, body: unknown) =>
  Effect.gen(function*() {
    const url = location.url
    if (!isRecord(body)) return yield* failDiscovery(`${url.href} is not a protected resource metadata document`)
    const resource = body["resource"]
    if (typeof resource !== "string") {
      return yield* failDiscovery(
        `the protected resource metadata at ${url.href} names no resource (RFC 9728 requires it); refusing to authorize`
      )
    }
    if (!location.names.some((expected) => sameResource(resource, expected))) {
      return yield* failDiscovery(
        `the protected resource metadata at ${url.href} names resource ${resource}, which is not this server (${
          location.names.join(" or ")
        }, RFC 9728 §3.3); refusing to authorize for it`
      )
    }
    const prm: ResourceMetadata = {
      resource,
      authorizationServers: strings(body["authorization_servers"]) ?? [],
      scopesSupported: strings(body["scopes_supported"])
    }
    return prm
  })

/** Fetch PRM at the first location that has it, checked; `undefined` when none does. @internal */
export const fetchResourceMetadata = (server: URL, fromChallenge: string | undefined) =>
  Effect.gen(function*() {
    for (const location of prmUrls(server, fromChallenge)) {
      const url = location.url
      if (!isSecure(url)) {
        return yield* failDiscovery(
          `the protected resource metadata URL ${url.origin} is not https (plain http only on loopback); refusing to fetch it`
        )
      }
      const response = yield* get(url)
      if (response.status !== 200) {
        continue
      }
      return yield* resourceMetadata(location, yield* readJson(response, url))
    }
    return undefined
  })

/**
 * Fetch and check the metadata of an issuer; `undefined` when no location has it. The document's `issuer`
 * must be identical to `issuerText` (RFC 8414 §3.3): oauth4webapi's own check compares normalized URLs, so the
 * exact string is compared here too.
 *
 * @internal
 */
export const fetchServerMetadata = (issuerText: string) =>
  Effect.gen(function*() {
    const issuer = yield* Effect.try({
      try: () => new URL(issuerText),
      catch: () => failDiscovery(`the authorization server ${issuerText} is not a URL`)
    })
    if (issuer.protocol !== "https:" && !(issuer.protocol === "http:" && isLoopback(issuer))) {
      return yield* failDiscovery(`the authorization server ${issuerText} is not on https (plain http only on loopback)`)
    }
    for (const url of asMetadataUrls(issuer)) {
      const response = yield* get(url)
      if (response.status >= 400 && response.status < 500) {
        continue
      }
      const as = yield* Effect.tryPromise({
        try: () => oauth.processDiscoveryResponse(issuer, response),
        catch: (cause) =>
          failDiscovery(
            `the authorization server metadata at ${url.href} is not usable: ${
              cause instanceof Error ? cause.message : String(cause)
            } (expected issuer ${issuer.href})`,
            response.status
          )
      })
      if (as.issuer !== issuerText) {
        return yield* failDiscovery(
          `the authorization server metadata at ${url.href} names issuer ${as.issuer}, not ${issuerText} exactly`
        )
      }
      return as
    }
    return undefined
  })

/** The default endpoints of a 2025-03-26 server without metadata. @internal */
export const defaultEndpoints = (origin: URL): oauth.AuthorizationServer => ({
  issuer: origin.origin,
  authorization_endpoint: new URL("/authorize", origin.origin).href,
  token_endpoint: new URL("/token", origin.origin).href,
  registration_endpoint: new URL("/register", origin.origin).href,
  code_challenge_methods_supported: ["S256"]
})

/**
 * The whole discovery for a server. `preferIssuer` (the one tokens came from) is kept when the PRM still
 * lists it; otherwise the first listed authorization server is used.
 *
 * @internal
 */
export const discover = (server: URL, fromChallenge: string | undefined, preferIssuer: string | undefined) =>
  Effect.gen(function*() {
    const prm = yield* fetchResourceMetadata(server, fromChallenge)
    if (prm !== undefined) {
      const issuerText = prm.authorizationServers.find((s) => s === preferIssuer) ?? prm.authorizationServers[0]
      if (issuerText === undefined) return yield* failDiscovery("the protected resource metadata lists no authorization server")
      const as = yield* fetchServerMetadata(issuerText)
      if (as === undefined) return yield* failDiscovery(`no authorization server metadata for ${issuerText}`)
      yield* checkEndpoints(as)
      const discovered: Discovered = { prm, as, synthetic: false, resource: prm.resource }
      return discovered
    }
    // 2025-03-26: the MCP server's origin is the authorization server.
    const origin = new URL(server.origin)
    const as = yield* fetchServerMetadata(server.origin)
    yield* checkEndpoints(as ?? defaultEndpoints(origin))
    const discovered: Discovered = {
      prm: undefined,
      as: as ?? defaultEndpoints(origin),
      synthetic: as === undefined,
      resource: canonicalResource(server)
    }
    return discovered
  })
