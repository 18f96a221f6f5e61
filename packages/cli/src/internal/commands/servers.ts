/**
 * `servers`: every entry of the configuration, connected and checked in parallel (`--concurrency` at a time,
 * default 8): its era and tool count, or the error it gave. A broken entry (malformed, or a server that
 * fails) is reported; the others are not held up by it. VS Code's `inputs` are asked first at a terminal.
 */
import * as Command from "effect/cli/Command"
import * as Flag from "effect/cli/Flag"
import { McpConfig } from "@mcp-effect/client/node"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Result from "effect/Result"
import { SomeServersFailed, UsageError } from "../errors.js"
import * as inputs from "../config/inputs.js"
import { shared } from "../session/options.js"
import { print, printJson, table } from "../terminal/print.js"
import { clientOptions, interaction, SERVER_GRACE, type SessionOptions } from "../session/connection.js"
import * as Status from "../terminal/statusLine.js"
import { configPath } from "../session/target.js"

interface Row {
  readonly name: string
  readonly transport: "stdio" | "http" | undefined
  readonly ok: boolean
  readonly era?: string
  readonly protocolVersion?: string
  readonly server?: string
  readonly tools?: number
  readonly error?: string
}

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error))

const check = (
  entry: McpConfig.ServerEntry,
  options: Pick<SessionOptions, "root" | "timeout">,
  status: Status.StatusLine
) =>
  Effect.gen(function*() {
    const client = yield* McpConfig.connect(entry, {
      ...yield* clientOptions(options, yield* interaction(options, status), false),
      shutdownTimeout: SERVER_GRACE
    })
    const info = yield* client.info
    const tools = yield* client.listTools()
    const row: Row = {
      name: entry.name,
      transport: entry.transport,
      ok: true,
      era: info.era,
      protocolVersion: info.protocolVersion,
      server: info.serverInfo === undefined ? "" : `${info.serverInfo.name} ${info.serverInfo.version}`,
      tools: tools.length
    }
    return row
  }).pipe(
    Effect.scoped,
    Effect.timeoutOrElse({
      duration: options.timeout * 1000,
      orElse: () => Effect.fail(new Error(`no answer within ${options.timeout} s`))
    }),
    Effect.catch((error) =>
      Effect.succeed<Row>({ name: entry.name, transport: entry.transport, ok: false, error: messageOf(error) })
    )
  )

/** How many entries are checked at once (each is a server process or an open connection). */
const concurrency = Flag.Int("concurrency").pipe(
  Flag.withDescription("how many servers are checked at once"),
  Flag.withDefault(8),
  Flag.filterMap((n) => (n >= 1 ? Option.some(n) : Option.none()), () => "--concurrency must be at least 1")
)

export const servers = Command.make(
  "servers",
  { config: shared.config, json: shared.json, root: shared.root, timeout: shared.timeout, concurrency },
  (options) =>
    Effect.gen(function*() {
      const path = yield* configPath(options.config)
      // VS Code's `inputs` every entry uses, asked once at the terminal (none asked without one).
      const answers = yield* inputs.ask(path, "every")
      const entries = yield* McpConfig.readEntries(path, answers === undefined ? undefined : { inputs: answers }).pipe(
        Effect.mapError((e) => new UsageError({ message: e.message }))
      )
      const status = Status.make()
      const rows = yield* Effect.forEach(
        entries,
        Result.match({
          onFailure: (error) =>
            Effect.succeed<Row>({
              name: error.entry ?? "",
              transport: undefined,
              ok: false,
              error: `${error.field === undefined ? "" : `field ${JSON.stringify(error.field)}: `}${error.detail}`
            }),
          onSuccess: (entry) => check(entry, options, status)
        }),
        { concurrency: options.concurrency }
      )
      if (options.json) {
        yield* printJson(rows)
      } else {
        yield* print(table(
          ["NAME", "TRANSPORT", "ERA", "TOOLS", "STATUS"],
          rows.map((row) => [
            row.name,
            row.transport ?? "?",
            row.era ?? "-",
            row.tools === undefined ? "-" : String(row.tools),
            row.ok ? `ok ${row.server ?? ""}`.trimEnd() : `error: ${row.error ?? ""}`
          ])
        ))
      }
      const failed = rows.filter((row) => !row.ok).length
      if (failed > 0) return yield* new SomeServersFailed({ count: failed })
    })).pipe(
      Command.withDescription(
        "every server of the configuration, checked in parallel (--concurrency at a time, default 8): era and tool count, or its error"
      )
    )
