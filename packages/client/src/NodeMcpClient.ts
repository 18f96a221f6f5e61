/**
 * The client on Node (and on Bun and Deno, which have `child_process`): servers spawned over stdio, with their
 * process groups ended when the client closes, and Streamable HTTP on undici's dispatcher, the fast path, with
 * the token file of `auth.tokenFile`. This module and everything it loads is the Node wing: the package's main
 * entry loads none of it, so that a browser or Worker bundle of the main entry has no `node:` module. Importing
 * it runs nothing; on a Node older than 22.19 its transports refuse every connection with an
 * `McpTransportError` naming the version needed and the one found.
 *
 * ```ts
 * import { Effect } from "effect"
 * import { McpClient, NodeMcpClient } from "@mcp-effect/client/node"
 *
 * McpClient.listTools().pipe(Effect.provide(NodeMcpClient.layerStdio({ command: "my-server" })), Effect.runPromise)
 * ```
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as FetchHttpClient from "effect/http/FetchHttpClient"
import * as Layer from "effect/Layer"
import * as McpAuth from "./McpAuth.js"
import * as McpClient from "./McpClient.js"
import { type McpClientError, McpTransportError } from "./McpError.js"
import * as McpTransport from "./McpTransport.js"
import * as NodeMcpAuth from "./NodeMcpAuth.js"
import { httpScope, stdioScope } from "./internal/pinning/scope.js"
import * as nodeStdio from "./internal/node/nodeStdio.js"
import * as nodeVersion from "./internal/node/nodeVersion.js"

/**
 * The transport `make` builds, on a runtime that can run it. On a Node older than the wing's floor, nothing of
 * it is loaded (undici 8 does not load there) and every connection fails with why, naming both versions: asked
 * when the layer is built, never at import (the package is declared free of side effects).
 */
const onSupportedNode = (
  reason: "Spawn" | "Http",
  identity: string,
  make: () => Layer.Layer<McpTransport.McpTransport>
): Layer.Layer<McpTransport.McpTransport> =>
  Layer.suspend(() => {
    const refusal = nodeVersion.unsupported()
    return refusal === undefined
      ? make()
      : Layer.succeed(McpTransport.McpTransport, { connect: Effect.fail(new McpTransportError({ reason, detail: refusal })), identity })
  })

/**
 * The stdio transport on Node's `child_process`: one `data` listener, one write per message (the fast path;
 * `McpTransport.layerStdio` over an `effect/process` `ChildProcessSpawner` is the portable one).
 *
 * @since 0.1.0
 * @category layers
 */
export const layerStdioTransport = (options: McpTransport.StdioOptions): Layer.Layer<McpTransport.McpTransport> => {
  const identity = stdioScope(options.command, options.args)
  return onSupportedNode("Spawn", identity, () => Layer.succeed(McpTransport.McpTransport, { ...nodeStdio.make(options), identity }))
}

// The HTTP transport (and `effect/http`, `effect/encoding`'s SSE parser) and undici are loaded when the layer
// is built.
let httpModules:
  | Promise<{
    readonly http: typeof import("./internal/transport/http.js")
    readonly undiciRequester: typeof import("./internal/node/undiciRequester.js")
  }>
  | undefined
const loadHttp = () =>
  httpModules ??= Promise.all([import("./internal/transport/http.js"), import("./internal/node/undiciRequester.js")])
    .then(([http, undiciRequester]) => ({ http, undiciRequester }))

/** The transport without authorization: undici's dispatcher, or `fetch` on Bun. */
const transportOn = (options: McpTransport.HttpOptions): Layer.Layer<McpTransport.McpTransport> =>
  nodeVersion.isBun()
    ? McpTransport.layerHttp(options).pipe(Layer.provide(FetchHttpClient.layer))
    : onSupportedNode("Http", httpScope(options.url), () =>
      Layer.effect(
        McpTransport.McpTransport,
        Effect.flatMap(
          Effect.promise(loadHttp),
          ({ http, undiciRequester }) =>
            Effect.map(undiciRequester.scoped, (requester) => ({
              ...http.makeWith(requester, options),
              identity: httpScope(options.url)
            }))
        )
      ))

/**
 * Streamable HTTP on Node's undici dispatcher: an agent of its own (closed with the layer), responses pushed to
 * the transport as they come. With `auth`, through `McpAuth`, its tokens in the `TokenStore` in context, else in
 * `auth.tokenFile`, else in memory. Bun ships a `undici` module of its own whose dispatcher is not undici's:
 * there the transport runs on `fetch` (`McpTransport.layerHttp` with `FetchHttpClient`). This is the one
 * HTTP transport of the Node wing (`McpTransport.layerHttp` the portable one).
 *
 * @since 0.1.0
 * @category layers
 */
export const layerHttpTransport = (options: McpClient.HttpClientOptions): Layer.Layer<McpTransport.McpTransport> =>
  options.auth === undefined
    ? transportOn(options)
    : Layer.unwrap(
      Effect.map(
        Effect.flatMap(McpAuth.McpAuth, (auth) => auth.forServer(options.url, options)),
        (authorizer) => transportOn({ ...options, authorizer })
      )
    ).pipe(Layer.provide(NodeMcpAuth.layer(options.auth)))

/**
 * A client of a server spawned over stdio: the one-call layer.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerStdio = (options: McpClient.StdioClientOptions): Layer.Layer<McpClient.McpClient, McpClientError> =>
  McpClient.layer(options).pipe(Layer.provide(layerStdioTransport(options)))

/**
 * A client of a Streamable HTTP server (either era), on Node's undici HTTP client; with `auth`, through
 * `McpAuth` (OAuth), its tokens in `auth.tokenFile` when given.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerHttp = (options: McpClient.HttpClientOptions): Layer.Layer<McpClient.McpClient, McpClientError> =>
  McpClient.layer(options).pipe(Layer.provide(layerHttpTransport(options)))
