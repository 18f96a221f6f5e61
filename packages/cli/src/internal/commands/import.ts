/**
 * `mcp-effect import [--from FILE] [--to FILE]`: copy the servers of an editor's or desktop app's configuration
 * (`--from`, else the first one found: VS Code, Cursor, Claude Desktop, Windsurf, Claude Code) into this
 * project's `./.mcp.json` (`--to`), as written (`${VAR}` references kept). Entries already there are kept
 * and not overwritten; the command says which were imported and which skipped. Both files are read as regular
 * files of at most 4 MiB; the target is written whole or not at all, and never through a symbolic link (a
 * project's `.mcp.json` that links to a user's global configuration must not carry a repository's servers there).
 * VS Code's `${input:ID}` references become `${ID}` environment references, and the command names the variables
 * to set (`importInputs.ts`): `.mcp.json` has no `inputs` to ask for them.
 */
import { McpSchema } from "@mcp-effect/client"
import * as Command from "effect/cli/Command"
import * as Flag from "effect/cli/Flag"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { existsSync } from "node:fs"
import { candidates, shown } from "../config/discover.js"
import { UsageError } from "../errors.js"
import { asEnvironmentReferences } from "../config/inputsAsEnvironment.js"
import { visible } from "../terminal/sanitize.js"
import { CONFIG_LIMIT, type FileError, lstatOf, readRegularText, writeFileAtomic } from "../files.js"

type Json = Readonly<Record<string, unknown>>

const isObject: (value: unknown) => value is Json = McpSchema.isRecord

const asUsage = (error: FileError) => new UsageError({ message: error.message })

/** A configuration file's JSON object: a regular file of at most 4 MiB. */
const readJson = (file: string): Effect.Effect<Json, UsageError> =>
  readRegularText(file, CONFIG_LIMIT).pipe(
    Effect.mapError(asUsage),
    Effect.flatMap((text) =>
      Effect.try({
        try: (): unknown => JSON.parse(text),
        catch: (error) => new UsageError({ message: `${file}: ${error instanceof Error ? error.message : String(error)}` })
      })
    ),
    Effect.flatMap((value) =>
      isObject(value) ? Effect.succeed(value) : Effect.fail(new UsageError({ message: `${file}: not a JSON object` }))
    )
  )

/** The target's content: `{}` when there is none; a symbolic link there is refused before anything is read. */
const readTarget = (file: string): Effect.Effect<Json, UsageError> =>
  Effect.flatMap(Effect.mapError(lstatOf(file), asUsage), (stats) => {
    if (stats === undefined) return Effect.succeed({})
    if (stats.isSymbolicLink()) {
      return Effect.fail(new UsageError({ message: `refusing to write ${file}: it is a symbolic link (give --to another file)` }))
    }
    return readJson(file)
  })

/** The named entries of a document: `mcpServers`, else VS Code's `servers`. */
const entriesOf = (document: Json): Json | undefined => {
  const servers = document["mcpServers"] ?? document["servers"]
  return isObject(servers) ? servers : undefined
}

/** The first configuration found that is not the target itself. */
const source = (from: Option.Option<string>, target: string): Effect.Effect<string, UsageError> => {
  if (Option.isSome(from)) return Effect.succeed(from.value)
  const found = candidates().find((candidate) => shown(candidate) !== target && candidate.path !== target && existsSync(candidate.path))
  return found === undefined
    ? Effect.fail(new UsageError({ message: "nothing to import: no editor's or desktop app's configuration found (use --from FILE)" }))
    : Effect.succeed(found.path)
}

export const importServers = Command.make(
  "import",
  {
    from: Flag.String("from").pipe(
      Flag.withDescription("the configuration to import (default: the first of VS Code, Cursor, Claude Desktop, Windsurf, Claude Code found)"),
      Flag.optional
    ),
    to: Flag.String("to").pipe(Flag.withDescription("the file to add the servers to (default ./.mcp.json)"), Flag.withDefault(".mcp.json"))
  },
  (options) =>
    Effect.gen(function*() {
      const from = yield* source(options.from, options.to)
      const target = yield* readTarget(options.to)
      const incoming = entriesOf(yield* readJson(from))
      if (incoming === undefined) return yield* new UsageError({ message: `${from}: no mcpServers (nor VS Code's servers)` })
      const existing = entriesOf(target) ?? {}
      // Own names only: `constructor` or `__proto__` is a server's name here, not something every object has.
      const added = Object.keys(incoming).filter((name) => !Object.hasOwn(existing, name))
      const skipped = Object.keys(incoming).filter((name) => Object.hasOwn(existing, name))
      const rewritten = added.map((name) => ({ name, ...asEnvironmentReferences(incoming[name]) }))
      // Spread and `fromEntries` define the names (an assignment to `__proto__` would not).
      const merged = { ...target, mcpServers: { ...existing, ...Object.fromEntries(rewritten.map((r) => [r.name, r.entry])) } }
      yield* Effect.mapError(writeFileAtomic(options.to, `${JSON.stringify(merged, null, 2)}\n`), asUsage)
      yield* Console.log(`imported ${added.length} from ${from} into ${options.to}${added.length === 0 ? "" : `: ${added.join(", ")}`}`)
      if (skipped.length > 0) yield* Console.error(`mcp-effect: kept the entries already in ${options.to}: ${skipped.join(", ")}`)
      for (const { name, replaced } of rewritten) {
        if (replaced.length === 0) continue
        // The names come from the file: their controls are made visible on the terminal.
        const ids = visible(replaced.map((r) => r.id).join(", "))
        const references = replaced.map((r) => `\${${r.variable}}`).join(", ")
        yield* Console.error(
          `mcp-effect: ${visible(name)} uses VS Code's input${replaced.length === 1 ? "" : "s"} ${ids}, which ${options.to} cannot ask for: ` +
            `written as ${references}; set ${replaced.map((r) => r.variable).join(", ")} in the environment to use it`
        )
      }
    })
).pipe(Command.withDescription("copy an editor's or desktop app's servers into ./.mcp.json (--from FILE, --to FILE)"))
