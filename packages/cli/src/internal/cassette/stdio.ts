/**
 * The host side of a stdio server the CLI plays (`record -- cmd`, `replay`): stdin read as lines (each at
 * most `MAX_LINE` bytes: a longer one is dropped while it streams past, with a line on stderr), stdout written
 * a message per line. Only protocol messages go to stdout; everything else goes to stderr.
 */
import type * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Queue from "effect/Queue"
import * as Stream from "effect/Stream"
import { isRecord, type OutboundMessage } from "@mcp-effect/client/McpSchema"
import { visible } from "../terminal/sanitize.js"

/** The longest line taken from the host: the library's largest message. */
export const MAX_LINE = 16 * 1024 * 1024

/** A line on stderr, its controls made visible. */
export const note = (text: string): void => void process.stderr.write(`mcp-effect: ${visible(text)}\n`)

/** One message to the host. */
export const send = (message: unknown): Effect.Effect<void> =>
  Effect.sync(() => void process.stdout.write(`${JSON.stringify(message)}\n`))

/** Each line of stdin to `onLine`, in order; completes when stdin ends. */
export const readLines = <E>(onLine: (line: string) => Effect.Effect<void, E>): Effect.Effect<void, E> =>
  Effect.gen(function*() {
    const lines = yield* Queue.unbounded<string, Cause.Done>()
    let buffer = ""
    let dropping = false
    const onData = (chunk: Buffer) => {
      buffer += chunk.toString("utf8")
      for (;;) {
        const at = buffer.indexOf("\n")
        if (at === -1) break
        const line = buffer.slice(0, at).replace(/\r$/, "")
        buffer = buffer.slice(at + 1)
        if (dropping) dropping = false
        else if (line.trim() !== "") Queue.offerUnsafe(lines, line)
      }
      if (buffer.length > MAX_LINE) {
        if (!dropping) note(`a line from the host longer than ${MAX_LINE} bytes was dropped`)
        dropping = true
        buffer = ""
      }
    }
    const onEnd = () => Queue.endUnsafe(lines)
    yield* Effect.acquireRelease(
      Effect.sync(() => {
        process.stdin.on("data", onData)
        process.stdin.once("end", onEnd)
        process.stdin.once("close", onEnd)
        process.stdin.resume()
      }),
      () =>
        Effect.sync(() => {
          process.stdin.off("data", onData)
          process.stdin.off("end", onEnd)
          process.stdin.off("close", onEnd)
          process.stdin.pause()
        })
    )
    yield* Stream.fromQueue(lines).pipe(Stream.runForEach(onLine))
  }).pipe(Effect.scoped)

/** A line as a JSON-RPC 2.0 message (a request, notification or answer), or why not. */
export const parseMessage = (line: string): OutboundMessage | string => {
  let value: unknown
  try {
    value = JSON.parse(line)
  } catch {
    return "not JSON"
  }
  if (!isRecord(value) || value["jsonrpc"] !== "2.0") return "not a JSON-RPC 2.0 message"
  const id = value["id"]
  if (id !== undefined && typeof id !== "string" && typeof id !== "number") return "a message whose id is neither a string nor a number"
  if (value["method"] !== undefined && typeof value["method"] !== "string") return "a message whose method is not a string"
  if (value["params"] !== undefined && !isRecord(value["params"])) return "a message whose params are not an object"
  // Checked above: the shape of one of the four kinds (the server judges the rest).
  return value as OutboundMessage
}
