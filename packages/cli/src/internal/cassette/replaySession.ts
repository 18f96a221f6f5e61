/**
 * One replay of a cassette to a host, whatever carries it: the library's player (`McpCassette.player`) with
 * the host's messages offered to it; a request that does not match is answered with a JSON-RPC error naming
 * what the cassette expected and the difference (and said on stderr), so a client we did not write sees the
 * mismatch as an error of its call.
 */
import { McpCassette } from "@mcp-effect/client"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import { note } from "./stdio.js"

/** The JSON-RPC error answered to a request that did not match. */
export const MISMATCH_CODE = -32600

export interface Replay {
  /** Offer one message of the host; a request that does not match is answered through `emit`. */
  readonly offer: (message: Record<string, unknown>) => Effect.Effect<void>
}

export const make = (
  cassette: McpCassette.Cassette,
  emit: (message: Record<string, unknown>) => Effect.Effect<void>,
  options: { readonly fast: boolean; readonly anyOrder: boolean }
): Effect.Effect<Replay, never, Scope.Scope> =>
  Effect.gen(function*() {
    const player = yield* McpCassette.player(cassette, (message) => emit(message), {
      pacing: options.fast ? "fast" : "recorded",
      strict: !options.anyOrder
    })
    const offer = (message: Record<string, unknown>) =>
      player.offer(message).pipe(
        Effect.catch((mismatch) =>
          Effect.gen(function*() {
            note(mismatch.message)
            const id = message["id"]
            if (typeof message["method"] !== "string" || id === undefined) return
            yield* emit({
              jsonrpc: "2.0",
              // An id that is not one JSON-RPC allows (a hostile host's object, maybe nested without end) is not
              // echoed: the answer says null, as for an id that cannot be told.
              id: typeof id === "string" || typeof id === "number" ? id : null,
              error: {
                code: MISMATCH_CODE,
                message: `mcp-effect replay: ${mismatch.message}`,
                data: { expected: mismatch.expected, difference: mismatch.difference, line: mismatch.line }
              }
            })
          })
        )
      )
    return { offer }
  })
