/**
 * `tools [--schema] [--wide]`: the server's tools as a table (with `--schema`, each one's input and output schema);
 * and the tool listing `call` looks its tool up in.
 */
import { type McpClient, type McpDiagnostic, McpPinning } from "@mcp-effect/client"
import * as Command from "effect/cli/Command"
import * as Flag from "effect/cli/Flag"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import { withClient } from "../session/connection.js"
import { whenCapable } from "../session/capability.js"
import { shared } from "../session/options.js"
import { approveCommand, pinning, pinsFile } from "../session/pins.js"
import { annotationFlags, indented, parameterLine } from "../terminal/content.js"
import { print, printJson, table } from "../terminal/print.js"
import { bounded } from "../terminal/sanitize.js"
import type { StatusLine } from "../terminal/statusLine.js"
import { EVERYTHING } from "./examples.js"
import { wide } from "./flags.js"

/** The tools pinning held back in one listing, each with the error a call of it fails with. */
export type Quarantined = Map<string, McpPinning.McpToolQuarantinedError>

/**
 * A diagnostic worth a line on stderr while listing; `quarantined` collects the tools pinning held back. A
 * quarantine's line ends with the whole command that approves it (`pinsFile` and the scope named).
 */
const report = (
  diagnostic: McpDiagnostic.McpDiagnostic,
  status: StatusLine,
  quarantined: Quarantined,
  pinsFile: string | undefined
) => {
  switch (diagnostic._tag) {
    case "InvalidTool":
      // Held back by pinning (it cannot check the tool): `call` fails as the client would, with the reason.
      if (diagnostic.pinning !== undefined) {
        quarantined.set(
          diagnostic.name,
          new McpPinning.McpToolQuarantinedError({
            tool: diagnostic.name,
            scope: diagnostic.pinning.scope,
            changes: [diagnostic.pinning.reason],
            held: "unchecked"
          })
        )
      }
      return status.line(`mcp-effect: tool ${diagnostic.name} left out: ${diagnostic.reason}`)
    case "ToolChanged": {
      // What changed, in the library's short lines: never the new description itself.
      const changes = diagnostic.changes.join("; ")
      if (diagnostic.decision === "approve") return status.line(`mcp-effect: tool ${diagnostic.name} changed (approved): ${changes}`)
      const held = diagnostic.held ?? "changed"
      quarantined.set(
        diagnostic.name,
        new McpPinning.McpToolQuarantinedError({ tool: diagnostic.name, scope: diagnostic.scope, changes: diagnostic.changes, held })
      )
      // A damaged pin has nothing to compare with: its line (in `changes`) says so, not "changed".
      const why = held === "damaged" ? changes : `its definition changed since it was pinned: ${changes}`
      return status.line(
        `mcp-effect: tool ${diagnostic.name} left out: quarantined, ${why} ` +
          `(review what it offers now with tools --wide --schema, without --pins; then: ` +
          `${approveCommand(pinsFile, diagnostic.scope, [diagnostic.name])})`
      )
    }
    case "ToolAdded":
      return status.line(`mcp-effect: tool ${diagnostic.name} pinned (first seen)`)
    case "ToolRemoved":
      return status.line(`mcp-effect: pinned tool ${diagnostic.name} is no longer listed`)
    case "PinStoreUnavailable":
      return status.line(`mcp-effect: the pins could not be ${diagnostic.operation === "read" ? "read" : "written"}: ${diagnostic.reason}`)
    default:
      return
  }
}

/**
 * The server's tools. A tool the library left out of the listing (malformed: an `inputSchema` that is not an
 * object; quarantined by pinning) is named on stderr with the reason, so that a missing tool is not a mystery.
 */
export const listTools = (
  client: McpClient.Service,
  status: StatusLine,
  quarantined: Quarantined = new Map(),
  pinsFile?: string | undefined
) =>
  client.diagnostics.pipe(
    Stream.runForEach((diagnostic) => Effect.sync(() => report(diagnostic, status, quarantined, pinsFile))),
    // Subscribed before the listing is asked for, for the listing only.
    Effect.forkScoped({ startImmediately: true }),
    Effect.andThen(client.listTools()),
    Effect.scoped
  )

export const tools = Command.make(
  "tools",
  {
    ...shared,
    ...pinning,
    wide,
    schema: Flag.Boolean("schema").pipe(Flag.withDescription("show input and output schemas"), Flag.withDefault(false))
  },
  (options) =>
    withClient(options, (client, status) =>
      Effect.gen(function*() {
        const list = yield* whenCapable(client, "tools", [], listTools(client, status, new Map(), pinsFile(options)))
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
    { command: `mcp-effect tools --wide -s everything`, description: "an entry of ./.mcp.json, every cell whole" },
    { command: `mcp-effect tools --pins ~/.mcp-pins.json -s everything`, description: "pin the tools; a changed one is held back" }
  ])
)
