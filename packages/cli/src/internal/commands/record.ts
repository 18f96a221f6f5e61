/**
 * `record FILE -- cmd args` / `record FILE --url URL`: stand in for a server and record the session any host
 * has with it. Over stdio it is a server the host spawns in place of the real one (the real one is started as
 * the other commands start it: `--env`, `--env-all`, a configuration entry), every line passed on both ways;
 * with `--url` it is a Streamable HTTP server on loopback forwarding to URL (with `--header`), its URL printed
 * as one line. The host closing stdin (stdio) or Ctrl-C ends it; the cassette is written whole then (and, so
 * that an unwritable FILE fails at once, when it starts). Values given with `--env` and `--header`, a
 * configuration's secrets and the credentials the host sends never reach the file.
 */
import { McpCassette, type McpTransportError, McpTransport } from "@mcp-effect/client"
import type { McpConfig } from "@mcp-effect/client/node"
import * as Argument from "effect/cli/Argument"
import * as Command from "effect/cli/Command"
import * as Flag from "effect/cli/Flag"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { note, parseMessage, readLines } from "../cassette/stdio.js"
import { listen } from "../cassette/httpProxy.js"
import { UsageError } from "../errors.js"
import { writeFileAtomic } from "../files.js"
import { entryOf, transportOf } from "../session/connection.js"
import { serverFlags } from "../session/options.js"
import { parseEnv, parseHeaders } from "../session/target.js"
import { EVERYTHING } from "./examples.js"

/** The options of `record`: the server options of every command, where to listen, timestamps. */
export const recordOptions = {
  file: Argument.String("file").pipe(Argument.withDescription("the cassette to write (NDJSON)")),
  ...serverFlags,
  port: Flag.Int("port").pipe(
    Flag.withDescription("with --url: the loopback port to listen on (default: a free one)"),
    Flag.withDefault(0)
  ),
  timestamps: Flag.Boolean("timestamps").pipe(
    Flag.withDescription("replace ISO 8601 timestamps in the messages with [timestamp]"),
    Flag.withDefault(false)
  )
}

/** The values never written, each with what it is. */
const secretsOf = (entry: McpConfig.ServerEntry, env: Record<string, string>, headers: Record<string, string>) => {
  const given = new Set([...Object.values(env), ...Object.values(headers)])
  return [
    ...Object.values(env).map((value) => ({ value, kind: "--env value" })),
    ...Object.values(headers).map((value) => ({ value, kind: "--header value" })),
    ...(entry.secrets ?? []).filter((value) => !given.has(value)).map((value) => ({ value, kind: "configuration secret" })),
    ...(entry.transport === "http"
      ? Object.values(entry.headers ?? {}).filter((value) => !given.has(value)).map((value) => ({ value, kind: "configuration header" }))
      : [])
  ]
}

/** Write the cassette whole, once; says where on stderr. */
const saver = (file: string, recorder: McpCassette.Recorder) => {
  let saved = false
  return () => Effect.suspend(() => {
    if (saved) return Effect.void
    saved = true
    const cassette = recorder.cassette()
    return writeFileAtomic(file, McpCassette.encode(cassette)).pipe(
      Effect.tap(() => Effect.sync(() => note(`recorded ${cassette.entries.length} messages to ${file}`))),
      Effect.catch((error) => Effect.sync(() => note(error.message)))
    )
  })
}

const recordStdio = (entry: McpConfig.StdioEntry, recorder: McpCassette.Recorder, saveOnce: () => Effect.Effect<void>) =>
  Effect.gen(function*() {
    const clock = yield* Clock.Clock
    const now = () => clock.currentTimeMillisUnsafe()
    const context = yield* Layer.build(transportOf(entry))
    const connection = yield* Context.get(context, McpTransport.McpTransport).connect
    yield* connection.receive({
      message: (message) => {
        if (typeof message === "object" && message !== null && !Array.isArray(message)) {
          recorder.record("server", message as Record<string, unknown>, now())
        }
        process.stdout.write(`${JSON.stringify(message)}\n`)
      },
      // A line that is not JSON is the host's to judge, as the real server sent it; it is not a message to keep.
      malformed: (frame) => void process.stdout.write(`${frame}\n`),
      failed: () => {}
    })
    const fromHost = readLines((line) => {
      const message = parseMessage(line)
      if (typeof message === "string") return Effect.sync(() => note(`a line from the host was ${message}; not passed on`))
      recorder.record("client", message, now())
      return connection.send(message, {}).pipe(Effect.catch((error) => Effect.sync(() => note(error.message))))
    })
    yield* Effect.raceFirst(fromHost, Effect.asVoid(connection.ended))
    // Saved before the server is stopped: a host that closed stdin may end this process soon after.
    yield* saveOnce()
  }).pipe(Effect.scoped)

const recordHttp = (entry: McpConfig.HttpEntry, recorder: McpCassette.Recorder, port: number) =>
  Effect.gen(function*() {
    const clock = yield* Clock.Clock
    const url = yield* listen(
      { upstream: new URL(entry.url), headers: entry.headers ?? {}, recorder, now: () => clock.currentTimeMillisUnsafe() },
      port
    ).pipe(Effect.mapError((error) => new UsageError({ message: `cannot listen on 127.0.0.1:${port}: ${error.message}` })))
    yield* Effect.sync(() => void process.stdout.write(`${url}\n`))
    return yield* Effect.never
  }).pipe(Effect.scoped)

export const record = Command.make("record", recordOptions, (options) =>
  Effect.gen(function*() {
    const entry = yield* entryOf(options)
    const env = yield* parseEnv(options.env)
    const headers = yield* parseHeaders(options.header)
    const recorder = McpCassette.makeRecorder({
      transport: entry.transport,
      ...(entry.transport === "http" ? { path: new URL(entry.url).pathname } : {}),
      secrets: secretsOf(entry, env, headers),
      timestamps: options.timestamps
    })
    // Written empty first: a FILE that cannot be written fails now, not after the session.
    yield* writeFileAtomic(options.file, McpCassette.encode(recorder.cassette())).pipe(
      Effect.mapError((error) => new UsageError({ message: error.message }))
    )
    const save = saver(options.file, recorder)
    const session: Effect.Effect<void, UsageError | McpTransportError> = entry.transport === "http"
      ? recordHttp(entry, recorder, options.port)
      : recordStdio(entry, recorder, save)
    // Ctrl-C, a signal, a failure: what was recorded is written all the same.
    yield* session.pipe(Effect.ensuring(save()))
  })).pipe(
    Command.withDescription("stand in for a server and record the session a host has with it to FILE (a cassette)"),
    Command.withExamples([
      { command: `mcp-effect record session.ndjson -- ${EVERYTHING}`, description: "a stdio server a host spawns in place of the real one" },
      { command: "mcp-effect record session.ndjson --url https://example.com/mcp", description: "a loopback HTTP server in front of a remote one (prints its URL)" }
    ])
  )
