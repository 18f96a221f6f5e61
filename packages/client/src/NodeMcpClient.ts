/**
 * The client on Node: the one-call layers that bring their own Node services (`child_process` for stdio,
 * undici for HTTP). The rest of the package imports nothing from `@effect/platform-node`, so the
 * client runs on any runtime that provides an `HttpClient` (or a `ChildProcessSpawner`).
 *
 * ```ts
 * import { Effect } from "effect"
 * import { McpClient, NodeMcpClient } from "@mcp-effect/client"
 *
 * McpClient.listTools().pipe(Effect.provide(NodeMcpClient.layerStdio({ command: "my-server" })), Effect.runPromise)
 * ```
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as McpAuth from "./McpAuth.js"
import * as McpClient from "./McpClient.js"
import type { McpClientError } from "./McpError.js"
import * as nodeStdio from "./internal/transport/nodeStdio.js"
import * as McpTransport from "./McpTransport.js"

/**
 * The stdio transport on Node's `child_process`: one `data` listener, one write per message (the fast path;
 * `McpTransport.layerStdio` with `NodeServices.layer` is the portable one, on `effect/process`).
 *
 * @since 0.1.0
 * @category layers
 */
export const layerStdioTransport = (options: McpTransport.StdioOptions): Layer.Layer<McpTransport.McpTransport> =>
  Layer.succeed(McpTransport.McpTransport, nodeStdio.make(options))

// The HTTP transport (and `effect/http`, `effect/encoding`'s SSE parser) is loaded when the layer is built.
let httpModules:
  | Promise<{
    readonly http: typeof import("./internal/transport/http.js")
    readonly undiciRequester: typeof import("./internal/transport/undiciRequester.js")
  }>
  | undefined
const loadHttp = () =>
  httpModules ??= Promise.all([import("./internal/transport/http.js"), import("./internal/transport/undiciRequester.js")])
    .then(([http, undiciRequester]) => ({ http, undiciRequester }))

/**
 * The Streamable HTTP transport on Node's undici HTTP client: its dispatcher directly, with an agent of its
 * own (closed with the layer), responses pushed to the transport as they come (the fast path;
 * `McpTransport.layerHttp` is the portable one, on any `HttpClient`).
 *
 * @since 0.1.0
 * @category layers
 */
export const layerHttpTransport = (options: McpTransport.HttpOptions): Layer.Layer<McpTransport.McpTransport> =>
  Layer.effect(
    McpTransport.McpTransport,
    Effect.flatMap(
      Effect.promise(loadHttp),
      ({ http, undiciRequester }) => Effect.map(undiciRequester.scoped, (requester) => http.makeWith(requester, options))
    )
  )

/** The HTTP transport with `McpAuth` as its authorization. */
const layerHttpTransportWithAuth = (options: McpClient.HttpClientOptions & { readonly auth: McpAuth.AuthOptions }) =>
  Layer.unwrap(
    Effect.map(
      Effect.flatMap(McpAuth.McpAuth, (auth) => auth.forServer(options.url)),
      (authorizer) => layerHttpTransport({ ...options, authorizer })
    )
  ).pipe(Layer.provide(McpAuth.layer(options.auth)))

/**
 * A client of a server spawned over stdio: the one-call layer.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerStdio = (options: McpClient.StdioClientOptions): Layer.Layer<McpClient.McpClient, McpClientError> =>
  McpClient.layer(options).pipe(Layer.provide(layerStdioTransport(options)))

/**
 * The Streamable HTTP transport of `layerHttp` alone (with `McpAuth` when `auth` is given; a `TokenStore` in
 * context is used), for clients assembled with their own dependencies (e.g. `McpFleet`).
 *
 * @since 0.2.0
 * @category layers
 */
export const layerHttpTransportFor = (options: McpClient.HttpClientOptions): Layer.Layer<McpTransport.McpTransport> =>
  options.auth === undefined ? layerHttpTransport(options) : layerHttpTransportWithAuth({ ...options, auth: options.auth })

/**
 * A client of a Streamable HTTP server (either era), on Node's undici HTTP client; with `auth`, through
 * `McpAuth` (OAuth).
 *
 * @since 0.1.0
 * @category layers
 */
export const layerHttp = (options: McpClient.HttpClientOptions): Layer.Layer<McpClient.McpClient, McpClientError> =>
  McpClient.layer(options).pipe(
    Layer.provide(
      options.auth === undefined ? layerHttpTransport(options) : layerHttpTransportWithAuth({ ...options, auth: options.auth })
    )
  )
