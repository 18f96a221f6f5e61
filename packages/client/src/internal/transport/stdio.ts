import * as Command from "@effect/platform/Command"
import * as CommandExecutor from "@effect/platform/CommandExecutor"
import * as Chunk from "effect/Chunk"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import * as Ref from "effect/Ref"
import * as Stream from "effect/Stream"
import { McpClosedError, McpInvalidResponseError, McpServerGoneError, McpTransportError } from "../../McpError.js"
import { isRecord, type OutboundMessage, type RequestId } from "../../McpSchema.js"
import type { Connection, Receiver, Service, StdioOptions } from "../../McpTransport.js"
import { deliverFrame } from "./frames.js"
import * as LineFramer from "./lineFramer.js"
import * as Outbox from "./outbox.js"
import * as ProcessGroups from "./processGroups.js"

/** @internal */
export const SAFE_ENV_KEYS: ReadonlyArray<string> = [
  "PATH",
  "HOME",
  "USER",
  "LOGNAME",
  "SHELL",
  "TERM",
  "LANG",
  "LC_ALL",
  "LC_CTYPE",
  "TMPDIR",
  "TZ",
  // Windows
  "APPDATA",
  "HOMEDRIVE",
  "HOMEPATH",
  "LOCALAPPDATA",
  "PATHEXT",
  "PROGRAMFILES",
  "SYSTEMDRIVE",
  "SYSTEMROOT",
  "TEMP",
  "USERNAME",
  "USERPROFILE",
  "WINDIR"
]

/** @internal */
export const childEnvironment = (options: StdioOptions): Record<string, string> => {
  const inherited: Record<string, string> = {}
  const mode = options.inheritEnv ?? "safe"
  if (mode !== "none") {
    for (const [key, value] of Object.entries(process.env)) {
      if (value === undefined || value.startsWith("()")) continue // exported shell functions
      if (mode === "all" || SAFE_ENV_KEYS.includes(key.toUpperCase())) inherited[key] = value
    }
  }
  return { ...inherited, ...options.env }
}

const appendTail = (max: number) => (tail: Uint8Array, chunk: Uint8Array): Uint8Array => {
  if (chunk.length >= max) return chunk.slice(chunk.length - max)
  const keep = Math.min(tail.length, max - chunk.length)
  const next = new Uint8Array(keep + chunk.length)
  next.set(tail.subarray(tail.length - keep), 0)
  next.set(chunk, keep)
  return next
}

const encoder = new TextEncoder()

/** Written after every message, in the same chunk: the stdin sink then waits for `drain` after the message. */
const EMPTY = new Uint8Array(0)

const cancelledId = (message: OutboundMessage): RequestId | undefined => {
  if (!("method" in message) || message.method !== "notifications/cancelled" || "id" in message) return undefined
  const id = isRecord(message.params) ? message.params["requestId"] : undefined
  return typeof id === "string" || typeof id === "number" ? id : undefined
}

const describeCommand = (options: StdioOptions) => [options.command, ...(options.args ?? [])].join(" ")

/** @internal */
export const make = (options: StdioOptions): Effect.Effect<Service, never, CommandExecutor.CommandExecutor> =>
  Effect.map(CommandExecutor.CommandExecutor, (executor) => ({
    connect: connect(executor, options)
  }))

/** What the parts of one connection share. */
interface Link {
  readonly options: StdioOptions
  readonly proc: CommandExecutor.Process
  readonly pgid: number
  readonly grace: Duration.Duration
  readonly ended: Deferred.Deferred<McpServerGoneError | McpClosedError>
  /** Completes when stdout has been read to its end, so that what came before the exit is handed over first. */
  readonly drained: Deferred.Deferred<void>
  /** The end of the server's stderr, for the reports of how it ended. */
  readonly readTail: Effect.Effect<string>
  readonly outbox: Outbox.Outbox
  /** Wakes the writer: the outbox has bytes, or the connection is closing. */
  readonly wakeups: Queue.Queue<boolean>
  closing: boolean
}

/** Start the server process in a process group of its own (terminated last, whatever the server left). */
const spawn = (executor: CommandExecutor.CommandExecutor, options: StdioOptions, grace: Duration.Duration) =>
  Effect.gen(function*() {
    let command = Command.make(options.command, ...(options.args ?? [])).pipe(
      Command.env(childEnvironment(options), { extendEnv: false })
    )
    if (options.cwd !== undefined) command = Command.workingDirectory(command, options.cwd)
    const proc = yield* executor.start(command).pipe(
      Effect.mapError((cause) =>
        new McpTransportError({ reason: "Spawn", detail: `cannot start ${describeCommand(options)}: ${cause.message}`, cause })
      )
    )
    const pgid = Number(proc.pid)
    ProcessGroups.register(pgid)
    // Registered first, so it runs last: after the server itself was stopped, whatever it left.
    yield* Effect.addFinalizer(() => ProcessGroups.terminate(pgid, grace))
    return { proc, pgid }
  })

/** The last `tailBytes` of stderr, kept as they come. */
const watchStderr = (proc: CommandExecutor.Process, tailBytes: number) =>
  Effect.gen(function*() {
    const stderrTail = yield* Ref.make<Uint8Array>(new Uint8Array(0))
    const fiber = yield* proc.stderr.pipe(
      Stream.runForEach((chunk) => Ref.update(stderrTail, (tail) => appendTail(tailBytes)(tail, chunk))),
      Effect.ignore,
      Effect.forkScoped
    )
    const readTail = Ref.get(stderrTail).pipe(Effect.map((bytes) => new TextDecoder().decode(bytes)))
    return { fiber, readTail }
  })

/**
 * Outbound: the bounded outbox feeds stdin one message at a time; each message is followed, in the same
 * chunk, by an empty write, so that the stdin sink waits for `drain` after it (the pipe's backpressure).
 */
const startWriter = (link: Link) => {
  const nextBytes: Effect.Effect<Uint8Array, Option.Option<never>> = Effect.suspend(() => {
    const bytes = link.outbox.next()
    if (bytes !== undefined) return Effect.succeed(bytes)
    if (link.closing) return Effect.fail(Option.none())
    return Effect.zipRight(Queue.take(link.wakeups), nextBytes)
  })
  return Stream.repeatEffectOption(nextBytes).pipe(
    Stream.mapChunks(Chunk.flatMap((bytes) => Chunk.make(bytes, EMPTY))),
    Stream.run(link.proc.stdin),
    Effect.ignore,
    Effect.forkScoped
  )
}

/** The process's exit ends the connection with a report of how it ended (after stderr and stdout are read). */
const watchExit = (link: Link, stderrFiber: Fiber.RuntimeFiber<void>) =>
  link.proc.exitCode.pipe(
    Effect.map((code) => ({ exitCode: Number(code) })),
    Effect.catchAll((error) => Effect.succeed({ signal: /signal: (\w+)/.exec(error.message)?.[1] ?? "unknown" })),
    Effect.flatMap((how) =>
      Fiber.await(stderrFiber).pipe(
        Effect.timeout("200 millis"),
        Effect.ignore,
        Effect.zipRight(Deferred.await(link.drained).pipe(Effect.timeout("200 millis"), Effect.ignore)),
        Effect.zipRight(link.readTail),
        Effect.flatMap((tail) =>
          Deferred.succeed(
            link.ended,
            new McpServerGoneError({ reason: `${describeCommand(link.options)} exited`, stderrTail: tail, ...how })
          )
        )
      )
    ),
    Effect.forkScoped
  )

/** Graceful shutdown (runs before the executor's own release): close stdin, wait; SIGTERM, wait; SIGKILL. */
const shutdown = (link: Link, writer: Fiber.RuntimeFiber<void>) =>
  Effect.gen(function*() {
    const { grace, proc } = link
    yield* Deferred.succeed(link.ended, new McpClosedError({}))
    link.closing = true
    yield* Queue.offer(link.wakeups, true)
    const exited = yield* Fiber.await(writer).pipe(
      Effect.zipRight(proc.exitCode),
      Effect.interruptible,
      Effect.timeout(grace),
      Effect.isSuccess
    )
    if (exited || !(yield* proc.isRunning.pipe(Effect.orElseSucceed(() => false)))) return
    const terminated = yield* proc.kill("SIGTERM").pipe(Effect.interruptible, Effect.timeout(grace), Effect.isSuccess)
    if (!terminated) yield* proc.kill("SIGKILL").pipe(Effect.interruptible, Effect.timeout(grace), Effect.ignore)
  }).pipe(Effect.ignore)

const send = (link: Link) => (message: OutboundMessage) =>
  Effect.gen(function*() {
    const done = yield* Deferred.poll(link.ended)
    if (Option.isSome(done)) return yield* Effect.flatMap(done.value, (reason) => Effect.fail(reason))
    // The cancellation of a request that was never written: neither is written.
    const cancelled = cancelledId(message)
    if (cancelled !== undefined && link.outbox.cancel(cancelled)) return
    const line = yield* Effect.try({
      try: () => JSON.stringify(message),
      catch: (cause) => new McpTransportError({ reason: "Write", detail: "message is not serialisable", cause })
    })
    const refused = link.outbox.offer(encoder.encode(line + "\n"), "id" in message && "method" in message ? message.id : undefined)
    if (refused !== undefined) return yield* new McpTransportError({ reason: "Write", detail: refused })
    yield* Queue.offer(link.wakeups, true)
  })

/**
 * The end of stdout is the end of the connection: a server that closed it but keeps running is gone too
 * (after a moment in which an exit would report itself), and it is stopped.
 */
const stdoutEnded = (link: Link) =>
  Deferred.await(link.ended).pipe(
    Effect.timeoutOption("1 second"),
    Effect.flatMap((done) =>
      Option.isSome(done) ? Effect.void : link.readTail.pipe(
        Effect.flatMap((tail) =>
          Deferred.succeed(
            link.ended,
            new McpServerGoneError({ reason: `${describeCommand(link.options)} closed its stdout`, stderrTail: tail })
          )
        ),
        Effect.zipRight(Effect.sync(() => ProcessGroups.signalGroup(link.pgid, "SIGTERM")))
      )
    )
  )

/** Read stdout line by line into `receiver` (lines past `maxMessageBytes` are dropped and reported). */
const receive = (link: Link) => (receiver: Receiver) =>
  Effect.suspend(() => {
    const maxBytes = link.options.maxMessageBytes ?? LineFramer.DEFAULT_MAX_MESSAGE_BYTES
    const framer = LineFramer.make(maxBytes, (line) => deliverFrame(line, receiver), (dropped) => {
      const reason = `larger than maxMessageBytes (${maxBytes} bytes): dropped after ${dropped.bytes} bytes`
      receiver.malformed(dropped.head, reason)
      if (dropped.id !== undefined) {
        receiver.failed(dropped.id, new McpInvalidResponseError({ method: "(answer)", reason: `the answer was ${reason}` }))
      }
    })
    return link.proc.stdout.pipe(
      Stream.runForEach((chunk) => Effect.sync(() => framer.data(chunk))),
      Effect.ignore,
      Effect.zipRight(Effect.sync(framer.end)),
      Effect.zipRight(Deferred.succeed(link.drained, undefined)),
      Effect.zipRight(stdoutEnded(link)),
      Effect.onInterrupt(() => Deferred.succeed(link.drained, undefined)),
      Effect.forkScoped,
      Effect.asVoid
    )
  })

const connect = (executor: CommandExecutor.CommandExecutor, options: StdioOptions) =>
  Effect.gen(function*() {
    const grace = Duration.decode(options.shutdownTimeout ?? "2 seconds")
    const { pgid, proc } = yield* spawn(executor, options, grace)
    const ended = yield* Deferred.make<McpServerGoneError | McpClosedError>()
    const drained = yield* Deferred.make<void>()
    const stderr = yield* watchStderr(proc, options.stderrTailBytes ?? 8192)
    const link: Link = {
      options,
      proc,
      pgid,
      grace,
      ended,
      drained,
      readTail: stderr.readTail,
      outbox: Outbox.make(options.maxQueuedBytes ?? 64 * 1024 * 1024),
      wakeups: yield* Queue.unbounded<boolean>(),
      closing: false
    }
    const writer = yield* startWriter(link)
    yield* watchExit(link, stderr.fiber)
    yield* Effect.addFinalizer(() => shutdown(link, writer))
    const connection: Connection = {
      kind: "stdio",
      send: send(link),
      receive: receive(link),
      ended: Deferred.await(ended),
      cancelsByClosingStream: () => false,
      scopedSend: false
    }
    return connection
  })
