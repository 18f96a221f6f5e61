/**
 * `types [--out FILE] [--client-module MODULE]`: a TypeScript module typing the server's tools (one `Schema` per
 * input and output, a typed Effect facade and a Promise one), from `McpCodegen.toolsModule`; on stdout, or
 * written whole to FILE. What the module does not check (keywords a schema cannot express, tools typed looser)
 * goes to stderr, so that stdout stays the module.
 *
 * The tools are listed by a client that declares only the capabilities `--declare` names (none by default, as a
 * program without hooks): a server may offer other tools to a client that can answer its questions (the elicitation
 * tools), and a module generated from the command's own listing would show drift in `changedTools` at once. The
 * module's header and stderr say what was declared.
 */
import * as McpCodegen from "@mcp-effect/client/McpCodegen"
import type { McpClient, McpConfig } from "@mcp-effect/client/node"
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

/** What a program may declare, as `--declare` names it. */
type Declared = "elicitation" | "roots"

/** The command's client options with only the `declared` capabilities: elicitation (form and URL), roots. */
const declaring = (declared: ReadonlyArray<Declared>) => (options: McpClient.ClientOptions): McpClient.ClientOptions => {
  const { onElicit, elicitationModes, onListRoots, ...rest } = options
  return {
    ...rest,
    ...(declared.includes("elicitation") ? { onElicit, elicitationModes } : {}),
    ...(declared.includes("roots") ? { onListRoots: onListRoots ?? (() => Effect.succeed({ roots: [] })) } : {})
  }
}

/** The line on stderr saying what the listing declared. */
const declaredLine = (declared: ReadonlyArray<Declared>) =>
  declared.length === 0
    ? "mcp-effect: listed as a client that declares no capabilities (a program without hooks); --declare elicitation|roots for one that does"
    : `mcp-effect: listed as a client that declares ${declared.join(", ")}`

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
    ),
    declare: Flag.Literals("declare", ["elicitation", "roots"]).pipe(
      Flag.withDescription("a capability the program declares, listed with it (repeatable; default none, as a program without hooks)"),
      Flag.atLeast(0)
    )
  },
  (options) =>
    Effect.gen(function*() {
      const entry = yield* entryOf(options)
      const declared = [...new Set(options.declare)]
      return yield* withClient(options, (client, status) =>
        Effect.gen(function*() {
          const tools = yield* listTools(client, status)
          const generated = yield* McpCodegen.toolsModule(tools, {
            source: sourceOf(entry),
            clientModule: options.clientModule,
            declares: declared
          })
          status.line(declaredLine(declared))
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
        }), { client: declaring(declared) })
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
