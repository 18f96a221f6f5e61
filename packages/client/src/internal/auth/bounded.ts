/**
 * Every HTTP exchange with an authorization server or a metadata location goes through `boundedFetch`: the
 * whole body is read (at most 1 MiB, else the exchange fails), so a hostile server cannot make the client hold
 * an endless answer. Its time is bounded by the caller (`budgets.exchange`), whose interruption aborts it.
 *
 * @internal
 */
import { concatBytes } from "../bytes.js"

/** @internal */
export const MAX_BODY_BYTES = 1 << 20

const NULL_BODY = new Set([101, 204, 205, 304])

/**
 * A GET that failed before any answer (a kept-alive socket the server had just closed: `ECONNRESET`) is tried
 * once more; a POST is not (a token request may have reached the server).
 */
const send = (url: string | URL, init?: RequestInit): Promise<Response> =>
  fetch(url, init).catch((error: unknown) => {
    const method = init?.method ?? "GET"
    if (method !== "GET" || init?.signal?.aborted === true || !(error instanceof TypeError)) throw error
    return fetch(url, init)
  })

/** `fetch`, with the answer's body read whole and bounded. @internal */
export const boundedFetch = async (url: string | URL, init?: RequestInit): Promise<Response> => {
  const response = await send(url, init)
  const reader = response.body?.getReader()
  const keep = { status: response.status, statusText: response.statusText, headers: response.headers }
  if (reader === undefined || NULL_BODY.has(response.status)) {
    await reader?.cancel()
    return new Response(null, keep)
  }
  const chunks: Array<Uint8Array> = []
  let size = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    size += value.byteLength
    if (size > MAX_BODY_BYTES) {
      await reader.cancel()
      throw new Error(`the answer from ${String(url)} is larger than ${MAX_BODY_BYTES} bytes`)
    }
    chunks.push(value)
  }
  return new Response(concatBytes(chunks), keep)
}
