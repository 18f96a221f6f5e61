/**
 * `catalog` and `card`: where the documents are, what is asked for and accepted, and how they decode.
 *
 * Where: an AI Catalog at `<origin>/.well-known/ai-catalog.json` (the extension's current text); when that is
 * 404, the extension's earlier MCP Catalog at `<origin>/.well-known/mcp/catalog.json` (the same shape). A card at
 * any URL a catalog gives; `<streamable-http-url>/server-card` is the one location the extension reserves.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import type * as HttpClient from "effect/http/HttpClient"
import type * as Schema from "effect/Schema"
import { decodeWire } from "../../McpSchema.js"
import { fail, type McpDiscoveryError } from "./error.js"
import { getDocument, secureUrl, type Wanted } from "./fetch.js"
import { CARD_MEDIA_TYPE, Catalog, CATALOG_MEDIA_TYPE, type CatalogEntry, ServerCard } from "./schema.js"

/** @internal */
export interface CatalogServer {
  /** The entry's logical identifier (`urn:air:...`). */
  readonly identifier: string
  /** Where the card is (resolved against the catalog's URL), when the entry points at one. */
  readonly url: string | undefined
  /** The card, when the entry carries it inline (`data`). */
  readonly card: typeof ServerCard.Type | undefined
  /** The entry as it came, unknown fields kept. */
  readonly entry: typeof CatalogEntry.Type
}

/** @internal */
export interface DiscoveredCatalog {
  /** Where the catalog was found (after redirects). */
  readonly url: string
  readonly catalog: typeof Catalog.Type
  /** The entries that are MCP Server Cards, in the catalog's order. */
  readonly servers: ReadonlyArray<CatalogServer>
}

/** @internal */
export const CATALOG_PATH = "/.well-known/ai-catalog.json"

/** @internal */
export const LEGACY_CATALOG_PATH = "/.well-known/mcp/catalog.json"

const catalogWanted: Wanted = {
  accept: `${CATALOG_MEDIA_TYPE}, application/json;q=0.9`,
  mediaTypes: [CATALOG_MEDIA_TYPE, "application/json"]
}

/** A card is asked for by its media type (as the extension says); plain JSON is accepted too: it is the same text. */
const cardWanted: Wanted = {
  accept: `${CARD_MEDIA_TYPE}, application/json;q=0.9`,
  mediaTypes: [CARD_MEDIA_TYPE, "application/json"]
}

const decodeCard = decodeWire(ServerCard)
const decodeCatalog = decodeWire(Catalog)

const decodeAs = <A>(
  decode: (json: unknown) => Effect.Effect<A, Schema.SchemaError>,
  json: unknown,
  url: string,
  what: string
): Effect.Effect<A, McpDiscoveryError> =>
  Effect.mapError(decode(json), (error) => fail("invalid", url, `not ${what}: ${error.message}`))

/** The card at `url`. @internal */
export const card = (url: string | URL): Effect.Effect<typeof ServerCard.Type, McpDiscoveryError, HttpClient.HttpClient> =>
  Effect.flatMap(
    Effect.flatMap(secureUrl(url), (secure) => getDocument(secure, cardWanted)),
    (fetched) => decodeAs(decodeCard, fetched.json, fetched.url, "a server card")
  )

/** The reserved card location of a Streamable HTTP endpoint: `<endpoint>/server-card`, query and fragment dropped. @internal */
export const cardUrl = (endpoint: string | URL): Effect.Effect<URL, McpDiscoveryError> =>
  Effect.map(secureUrl(endpoint), (url) => {
    const at = new URL(url.href)
    at.search = ""
    at.hash = ""
    at.pathname = `${at.pathname.replace(/\/+$/, "")}/server-card`
    return at
  })

/** The card at the reserved location of a Streamable HTTP endpoint. @internal */
export const endpointCard = (
  endpoint: string | URL
): Effect.Effect<typeof ServerCard.Type, McpDiscoveryError, HttpClient.HttpClient> =>
  Effect.flatMap(cardUrl(endpoint), card)

const entryServer = (entry: typeof CatalogEntry.Type, base: string) =>
  Effect.gen(function*() {
    const hasUrl = entry.url !== undefined
    const hasData = entry.data !== undefined
    if (hasUrl === hasData) {
      return yield* fail("invalid", base, `entry ${entry.identifier} must have exactly one of url and data`)
    }
    if (entry.url !== undefined) {
      let url: string
      try {
        url = new URL(entry.url, base).href
      } catch {
        return yield* fail("invalid", base, `entry ${entry.identifier} has a url that is not a URL`)
      }
      return { identifier: entry.identifier, url, card: undefined, entry }
    }
    const inline = yield* decodeAs(decodeCard, entry.data, base, `a server card (entry ${entry.identifier})`)
    return { identifier: entry.identifier, url: undefined, card: inline, entry }
  })

const catalogAt = (url: URL) =>
  Effect.gen(function*() {
    const fetched = yield* getDocument(url, catalogWanted)
    const decoded = yield* decodeAs(decodeCatalog, fetched.json, fetched.url, "an AI Catalog")
    const servers = yield* Effect.forEach(
      decoded.entries.filter((entry) => entry.type === CARD_MEDIA_TYPE),
      (entry) => entryServer(entry, fetched.url)
    )
    return { url: fetched.url, catalog: decoded, servers }
  })

/** The catalog of the origin of `origin` (any path is ignored). @internal */
export const catalog = (
  origin: string | URL
): Effect.Effect<DiscoveredCatalog, McpDiscoveryError, HttpClient.HttpClient> =>
  Effect.flatMap(secureUrl(origin), (url) =>
    catalogAt(new URL(CATALOG_PATH, url.origin)).pipe(
      Effect.catchIf(
        (error) => error.reason === "http" && error.status === 404,
        (notFound) =>
          catalogAt(new URL(LEGACY_CATALOG_PATH, url.origin)).pipe(
            // Neither place has one: the error names the current location.
            Effect.catchIf((error) => error.reason === "http" && error.status === 404, () => Effect.fail(notFound))
          )
      )
    ))

/** The card of a catalog entry: the inline one, or the one at its URL. @internal */
export const serverCard = (
  server: CatalogServer
): Effect.Effect<typeof ServerCard.Type, McpDiscoveryError, HttpClient.HttpClient> =>
  server.card !== undefined ? Effect.succeed(server.card) : card(server.url ?? "")
