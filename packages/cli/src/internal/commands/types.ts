/**
 * `types [--out FILE] [--client-module MODULE]`: a TypeScript module typing the server's tools (one `Schema` per
 * input and output, a typed Effect facade and a Promise one), from `McpCodegen.toolsModule`; on stdout, or
 * written whole to FILE. What the module does not check (keywords a schema cannot express, tools typed looser)
 * goes to stderr, so that stdout stays the module.
 */
import * as McpCodegen from "@mcp-effect/client/McpCodegen"
import type { McpConfig } from "@mcp-effect/client/node"
import * as Command from "effect/cli/Command"
import * as Flag from "effect/cli/Flag"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { UsageError } from "../errors.js"
import { type FileError, writeFileAtomic } from "../files.js"
import { entryOf, withClient } from "../session/connection.js"
import { shared } from "../session/options.js"
import { pinning } from "../session/pins.js"
import { printJson } from "../terminal/print.js"
import { EVERYTHING } from "./examples.js"
import { listTools } from "./tools.js"

/** What the module says it was generated from: the entry's name, the URL, or the command line. */
export const sourceOf = (entry: McpConfig.ServerEntry): string =>
  entry.transport === "http"
    ? entry.url
    : entry.name === "stdio"
    ? [entry.command, ...entry.args].join(" ")
    : entry.name

const asUsage = (error: FileError) => new UsageError({ message: error.message })

export const types = Command.make(
  "types",
  {
    ...shared,
    ...pinning,
    out: Flag.String("out").pipe(
      Flag.withDescription("write the module to this file (whole or not at all; a symbolic link there is refused)"),
      Flag.optional
    ),
    clientModule: Flag.String("client-module").pipe(
      Flag.withDescription("the module the generated code imports the client from"),
      Flag.withDefault("@mcp-effect/client")
    )
  },
  (options) =>
    Effect.gen(function*() {
      const entry = yield* entryOf(options)
      return yield* withClient(options, (client, status) =>
        Effect.gen(function*() {
          const tools = yield* listTools(client, status)
          const generated = yield* McpCodegen.toolsModule(tools, { source: sourceOf(entry), clientModule: options.clientModule })
          // Notes quote tool names and schema keywords from the server: `line` makes their controls visible.
          for (const note of generated.notes) status.line(`mcp-effect: ${note.tool}: ${note.detail}`)
          if (Option.isNone(options.out)) {
            return yield* options.json
              ? printJson({ tools: tools.length, notes: generated.notes, source: generated.source })
              : Effect.sync(() => void process.stdout.write(generated.source))
          }
          yield* Effect.mapError(writeFileAtomic(options.out.value, generated.source), asUsage)
          if (options.json) return yield* printJson({ file: options.out.value, tools: tools.length, notes: generated.notes })
          status.line(`mcp-effect: wrote ${options.out.value} (${tools.length} tools)`)
        }))
    })
).pipe(
  Command.withDescription("a TypeScript module typing the server's tools: Schemas and a typed facade (--out FILE)"),
  Command.withExamples([
    { command: `mcp-effect types --out tools.ts -- ${EVERYTHING}`, description: "write the typed module of a stdio server" },
    { command: "mcp-effect types --url https://example.com/mcp > tools.ts", description: "the module on stdout" },
    {
      command: "mcp-effect types -s everything --out src/tools.ts --client-module @mcp-effect/client/node",
      description: "an entry of ./.mcp.json, importing the Node entry"
    }
  ])
)
