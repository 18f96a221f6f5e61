/**
 * The portable stdio transport, on `effect/process`: the server is a `ChildProcess` spawned by the
 * `ChildProcessSpawner` in context.
 *
 * The spawner owns the server's process group: the child is spawned `detached` (a group of its own, so that
 * Ctrl-C in a terminal does not reach it behind the client's back), and when the connection's scope closes the
 * spawner signals the whole group (SIGTERM, then SIGKILL after `shutdownTimeout`), whatever the server left
 * behind. Before that, this transport's own finalizer asks the server to stop as the spec says: close stdin,
 * wait; then the spawner's `kill` (SIGTERM to the group, wait, SIGKILL). Nothing here signals a process
 * itself, except the server's descendants outside its group (`setsid`), found by parent pid and ended at close.
 * (The Node fast path, `nodeStdio.ts`, spawns with `node:child_process` and leaves the group to
 * `processGroups.ts` instead.)
 */
import * as Cause from "effect/Cause"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import type * as PlatformError from "effect/PlatformError"
import * as ChildProcess from "effect/process/ChildProcess"
import * as ChildProcessSpawner from "effect/process/ChildProcessSpawner"
import * as Queue from "effect/Queue"
import * as Ref from "effect/Ref"
import * as Stream from "effect/Stream"
import { McpClosedError, McpInvalidResponseError, McpServerGoneError, McpTransportError } from "../../McpError.js"
import { isRecord, type OutboundMessage, type RequestId } from "../../McpSchema.js"
import type { Connection, Receiver, Service, StdioOptions } from "../../McpTransport.js"
import { prepare } from "./environment.js"
import { cleanerOf, describeCommand, spawnFailure } from "./spawnFailure.js"
import { cleaningReceiver, deliverFrame } from "./frames.js"
import { redactor } from "../redact.js"
import * as LineFramer from "./lineFramer.js"
import * as Outbox from "./outbox.js"
import * as ProcessGroups from "./processGroups.js"

const appendTail = (max: number) => (tail: Uint8Array, chunk: Uint8Array): Uint8Array => {
  if (chunk.length >= max) return chunk.slice(chunk.length - max)
  const keep = Math.min(tail.length, max - chunk.length)
  const next = new Uint8Array(keep + chunk.length)
  next.set(tail.subarray(tail.length - keep), 0)
  next.set(chunk, keep)
  return next
}

const encoder = new TextEncoder()

const cancelledId = (message: OutboundMessage): RequestId | undefined => {
  if (!("method" in message) || message.method !== "notifications/cancelled" || "id" in message) return undefined
  const id = isRecord(message.params) ? message.params["requestId"] : undefined
  return typeof id === "string" || typeof id === "number" ? id : undefined
}


/** @internal */
export const make = (
  options: StdioOptions
): Effect.Effect<Service, never, ChildProcessSpawner.ChildProcessSpawner> =>
  Effect.map(ChildProcessSpawner.ChildProcessSpawner, (spawner) => ({
    connect: connect(spawner, options)
  }))

/** What the parts of one connection share. */
interface Link {
  readonly options: StdioOptions
  readonly proc: ChildProcessSpawner.ChildProcessHandle
  readonly grace: Duration.Duration
  readonly ended: Deferred.Deferred<McpServerGoneError | McpClosedError>
  /** Completes when stdout has been read to its end, so that what came before the exit is handed over first. */
  readonly drained: Deferred.Deferred<void>
  /** The end of the server's stderr, for the reports of how it ended. */
  readonly readTail: Effect.Effect<string>
  readonly outbox: Outbox.Outbox<Uint8Array>
  /** Wakes the writer: the outbox has bytes, or the connection is closing. */
  readonly wakeups: Queue.Queue<boolean>
  closing: boolean
  /** Whether the server has written a byte on stdout (a server that has not is named so when a request times out). */
  heard: boolean
}

/**
 * Start the server process, in a process group of its own that the spawner ends with the scope (SIGTERM, then
 * SIGKILL after `grace`), whatever the server left.
 */
const spawn = (
  spawner: ChildProcessSpawner.ChildProcessSpawner["Service"],
  options: StdioOptions,
  env: Record<string, string>,
  grace: Duration.Duration
) =>
  spawner.spawn(
    ChildProcess.make(options.command, [...(options.args ?? [])], {
      env,
      extendEnv: false,
      cwd: options.cwd,
      killSignal: "SIGTERM",
      forceKillAfter: grace
    })
  ).pipe(
    Effect.mapError((cause) => spawnFailure(options, cause))
  )

/** The last `tailBytes` of stderr, kept as they come. */
const watchStderr = (proc: ChildProcessSpawner.ChildProcessHandle, options: StdioOptions) =>
  Effect.gen(function*() {
    const stderrTail = yield* Ref.make<Uint8Array>(new Uint8Array(0))
    const fiber = yield* proc.stderr.pipe(
      Stream.runForEach((chunk) => Ref.update(stderrTail, (tail) => appendTail(options.stderrTailBytes ?? 8192)(tail, chunk))),
      Effect.ignore,
      Effect.forkScoped
    )
    // The tail as errors carry it: without the caller's secrets.
    const clean = cleanerOf(options)
    const readTail = Ref.get(stderrTail).pipe(Effect.map((bytes) => clean(new TextDecoder().decode(bytes))))
    return { fiber, readTail }
  })

/**
 * Outbound: the bounded outbox feeds stdin one message at a time; the stdin sink waits for `drain` whenever the
 * pipe asks it to (the pipe's backpressure), before the next message is taken. Once the connection closes and
 * the outbox is empty the stream ends, and the sink closes stdin.
 */
const startWriter = (link: Link) => {
  const nextBytes: Effect.Effect<Uint8Array, Cause.Done> = Effect.suspend(() => {
    const bytes = link.outbox.next()
    if (bytes !== undefined) return Effect.succeed(bytes)
    if (link.closing) return Cause.done()
    return Effect.andThen(Queue.take(link.wakeups), nextBytes)
  })
  return Stream.fromEffectRepeat(nextBytes).pipe(
    Stream.run(link.proc.stdin),
    Effect.ignore,
    Effect.forkScoped
  )
}

/** The signal named in the error of a process that was killed by one. */
const signalOf = (error: PlatformError.PlatformError): string => {
  const cause = error.reason.cause
  const text = cause instanceof Error ? cause.message : error.message
  return /signal: '?(\w+)/.exec(text)?.[1] ?? "unknown"
}

/** The process's exit ends the connection with a report of how it ended (after stderr and stdout are read). */
const watchExit = (link: Link, stderrFiber: Fiber.Fiber<void>) =>
  link.proc.exitCode.pipe(
    Effect.map((code): { readonly exitCode: number } | { readonly signal: string } => ({ exitCode: Number(code) })),
    Effect.catch((error) => Effect.succeed({ signal: signalOf(error) })),
    Effect.flatMap((how) =>
      Fiber.await(stderrFiber).pipe(
        Effect.timeout("200 millis"),
        Effect.ignore,
        Effect.andThen(Deferred.await(link.drained).pipe(Effect.timeout("200 millis"), Effect.ignore)),
        Effect.andThen(link.readTail),
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

/**
 * Graceful shutdown (runs before the spawner's own release): close stdin, wait; then the spawner's `kill`
 * (SIGTERM to the group, wait, SIGKILL).
 */
const shutdown = (link: Link, writer: Fiber.Fiber<void>) =>
  Effect.gen(function*() {
    const { grace, proc } = link
    yield* Deferred.succeed(link.ended, new McpClosedError({}))
    link.closing = true
    yield* Queue.offer(link.wakeups, true)
    const exited = yield* Fiber.await(writer).pipe(
      Effect.andThen(proc.exitCode),
      Effect.interruptible,
      Effect.timeout(grace),
      Effect.isSuccess
    )
    if (exited || !(yield* proc.isRunning.pipe(Effect.orElseSucceed(() => false)))) return
    yield* proc.kill({ killSignal: "SIGTERM", forceKillAfter: grace })
  }).pipe(Effect.ignore)

const send = (link: Link) => (message: OutboundMessage) =>
  Effect.suspend((): Effect.Effect<void, McpServerGoneError | McpClosedError | McpTransportError> => {
    if (Deferred.isDoneUnsafe(link.ended)) return Effect.flatMap(Deferred.await(link.ended), Effect.fail)
    // The cancellation of a request that was never written: neither is written.
    const cancelled = cancelledId(message)
    if (cancelled !== undefined && link.outbox.cancel(cancelled)) return Effect.void
    let line: string
    try {
      line = JSON.stringify(message)
    } catch (cause) {
      return Effect.fail(new McpTransportError({ reason: "Write", detail: "message is not serialisable", cause }))
    }
    const bytes = encoder.encode(line + "\n")
    const refused = link.outbox.offer(bytes, bytes.length, "id" in message && "method" in message ? message.id : undefined)
    if (refused !== undefined) return Effect.fail(new McpTransportError({ reason: "Write", detail: refused }))
    Queue.offerUnsafe(link.wakeups, true)
    return Effect.void
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
        Effect.andThen(link.proc.kill({ killSignal: "SIGTERM", forceKillAfter: link.grace })),
        Effect.ignore
      )
    )
  )

/** Read stdout line by line into `receiver` (lines past `maxMessageBytes` are dropped and reported). */
const receive = (link: Link) => (given: Receiver) =>
  Effect.suspend(() => {
    const receiver = cleaningReceiver(given, redactor(link.options.secrets))
    const maxBytes = link.options.maxMessageBytes ?? LineFramer.DEFAULT_MAX_MESSAGE_BYTES
    const framer = LineFramer.make(maxBytes, (line) => deliverFrame(line, receiver), (dropped) => {
      const reason = `larger than maxMessageBytes (${maxBytes} bytes): dropped after ${dropped.bytes} bytes`
      receiver.malformed(dropped.head, reason)
      if (dropped.id !== undefined) {
        receiver.failed(dropped.id, new McpInvalidResponseError({ method: "(answer)", reason: `the answer was ${reason}` }))
      }
    })
    return link.proc.stdout.pipe(
      Stream.runForEach((chunk) =>
        Effect.sync(() => {
          if (chunk.length > 0) link.heard = true
          framer.data(chunk)
        })
      ),
      Effect.ignore,
      Effect.andThen(Effect.sync(framer.end)),
      Effect.andThen(Deferred.succeed(link.drained, undefined)),
      Effect.andThen(stdoutEnded(link)),
      Effect.onInterrupt(() => Deferred.succeed(link.drained, undefined)),
      Effect.forkScoped,
      Effect.asVoid
    )
  })

const connect = (spawner: ChildProcessSpawner.ChildProcessSpawner["Service"], given: StdioOptions) =>
  Effect.gen(function*() {
    // The environment is read once per connection; what it adds to the secrets (a proxy URL's password) is kept
    // out of this connection's errors as the caller's are.
    const { env, options } = prepare(given)
    const grace = Duration.fromInputUnsafe(options.shutdownTimeout ?? "2 seconds")
    const proc = yield* spawn(spawner, options, env, grace)
    const ended = yield* Deferred.make<McpServerGoneError | McpClosedError>()
    const drained = yield* Deferred.make<void>()
    const stderr = yield* watchStderr(proc, options)
    const link: Link = {
      options,
      proc,
      grace,
      ended,
      drained,
      readTail: stderr.readTail,
      outbox: Outbox.make<Uint8Array>(options.maxQueuedBytes ?? 64 * 1024 * 1024),
      wakeups: yield* Queue.unbounded<boolean>(),
      closing: false,
      heard: false
    }
    const writer = yield* startWriter(link)
    yield* watchExit(link, stderr.fiber)
    yield* Effect.addFinalizer(() => shutdown(link, writer))
    // Runs first (finalizers run in reverse): while the server is alive, its descendants outside its group
    // (`setsid`), which the spawner's signal to the group misses, found by parent pid and ended.
    yield* Effect.addFinalizer(() =>
      proc.isRunning.pipe(
        Effect.orElseSucceed(() => false),
        Effect.flatMap((alive) =>
          alive ? ProcessGroups.terminatePids(ProcessGroups.outsideDescendants(Number(proc.pid)), grace) : Effect.void
        )
      )
    )
    const connection: Connection = {
      kind: "stdio",
      send: send(link),
      receive: receive(link),
      ended: Deferred.await(ended),
      cancelsByClosingStream: () => false,
      scopedSend: false,
      silentStderr: Effect.suspend(() => link.heard ? Effect.undefined : link.readTail)
    }
    return connection
  })
