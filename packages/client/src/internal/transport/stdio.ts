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

const connect = (executor: CommandExecutor.CommandExecutor, options: StdioOptions) =>
  Effect.gen(function*() {
    const grace = Duration.decode(options.shutdownTimeout ?? "2 seconds")
    const tailBytes = options.stderrTailBytes ?? 8192
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
    // Registered first, so it runs last: after the server itself was stopped (below), whatever it left.
    yield* Effect.addFinalizer(() => ProcessGroups.terminate(pgid, grace))

    const ended = yield* Deferred.make<McpServerGoneError | McpClosedError>()
    // Completes when stdout has been read to its end, so that what came before the exit is handed over first.
    const drained = yield* Deferred.make<void>()
    const stderrTail = yield* Ref.make<Uint8Array>(new Uint8Array(0))
    const stderrFiber = yield* proc.stderr.pipe(
      Stream.runForEach((chunk) => Ref.update(stderrTail, (tail) => appendTail(tailBytes)(tail, chunk))),
      Effect.ignore,
      Effect.forkScoped
    )
    const readTail = Ref.get(stderrTail).pipe(Effect.map((bytes) => new TextDecoder().decode(bytes)))

    // Outbound: a bounded outbox feeds stdin one message at a time; each message is followed, in the same
    // chunk, by an empty write, so that the stdin sink waits for `drain` after it (the pipe's backpressure).
    const outbox = Outbox.make(options.maxQueuedBytes ?? 64 * 1024 * 1024)
    const wakeups = yield* Queue.unbounded<boolean>()
    let closing = false
    const nextBytes: Effect.Effect<Uint8Array, Option.Option<never>> = Effect.suspend(() => {
      const bytes = outbox.next()
      if (bytes !== undefined) return Effect.succeed(bytes)
      if (closing) return Effect.fail(Option.none())
      return Effect.zipRight(Queue.take(wakeups), nextBytes)
    })
    const writer = yield* Stream.repeatEffectOption(nextBytes).pipe(
      Stream.mapChunks(Chunk.flatMap((bytes) => Chunk.make(bytes, EMPTY))),
      Stream.run(proc.stdin),
      Effect.ignore,
      Effect.forkScoped
    )

    // The process's exit ends the connection with a report of how it ended.
    yield* proc.exitCode.pipe(
      Effect.map((code) => ({ exitCode: Number(code) })),
      Effect.catchAll((error) =>
        Effect.succeed({ signal: /signal: (\w+)/.exec(error.message)?.[1] ?? "unknown" })
      ),
      Effect.flatMap((how) =>
        Fiber.await(stderrFiber).pipe(
          Effect.timeout("200 millis"),
          Effect.ignore,
          Effect.zipRight(Deferred.await(drained).pipe(Effect.timeout("200 millis"), Effect.ignore)),
          Effect.zipRight(readTail),
          Effect.flatMap((tail) =>
            Deferred.succeed(
              ended,
              new McpServerGoneError({ reason: `${describeCommand(options)} exited`, stderrTail: tail, ...how })
            )
          )
        )
      ),
      Effect.forkScoped
    )

    // Graceful shutdown (runs before the executor's own release): close stdin, wait; SIGTERM, wait; SIGKILL.
    yield* Effect.addFinalizer(() =>
      Effect.gen(function*() {
        yield* Deferred.succeed(ended, new McpClosedError({}))
        closing = true
        yield* Queue.offer(wakeups, true)
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
    )

    const send = (message: OutboundMessage) =>
      Effect.gen(function*() {
        const done = yield* Deferred.poll(ended)
        if (Option.isSome(done)) return yield* Effect.flatMap(done.value, (reason) => Effect.fail(reason))
        // The cancellation of a request that was never written: neither is written.
        const cancelled = cancelledId(message)
        if (cancelled !== undefined && outbox.cancel(cancelled)) return
        const line = yield* Effect.try({
          try: () => JSON.stringify(message),
          catch: (cause) => new McpTransportError({ reason: "Write", detail: "message is not serialisable", cause })
        })
        const refused = outbox.offer(encoder.encode(line + "\n"), "id" in message && "method" in message ? message.id : undefined)
        if (refused !== undefined) return yield* new McpTransportError({ reason: "Write", detail: refused })
        yield* Queue.offer(wakeups, true)
      })

    // The end of stdout is the end of the connection: a server that closed it but keeps running is gone too
    // (after a moment in which an exit would report itself), and it is stopped.
    const stdoutEnded = Deferred.await(ended).pipe(
      Effect.timeoutOption("1 second"),
      Effect.flatMap((done) =>
        Option.isSome(done) ? Effect.void : readTail.pipe(
          Effect.flatMap((tail) =>
            Deferred.succeed(
              ended,
              new McpServerGoneError({ reason: `${describeCommand(options)} closed its stdout`, stderrTail: tail })
            )
          ),
          Effect.zipRight(Effect.sync(() => ProcessGroups.signalGroup(pgid, "SIGTERM")))
        )
      )
    )

    const receive = (receiver: Receiver) =>
      Effect.suspend(() => {
        const maxBytes = options.maxMessageBytes ?? LineFramer.DEFAULT_MAX_MESSAGE_BYTES
        const framer = LineFramer.make(maxBytes, (line) => deliverFrame(line, receiver), (dropped) => {
          const reason = `larger than maxMessageBytes (${maxBytes} bytes): dropped after ${dropped.bytes} bytes`
          receiver.malformed(dropped.head, reason)
          if (dropped.id !== undefined) {
            receiver.failed(dropped.id, new McpInvalidResponseError({ method: "(answer)", reason: `the answer was ${reason}` }))
          }
        })
        return proc.stdout.pipe(
          Stream.runForEach((chunk) => Effect.sync(() => framer.data(chunk))),
          Effect.ignore,
          Effect.zipRight(Effect.sync(framer.end)),
          Effect.zipRight(Deferred.succeed(drained, undefined)),
          Effect.zipRight(stdoutEnded),
          Effect.onInterrupt(() => Deferred.succeed(drained, undefined)),
          Effect.forkScoped,
          Effect.asVoid
        )
      })

    const connection: Connection = {
      kind: "stdio",
      send,
      receive,
      ended: Deferred.await(ended),
      cancelsByClosingStream: () => false,
      scopedSend: false
    }
    return connection
  })
