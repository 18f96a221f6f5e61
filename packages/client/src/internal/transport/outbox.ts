import type { RequestId } from "../../McpSchema.js"

/**
 * The bytes waiting to be written to a server's stdin, bounded: `offer` refuses what would take the total past
 * `maxBytes`. A request's entry can be taken back until it was written (the peer cancels a request that timed
 * out or was interrupted: if it was never written, neither it nor its cancellation is), and its bytes are freed
 * at once. The writer takes the next entry only when the pipe has drained, so beyond the bound at most one
 * message sits in the pipe's own buffer.
 *
 * @internal
 */
export interface Outbox {
  /** Queue bytes (a request's under its id); `undefined`, or why they were refused. */
  readonly offer: (bytes: Uint8Array, id: RequestId | undefined) => string | undefined
  /** `true` when the request's bytes were still waiting: they will never be written. */
  readonly cancel: (id: RequestId) => boolean
  /** The next bytes to write, if any. */
  readonly next: () => Uint8Array | undefined
}

interface Entry {
  bytes: Uint8Array | undefined
  readonly id: RequestId | undefined
}

/** @internal */
export const make = (maxBytes: number): Outbox => {
  let queue: Array<Entry> = []
  let head = 0
  let queued = 0
  const byId = new Map<RequestId, Entry>()

  const offer = (bytes: Uint8Array, id: RequestId | undefined): string | undefined => {
    if (bytes.length > maxBytes) return `the message is ${bytes.length} bytes, more than maxQueuedBytes (${maxBytes})`
    if (queued + bytes.length > maxBytes) {
      return `the server is not reading its stdin: ${queued} bytes already wait to be written (maxQueuedBytes ${maxBytes})`
    }
    const entry: Entry = { bytes, id }
    queue.push(entry)
    queued += bytes.length
    if (id !== undefined) byId.set(id, entry)
    return undefined
  }

  const cancel = (id: RequestId): boolean => {
    const entry = byId.get(id)
    if (entry === undefined || entry.bytes === undefined) return false
    byId.delete(id)
    queued -= entry.bytes.length
    entry.bytes = undefined
    return true
  }

  const next = (): Uint8Array | undefined => {
    while (head < queue.length) {
      const entry = queue[head++]
      const bytes = entry?.bytes
      if (entry === undefined || bytes === undefined) continue
      entry.bytes = undefined
      if (entry.id !== undefined) byId.delete(entry.id)
      queued -= bytes.length
      return bytes
    }
    queue = []
    head = 0
    return undefined
  }

  return { offer, cancel, next }
}
