/**
 * Server Card discovery for Promise code: `McpDiscovery.catalog` and `McpDiscovery.card` on `fetch`
 * (`FetchHttpClient`), run by the one detached runner. A rejection is the `McpDiscoveryError` itself (or the
 * signal's reason when it was aborted). The cache is the process's (`McpDiscovery.DiscoveryCache`).
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as FetchHttpClient from "effect/http/FetchHttpClient"
import type * as HttpClient from "effect/http/HttpClient"
import * as McpDiscovery from "../../McpDiscovery.js"
import type { SignalOptions } from "../../McpPromise.js"
import { runDetached, runSignalled } from "./run.js"

const onFetch = <A, E>(effect: Effect.Effect<A, E, HttpClient.HttpClient>, options?: SignalOptions) =>
  runSignalled(runDetached, Effect.provide(effect, FetchHttpClient.layer), options?.signal)

/** @internal */
export const catalog = (origin: string | URL, options?: SignalOptions): Promise<McpDiscovery.DiscoveredCatalog> =>
  onFetch(McpDiscovery.catalog(origin), options)

/** @internal */
export const card = (url: string | URL, options?: SignalOptions): Promise<McpDiscovery.ServerCard> =>
  onFetch(McpDiscovery.card(url), options)

/** @internal */
export const endpointCard = (endpoint: string | URL, options?: SignalOptions): Promise<McpDiscovery.ServerCard> =>
  onFetch(McpDiscovery.endpointCard(endpoint), options)

/** @internal */
export const serverCard = (
  server: McpDiscovery.CatalogServer,
  options?: SignalOptions
): Promise<McpDiscovery.ServerCard> => onFetch(McpDiscovery.serverCard(server), options)
