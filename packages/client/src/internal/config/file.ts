/**
 * Reading a configuration file: regular files only, up to `MAX_CONFIG_BYTES`. A FIFO would block the open (and
 * a read never ends when something keeps writing to it), a device such as `/dev/zero` never ends, and a file
 * of gigabytes would be held in memory whole: each is an `McpConfigError` naming the file instead. The path
 * is looked at first and only a regular file is opened; the open handle is looked at again (the path may
 * have been replaced in between), and at most one byte past the bound is read, so a file that grows while it
 * is read is refused too.
 */
import * as Effect from "effect/Effect"
import type * as FileSystem from "effect/FileSystem"
import * as Option from "effect/Option"
import { McpConfigError } from "../../McpConfigError.js"
import { concatBytes } from "../bytes.js"

/** The largest configuration file read: 4 MiB, far past any real one. @internal */
export const MAX_CONFIG_BYTES = 4 * 1024 * 1024

/** How the bound is said in errors. */
const BOUND_TEXT = "larger than 4 MiB"

/** Read in pieces of this size. */
const CHUNK = 64 * 1024

const refuse = (path: string, detail: string) => new McpConfigError({ path, detail })

/** What an entry that is not a regular file is, as errors say it. */
const KINDS: Readonly<Record<FileSystem.File.Type, string>> = {
  File: "a file",
  Directory: "a directory",
  SymbolicLink: "a symbolic link",
  BlockDevice: "a block device",
  CharacterDevice: "a character device",
  FIFO: "a FIFO",
  Socket: "a socket",
  Unknown: "of an unknown kind"
}

const notRegular = (path: string, type: FileSystem.File.Type) =>
  refuse(path, `not a regular file (${KINDS[type]}); a configuration is a JSON file`)

const cannotRead = (path: string) => (error: { readonly message: string }) =>
  refuse(path, `cannot be read: ${error.message}`)

/** The bytes of an open file, up to the bound; a file past it fails. */
const readBounded = (path: string, file: FileSystem.File): Effect.Effect<Uint8Array, McpConfigError> =>
  Effect.gen(function*() {
    const chunks: Array<Uint8Array> = []
    let size = 0
    while (size <= MAX_CONFIG_BYTES) {
      const chunk = yield* file.readAlloc(Math.min(CHUNK, MAX_CONFIG_BYTES + 1 - size)).pipe(
        Effect.mapError(cannotRead(path))
      )
      if (Option.isNone(chunk)) break
      chunks.push(chunk.value)
      size += chunk.value.length
    }
    if (size > MAX_CONFIG_BYTES) return yield* refuse(path, `${BOUND_TEXT}; a configuration is a JSON file`)
    return concatBytes(chunks)
  })

/**
 * The text of a configuration file (UTF-8): a regular file of at most 4 MiB, else an `McpConfigError` naming
 * the file ("not a regular file", "larger than 4 MiB", "cannot be read: …").
 *
 * @internal
 */
export const readText = (fs: FileSystem.FileSystem, path: string): Effect.Effect<string, McpConfigError> =>
  Effect.gen(function*() {
    const info = yield* fs.stat(path).pipe(Effect.mapError(cannotRead(path)))
    if (info.type !== "File") return yield* notRegular(path, info.type)
    const file = yield* fs.open(path, { flag: "r" }).pipe(Effect.mapError(cannotRead(path)))
    const opened = yield* file.stat.pipe(Effect.mapError(cannotRead(path)))
    if (opened.type !== "File") return yield* notRegular(path, opened.type)
    return new TextDecoder().decode(yield* readBounded(path, file))
  }).pipe(Effect.scoped)
