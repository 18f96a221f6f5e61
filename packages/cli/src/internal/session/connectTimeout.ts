/**
 * The connect timeout (`--connect-timeout`), apart from the calls' own: start-up and handshake must finish
 * within it, and a stdio server that has said nothing by then is named as such.
 */
import { McpError } from "@mcp-effect/client"
import type { McpClient, McpClientError } from "@mcp-effect/client"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"

/**
 * The server did not finish connecting (start-up and handshake) within the connect timeout. `silentServer`: a
 * stdio server that wrote nothing on stdout by then, the tail of its stderr (the message says the usual causes).
 */
export class ConnectTimeoutError extends Data.TaggedError("ConnectTimeoutError")<{
  readonly seconds: number
  readonly silentServer?: string | undefined
}> {
  override get message(): string {
    const base = `the server did not answer within the connect timeout of ${this.seconds} s (--connect-timeout)`
    return this.silentServer === undefined ? base : `${base}; ${McpError.silentServerNote(this.silentServer)}`
  }
}

/**
 * Connect (the era probe or handshake, through `client.info`) within `seconds`; the calls keep their own limit.
 * `silence`: what the connection says of a stdio server that has written nothing yet.
 */
export const connected = (
  client: McpClient.Service,
  seconds: number,
  silence: Effect.Effect<string | undefined> = Effect.undefined
): Effect.Effect<void, McpClientError | ConnectTimeoutError> =>
  client.info.pipe(
    Effect.timeoutOrElse({
      duration: seconds * 1000,
      orElse: () => Effect.flatMap(silence, (silentServer) => Effect.fail(new ConnectTimeoutError({ seconds, silentServer })))
    }),
    Effect.asVoid
  )
