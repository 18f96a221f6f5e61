/**
 * What several subcommands share: `key=value` arguments, `--wide`, the example server, and the tool listing.
 */
import type { McpClient } from "@mcp-effect/client"
import * as Argument from "effect/cli/Argument"
import * as Flag from "effect/cli/Flag"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import { visible } from "../terminal/sanitize.js"
import type { StatusLine } from "../terminal/statusLine.js"

/** `key=value...` positional arguments. */
export const keyValues = (description: string) =>
  Argument.String("key=value").pipe(Argument.withDescription(description), Argument.variadic())

/** The server every example starts (the MCP reference server, run with npx). */
export const EVERYTHING = "npx -y @modelcontextprotocol/server-everything"

/** `--wide` of the commands that print a table. */
export const wide = Flag.Boolean("wide").pipe(
  Flag.withDescription("every cell whole on one line (by default the table fits the terminal: columns shrink, cells wrap)"),
  Flag.withDefault(false)
)

/**
 * The server's tools. A tool the library left out of the listing (malformed: an `inputSchema` that is not an
 * object) is named on stderr with the reason, so that a missing tool is not a mystery.
 */
export const listTools = (client: McpClient.Service, status: StatusLine) =>
  client.diagnostics.pipe(
    Stream.runForEach((diagnostic) =>
      Effect.sync(() => {
        if (diagnostic._tag === "InvalidTool") status.line(`mcp-effect: tool ${visible(diagnostic.name)} left out: ${visible(diagnostic.reason)}`)
      })
    ),
    // Subscribed before the listing is asked for, for the listing only.
    Effect.forkScoped({ startImmediately: true }),
    Effect.andThen(client.listTools()),
    Effect.scoped
  )
