/**
 * Reading a file the user named (a token file, a pin file) without trusting what is there: only a regular file
 * is read, and only up to a bound. The path is looked at first and only a regular file is opened, without
 * blocking (a FIFO put there in between cannot hold the open); the open handle is looked at again, and a file
 * that grows past the bound while it is read is refused too: never more than one byte past it is read.
 *
 * @internal
 */
import { constants, type Stats } from "node:fs"
import * as fs from "node:fs/promises"

/** What is at the path. @internal */
export type Found =
  | { readonly _tag: "Absent" }
  | { readonly _tag: "Text"; readonly text: string }
  | { readonly _tag: "NotRegular"; readonly kind: string }
  | { readonly _tag: "TooLarge" }

/** What a path that is not a regular file is, in words. @internal */
export const kindOf = (stats: Stats): string =>
  stats.isDirectory()
    ? "a directory"
    : stats.isFIFO()
    ? "a FIFO"
    : stats.isSocket()
    ? "a socket"
    : stats.isCharacterDevice()
    ? "a character device"
    : stats.isBlockDevice()
    ? "a block device"
    : "of an unknown kind"

const refusal = (stats: Stats): Found => stats.isFile() ? { _tag: "TooLarge" } : { _tag: "NotRegular", kind: kindOf(stats) }

/** The bytes of an open regular file, at most `maxBytes` (`undefined` past it). */
const readUpTo = async (handle: fs.FileHandle, maxBytes: number): Promise<Uint8Array | undefined> => {
  const chunks: Array<Uint8Array> = []
  let total = 0
  while (total <= maxBytes) {
    const buffer = new Uint8Array(Math.min(256 * 1024, maxBytes + 1 - total))
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, null)
    if (bytesRead === 0) break
    chunks.push(buffer.subarray(0, bytesRead))
    total += bytesRead
  }
  if (total > maxBytes) return undefined
  const all = new Uint8Array(total)
  let at = 0
  for (const chunk of chunks) {
    all.set(chunk, at)
    at += chunk.byteLength
  }
  return all
}

/**
 * The UTF-8 text of the regular file at `filePath` of at most `maxBytes`, or what is there instead. A path that
 * cannot be looked at or opened is `Absent`.
 *
 * @internal
 */
export const readRegularText = async (filePath: string, maxBytes: number): Promise<Found> => {
  const before = await fs.stat(filePath).catch(() => undefined)
  if (before === undefined) return { _tag: "Absent" }
  if (!before.isFile() || before.size > maxBytes) return refusal(before)
  const handle = await fs.open(filePath, constants.O_RDONLY | constants.O_NONBLOCK).catch(() => undefined)
  if (handle === undefined) return { _tag: "Absent" }
  try {
    const opened = await handle.stat()
    if (!opened.isFile() || opened.size > maxBytes) return refusal(opened)
    const bytes = await readUpTo(handle, maxBytes)
    return bytes === undefined ? { _tag: "TooLarge" } : { _tag: "Text", text: new TextDecoder().decode(bytes) }
  } finally {
    await handle.close().catch(() => undefined)
  }
}
