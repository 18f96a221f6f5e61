import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Queue from "effect/Queue"
import * as Stream from "effect/Stream"
import { McpClosedError, McpServerGoneError } from "../../McpError.js"
import { isRecord } from "../../McpSchema.js"
import type { Connection, MemoryOptions, MemoryPeer, MemoryServer, Receiver, Service } from "../../McpTransport.js"
import { deliverFrame } from "./frames.js"

/** @internal */
export const make = (server: MemoryServer, options?: MemoryOptions): Service => {
  const probeWatchdog = Duration.fromInputUnsafe(options?.probeWatchdog ?? "3 seconds")
  return { connect: connect(server, probeWatchdog) }
}

const connect = (server: MemoryServer, probeWatchdog: Duration.Duration): Service["connect"] =>
  Effect.gen(function*() {
    const ended = yield* Deferred.make<McpServerGoneError | McpClosedError>()
    const toClient = yield* Queue.unbounded<string>()
    yield* Effect.addFinalizer(() => Deferred.succeed(ended, new McpClosedError({})))

    const peer: MemoryPeer = {
      send: (message) =>
        Deferred.isDone(ended).pipe(
          Effect.flatMap((done) =>
            done ? Effect.void : Queue.offer(toClient, typeof message === "string" ? message : JSON.stringify(message))
          )
        ),
      die: (reason) => Deferred.succeed(ended, new McpServerGoneError({ reason, stderrTail: "" })).pipe(Effect.asVoid)
    }
    if (server.onConnect !== undefined) yield* server.onConnect(peer)

    const connection: Connection = {
      kind: "memory",
      send: (message) =>
        Effect.suspend(() => {
          if (Deferred.isDoneUnsafe(ended)) return Effect.flatMap(Deferred.await(ended), Effect.fail)
          // Round-trip through JSON, as a real transport would.
          const value: unknown = JSON.parse(JSON.stringify(message))
          return isRecord(value) ? Effect.asVoid(Effect.forkDetach(server.onMessage(value, peer))) : Effect.void
        }),
      receive: (receiver: Receiver) =>
        Stream.fromQueue(toClient).pipe(
          Stream.interruptWhen(Deferred.await(ended)),
          Stream.runForEach((frame) => Effect.sync(() => deliverFrame(frame, receiver))),
          Effect.forkScoped,
          Effect.asVoid
        ),
      ended: Deferred.await(ended),
      cancelsByClosingStream: () => false,
      scopedSend: false,
      probeWatchdog
    }
    return connection
  })
