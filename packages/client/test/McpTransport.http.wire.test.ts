/**
 * The HTTP wire's responses, on a requester of ours (no sockets): what comes before a reader is kept for it,
 * a response handed off with no reader keeps nothing, and at most 16 handed-off responses stay open.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type { Handler, Requester } from "../src/internal/transport/httpRequester.js"
import * as wire from "../src/internal/transport/httpWire.js"

/** A requester whose requests the test answers by hand; `aborted` counts the aborts. */
const manual = () => {
  const started: Array<Handler> = []
  let aborted = 0
  const requester: Requester = {
    start: (_exchange, handler) => {
      started.push(handler)
      return () => void aborted++
    }
  }
  return { requester, started, aborted: () => aborted }
}

const bytes = (text: string) => new TextEncoder().encode(text)
const outgoing: wire.Outgoing = { method: "POST", what: "test", headers: {}, body: "{}" }

const begin = (w: wire.Wire) => {
  let headed: wire.WireResponse | undefined
  const response = w.begin(outgoing, {}, (r) => (headed = r), () => {})
  return { response, headed: () => headed }
}

describe("HTTP wire responses", () => {
  it.effect("chunks that come before the reader are replayed to it, then the end", () =>
    Effect.gen(function*() {
      const { requester, started } = manual()
      const w = wire.makeWire(requester, new URL("http://127.0.0.1/mcp"), { url: "http://127.0.0.1/mcp" })
      const { response } = begin(w)
      const handler = started[0]
      assert.isDefined(handler)
      handler?.onHead(200, { "content-type": "application/json" })
      handler?.onData(bytes("{\"a\":"))
      handler?.onData(bytes("1}"))
      handler?.onEnd()
      const body = yield* wire.readBounded(response, 1024)
      assert.deepStrictEqual(body, { text: "{\"a\":1}" })
    }))

  it.effect("a read past the bound cancels the request and says how far it got", () =>
    Effect.gen(function*() {
      const { aborted, requester, started } = manual()
      const w = wire.makeWire(requester, new URL("http://127.0.0.1/mcp"), { url: "http://127.0.0.1/mcp" })
      const { response } = begin(w)
      started[0]?.onHead(200, {})
      started[0]?.onData(new Uint8Array(600))
      started[0]?.onData(new Uint8Array(600))
      started[0]?.onData(new Uint8Array(600))
      const body = yield* wire.readBounded(response, 1000)
      assert.deepStrictEqual(body, { oversized: 1200 })
      assert.strictEqual(aborted(), 1)
    }))

  it("a response handed off with no reader keeps none of what comes after", () => {
    const { requester, started } = manual()
    const w = wire.makeWire(requester, new URL("http://127.0.0.1/mcp"), { url: "http://127.0.0.1/mcp" })
    const { response } = begin(w)
    started[0]?.onHead(202, {})
    response.handOff()
    const seen: Array<number> = []
    for (let i = 0; i < 100; i++) started[0]?.onData(new Uint8Array(1 << 16))
    // A reader coming now gets nothing of it: it was let go as it came.
    response.read({ onData: (chunk) => void seen.push(chunk.length), onEnd: () => {}, onError: () => {} })
    assert.deepStrictEqual(seen, [])
  })

  it("at most 16 handed-off responses stay open: the oldest is cancelled; closing cancels the rest", () => {
    const { aborted, requester, started } = manual()
    const w = wire.makeWire(requester, new URL("http://127.0.0.1/mcp"), { url: "http://127.0.0.1/mcp" })
    const responses = Array.from({ length: 20 }, () => begin(w).response)
    for (const handler of started) handler.onHead(200, {})
    for (const response of responses) response.handOff()
    assert.strictEqual(aborted(), 4)
    assert.deepStrictEqual(responses.map((r) => r.finished), [...Array(4).fill(true), ...Array(16).fill(false)])
    // One ends on its own: it is no longer counted.
    started[10]?.onEnd()
    w.close()
    assert.strictEqual(aborted(), 19)
  })
})
