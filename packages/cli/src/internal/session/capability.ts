/**
 * A listing asked of a server that may not have it: the server's declared capabilities decide.
 */
import type { McpClient, McpClientError } from "@mcp-effect/client"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"

/** The capabilities a listing needs. */
export type Capability = "tools" | "resources" | "prompts"

/**
 * Run `list` if the server declares `capability`; otherwise say so on stderr and give `empty` (the command
 * then prints an empty result and exits 0, as for a server that has the capability and nothing in it).
 */
export const whenCapable = <A, E, R>(
  client: McpClient.Service,
  capability: Capability,
  empty: A,
  list: Effect.Effect<A, E, R>
): Effect.Effect<A, E | McpClientError, R> =>
  Effect.flatMap(client.info, (info) =>
    info.capabilities[capability] === undefined
      ? Effect.as(Console.error(`mcp-effect: the server has no ${capability} (capability not declared)`), empty)
      : list)
