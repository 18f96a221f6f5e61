/**
 * `pins` (a server's pinned tools, and what changed in the quarantined ones) and `pins approve NAME...` (take a
 * quarantined tool's new definition as its pin, showing what was approved). Neither connects to the server: they
 * read and write the pins file (`--pins FILE` or `MCP_EFFECT_PINS`) under the server's scope, which is named as
 * `tools` and `call` name it (`session/pins.ts`), or given with `--scope`.
 */
import { McpPinning } from "@mcp-effect/client"
import { NodeMcpPinning } from "@mcp-effect/client/node"
import * as Argument from "effect/cli/Argument"
import * as Command from "effect/cli/Command"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { UsageError } from "../errors.js"
import { entryOf } from "../session/connection.js"
import { approveCommand, pinning, pinsFile, scopeOf } from "../session/pins.js"
import { shared } from "../session/options.js"
import { print, printJson, table } from "../terminal/print.js"
import { wide } from "./flags.js"

/** The flags both take: which server (as the other commands), the pins file and scope, `--json`. */
const flags = {
  config: shared.config,
  server: shared.server,
  stdio: shared.stdio,
  url: shared.url,
  json: shared.json,
  ...pinning
}

interface PinsOptions {
  readonly config: Option.Option<string>
  readonly server: Option.Option<string>
  readonly stdio: Option.Option<string>
  readonly url: Option.Option<string>
  readonly json: boolean
  readonly pins: Option.Option<string>
  readonly scope: Option.Option<string>
}

/** The store and scope of the command line: `--scope` alone is enough; else the server picks it. */
const storeAndScope = (options: PinsOptions) =>
  Effect.gen(function*() {
    const file = pinsFile(options)
    if (file === undefined) return yield* new UsageError({ message: "no pins file: give --pins FILE or set MCP_EFFECT_PINS" })
    const scope = Option.isSome(options.scope)
      ? options.scope.value
      : scopeOf(yield* entryOf({ ...options, header: [] }), options)
    return { file, scope, store: NodeMcpPinning.fileStore(file) }
  })

const when = (millis: number) => new Date(millis).toISOString().replace(/\.\d{3}Z$/, "Z")

const approve = Command.make(
  "approve",
  {
    ...flags,
    names: Argument.String("name").pipe(Argument.withDescription("a quarantined tool to approve"), Argument.variadic({ min: 1 }))
  },
  (options) =>
    Effect.gen(function*() {
      const { file, scope, store } = yield* storeAndScope(options)
      const before = yield* McpPinning.list(store, scope)
      const unknown = options.names.filter((name) => !before.some((status) => status.name === name))
      if (unknown.length > 0) {
        return yield* new UsageError({
          message: `${file} has no pin of ${unknown.map((name) => JSON.stringify(name)).join(", ")} in scope ${JSON.stringify(scope)}`
        })
      }
      const approved: Array<{ readonly name: string; readonly changes: ReadonlyArray<string> }> = []
      const unchanged: Array<string> = []
      const damaged: Array<string> = []
      for (const status of before.filter((s) => options.names.includes(s.name))) {
        // A damaged record has no definition to approve until a listing records the one the server offers.
        if (status.status === "damaged") {
          damaged.push(status.name)
          continue
        }
        if (status.status !== "quarantined") {
          unchanged.push(status.name)
          continue
        }
        // What is approved is shown from the listing read just before: the difference the user reviewed.
        yield* McpPinning.approve(store, scope, status.name)
        approved.push({ name: status.name, changes: status.changes ?? [] })
      }
      if (options.json) return yield* printJson({ scope, approved, unchanged, damaged })
      for (const { name, changes } of approved) yield* print(`approved ${name}: ${changes.join("; ")}`)
      for (const name of unchanged) yield* print(`${name}: nothing pending (pinned as it is)`)
      for (const name of damaged) {
        yield* print(`${name}: its stored pin is damaged; list the server's tools with --pins (it records what the server offers now), then approve`)
      }
    })
).pipe(
  Command.withDescription("approve quarantined tools: their new definitions become their pins (what changed is shown)"),
  Command.withExamples([
    { command: "mcp-effect pins approve search --pins pins.json -s everything", description: "approve one tool's change" },
    { command: "mcp-effect pins approve a b --pins pins.json --scope my-server", description: "two tools, the scope named" }
  ])
)

/** `pins`, `pins approve NAME...`. */
export const pins = Command.make(
  "pins",
  { ...flags, wide },
  (options) =>
    Effect.gen(function*() {
      const { file, scope, store } = yield* storeAndScope(options)
      const statuses = yield* McpPinning.list(store, scope)
      if (options.json) return yield* printJson({ scope, tools: statuses })
      if (statuses.length === 0) return yield* print(`no pins in scope ${scope}`)
      yield* print(table(
        ["NAME", "STATUS", "PINNED", "CHANGES"],
        statuses.map((status) => [
          status.name,
          status.status,
          status.pinnedAt === 0 ? "-" : when(status.pinnedAt),
          (status.changes ?? []).join("; ")
        ]),
        { wide: options.wide }
      ))
      // The pins keep digests, not the server's text: what it offers now is read from the server itself.
      const pending = statuses.filter((status) => status.status === "quarantined").map((status) => status.name)
      if (pending.length > 0) {
        yield* print(
          `\nto read what the server offers now: mcp-effect tools --wide --schema (the same server, without --pins)` +
            `\nto approve it: ${approveCommand(file, scope, pending)}`
        )
      }
    })
).pipe(
  Command.withDescription("the pinned tools of a server (--pins FILE), what changed in quarantined ones; approve NAME"),
  Command.withExamples([
    { command: "mcp-effect pins --pins pins.json -s everything", description: "the pins of an entry of ./.mcp.json" },
    { command: "mcp-effect pins --json --pins pins.json --url https://example.com/mcp", description: "as JSON" },
    { command: "mcp-effect pins approve search --pins pins.json -s everything", description: "approve a changed tool" }
  ]),
  Command.withSubcommands([approve])
)
