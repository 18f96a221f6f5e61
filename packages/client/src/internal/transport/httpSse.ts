/**
 * Server-sent events of a body read whole (an error body), on `effect/encoding`'s parser. A streamed response is
 * parsed as it comes by the transport itself (`consumeWith` in `http.ts`), on the same parser.
 */
import * as Sse from "effect/encoding/Sse"

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
