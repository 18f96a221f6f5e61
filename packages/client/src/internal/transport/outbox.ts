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
export interface Outbox<Chunk> {
  /**
   * Queue a chunk of `size` bytes (a request's under its id); `undefined`, or why it was refused. The chunk is
   * what the writer takes: bytes, or (Node's pipe) the line as a string, which the pipe encodes itself.
   */
  readonly offer: (chunk: Chunk, size: number, id: RequestId | undefined) => string | undefined
  /** `true` when the request's chunk was still waiting: it will never be written. */
  readonly cancel: (id: RequestId) => boolean
  /** The next chunk to write, if any. */
  readonly next: () => Chunk | undefined
}

interface Entry<Chunk> {
  chunk: Chunk | undefined
  readonly size: number
  readonly id: RequestId | undefined
}

/** @internal */
export const make = <Chunk>(maxBytes: number): Outbox<Chunk> => {
  let queue: Array<Entry<Chunk>> = []
  let head = 0
  let queued = 0
  const byId = new Map<RequestId, Entry<Chunk>>()

  const offer = (chunk: Chunk, size: number, id: RequestId | undefined): string | undefined => {
    if (size > maxBytes) return `the message is ${size} bytes, more than maxQueuedBytes (${maxBytes})`
    if (queued + size > maxBytes) {
      return `the server is not reading its stdin: ${queued} bytes already wait to be written (maxQueuedBytes ${maxBytes})`
    }
    const entry: Entry<Chunk> = { chunk, size, id }
    queue.push(entry)
    queued += size
    if (id !== undefined) byId.set(id, entry)
    return undefined
  }

  const cancel = (id: RequestId): boolean => {
    const entry = byId.get(id)
    if (entry === undefined || entry.chunk === undefined) return false
    byId.delete(id)
    queued -= entry.size
    entry.chunk = undefined
    return true
  }

  const next = (): Chunk | undefined => {
    while (head < queue.length) {
      const entry = queue[head++]
      const chunk = entry?.chunk
      if (entry === undefined || chunk === undefined) continue
      entry.chunk = undefined
      if (entry.id !== undefined) byId.delete(entry.id)
      queued -= entry.size
      return chunk
    }
    queue = []
    head = 0
    return undefined
  }

  return { offer, cancel, next }
}
