/**
 * `verify FILE -- cmd args` / `--url URL`: the recorded client side sent to the live server, and what changed
 * (tools added, removed or changed, naming the tool and the field; answers that differ beyond their volatile
 * parts). Exit 0 when the same, 1 when something changed, 3 when it could not run (the cassette unreadable, the
 * server unreachable); `--json` prints one object.
 */
import { McpCassette } from "@mcp-effect/client"
import * as Argument from "effect/cli/Argument"
import * as Command from "effect/cli/Command"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { CassetteChanged } from "../errors.js"
import { entryOf, transportOf } from "../session/connection.js"
import { serverFlags, shared } from "../session/options.js"
import { print, printJson } from "../terminal/print.js"
import { EVERYTHING } from "./examples.js"

export const verify = Command.make(
  "verify",
  {
    file: Argument.String("file").pipe(Argument.withDescription("the cassette to check the server against")),
    ...serverFlags,
    json: shared.json,
    timeout: shared.timeout
  },
  (options) =>
    Effect.gen(function*() {
      const cassette = yield* McpCassette.read(options.file)
      const entry = yield* entryOf(options)
      const report = yield* McpCassette.verify(cassette, { timeout: `${options.timeout} seconds` }).pipe(
        Effect.provide(Layer.fresh(transportOf(entry, "500 millis"))),
        Effect.scoped
      )
      if (options.json) yield* printJson(report)
      else if (report.same) yield* print(`same: ${report.requests} requests answered as recorded`)
      else yield* print([`changed (${report.changes.length}):`, ...report.changes.map((c) => `  line ${c.line}: ${c.detail}`)].join("\n"))
      if (!report.same) return yield* new CassetteChanged({ count: report.changes.length })
    })
).pipe(
  Command.withDescription("send a cassette's client side to the live server and report what changed (exit 1)"),
  Command.withExamples([
    { command: `mcp-effect verify session.ndjson -- ${EVERYTHING}`, description: "the same server, checked against its recording" },
    { command: "mcp-effect verify session.ndjson --url https://example.com/mcp --json", description: "one JSON object, for CI" }
  ])
)
