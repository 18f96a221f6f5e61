/**
 * The Promise API's Node wing (also Bun and Deno): servers spawned over stdio, Streamable HTTP on undici with
 * the token file, the servers of an `mcpServers` configuration, and a fleet's client on Redis. The same
 * `PromiseClient` as `McpPromise`'s, on the Node layers.
 *
 * ```ts
 * import { connectStdio } from "@mcp-effect/client/node"
 *
 * const client = await connectStdio({ command: "my-mcp-server", args: ["--stdio"] })
 * console.log(await client.era(), (await client.listTools()).map((t) => t.name))
 * await client.close()
 * ```
 *
 * @since 0.3.0
 */
import { bridgeOptionsOf } from "./internal/promise/client.js"
import * as servers from "./internal/promise/servers.js"
import type * as McpClient from "./McpClient.js"
import type * as McpConfig from "./McpConfig.js"
import type { McpConfigError } from "./McpConfigError.js"
import type * as McpFleet from "./McpFleet.js"
import * as McpPromise from "./McpPromise.js"
import type { CallToolResult } from "./McpSchema.js"
import * as NodeMcpClient from "./NodeMcpClient.js"
import type * as ToolRegistry from "./ToolRegistry.js"

/**
 * Start a server over stdio and connect to it.
 *
 * @since 0.1.0
 * @category constructors
 */
export const connectStdio = (
  options: McpClient.StdioClientOptions & { readonly toolConcurrency?: number | undefined }
): Promise<McpPromise.PromiseClient> =>
  McpPromise.fromLayer(NodeMcpClient.layerStdio(options), bridgeOptionsOf(options))

/**
 * Connect to a Streamable HTTP server (either era) on undici's dispatcher (on Bun, on `fetch`), with
 * `auth.tokenFile` read and written.
 *
 * @since 0.1.0
 * @category constructors
 */
export const connectHttp = (
  options: McpClient.HttpClientOptions & { readonly toolConcurrency?: number | undefined }
): Promise<McpPromise.PromiseClient> =>
  McpPromise.fromLayer(NodeMcpClient.layerHttp(options), bridgeOptionsOf(options))

/**
 * The configured servers for Promise code: a Promise client per entry, the registry of them all, and
 * `close()`, which stops every server.
 *
 * @since 0.1.0
 * @category models
 */
export interface PromiseServers {
  readonly config: McpConfig.Config
  readonly clients: Readonly<Record<string, McpPromise.PromiseClient>>
  readonly registry: McpPromise.PromiseBridge<ToolRegistry.RegistryError>
  /** The entries left out (malformed, or their server failed), each with why; the others are connected. */
  readonly failures: ReadonlyArray<McpConfigError | McpConfig.McpConfigServerError>
  readonly close: () => Promise<void>
}

/**
 * Start the servers of an `mcpServers` configuration (a file's path, or its contents). A broken entry does not
 * fail the whole: it is in `failures` and the rest connect (`onBroken: "fail"` to reject instead). Rejects with
 * `McpConfigError` when the configuration itself cannot be read, or `only` names no entry.
 *
 * @since 0.1.0
 * @category constructors
 */
export const connectServers: (source: McpConfig.Source, options?: McpConfig.LayerOptions) => Promise<PromiseServers> =
  servers.connectServers

/**
 * A Promise client of a fleet: `PromiseClient` plus `resumeTask`.
 *
 * @since 0.2.0
 * @category models
 */
export interface FleetClient extends McpPromise.PromiseClient {
  /** `resumeTask` as a Promise: the result of a task another process of the fleet started. */
  readonly resumeTask: (taskId: string) => Promise<CallToolResult>
}

/**
 * `connectHttp` with a fleet's shared pieces (`McpFleet`): the same options, plus `fleet` (where Redis is, whose
 * tokens, the key). A fleet that cannot start rejects with `McpFleetError`. Needs the `redis` package.
 *
 * @since 0.3.0
 * @category constructors
 */
export const connectFleet: (
  options: McpClient.HttpClientOptions & {
    readonly toolConcurrency?: number | undefined
    readonly fleet: McpFleet.RedisOptions
  }
) => Promise<FleetClient> = (options) =>
  // Loaded on first use: the fleet's modules (and node-redis) are for the programs that use a fleet.
  import("./internal/promise/fleet.js").then((fleet) => fleet.connectFleet(options))
