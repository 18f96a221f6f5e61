/**
 * `replay FILE`: a recorded session served as a server any client can talk to: over stdio (the default), or
 * Streamable HTTP on loopback with `--http [--port N]` (its URL printed as one line). The recorded pacing is
 * kept (`--fast` skips the waits); a client whose ids, progress tokens and session differ from the recorded
 * ones is answered with its own. Requests must come in the recorded order (`--any-order`: each is answered
 * by the first later recorded one it matches). A cassette that cannot be read ends it at once: exit 2 and one
 * line why.
 */
import { McpCassette } from "@mcp-effect/client"
import * as Argument from "effect/cli/Argument"
import * as Command from "effect/cli/Command"
import * as Flag from "effect/cli/Flag"
import * as Effect from "effect/Effect"
import { serve } from "../cassette/httpReplay.js"
import * as ReplaySession from "../cassette/replaySession.js"
import { note, parseMessage, readLines, send } from "../cassette/stdio.js"
import { UsageError } from "../errors.js"

interface Pacing {
  readonly fast: boolean
  readonly anyOrder: boolean
}

const replayStdio = (cassette: McpCassette.Cassette, options: Pacing) =>
  Effect.gen(function*() {
    const replay = yield* ReplaySession.make(cassette, send, options)
    yield* readLines((line) => {
      const message = parseMessage(line)
      return typeof message === "string"
        ? Effect.sync(() => note(`a line from the client was ${message}; ignored`))
        : replay.offer(message)
    })
  }).pipe(Effect.scoped)

const replayHttp = (cassette: McpCassette.Cassette, port: number, options: Pacing) =>
  Effect.gen(function*() {
    const url = yield* serve(cassette, port, options).pipe(
      Effect.mapError((error) => new UsageError({ message: `cannot listen on 127.0.0.1:${port}: ${error.message}` }))
    )
    yield* Effect.sync(() => void process.stdout.write(`${url}\n`))
    return yield* Effect.never
  }).pipe(Effect.scoped)

export const replay = Command.make(
  "replay",
  {
    file: Argument.String("file").pipe(Argument.withDescription("the cassette to serve")),
    http: Flag.Boolean("http").pipe(Flag.withDescription("serve Streamable HTTP on 127.0.0.1 instead of stdio"), Flag.withDefault(false)),
    port: Flag.Int("port").pipe(Flag.withDescription("with --http: the port (default: a free one)"), Flag.withDefault(0)),
    fast: Flag.Boolean("fast").pipe(Flag.withDescription("answer at once, without the recorded waits"), Flag.withDefault(false)),
    anyOrder: Flag.Boolean("any-order").pipe(
      Flag.withDescription("answer a request with the first later recorded one it matches, not only the next"),
      Flag.withDefault(false)
    )
  },
  (options) =>
    Effect.gen(function*() {
      const cassette = yield* McpCassette.read(options.file).pipe(
        Effect.mapError((error) => new UsageError({ message: error.message }))
      )
      yield* options.http ? replayHttp(cassette, options.port, options) : replayStdio(cassette, options)
    })
).pipe(
  Command.withDescription("serve a recorded session (a cassette) as a server, over stdio or --http"),
  Command.withExamples([
    { command: "mcp-effect replay session.ndjson", description: "a stdio server any host can spawn" },
    { command: "mcp-effect replay session.ndjson --http --port 8931 --fast", description: "over HTTP, without the recorded waits" }
  ])
)
