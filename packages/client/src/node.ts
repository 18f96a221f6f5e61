/**
 * The Node entry point, `@mcp-effect/client/node`: everything the portable entry (`@mcp-effect/client`) has,
 * plus what needs Node (or Bun, Deno): servers spawned over stdio, undici's fast HTTP path, configuration files,
 * token files and the loopback sign-in receiver.
 *
 * @since 0.3.0
 */
export * from "./index.js"

/**
 * The client on Node: `layerStdio` and `layerHttp` with their Node services.
 *
 * @since 0.1.0
 */
export * as NodeMcpClient from "./NodeMcpClient.js"

export {
  /**
   * @since 0.1.0
   */
  connectHttp,
  /**
   * @since 0.1.0
   */
  connectStdio
} from "./McpPromise.js"
