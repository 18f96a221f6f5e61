/**
 * Server Cards (SEP-2127, the MCP Server Card extension): what a server says it is before anyone connects to it.
 *
 * - `catalog(origin)`: the domain's AI Catalog at `/.well-known/ai-catalog.json` (or, when that is 404, the
 *   extension's earlier `/.well-known/mcp/catalog.json`), with its MCP Server Card entries listed.
 * - `card(url)`: the card at a URL (from a catalog, or `cardUrl(endpoint)`, the `<endpoint>/server-card` location
 *   the extension reserves), asked for as `application/mcp-server-card+json`; `application/json` is accepted too.
 * - `connectionOptions(card)`: the `{ url }` of its Streamable HTTP endpoint, and nothing about credentials (a
 *   URL's userinfo and credential-named query parameters stripped).
 * - `live(client)` and `compare(card, live)`: where the card contradicts the connected server.
 *
 * Every fetch runs on the `HttpClient` in context (`FetchHttpClient.layer` anywhere, `NodeHttpClient` on Node)
 * and follows the rules OAuth metadata discovery follows: https only (plain http only to a loopback host),
 * checked before anything is sent; at most 5 redirects, each hop checked the same way; a body of at most 1 MiB
 * (reading stops there) within 30 seconds; the media type checked before the body is read. Answers are kept
 * in memory as the extension asks: reused while `Cache-Control: max-age` says fresh, then revalidated with
 * `If-None-Match` when they had an `ETag` (`no-store`, or neither header: not kept); times on the Effect `Clock`.
 * Every failure is an `McpDiscoveryError` whose `reason` says which rule failed.
 *
 * A card is advisory. Anyone can publish one; a stale or crafted card may claim another name, more protocol
 * revisions or other tools than the server has. Nothing here uses a card for a security decision (which server
 * to trust, what to authorize, which credentials to send), and once connected what the server itself says
 * (`server/discover`, `initialize`, `tools/list`) wins.
 *
 * @since 0.1.0
 */
import type * as Effect from "effect/Effect"
import type * as HttpClient from "effect/http/HttpClient"
import * as Layer from "effect/Layer"
import type * as Option from "effect/Option"
import type { McpClientError } from "./McpError.js"
import type { Service as McpClientService } from "./McpClient.js"
import * as advice from "./internal/discovery/advice.js"
import * as cache from "./internal/discovery/cache.js"
import * as documents from "./internal/discovery/documents.js"
import * as errors from "./internal/discovery/error.js"
import * as fetch from "./internal/discovery/fetch.js"
import * as schema from "./internal/discovery/schema.js"
import * as liveServer from "./internal/discovery/live.js"

/**
 * Which rule a discovery failed: `http` (no answer, or a status other than 200), `media-type`, `too-large`,
 * `insecure` (a URL that is not https, refused before any request), `redirect` (too many, a hop that is not
 * https, or one without a usable `Location`), `invalid` (not JSON, or not a card or a catalog), `timeout` (no
 * whole answer within 30 seconds).
 *
 * @since 0.1.0
 * @category models
 */
export const DiscoveryReason = errors.DiscoveryReason

/**
 * @since 0.1.0
 * @category models
 */
export type DiscoveryReason = errors.DiscoveryReason

/**
 * A discovery failure: the `reason`, the URL and a short detail (never the body the host sent).
 *
 * @since 0.1.0
 * @category errors
 */
export const McpDiscoveryError = errors.McpDiscoveryError

/**
 * @since 0.1.0
 * @category errors
 */
export type McpDiscoveryError = errors.McpDiscoveryError

/**
 * The card's media type, `application/mcp-server-card+json`.
 *
 * @since 0.1.0
 * @category constants
 */
export const CARD_MEDIA_TYPE = schema.CARD_MEDIA_TYPE

/**
 * The largest card or catalog read (1 MiB).
 *
 * @since 0.1.0
 * @category constants
 */
export const MAX_BODY_BYTES = fetch.MAX_BODY_BYTES

/**
 * Redirects one fetch follows (5).
 *
 * @since 0.1.0
 * @category constants
 */
export const MAX_REDIRECTS = fetch.MAX_REDIRECTS

/**
 * A Server Card: `name` (reverse DNS, `com.example/weather`) and `version` required, the rest optional; every
 * field this client does not know is kept.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ServerCard = schema.ServerCard

/**
 * @since 0.1.0
 * @category models
 */
export type ServerCard = typeof schema.ServerCard.Type

/**
 * One endpoint of a card (`type` `streamable-http` or `sse`, its `url`, headers and URL variables it describes,
 * the protocol revisions it says it speaks).
 *
 * @since 0.1.0
 * @category schemas
 */
export const Remote = schema.Remote

/**
 * @since 0.1.0
 * @category models
 */
export type Remote = typeof schema.Remote.Type

/**
 * An AI Catalog: `specVersion` and `entries` (any artifact type; unknown fields kept).
 *
 * @since 0.1.0
 * @category schemas
 */
export const Catalog = schema.Catalog

/**
 * @since 0.1.0
 * @category models
 */
export type Catalog = typeof schema.Catalog.Type

/**
 * @since 0.1.0
 * @category schemas
 */
export const CatalogEntry = schema.CatalogEntry

/**
 * @since 0.1.0
 * @category models
 */
export type CatalogEntry = typeof schema.CatalogEntry.Type

/**
 * An MCP server a catalog lists: its identifier, and its card's URL or the card itself.
 *
 * @since 0.1.0
 * @category models
 */
export type CatalogServer = documents.CatalogServer

/**
 * A catalog as found: where, the document, and its MCP servers.
 *
 * @since 0.1.0
 * @category models
 */
export type DiscoveredCatalog = documents.DiscoveredCatalog

/**
 * The catalog of `origin`'s domain (its path is ignored). An entry that is an MCP Server Card must carry exactly
 * one of `url` and `data`, else the catalog is `invalid`; entries of other types are kept in `catalog.entries`
 * and left out of `servers`.
 *
 * @since 0.1.0
 * @category discovery
 */
export const catalog: (
  origin: string | URL
) => Effect.Effect<DiscoveredCatalog, McpDiscoveryError, HttpClient.HttpClient> = documents.catalog

/**
 * The card at `url`.
 *
 * @since 0.1.0
 * @category discovery
 */
export const card: (url: string | URL) => Effect.Effect<ServerCard, McpDiscoveryError, HttpClient.HttpClient> =
  documents.card

/**
 * The card location the extension reserves for a Streamable HTTP endpoint: `<endpoint>/server-card`.
 *
 * @since 0.1.0
 * @category discovery
 */
export const cardUrl: (endpoint: string | URL) => Effect.Effect<URL, McpDiscoveryError> = documents.cardUrl

/**
 * The card a Streamable HTTP endpoint publishes at the reserved location (`card(cardUrl(endpoint))`).
 *
 * @since 0.1.0
 * @category discovery
 */
export const endpointCard: (
  endpoint: string | URL
) => Effect.Effect<ServerCard, McpDiscoveryError, HttpClient.HttpClient> = documents.endpointCard

/**
 * The card of a catalog entry: the inline one, or the one fetched from its URL.
 *
 * @since 0.1.0
 * @category discovery
 */
export const serverCard: (
  server: CatalogServer
) => Effect.Effect<ServerCard, McpDiscoveryError, HttpClient.HttpClient> = documents.serverCard

/**
 * @since 0.1.0
 * @category models
 */
export type ConnectionOptions = advice.ConnectionOptions

/**
 * @since 0.1.0
 * @category models
 */
export type ConnectionOptionsInput = advice.ConnectionOptionsInput

/**
 * Where to connect, from a card: the first Streamable HTTP remote whose URL variables are filled (from `input`,
 * else the card's non-secret value or default) and whose URL is https (or http on loopback). Never headers,
 * secrets or auth hints, and no credential in the URL: its userinfo, its fragment and query parameters named like
 * credentials (`api_key`, `access_token`, `sig`…) are stripped, and a variable named so is filled only from `input`. None when the card has no such remote (a card describes remote servers only: there is
 * no stdio command in it).
 *
 * @since 0.1.0
 * @category getters
 */
export const connectionOptions: (card: ServerCard, input?: ConnectionOptionsInput) => Option.Option<ConnectionOptions> =
  advice.connectionOptions

/**
 * A URL from a card or a catalog as it may be shown (a terminal, a log): as written when it carries no
 * credential, else without its userinfo, its fragment and query parameters named like credentials, as
 * `connectionOptions` strips them. A card is a public document, but a credential in it is still not to be
 * repeated.
 *
 * @since 0.3.0
 * @category getters
 */
export const withoutCredentials: (url: string) => string = advice.withoutCredentials

/**
 * A card's remote as it may be shown (a terminal, a log): its URL `withoutCredentials`, and each value the card
 * gives to a header or a URL variable marked secret or named like a credential (`Authorization`, `X-API-Key`,
 * `api_key`) replaced by `"[withheld]"`. `connectionOptions` never takes such values; this keeps them from
 * being repeated.
 *
 * @since 0.3.0
 * @category getters
 */
export const remoteWithoutCredentials: (remote: Remote) => Remote = advice.remoteWithoutCredentials

/**
 * What a connected server said about itself.
 *
 * @since 0.1.0
 * @category models
 */
export type LiveServer = advice.LiveServer

/**
 * @since 0.1.0
 * @category models
 */
export type DifferenceField = advice.DifferenceField

/**
 * @since 0.1.0
 * @category models
 */
export type Difference = advice.Difference

/**
 * What a connected client learned: `serverInfo`, the protocol revision, and the tool names (listed only when the
 * server has the tools capability).
 *
 * @since 0.1.0
 * @category getters
 */
export const live: (client: McpClientService) => Effect.Effect<LiveServer, McpClientError> = liveServer.live

/**
 * Where `card` contradicts `live` (empty when they agree): `name` (the card's reverse-DNS name, or the part after
 * its slash, against `serverInfo.name`), `version`, `title` and `description` (when both give one), the protocol
 * revision in use (when the card lists revisions), the tool names (when the card lists tools).
 *
 * @since 0.1.0
 * @category getters
 */
export const compare: (card: ServerCard, live: LiveServer) => ReadonlyArray<Difference> = advice.compare

/**
 * The cache discovery fetches go through.
 *
 * @since 0.1.0
 * @category models
 */
export type DiscoveryCache = cache.DiscoveryCache

/**
 * The cache in use: one per process unless provided (`layerCache`, or `Effect.provideService`).
 *
 * @since 0.1.0
 * @category services
 */
export const DiscoveryCache = cache.CurrentCache

/**
 * A new empty cache holding at most `capacity` documents (128 by default).
 *
 * @since 0.1.0
 * @category constructors
 */
export const makeCache: (capacity?: number) => DiscoveryCache = cache.makeCache

/**
 * A fresh cache of its own for what the layer is provided to.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerCache = (capacity?: number): Layer.Layer<never> =>
  Layer.sync(cache.CurrentCache, () => cache.makeCache(capacity))
