/**
 * Record, replay, verify: a real MCP session kept as a file (a "cassette") that is a test fixture, a bug report
 * and an audit trail.
 *
 * - **Record** with `layerRecord(path)` around any client's transport: every message both ways, with its time
 *   offset and what HTTP said about it, normalised (ids, progress tokens, `Mcp-Session-Id`, trace and client
 *   fields of `_meta`, DPoP proofs; timestamps with `timestamps: true`) and cleaned of secrets before anything
 *   is kept (credential headers, auth-scheme values, the `secrets` given, each also percent- and
 *   base64-encoded): a line that lost one says which kind (`redacted`), the value replaced by `[redacted]`.
 * - **Replay** with `layerReplay(cassette)` (or `McpTestServer.fromCassette`): a transport answering from the
 *   cassette, strictly (a request that is not the next recorded one fails with `McpCassetteMismatchError`
 *   naming the expected one and the difference; `strict: false` takes a later recorded match), at the recorded
 *   offsets on the `Clock`, so that under `TestClock` progress and notifications arrive as the test moves the
 *   clock.
 * - **Verify** with `verify(cassette)`: the recorded client side sent to a live server, and what changed.
 *
 * The file is versioned NDJSON: line 1 a header (`format`, `version`, `recordedAt`, the recorder, the server's
 * `serverInfo`, era, protocol version, transport, what was normalised), then one line per message
 * (`{"t":12,"from":"server","message":{…},"http":{"status":200},"redacted":["authorization header"]}`). It is
 * read bounded (size, line length, nesting): a bad one is an `McpCassetteError` naming the line.
 *
 * ```ts
 * import { Effect, Layer } from "effect"
 * import { McpCassette, McpClient, McpTestServer } from "@mcp-effect/client"
 *
 * // A session recorded from a server declared in a test (any transport layer records the same way).
 * const server = McpTestServer.make({ tools: [McpTestServer.tool({ name: "ping", handler: () => Effect.succeed("pong") })] })
 * const recorder = McpCassette.makeRecorder({ transport: "memory" })
 *
 * export const replayed = Effect.gen(function*() {
 *   yield* McpClient.callTool("ping", {}).pipe(
 *     Effect.provide(McpClient.layer().pipe(Layer.provide(McpCassette.record(recorder)), Layer.provide(server.transport)))
 *   )
 *   // The same session answered from the cassette, no server running.
 *   const replay = McpTestServer.fromCassette(recorder.cassette())
 *   return yield* McpClient.callTool("ping", {}).pipe(Effect.provide(replay.layer()))
 * })
 * ```
 *
 * @since 0.3.0
 */
import * as Effect from "effect/Effect"
import type * as FileSystem from "effect/FileSystem"
import * as Layer from "effect/Layer"
import type * as Scope from "effect/Scope"
import * as file from "./internal/cassette/file.js"
import * as model from "./internal/cassette/model.js"
import * as reader from "./internal/cassette/read.js"
import * as recording from "./internal/cassette/record.js"
import { Recorder as RecorderImpl, type RecorderOptions, type WireHttp as RecorderWire } from "./internal/cassette/recorder.js"
import * as replay from "./internal/cassette/replay.js"
import * as replayTransport from "./internal/cassette/replayTransport.js"
import * as verifier from "./internal/cassette/verify.js"
import type { McpCassetteError, McpCassetteMismatchError } from "./McpCassetteError.js"
import type { McpClosedError, McpServerGoneError, McpTransportError } from "./McpError.js"
import type { McpAuthError } from "./McpAuthError.js"
import type { JsonObject } from "./McpSchema.js"
import { McpTransport } from "./McpTransport.js"

export {
  /**
   * @since 0.3.0
   * @category errors
   */
  McpCassetteError,
  /**
   * @since 0.3.0
   * @category errors
   */
  McpCassetteMismatchError
} from "./McpCassetteError.js"

/**
 * The `format` of a cassette's header.
 *
 * @since 0.3.0
 * @category constants
 */
export const FORMAT: typeof model.FORMAT = model.FORMAT

/**
 * The format version written (a reader refuses any other).
 *
 * @since 0.3.0
 * @category constants
 */
export const VERSION: typeof model.VERSION = model.VERSION

/**
 * @since 0.3.0
 * @category models
 */
export type Cassette = model.Cassette

/**
 * @since 0.3.0
 * @category models
 */
export type Header = model.Header

/**
 * @since 0.3.0
 * @category models
 */
export type Entry = model.Entry

/**
 * @since 0.3.0
 * @category models
 */
export type HttpInfo = model.HttpInfo

/**
 * The bounds of reading: `maxBytes` (default 64 MiB), `maxLineBytes` (16 MiB), `maxDepth` (64).
 *
 * @since 0.3.0
 * @category models
 */
export type Bounds = reader.Bounds

/**
 * A value that never reaches a cassette, and what it is (`kind` is what the line's `redacted` says).
 *
 * @since 0.3.0
 * @category models
 */
export interface Secret {
  readonly value: string
  readonly kind: string
}

/**
 * @since 0.3.0
 * @category models
 */
export interface RecordOptions {
  /** What the header says the session went over (default `"memory"` for a layer; the CLI says `stdio`/`http`). */
  readonly transport?: Header["transport"] | undefined
  /** HTTP: the path the server was reached at (replay serves the same one). */
  readonly path?: string | undefined
  /**
   * Values never written (a configuration's `${VAR}` values, `--env` values, API keys): plain strings are
   * `secret`s; give `{ value, kind }` to say what each is.
   */
  readonly secrets?: ReadonlyArray<string | Secret> | undefined
  /** Replace ISO 8601 timestamps in every string with `[timestamp]` (default false). */
  readonly timestamps?: boolean | undefined
  /**
   * The most bytes of the file, its header line included (UTF-8, as the reader counts; default 64 MiB); past it,
   * and for a line longer than the reader takes (16 MiB), messages are counted in the header's `dropped`.
   */
  readonly maxBytes?: number | undefined
}

/**
 * What HTTP said about a message as it crossed (the recorder keeps the headers that matter, credentials masked).
 *
 * @since 0.3.0
 * @category models
 */
export type WireHttp = RecorderWire

/**
 * The recorder of one session. `record` takes a raw message (it is normalised and cleaned before it is kept);
 * `cassette` is the session so far.
 *
 * @since 0.3.0
 * @category models
 */
export interface Recorder {
  readonly record: (from: "client" | "server", message: JsonObject, now: number, http?: WireHttp) => void
  /** Credentials seen on the way (a host's `Authorization`): never written from now on. */
  readonly noteHeaders: (headers: Readonly<Record<string, string>>) => void
  readonly cassette: () => Cassette
}

/**
 * @since 0.3.0
 * @category constructors
 */
export const makeRecorder = (options?: RecordOptions): Recorder => {
  const secrets = (options?.secrets ?? []).map((s) => typeof s === "string" ? { value: s, kind: "secret" } : s)
  const settings: RecorderOptions = {
    transport: options?.transport ?? "memory",
    path: options?.path,
    secrets,
    timestamps: options?.timestamps,
    maxBytes: options?.maxBytes
  }
  const recorder = new RecorderImpl(settings)
  return {
    record: recorder.record,
    noteHeaders: (headers) => recorder.redactor.noteHeaders(headers),
    cassette: recorder.cassette
  }
}

/**
 * The NDJSON text of a cassette.
 *
 * @since 0.3.0
 * @category constructors
 */
export const encode: (cassette: Cassette) => string = model.encode

/**
 * A cassette from its text, bounded (`Bounds`); `path` names it in errors.
 *
 * @since 0.3.0
 * @category parsing
 */
export const parse: (text: string, path?: string, bounds?: Bounds) => Effect.Effect<Cassette, McpCassetteError> =
  reader.parse

/**
 * A cassette file: a regular file, bounded, parsed bounded.
 *
 * @since 0.3.0
 * @category parsing
 */
export const read: (path: string, bounds?: Bounds) => Effect.Effect<Cassette, McpCassetteError, FileSystem.FileSystem> =
  file.read

/**
 * Write a cassette file whole (a new file of mode 0600 renamed over `path`).
 *
 * @since 0.3.0
 * @category constructors
 */
export const write: (path: string, cassette: Cassette) => Effect.Effect<void, McpCassetteError, FileSystem.FileSystem> =
  file.write

/**
 * The transport below, its connections recorded by `recorder`.
 *
 * @since 0.3.0
 * @category layers
 */
export const record = (recorder: Recorder): Layer.Layer<McpTransport, never, McpTransport> =>
  Layer.effect(
    McpTransport,
    Effect.gen(function*() {
      return recording.decorate(yield* McpTransport, recorder)
    })
  )

/**
 * The transport below, its session recorded to `path`: written when the layer is built (an empty session,
 * so an unwritable path fails the layer at once) and again, whole, when its scope closes.
 *
 * @since 0.3.0
 * @category layers
 */
export const layerRecord = (
  path: string,
  options?: RecordOptions
): Layer.Layer<McpTransport, McpCassetteError, McpTransport | FileSystem.FileSystem> =>
  Layer.unwrap(Effect.gen(function*() {
    const recorder = makeRecorder(options)
    yield* file.write(path, recorder.cassette())
    yield* Effect.addFinalizer(() =>
      file.write(path, recorder.cassette()).pipe(
        Effect.catch((error) => Effect.logWarning(`mcp-effect: ${error.message}`))
      )
    )
    return record(recorder)
  }))

/**
 * @since 0.3.0
 * @category models
 */
export type ReplayOptions = replay.ReplayOptions

/**
 * A transport answering from a cassette (see the module's header). A client message that does not match fails
 * its send with `McpTransportError` (`Write`) whose `cause` is the `McpCassetteMismatchError`.
 *
 * @since 0.3.0
 * @category layers
 */
export const layerReplay = (cassette: Cassette, options?: ReplayOptions): Layer.Layer<McpTransport> =>
  Layer.succeed(McpTransport, replayTransport.make(cassette, options))

/**
 * The replay of one connection, for a server of one's own (the CLI's `replay`): `offer` each client message;
 * what the server answers is handed to `emit`, at the recorded offsets, from a fiber of the scope.
 *
 * @since 0.3.0
 * @category constructors
 */
export const player: (
  cassette: Cassette,
  emit: (message: JsonObject, entry: Entry) => Effect.Effect<void>,
  options?: ReplayOptions
) => Effect.Effect<
  { readonly offer: (message: JsonObject) => Effect.Effect<void, McpCassetteMismatchError> },
  never,
  Scope.Scope
> = replay.makePlayer

/**
 * @since 0.3.0
 * @category models
 */
export type VerifyOptions = verifier.VerifyOptions

/**
 * @since 0.3.0
 * @category models
 */
export type VerifyReport = verifier.Report

/**
 * @since 0.3.0
 * @category models
 */
export type Change = verifier.Change

/**
 * Send the cassette's client side to the server of the `McpTransport` and report what changed: tools added,
 * removed or changed (which field), answers that differ beyond their volatile parts.
 *
 * @since 0.3.0
 * @category testing
 */
export const verify: (
  cassette: Cassette,
  options?: VerifyOptions
) => Effect.Effect<
  VerifyReport,
  McpTransportError | McpAuthError | McpServerGoneError | McpClosedError,
  McpTransport | Scope.Scope
> = verifier.verify
