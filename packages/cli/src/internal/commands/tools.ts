/**
 * `tools [--schema] [--wide]`: the server's tools as a table (with `--schema`, each one's input and output schema);
 * and the tool listing `call` looks its tool up in.
 */
import type { McpClient } from "@mcp-effect/client"
import * as Command from "effect/cli/Command"
import * as Flag from "effect/cli/Flag"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import { withClient } from "../session/connection.js"
import { whenCapable } from "../session/capability.js"
import { shared } from "../session/options.js"
import { annotationFlags, indented, parameterLine } from "../terminal/content.js"
import { print, printJson, table } from "../terminal/print.js"
import { bounded, visible } from "../terminal/sanitize.js"
import type { StatusLine } from "../terminal/statusLine.js"
import { EVERYTHING } from "./examples.js"
import { wide } from "./flags.js"

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

export const tools = Command.make(
  "tools",
  {
    ...shared,
    wide,
    schema: Flag.Boolean("schema").pipe(Flag.withDescription("show input and output schemas"), Flag.withDefault(false))
  },
  (options) =>
    withClient(options, (client, status) =>
      Effect.gen(function*() {
        const list = yield* whenCapable(client, "tools", [], listTools(client, status))
        if (options.json) return yield* printJson(list)
        yield* print(table(
          ["NAME", "PARAMETERS", "ANNOTATIONS", "DESCRIPTION"],
          // The schema to a bounded depth: walks over a schema nested without end would overflow the stack.
          list.map((tool) => [tool.name, parameterLine(bounded(tool.inputSchema)), annotationFlags(tool.annotations), tool.description ?? ""]),
          { wide: options.wide }
        ))
        if (!options.schema) return
        for (const tool of list) {
          yield* print(`\n${tool.name}\n${indented("input", tool.inputSchema)}`)
          if (tool.outputSchema !== undefined) yield* print(indented("output", tool.outputSchema))
        }
      }))
).pipe(
  Command.withDescription("the server's tools (with --schema: their schemas)"),
  Command.withExamples([
    { command: `mcp-effect tools -- ${EVERYTHING}`, description: "the tools of a server started over stdio" },
    { command: `mcp-effect tools --schema --stdio "${EVERYTHING}"`, description: "with their input and output schemas" },
    { command: `mcp-effect tools --wide -s everything`, description: "an entry of ./.mcp.json, every cell whole" }
  ])
)
