/**
 * `connectHttp` on the runtime's `fetch`: a module of its own, which loads neither the LLM bridge nor the
 * toolkits (`toolkits.ts`), so that a page that connects, lists and calls loads only what that takes.
 *
 * @internal
 */
import * as FetchHttpClient from "effect/http/FetchHttpClient"
import * as Layer from "effect/Layer"
import * as McpClient from "../../McpClient.js"
import type { PromiseClient } from "../../McpPromise.js"
import * as PlainFetch from "../transport/plainFetch.js"
import { bridgeOptionsOf, fromLayer } from "./client.js"

/** @internal */
export const connectHttp = (
  options: McpClient.HttpClientOptions & { readonly toolConcurrency?: number | undefined }
): Promise<PromiseClient> =>
  fromLayer(
    McpClient.layerHttp(options).pipe(
      Layer.provide(FetchHttpClient.layer),
      // Nothing wraps this `HttpClient`: the transport calls `fetch` itself, unless tracing wants its HTTP spans.
      Layer.provide(options.tracing === true ? Layer.empty : PlainFetch.layer)
    ),
    bridgeOptionsOf(options)
  )
