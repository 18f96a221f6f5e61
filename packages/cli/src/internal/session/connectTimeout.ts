/**
 * The connect timeout (`--connect-timeout`), apart from the calls' own: start-up and handshake must finish
 * within it (`McpConfig.clientLayer`'s `connectTimeout`), and a stdio server that has said nothing by then is
 * named as such.
 */
import { McpError } from "@mcp-effect/client"
import type { McpClientError, McpTimeoutError } from "@mcp-effect/client"
import type { McpConfig } from "@mcp-effect/client/node"
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

/** The library's connect timeout (`McpConfig.clientLayer`'s `connectTimeout`), which this error reports. */
const isConnectTimeout = (error: McpTimeoutError): boolean => error.method === "connect" && error.limit === "overall"

/**
 * The connection's failures with the connect timeout of `seconds` (`McpConfig.clientLayer`'s `connectTimeout`,
 * whose error carries the tail of a silent server's stderr) said as `--connect-timeout`'s error.
 */
export const connectTimeoutOf = (seconds: number) =>
<A, R>(
  connecting: Effect.Effect<A, McpClientError | McpConfig.McpConfigError, R>
): Effect.Effect<A, McpClientError | McpConfig.McpConfigError | ConnectTimeoutError, R> =>
  Effect.catchTag(
    connecting,
    "McpTimeoutError",
    (error): Effect.Effect<never, McpTimeoutError | ConnectTimeoutError> =>
      isConnectTimeout(error)
        ? Effect.fail(new ConnectTimeoutError({ seconds, silentServer: error.silentServer }))
        : Effect.fail(error)
  )
