/**
 * The Node entry point, `@mcp-effect/client/node` (also for Bun and Deno): everything the portable entry
 * (`@mcp-effect/client`) has, plus what needs Node: servers spawned over stdio, undici's fast HTTP path,
 * configuration files (`McpConfig`), token files and the loopback sign-in receiver (`NodeMcpAuth`). Loading it
 * runs nothing; on a Node older than 22.19 its transports refuse to connect, with an `McpTransportError` naming
 * the version needed and the one found.
 *
 * @since 0.3.0
 */
export * from "./index.js"

/**
 * The client's layers on Node: `layerStdio` (a server spawned on `child_process`) and `layerHttp` (Streamable
 * HTTP on undici, with `auth.tokenFile`), and their transports alone, `layerStdioTransport` and
 * `layerHttpTransport`. The Promise functions `connectStdio` and `connectHttp` are `NodePromise`'s (below).
 *
 * @since 0.1.0
 */
export * as NodeMcpClient from "./NodeMcpClient.js"

/**
 * The token file and the loopback sign-in receiver of `McpAuth`.
 *
 * @since 0.3.0
 */
export * as NodeMcpAuth from "./NodeMcpAuth.js"

/**
 * Tool pinning's file store.
 *
 * @since 0.3.0
 */
export * as NodeMcpPinning from "./NodeMcpPinning.js"

/**
 * Servers from the `mcpServers` configuration (Claude Desktop, Cursor, VS Code, ...).
 *
 * @since 0.1.0
 */
export * as McpConfig from "./McpConfig.js"

/**
 * The Promise API's Node wing: `connectStdio`, `connectHttp` on undici, `connectServers` (a configuration's
 * servers) and `connectFleet` (Redis).
 *
 * @since 0.3.0
 */
export * as NodePromise from "./NodePromise.js"

export {
  /**
   * A fleet's HTTP client on Redis (`McpFleet`), for Promise code.
   *
   * @since 0.3.0
   */
  connectFleet,
  /**
   * Start the servers of an `mcpServers` configuration.
   *
   * @since 0.3.0
   */
  connectServers,
  /**
   * Start a server over stdio and connect to it.
   *
   * @since 0.1.0
   */
  connectStdio,
  /**
   * `connectHttp` on undici's dispatcher (on Bun, on `fetch`), with `auth.tokenFile` read and written.
   *
   * @since 0.1.0
   */
  connectHttp
} from "./NodePromise.js"

export {
  /**
   * Write a file whole or not at all, readable by its owner alone (0600 unless `mode` says otherwise; a folder it
   * creates is 0700): the writer of the token file and the pin file, exported for the `mcp-effect` CLI, which
   * writes its files with it. A helper of the Node wing rather than an API of the client: it may change in any
   * release.
   *
   * @since 0.3.0
   */
  writePrivateFile
} from "./internal/node/privateFile.js"
