/**
 * Recording as a layer around any transport: the connection it opens is the inner transport's, with every
 * message the client sends and every message the server hands over noted by the recorder on the way (after the
 * send was accepted, before the client sees the message). Nothing else of the connection changes.
 *
 * @internal
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import { isRecord, type JsonObject } from "../../McpSchema.js"
import type { Connection, Receiver, Service } from "../../McpTransport.js"
import type { Recorder } from "./recorder.js"

/** The inner transport, its connections recorded. @internal */
export const decorate = (inner: Service, recorder: Pick<Recorder, "record">): Service => ({
  connect: Effect.gen(function*() {
    const clock = yield* Clock.Clock
    const connection = yield* inner.connect
    const now = () => clock.currentTimeMillisUnsafe()
    const recorded: Connection = {
      ...connection,
      send: (message, context, scope) =>
        connection.send(message, context, scope).pipe(
          Effect.tap(() => Effect.sync(() => recorder.record("client", message as JsonObject, now())))
        ),
      receive: (receiver: Receiver) =>
        connection.receive({
          ...receiver,
          message: (message, meta) => {
            if (isRecord(message)) {
              recorder.record(
                "server",
                message,
                now(),
                meta?.httpStatus === undefined ? undefined : { status: meta.httpStatus }
              )
            }
            receiver.message(message, meta)
          }
        })
    }
    return recorded
  })
})
