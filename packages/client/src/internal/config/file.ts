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

/** A file refused: `bound` when it is past the size bound. @internal */
export interface Refusal {
  readonly detail: string
  readonly bound: boolean
}

/** The bytes of an open file, up to `maxBytes`; a file past it fails. */
const readBounded = (file: FileSystem.File, maxBytes: number): Effect.Effect<Uint8Array | undefined, Refusal> =>
  Effect.gen(function*() {
    const chunks: Array<Uint8Array> = []
    let size = 0
    while (size <= maxBytes) {
      const chunk = yield* file.readAlloc(Math.min(CHUNK, maxBytes + 1 - size)).pipe(
        Effect.mapError((error) => ({ detail: `cannot be read: ${error.message}`, bound: false }))
      )
      if (Option.isNone(chunk)) break
      chunks.push(chunk.value)
      size += chunk.value.length
    }
    return size > maxBytes ? undefined : concatBytes(chunks)
  })

/**
 * The UTF-8 text of a regular file of at most `maxBytes`, else a refusal ("not a regular file (a FIFO); …",
 * "larger than N bytes; …", "cannot be read: …"), `what` ending the first two (what the file should be). The
 * reader of every file a user names (configurations, cassettes).
 *
 * @internal
 */
export const readTextBounded = (
  fs: FileSystem.FileSystem,
  path: string,
  maxBytes: number,
  what: string,
  boundText = `larger than ${maxBytes} bytes`
): Effect.Effect<string, Refusal> =>
  Effect.gen(function*() {
    const cannot = (error: { readonly message: string }): Refusal => ({ detail: `cannot be read: ${error.message}`, bound: false })
    const notRegularFile = (type: FileSystem.File.Type): Refusal => ({
      detail: `not a regular file (${KINDS[type]}); ${what}`,
      bound: false
    })
    const info = yield* fs.stat(path).pipe(Effect.mapError(cannot))
    if (info.type !== "File") return yield* Effect.fail(notRegularFile(info.type))
    const file = yield* fs.open(path, { flag: "r" }).pipe(Effect.mapError(cannot))
    const opened = yield* file.stat.pipe(Effect.mapError(cannot))
    if (opened.type !== "File") return yield* Effect.fail(notRegularFile(opened.type))
    const bytes = yield* readBounded(file, maxBytes)
    if (bytes === undefined) return yield* Effect.fail<Refusal>({ detail: `${boundText}; ${what}`, bound: true })
    return new TextDecoder().decode(bytes)
  }).pipe(Effect.scoped)

/**
 * The text of a configuration file (UTF-8): a regular file of at most 4 MiB, else an `McpConfigError` naming
 * the file ("not a regular file", "larger than 4 MiB", "cannot be read: …").
 *
 * @internal
 */
export const readText = (fs: FileSystem.FileSystem, path: string): Effect.Effect<string, McpConfigError> =>
  readTextBounded(fs, path, MAX_CONFIG_BYTES, "a configuration is a JSON file", BOUND_TEXT).pipe(
    Effect.mapError((refusal) => refuse(path, refusal.detail))
  )
