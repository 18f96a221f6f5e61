/**
 * The stdio transport on Node's `child_process`, the fast path of `NodeMcpClient.layerStdio`: one plain `data`
 * listener splits stdout into lines and hands each parsed message to the receiver; a message is one
 * `stdin.write`. No stream stage, queue or fiber per message.
 *
 * Behaviour is that of the portable transport (`McpTransport.layerStdio`): the safe environment, no shell,
 * the last bytes of stderr kept for the error report, the exit reported once stdout has been read to its end,
 * and shutdown as the spec says (close stdin, wait; SIGTERM, wait; SIGKILL), to the whole process group, so
 * a server started through a wrapper (`npx`) goes with its children.
 */
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import { type ChildProcess, spawn } from "node:child_process"
import { McpClosedError, McpServerGoneError, McpTransportError } from "../../McpError.js"
import type { OutboundMessage } from "../../McpSchema.js"
import type { Connection, Receiver, Service, StdioOptions } from "../../McpTransport.js"
import { deliverFrame } from "./frames.js"
import { childEnvironment } from "./stdio.js"

type Ended = McpServerGoneError | McpClosedError

const describeCommand = (options: StdioOptions) => [options.command, ...(options.args ?? [])].join(" ")

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

/** Split stdout into lines (`\n` or `\r\n`) and hand each non-empty one over. */
const lineReader = (receiver: Receiver) => {
  let buffer = ""
  const line = (text: string) => {
    const trimmed = text.endsWith("\r") ? text.slice(0, -1) : text
    if (trimmed.trim() !== "") deliverFrame(trimmed, receiver)
  }
  return {
    data: (chunk: string) => {
      buffer += chunk
      let newline = buffer.indexOf("\n")
      if (newline < 0) return
      let start = 0
      while (newline >= 0) {
        line(buffer.slice(start, newline))
        start = newline + 1
        newline = buffer.indexOf("\n", start)
      }
      buffer = buffer.slice(start)
    },
    end: () => {
      if (buffer !== "") line(buffer)
      buffer = ""
    }
  }
}

const signalGroup = (child: ChildProcess, signal: NodeJS.Signals) => {
  try {
    if (child.pid !== undefined) process.kill(-child.pid, signal)
  } catch {
    child.kill(signal)
  }
}

/** Wait up to `grace` for the child to exit (an Effect timeout: this runs once per connection). */
const exited = (child: ChildProcess, grace: Duration.Duration) =>
  Effect.async<void>((resume) => {
    if (child.exitCode !== null || child.signalCode !== null) return resume(Effect.void)
    const done = () => resume(Effect.void)
    child.once("exit", done)
    return Effect.sync(() => child.off("exit", done))
  }).pipe(Effect.interruptible, Effect.timeout(grace), Effect.isSuccess)

/** Close stdin, wait; SIGTERM to the group, wait; SIGKILL. */
const shutdown = (child: ChildProcess, grace: Duration.Duration) =>
  Effect.gen(function*() {
    child.stdin?.end()
    if (yield* exited(child, grace)) return
    signalGroup(child, "SIGTERM")
    if (yield* exited(child, grace)) return
    signalGroup(child, "SIGKILL")
    yield* exited(child, grace)
  })

const start = (options: StdioOptions) =>
  Effect.async<ChildProcess, McpTransportError>((resume) => {
    const child = spawn(options.command, [...(options.args ?? [])], {
      env: childEnvironment(options),
      cwd: options.cwd,
      stdio: ["pipe", "pipe", "pipe"],
      detached: process.platform !== "win32",
      shell: false
    })
    const onError = (cause: Error) =>
      resume(Effect.fail(
        new McpTransportError({ reason: "Spawn", detail: `cannot start ${describeCommand(options)}: ${cause.message}`, cause })
      ))
    child.once("error", onError)
    child.once("spawn", () => {
      child.off("error", onError)
      resume(Effect.succeed(child))
    })
  })

const connect = (options: StdioOptions) =>
  Effect.gen(function*() {
    const grace = Duration.decode(options.shutdownTimeout ?? "2 seconds")
    const child = yield* Effect.acquireRelease(start(options), (child) => shutdown(child, grace))
    const ended = yield* Deferred.make<Ended>()
    let endedWith: Ended | undefined
    const tail = tailKeeper(options.stderrTailBytes ?? 8192)
    child.stderr?.on("data", tail.push)
    child.stdin?.on("error", () => {}) // EPIPE after the server died: its exit reports it
    child.on("error", () => {})
    const end = (reason: Ended) => {
      if (endedWith !== undefined) return
      endedWith = reason
      Deferred.unsafeDone(ended, Exit.succeed(reason))
    }
    const gone = (code: number | null, signal: NodeJS.Signals | null) => {
      const how = signal !== null ? { signal } : { exitCode: code ?? -1 }
      end(new McpServerGoneError({ reason: `${describeCommand(options)} exited`, stderrTail: tail.text(), ...how }))
    }
    // `close` comes after stdout and stderr have ended: everything the server wrote is handed over first. A
    // grandchild may hold the pipes open after the server exited: then the exit counts, a moment later.
    child.once("close", gone)
    child.once("exit", (code, signal) => setTimeout(() => gone(code, signal), 200).unref())
    yield* Effect.addFinalizer(() => Effect.sync(() => end(new McpClosedError({}))))

    const send = (message: OutboundMessage) => {
      if (endedWith !== undefined) return Effect.fail(endedWith)
      let line: string
      try {
        line = JSON.stringify(message) + "\n"
      } catch (cause) {
        return Effect.fail(new McpTransportError({ reason: "Write", detail: "message is not serialisable", cause }))
      }
      const stdin = child.stdin
      if (stdin !== null) {
        // Messages written in the same tick go out in one write.
        if (stdin.writableCorked === 0) {
          stdin.cork()
          process.nextTick(() => stdin.uncork())
        }
        stdin.write(line)
      }
      return Effect.void
    }

    const receive = (receiver: Receiver) =>
      Effect.sync(() => {
        const reader = lineReader(receiver)
        child.stdout?.setEncoding("utf8")
        child.stdout?.on("data", reader.data)
        child.stdout?.once("end", reader.end)
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

/** @internal */
export const make = (options: StdioOptions): Service => ({ connect: connect(options) })
