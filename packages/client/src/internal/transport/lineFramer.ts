import type { RequestId } from "../../McpSchema.js"

/** The default `maxMessageBytes`: 16 MiB. @internal */
export const DEFAULT_MAX_MESSAGE_BYTES = 16 * 1024 * 1024

/** A message dropped for its size: its first bytes, the id it answered (if readable there), its size so far. */
export interface Dropped {
  readonly head: string
  readonly id: RequestId | undefined
  readonly bytes: number
}

/**
 * The id a message answers, read from its first bytes: only for a response (a head that names no `method`),
 * and only when the id comes before the payload, as implementations write it.
 *
 * @internal
 */
export const answeredId = (head: string): RequestId | undefined => {
  if (/"method"\s*:/.test(head)) return undefined
  const match = /"id"\s*:\s*(-?\d+(?:\.\d+)?|"(?:[^"\\]|\\.)*")/.exec(head)
  if (match?.[1] === undefined) return undefined
  try {
    const id: unknown = JSON.parse(match[1])
    return typeof id === "number" || typeof id === "string" ? id : undefined
  } catch {
    return undefined
  }
}

/** Every framer's: it decodes whole lines only (no `stream` state kept between calls), so one serves all. */
const decoder = new TextDecoder()

/**
 * Newline-delimited framing of a byte stream with a bound: a line up to `maxBytes` is decoded (UTF-8, bad bytes
 * replaced) and handed to `line`; a longer one is dropped while it streams past, never held: the moment it
 * crosses the bound `dropped` is told, and the rest of it, up to its newline, is skipped. Memory stays within
 * `maxBytes` plus one chunk, whatever the server writes.
 *
 * @internal
 */
export const make = (maxBytes: number, line: (text: string) => void, dropped: (what: Dropped) => void) => {
  let parts: Array<Uint8Array> = []
  let size = 0
  let skipping = false

  const join = (last: Uint8Array): Uint8Array => {
    if (parts.length === 0) return last
    const all = new Uint8Array(size + last.length)
    let at = 0
    for (const part of parts) {
      all.set(part, at)
      at += part.length
    }
    all.set(last, at)
    return all
  }

  const emit = (bytes: Uint8Array) => {
    const text = decoder.decode(bytes)
    const trimmed = text.endsWith("\r") ? text.slice(0, -1) : text
    if (trimmed.trim() !== "") line(trimmed)
  }

  const overflow = (last: Uint8Array) => {
    const head = decoder.decode(join(last.subarray(0, 512)).subarray(0, 512))
    const total = size + last.length
    parts = []
    size = 0
    skipping = true
    dropped({ head, id: answeredId(head), bytes: total })
  }

  const data = (chunk: Uint8Array) => {
    let offset = 0
    while (offset <= chunk.length) {
      const newline = chunk.indexOf(0x0a, offset)
      const segment = chunk.subarray(offset, newline < 0 ? chunk.length : newline)
      if (skipping) {
        if (newline >= 0) skipping = false
      } else if (size + segment.length > maxBytes) {
        overflow(segment)
        if (newline >= 0) skipping = false
      } else if (newline >= 0) {
        const whole = join(segment)
        parts = []
        size = 0
        emit(whole)
      } else if (segment.length > 0) {
        parts.push(segment)
        size += segment.length
      }
      if (newline < 0) return
      offset = newline + 1
    }
  }

  const end = () => {
    if (!skipping && size > 0) emit(join(new Uint8Array(0)))
    parts = []
    size = 0
  }

  return { data, end }
}
