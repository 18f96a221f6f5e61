/**
 * A transport answering from a cassette: each connection replays the whole cassette from its start (a
 * restarted connection starts afresh, as a restarted server would). A client message that does not match fails
 * its `send` with `McpTransportError` (`Write`) whose detail is the mismatch and whose `cause` is the
 * `McpCassetteMismatchError`; every mismatch is also kept for the test (`mismatches`). A mismatched answer to a
 * server request also ends the connection (`McpServerGoneError` saying why): the request that caused the
 * server's request would otherwise wait for an answer the cassette cannot give.
 *
 * @internal
 */
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Queue from "effect/Queue"
import * as Stream from "effect/Stream"
import type { McpCassetteMismatchError } from "../../McpCassetteError.js"
import { McpClosedError, McpServerGoneError, McpTransportError } from "../../McpError.js"
import type { JsonObject } from "../../McpSchema.js"
import type { Connection, Receiver, Service } from "../../McpTransport.js"
import type { Cassette } from "./model.js"
import { makePlayer, type ReplayOptions } from "./replay.js"

/** @internal */
export const make = (
  cassette: Cassette,
  options?: ReplayOptions & {
    readonly received?: ((message: JsonObject) => void) | undefined
    readonly mismatched?: ((error: McpCassetteMismatchError) => void) | undefined
  }
): Service => ({
  connect: Effect.gen(function*() {
    const ended = yield* Deferred.make<McpServerGoneError | McpClosedError>()
    const toClient = yield* Queue.unbounded<string>()
    yield* Effect.addFinalizer(() => Deferred.succeed(ended, new McpClosedError({})))
    const player = yield* makePlayer(
      cassette,
      (message) => Effect.asVoid(Queue.offer(toClient, JSON.stringify(message))),
      options
    )
    const connection: Connection = {
      kind: "memory",
      send: (message) =>
        Effect.suspend((): Effect.Effect<void, McpTransportError | McpServerGoneError | McpClosedError> => {
          if (Deferred.isDoneUnsafe(ended)) return Effect.flatMap(Deferred.await(ended), Effect.fail)
          // Through JSON, as a real transport would send it.
          const value = JSON.parse(JSON.stringify(message)) as JsonObject
          options?.received?.(value)
          const isAnswer = typeof value["method"] !== "string"
          return player.offer(value).pipe(
            Effect.tapError((error) =>
              Effect.andThen(
                Effect.sync(() => options?.mismatched?.(error)),
                isAnswer
                  ? Deferred.succeed(ended, new McpServerGoneError({ reason: `cassette mismatch: ${error.message}`, stderrTail: "" }))
                  : Effect.void
              )
            ),
            Effect.mapError((error) => new McpTransportError({ reason: "Write", detail: error.message, cause: error }))
          )
        }),
      receive: (receiver: Receiver) =>
        Stream.fromQueue(toClient).pipe(
          Stream.interruptWhen(Deferred.await(ended)),
          Stream.runForEach((frame) => Effect.sync(() => receiver.message(JSON.parse(frame)))),
          Effect.forkScoped,
          Effect.asVoid
        ),
      ended: Deferred.await(ended),
      cancelsByClosingStream: () => false,
      scopedSend: false,
      probeWatchdog: Duration.seconds(3)
    }
    return connection
  })
})
