/**
 * The stdio relay: a server process started for the page, whose JSON-RPC messages pass through unchanged both
 * ways, so that the client in the page talks to the real server (either era). The process is started and
 * framed by the library's Node stdio transport (its own process group, ended whole when the session ends;
 * bounded lines; secrets kept out of its stderr tail; the spec's shutdown); the relay adds no protocol of its
 * own.
 *
 * What the server sends waits in a bounded buffer until the page reads the session's event stream (one
 * newline-delimited JSON event per line: `{"m": message}`, `{"frame": text}` for a line that is not JSON,
 * `{"end": reason}` when the server is gone). A page that does not read is cut off past the bound.
 */
import { McpTransport } from "@mcp-effect/client"
import type { OutboundMessage } from "@mcp-effect/client/McpSchema"
import { type McpConfig, NodeMcpClient } from "@mcp-effect/client/node"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Scope from "effect/Scope"
import { SERVER_GRACE } from "../session/connection.js"

/** Events held for a page that is not reading, at most (then the session ends). */
const MAX_PENDING_BYTES = 32 * 1024 * 1024

/** Where a session's events go: the page's open event stream. */
export interface EventSink {
  readonly write: (line: string) => void
  readonly end: () => void
}

/** One relayed server process. */
export interface StdioSession {
  readonly id: string
  /** Forward one message to the server. */
  readonly send: (message: OutboundMessage) => Effect.Effect<void, string>
  /** Hand the events (those held so far, then each as it comes) to the page's stream. */
  readonly attach: (sink: EventSink) => void
  /** Stop the server (stdin closed, then SIGTERM, then SIGKILL to its group). */
  readonly close: Effect.Effect<void>
}

/** Whether a value the page sent is a JSON-RPC message the client could have written. */
export const isOutbound = (value: unknown): value is OutboundMessage => {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false
  const record = value as Readonly<Record<string, unknown>>
  if (record["jsonrpc"] !== "2.0") return false
  const id = record["id"]
  const hasId = typeof id === "string" || typeof id === "number"
  if (typeof record["method"] === "string") return record["id"] === undefined || hasId
  return hasId && ("result" in record || "error" in record)
}

const messageOf = (error: unknown): string =>
  typeof error === "object" && error !== null && "message" in error ? String(error.message) : String(error)

/** A buffer of event lines, handed to a sink once one is attached. */
const eventBuffer = (onOverflow: () => void) => {
  let pending: Array<string> = []
  let bytes = 0
  let sink: EventSink | undefined
  let ended = false
  return {
    push: (event: unknown) => {
      if (ended) return
      const line = `${JSON.stringify(event)}\n`
      if (sink !== undefined) return sink.write(line)
      bytes += line.length
      if (bytes > MAX_PENDING_BYTES) {
        pending = []
        return onOverflow()
      }
      pending.push(line)
    },
    attach: (next: EventSink) => {
      sink?.end()
      sink = next
      for (const line of pending) next.write(line)
      pending = []
      if (ended) next.end()
    },
    end: () => {
      ended = true
      sink?.end()
    }
  }
}

/**
 * Start the entry's server and relay it. The session lives until `close` (or the enclosing scope closes);
 * when the server exits, the page is told why (`{"end": reason}`).
 */
export const open = (
  id: string,
  entry: McpConfig.StdioEntry
): Effect.Effect<StdioSession, string, Scope.Scope> =>
  Effect.gen(function*() {
    const scope = yield* Scope.fork(yield* Scope.Scope)
    const close = Scope.close(scope, Exit.void)
    const events = eventBuffer(() => Effect.runFork(close))
    const options: McpTransport.StdioOptions = {
      command: entry.command,
      args: entry.args,
      env: entry.env,
      cwd: entry.cwd,
      secrets: entry.secrets,
      description: entry.description,
      // As for every command's server: Ctrl-C must not wait on a busy server (stdin closed, then the signals).
      shutdownTimeout: SERVER_GRACE
    }
    const connection = yield* Layer.build(NodeMcpClient.layerStdioTransport(options)).pipe(
      Effect.flatMap((context) => Context.get(context, McpTransport.McpTransport).connect),
      Scope.provide(scope),
      Effect.mapError(messageOf),
      Effect.onError(() => close)
    )
    yield* Scope.addFinalizer(scope, Effect.sync(events.end))
    yield* connection.receive({
      message: (message) => events.push({ m: message }),
      malformed: (frame) => events.push({ frame }),
      failed: (requestId, error) => events.push({ failed: requestId, reason: messageOf(error) })
    }).pipe(Scope.provide(scope))
    yield* connection.ended.pipe(
      Effect.flatMap((reason) => Effect.sync(() => events.push({ end: messageOf(reason) }))),
      Effect.andThen(close),
      // Not in `scope`: this fiber closes it, and ends by itself when it closes (`ended` then completes).
      Effect.forkDetach
    )
    return {
      id,
      send: (message) => connection.send(message, {}).pipe(Effect.mapError(messageOf)),
      attach: events.attach,
      close
    }
  })
