/**
 * Server-sent events on `@effect/experimental`'s parser: streamed (a response being read) and whole (an error
 * body read at once).
 */
import * as Sse from "@effect/experimental/Sse"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"

/**
 * SSE items (events and `retry` fields) of a byte stream.
 *
 * @internal
 */
export const sseItems = <E>(
  bytes: Stream.Stream<Uint8Array, E>,
  maxEventSize?: number
): Stream.Stream<Sse.AnyEvent, E | Sse.SseError> =>
  Stream.suspend(() => {
    let pending: Array<Sse.AnyEvent> = []
    const parser = Sse.makeParser((item) => {
      pending.push(item)
    }, { maxEventSize })
    return bytes.pipe(
      Stream.decodeText(),
      Stream.mapChunksEffect((chunk) => {
        for (const text of chunk) {
          const error = parser.feed(text)
          if (error !== undefined) return Effect.fail(error)
        }
        const items = Chunk.unsafeFromArray(pending)
        pending = []
        return Effect.succeed(items)
      })
    )
  })

/**
 * The `data` of every event in an SSE document read whole.
 *
 * @internal
 */
export const sseData = (text: string): ReadonlyArray<string> => {
  const data: Array<string> = []
  const parser = Sse.makeParser((item) => {
    if (item._tag === "Event") data.push(item.data)
  })
  parser.feed(text)
  parser.feed("\n\n")
  return data
}
