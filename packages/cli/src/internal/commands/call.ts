/**
 * `call TOOL [name=value...] [--args JSON] [--out FILE]`: call a tool, its arguments coerced by its input schema;
 * exit 1 when the tool answers with `isError`.
 */
import * as Argument from "effect/cli/Argument"
import * as Command from "effect/cli/Command"
import * as Flag from "effect/cli/Flag"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { ToolReturnedError, UsageError } from "../errors.js"
import { withClient } from "../session/connection.js"
import { shared } from "../session/options.js"
import { pinning, pinsFile } from "../session/pins.js"
import { blockText, distinctBlocks, indented } from "../terminal/content.js"
import { print, printJson } from "../terminal/print.js"
import { bounded } from "../terminal/sanitize.js"
import { toolArguments } from "./arguments.js"
import { EVERYTHING } from "./examples.js"
import { keyValues } from "./flags.js"
import { saveFirst } from "./save.js"
import { listTools, type Quarantined } from "./tools.js"

export const call = Command.make(
  "call",
  {
    ...shared,
    ...pinning,
    args: Flag.String("args").pipe(Flag.withDescription("the whole arguments object as JSON"), Flag.optional),
    out: Flag.String("out").pipe(Flag.withDescription("save the result's first image, audio or blob (else its text) to this file"), Flag.optional),
    tool: Argument.String("tool").pipe(Argument.withDescription("the name of the tool to call")),
    values: keyValues("the tool's arguments as name=value, each value coerced by the tool's input schema")
  },
  (options) =>
    withClient(options, (client, status) =>
      Effect.gen(function*() {
        const quarantined: Quarantined = new Map()
        const catalogue = yield* listTools(client, status, quarantined, pinsFile(options))
        const tool = catalogue.find((t) => t.name === options.tool)
        // A tool pinning holds back fails as the client would fail its call (exit 3), not as a typo (exit 2).
        const held = quarantined.get(options.tool)
        if (held !== undefined) return yield* held
        if (tool === undefined) {
          return yield* new UsageError({
            message: `no tool ${JSON.stringify(options.tool)} (tools: ${catalogue.map((t) => t.name).join(", ")})`
          })
        }
        const args = yield* toolArguments(bounded(tool.inputSchema), options.values, Option.getOrUndefined(options.args))
        const result = yield* client.callTool(tool.name, args).pipe(Effect.ensuring(Effect.sync(status.clear)))
        if (Option.isSome(options.out)) {
          yield* saveFirst(options.out.value, result.content)
        } else if (options.json) {
          yield* printJson(result)
        } else {
          // Compared and shown to a bounded depth: a result nested without end is cut, not a stack overflow.
          const structured = bounded(result.structuredContent)
          for (const block of distinctBlocks(result.content, structured)) yield* print(blockText(block))
          if (structured !== undefined) yield* print(indented("structured", structured))
        }
        if (result.isError === true) return yield* new ToolReturnedError({ tool: tool.name })
      }), { progress: true })
).pipe(
  Command.withDescription("call a tool: values coerced by its input schema (--args JSON for the whole object)"),
  Command.withExamples([
    { command: `mcp-effect call get-sum a=1 b=2 -- ${EVERYTHING}`, description: "the arguments as name=value" },
    {
      command: `mcp-effect call get-sum --args '{"a": 1, "b": 2}' --stdio "${EVERYTHING}"`,
      description: "the whole arguments object as JSON"
    },
    { command: `mcp-effect call echo message=hi --json --url https://example.com/mcp`, description: "a Streamable HTTP server, JSON out" },
    { command: `mcp-effect call echo message=hi --pins pins.json -s everything`, description: "refused (exit 3) if echo changed since pinned" }
  ])
)
