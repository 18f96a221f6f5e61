/**
 * The stdio transport on Node's `child_process`, the fast path of `NodeMcpClient.layerStdio`: one plain `data`
 * listener splits stdout into lines and hands each parsed message to the receiver; a message is one
 * `stdin.write`. No stream stage, queue or fiber per message.
 *
 * Behaviour is that of the portable transport (`McpTransport.layerStdio`): the safe environment, no shell,
 * the last bytes of stderr kept for the error report, the exit reported once stdout has been read to its end,
 * and shutdown as the spec says (close stdin, wait; SIGTERM, wait; SIGKILL), to the whole process group, so
 * a server started through a wrapper (`npx`) goes with its children; then whatever is left of the group
 * (children of a server that exited by itself) is ended too. Bounds a hostile server cannot push past: a stdout
 * line over `maxMessageBytes` is dropped while it streams past; the bytes waiting for a server that does not
 * read its stdin are bounded by `maxQueuedBytes`, written with the pipe's backpressure; the end of stdout is
 * the end of the connection.
 */
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import { type ChildProcess, spawn } from "node:child_process"
import { McpClosedError, McpInvalidResponseError, McpServerGoneError, McpTransportError } from "../../McpError.js"
import { isRecord, type OutboundMessage, type RequestId } from "../../McpSchema.js"
import type { Connection, Receiver, Service, StdioOptions } from "../../McpTransport.js"
import { redactor } from "../redact.js"
import { cleaningReceiver, deliverFrame } from "../transport/frames.js"
import * as LineFramer from "../transport/lineFramer.js"
import * as Outbox from "../transport/outbox.js"
import * as ProcessGroups from "../transport/processGroups.js"
import { prepare } from "../transport/environment.js"
import { cleanerOf, describeCommand, spawnFailure } from "../transport/spawnFailure.js"

type Ended = McpServerGoneError | McpClosedError


/** The last `max` bytes of stderr. */
const tailKeeper = (max: number) => {
  let chunks: Array<Buffer> = []
  let size = 0
  return {
    push: (chunk: Buffer) => {
      chunks.push(chunk)
      size += chunk.length
      while (size - (chunks[0]?.length ?? 0) >= max && chunks.length > 1) size -= chunks.shift()?.length ?? 0
    },
    text: () => {
      const all = Buffer.concat(chunks)
      chunks = [all]
      return all.subarray(Math.max(0, all.length - max)).toString("utf8")
    }
  }
}

/**
 * Split stdout into lines (`\n` or `\r\n`) and hand each non-empty one over; a line past `maxBytes` is dropped
 * as it streams past: a diagnostic, and the request it answered (if its id is readable) fails.
 */
const lineReader = (receiver: Receiver, maxBytes: number) =>
  LineFramer.make(maxBytes, (line) => deliverFrame(line, receiver), (dropped) => {
    const reason = `larger than maxMessageBytes (${maxBytes} bytes): dropped after ${dropped.bytes} bytes`
    receiver.malformed(dropped.head, reason)
    if (dropped.id !== undefined) {
      receiver.failed(dropped.id, new McpInvalidResponseError({ method: "(answer)", reason: `the answer was ${reason}` }))
    }
  })

const signalGroup = (child: ChildProcess, signal: NodeJS.Signals) => {
  try {
    if (child.pid !== undefined) process.kill(-child.pid, signal)
  } catch {
    child.kill(signal)
  }
}

/** Wait up to `grace` for the child to exit (an Effect timeout: this runs once per connection). */
const exited = (child: ChildProcess, grace: Duration.Duration) =>
  Effect.callback<void>((resume) => {
    if (child.exitCode !== null || child.signalCode !== null) return resume(Effect.void)
    const done = () => resume(Effect.void)
    child.once("exit", done)
    return Effect.sync(() => child.off("exit", done))
  }).pipe(Effect.interruptible, Effect.timeout(grace), Effect.isSuccess)

/**
 * Close stdin, wait; SIGTERM to the group, wait; SIGKILL; then what is left of the group, and the descendants
 * the server started outside its group (`setsid`), found by parent pid while it was still alive.
 */
const shutdown = (child: ChildProcess, grace: Duration.Duration) =>
  Effect.gen(function*() {
    const outside = child.pid !== undefined && child.exitCode === null && child.signalCode === null
      ? ProcessGroups.outsideDescendants(child.pid)
      : []
    child.stdin?.end()
    if (!(yield* exited(child, grace))) {
      signalGroup(child, "SIGTERM")
      if (!(yield* exited(child, grace))) {
        signalGroup(child, "SIGKILL")
        yield* exited(child, grace)
      }
    }
    if (child.pid !== undefined) yield* ProcessGroups.terminate(child.pid, grace)
    yield* ProcessGroups.terminatePids(outside, grace)
  })

const start = (options: StdioOptions, env: Record<string, string>) =>
  Effect.callback<ChildProcess, McpTransportError>((resume) => {
    const child = spawn(options.command, [...(options.args ?? [])], {
      env,
      cwd: options.cwd,
      stdio: ["pipe", "pipe", "pipe"],
      detached: process.platform !== "win32",
      shell: false
    })
    const onError = (cause: Error) => resume(Effect.fail(spawnFailure(options, cause)))
    child.once("error", onError)
    child.once("spawn", () => {
      child.off("error", onError)
      resume(Effect.succeed(child))
    })
  })

const connect = (given: StdioOptions) =>
  Effect.gen(function*() {
    // The environment is read once per connection; what it adds to the secrets (a proxy URL's password) is kept
    // out of this connection's errors as the caller's are.
    const { env, options } = prepare(given)
    const grace = Duration.fromInputUnsafe(options.shutdownTimeout ?? "2 seconds")
    const child = yield* Effect.acquireRelease(
      start(options, env).pipe(Effect.tap((child) => Effect.sync(() => ProcessGroups.register(child.pid ?? 0)))),
      (child) => shutdown(child, grace)
    )
    const ended = yield* Deferred.make<Ended>()
    let endedWith: Ended | undefined
    const tail = tailKeeper(options.stderrTailBytes ?? 8192)
    // The tail as errors carry it: without the caller's secrets.
    const clean = cleanerOf(options)
    const stderrTail = () => clean(tail.text())
    /** Whether the server has written a byte on stdout (a server that has not is named so when a request times out). */
    let heard = false
    child.stderr?.on("data", tail.push)
    child.stdin?.on("error", () => {}) // EPIPE after the server died: its exit reports it
    child.on("error", () => {})
    const end = (reason: Ended) => {
      if (endedWith !== undefined) return
      endedWith = reason
      Deferred.doneUnsafe(ended, Exit.succeed(reason))
    }
    const gone = (code: number | null, signal: NodeJS.Signals | null) => {
      const how = signal !== null ? { signal } : { exitCode: code ?? -1 }
      end(new McpServerGoneError({ reason: `${describeCommand(options)} exited`, stderrTail: stderrTail(), ...how }))
    }
    // `close` comes after stdout and stderr have ended: everything the server wrote is handed over first. A
    // grandchild may hold the pipes open after the server exited: then the exit counts, a moment later.
    child.once("close", gone)
    child.once("exit", (code, signal) => setTimeout(() => gone(code, signal), 1000).unref())
    yield* Effect.addFinalizer(() => Effect.sync(() => end(new McpClosedError({}))))

    // Lines wait as strings: the pipe encodes a string itself, with no Buffer made and copied for it here.
    const outbox = Outbox.make<string>(options.maxQueuedBytes ?? 64 * 1024 * 1024)
    let blocked = false
    /** Write what waits, one message at a time, until the pipe asks to wait for `drain`. */
    const pump = () => {
      const stdin = child.stdin
      while (!blocked && stdin !== null) {
        const line = outbox.next()
        if (line === undefined) return
        if (!stdin.write(line)) {
          blocked = true
          stdin.once("drain", () => {
            blocked = false
            pump()
          })
        }
      }
    }

    const write = (message: OutboundMessage): Effect.Effect<void, Ended | McpTransportError> => {
      if (endedWith !== undefined) return Effect.fail(endedWith)
      // The cancellation of a request that was never written: neither is written.
      const cancelled = cancelledId(message)
      if (cancelled !== undefined && outbox.cancel(cancelled)) return Effect.void
      let line: string
      try {
        line = JSON.stringify(message) + "\n"
      } catch (cause) {
        return Effect.fail(new McpTransportError({ reason: "Write", detail: "message is not serialisable", cause }))
      }
      const refused = outbox.offer(line, Buffer.byteLength(line), "id" in message && "method" in message ? message.id : undefined)
      if (refused !== undefined) return Effect.fail(new McpTransportError({ reason: "Write", detail: refused }))
      const stdin = child.stdin
      if (stdin !== null && !blocked) {
        // Messages written in the same tick go out in one write.
        if (stdin.writableCorked === 0) {
          stdin.cork()
          process.nextTick(() => stdin.uncork())
        }
        pump()
      }
      return Effect.void
    }

    // The end of stdout is the end of the connection: a server that closed it but keeps running is gone too
    // (after a moment in which an exit would report itself), and it is stopped.
    const stdoutEnded = () =>
      setTimeout(() => {
        if (endedWith !== undefined) return
        end(new McpServerGoneError({ reason: `${describeCommand(options)} closed its stdout`, stderrTail: stderrTail() }))
        signalGroup(child, "SIGTERM")
      }, 1000).unref()

    const receive = (receiver: Receiver) =>
      Effect.sync(() => {
        const reader = lineReader(
          cleaningReceiver(receiver, redactor(options.secrets)),
          options.maxMessageBytes ?? LineFramer.DEFAULT_MAX_MESSAGE_BYTES
        )
        child.stdout?.on("data", (chunk: Buffer) => {
          if (chunk.length > 0) heard = true
          reader.data(chunk)
        })
        child.stdout?.once("end", () => {
          reader.end()
          stdoutEnded()
        })
      })

    const send = (message: OutboundMessage) => Effect.suspend(() => write(message))

    const connection: Connection = {
      kind: "stdio",
      send,
      receive,
      ended: Deferred.await(ended),
      cancelsByClosingStream: () => false,
      scopedSend: false,
      silentStderr: Effect.sync(() => heard ? undefined : stderrTail())
    }
    return connection
  })

const cancelledId = (message: OutboundMessage): RequestId | undefined => {
  if (!("method" in message) || message.method !== "notifications/cancelled" || "id" in message) return undefined
  const id = isRecord(message.params) ? message.params["requestId"] : undefined
  return typeof id === "string" || typeof id === "number" ? id : undefined
}

/** @internal */
export const make = (options: StdioOptions): Service => ({ connect: connect(options) })
