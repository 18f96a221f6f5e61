/**
 * A stdio server, for the client in the page: the inspector's stdio relay as the client's message channel
 * (`McpTransport.layerMemory`, the public way to give the client a channel of one's own). Each connection opens a
 * relay session (the server process); what the server sends comes on the session's event stream, each message
 * the client writes is posted to it, in order.
 */
import { McpTransport } from "@mcp-effect/client"
import * as Effect from "effect/Effect"
import { api } from "./api.js"

/** One line of the relay's event stream (`{}` for a line that is not an object: it is skipped). */
const parseEvent = (line: string): Readonly<Record<string, unknown>> => {
  try {
    const value: unknown = JSON.parse(line)
    return typeof value === "object" && value !== null ? value as Record<string, unknown> : {}
  } catch {
    return {}
  }
}

/** What `POST /api/stdio` answers. */
interface Opened {
  readonly session?: string
  readonly error?: string
}

/** The relay of a stdio server as the client's message channel (one relay session per connection). */
export const stdioChannel = (target: { readonly target: string } | { readonly command: string }) => {
  let current = ""
  let sending: Promise<void> = Promise.resolve()
  return McpTransport.layerMemory({
    onConnect: (peer) =>
      Effect.gen(function*() {
        const abort = new AbortController()
        const opened = yield* Effect.promise(() =>
          api("/api/stdio", { method: "POST", body: JSON.stringify(target) }).then(
            async (response): Promise<Opened> => (await response.json()) as Opened,
            (error: unknown): Opened => ({ error: String(error) })
          )
        )
        if (opened.session === undefined) return yield* peer.die(opened.error ?? "the relay refused")
        const session = opened.session
        current = session
        yield* Effect.addFinalizer(() =>
          Effect.sync(() => {
            abort.abort()
            void api(`/api/stdio/${session}`, { method: "DELETE" }).catch(() => undefined)
          })
        )
        const events = yield* Effect.promise(() =>
          api(`/api/stdio/${session}/events`, { signal: abort.signal }).catch(() => undefined)
        )
        const reader = events?.body?.pipeThrough(new TextDecoderStream()).getReader()
        if (reader === undefined) return yield* peer.die("the relay's event stream did not open")
        yield* Effect.forkScoped(Effect.promise(async () => {
          let buffered = ""
          for (;;) {
            const chunk = await reader.read().catch(() => ({ done: true as const, value: undefined }))
            if (chunk.done) break
            buffered += chunk.value
            let newline = buffered.indexOf("\n")
            while (newline !== -1) {
              const event = parseEvent(buffered.slice(0, newline))
              buffered = buffered.slice(newline + 1)
              if ("m" in event) Effect.runFork(peer.send(event["m"]))
              else if (typeof event["frame"] === "string") Effect.runFork(peer.send(event["frame"]))
              else if (typeof event["end"] === "string") Effect.runFork(peer.die(event["end"]))
              newline = buffered.indexOf("\n")
            }
          }
          Effect.runFork(peer.die("the relay's event stream ended"))
        }))
      }),
    // Sent one after the other, in the client's order.
    onMessage: (message) =>
      Effect.sync(() => {
        const session = current
        sending = sending.then(() =>
          api(`/api/stdio/${session}/send`, { method: "POST", body: JSON.stringify(message) }).then(() => undefined, () => undefined)
        )
      })
  }, { probeWatchdog: "30 seconds" })
}
