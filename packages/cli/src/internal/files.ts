/**
 * Every file the CLI reads or writes itself goes through here. Reads take regular files only, up to a bound
 * (a FIFO or a file that never ends must not hang the command or fill its memory); a file is written by the
 * library's private-file writer (`writePrivateFile`: whole or not at all, a new file 0600, never through a link
 * at the target, a hard link keeping what it had), and a symbolic link or anything but a regular file at the
 * target is refused first.
 */
import { McpConfig, writePrivateFile } from "@mcp-effect/client/node"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import { randomBytes } from "node:crypto"
import { constants, type Stats } from "node:fs"
import * as fs from "node:fs/promises"
import * as path from "node:path"

/** The bound on a configuration file (`.mcp.json` and the like): the library's own, so both refuse alike. */
export const CONFIG_LIMIT = McpConfig.MAX_CONFIG_BYTES

/** A file the CLI refused or failed to read or write; `message` names the file and the reason. */
export class FileError extends Data.TaggedError("FileError")<{ readonly path: string; readonly message: string }> {}

/** `4 MiB`, `16 MiB`, `512 KiB`, or a byte count. */
export const sizeText = (bytes: number): string =>
  bytes % (1024 * 1024) === 0
    ? `${bytes / (1024 * 1024)} MiB`
    : bytes % 1024 === 0
    ? `${bytes / 1024} KiB`
    : `${bytes} bytes`

/** What a file that is not a regular file is, in words. */
export const kindOf = (stats: Stats): string =>
  stats.isDirectory()
    ? "a folder"
    : stats.isFIFO()
    ? "a FIFO"
    : stats.isSocket()
    ? "a socket"
    : stats.isCharacterDevice()
    ? "a character device"
    : stats.isBlockDevice()
    ? "a block device"
    : stats.isSymbolicLink()
    ? "a symbolic link"
    : "not a file"

const reasonOf = (cause: unknown): string => {
  if (typeof cause === "object" && cause !== null && "code" in cause && typeof cause.code === "string") {
    const code = cause.code
    if (code === "ENOENT") return "no such file or folder"
    if (code === "EACCES" || code === "EPERM") return "permission denied"
    if (code === "EISDIR") return "is a folder"
    return cause instanceof Error ? `${code}: ${cause.message.replace(/^[A-Z]+: /, "")}` : code
  }
  return cause instanceof Error ? cause.message : String(cause)
}

const failure = (file: string, what: string) => (cause: unknown) =>
  new FileError({ path: file, message: `${what} ${file}: ${reasonOf(cause)}` })

/** The bytes of `handle`, at most `limit` (more is an error, found without reading past `limit + 1`). */
const readUpTo = async (handle: fs.FileHandle, file: string, limit: number): Promise<Buffer | FileError> => {
  const buffer = Buffer.alloc(Math.min(limit + 1, 64 * 1024))
  const chunks: Array<Buffer> = []
  let total = 0
  for (;;) {
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, null)
    if (bytesRead === 0) return Buffer.concat(chunks, total)
    total += bytesRead
    if (total > limit) return new FileError({ path: file, message: `${file} is larger than ${sizeText(limit)}` })
    chunks.push(Buffer.from(buffer.subarray(0, bytesRead)))
  }
}

/**
 * The bytes of a regular file, at most `limit`. The file is opened without blocking (a FIFO cannot hold the
 * open) and checked on the opened handle: anything but a regular file, or one larger than `limit`, is a
 * `FileError` saying so.
 */
export const readRegular = (file: string, limit: number): Effect.Effect<Buffer, FileError> =>
  Effect.acquireUseRelease(
    Effect.tryPromise({
      try: () => fs.open(file, constants.O_RDONLY | constants.O_NONBLOCK),
      catch: failure(file, "cannot read")
    }),
    (handle) =>
      Effect.tryPromise({
        try: async () => {
          const stats = await handle.stat()
          if (!stats.isFile()) {
            return new FileError({ path: file, message: `${file} is not a regular file (${kindOf(stats)})` })
          }
          if (stats.size > limit) return new FileError({ path: file, message: `${file} is larger than ${sizeText(limit)}` })
          return await readUpTo(handle, file, limit)
        },
        catch: failure(file, "cannot read")
      }).pipe(Effect.flatMap((read) => read instanceof FileError ? Effect.fail(read) : Effect.succeed(read))),
    (handle) => Effect.promise(() => handle.close().catch(() => undefined))
  )

/** A regular file's text (UTF-8), at most `limit` bytes. */
export const readRegularText = (file: string, limit: number): Effect.Effect<string, FileError> =>
  Effect.map(readRegular(file, limit), (bytes) => bytes.toString("utf8"))

/** What is at `file` without following a link there; `undefined` when nothing is. */
export const lstatOf = (file: string): Effect.Effect<Stats | undefined, FileError> =>
  Effect.tryPromise({
    try: () =>
      fs.lstat(file).catch((error: unknown) => {
        if (typeof error === "object" && error !== null && "code" in error && error.code === "ENOENT") return undefined
        throw error
      }),
    catch: failure(file, "cannot inspect")
  })

/** Refuse a target that is a symbolic link or anything but a regular file; its mode when it is one. */
const replaceable = (file: string): Effect.Effect<number | undefined, FileError> =>
  Effect.flatMap(lstatOf(file), (stats) => {
    if (stats === undefined) return Effect.succeed(undefined)
    if (stats.isSymbolicLink()) {
      return Effect.fail(new FileError({ path: file, message: `refusing to write ${file}: it is a symbolic link` }))
    }
    if (!stats.isFile()) {
      return Effect.fail(new FileError({ path: file, message: `refusing to write ${file}: it is ${kindOf(stats)}` }))
    }
    return Effect.succeed(stats.mode & 0o7777)
  })

/**
 * Write `content` to `file` whole, or leave it as it was (`writePrivateFile`): a new file is readable by its
 * owner alone (what the CLI writes may hold a server's answers or a configuration's secrets), an existing one
 * keeps its permissions, and a missing folder is an error, not created. A symbolic link or anything but a
 * regular file at `file` is refused.
 */
export const writeFileAtomic = (file: string, content: Uint8Array | string): Effect.Effect<void, FileError> =>
  Effect.flatMap(replaceable(file), (mode) =>
    Effect.tryPromise({
      try: () => writePrivateFile(file, content, { mode, createFolder: false }),
      catch: failure(file, "cannot write")
    }))

/** One file of a folder to write: its path inside the folder, as segments, and its bytes. */
export interface FolderFile {
  readonly segments: ReadonlyArray<string>
  readonly bytes: Uint8Array
}

/** Write every file under `stage` (a fresh folder of this process: no links, nothing else in it). */
const fillStage = (stage: string, files: ReadonlyArray<FolderFile>) =>
  Effect.tryPromise({
    try: async () => {
      for (const file of files) {
        const target = path.join(stage, ...file.segments)
        await fs.mkdir(path.dirname(target), { recursive: true })
        await fs.writeFile(target, file.bytes, { flag: "wx" })
      }
    },
    catch: (cause) => new FileError({ path: stage, message: `cannot write the files: ${reasonOf(cause)}` })
  })

const removeStage = (stage: string) => Effect.promise(() => fs.rm(stage, { recursive: true, force: true }).catch(() => undefined))

/** A folder's entries; an unreadable one is a `FileError`. */
const entriesOf = (folder: string) =>
  Effect.tryPromise({ try: () => fs.readdir(folder), catch: failure(folder, "cannot read the folder") })

/**
 * Every file moved from `stage` into the existing `root`, same-named files replaced (`--force`). Each target is
 * checked before the first move: a folder on the way must be a real folder inside `root` (not a link, not a
 * file), and a file's place must be free or hold a regular file (a link there is refused, not replaced).
 */
const mergeInto = (root: string, stage: string, files: ReadonlyArray<FolderFile>) =>
  Effect.gen(function*() {
    for (const file of files) {
      let at = root
      for (const [index, segment] of file.segments.entries()) {
        at = path.join(at, segment)
        const stats = yield* lstatOf(at)
        const last = index === file.segments.length - 1
        if (stats === undefined) break
        if (stats.isSymbolicLink()) {
          return yield* new FileError({ path: at, message: `refusing to write ${at}: it is a symbolic link` })
        }
        if (last ? !stats.isFile() : !stats.isDirectory()) {
          return yield* new FileError({ path: at, message: `refusing to write ${at}: it is ${kindOf(stats)}` })
        }
      }
    }
    yield* Effect.tryPromise({
      try: async () => {
        for (const file of files) {
          const target = path.join(root, ...file.segments)
          await fs.mkdir(path.dirname(target), { recursive: true })
          await fs.rename(path.join(stage, ...file.segments), target)
        }
      },
      catch: failure(root, "cannot write into")
    })
  })

/**
 * Whether `out` is absent (the folder is then written as a whole) or an existing folder that may be written
 * into: an empty one, or with `force` one that is not empty. A link there, a file, or a folder that is not
 * empty without `force`, is refused.
 */
export const folderTarget = (out: string, force: boolean): Effect.Effect<"absent" | "existing", FileError> =>
  Effect.gen(function*() {
    const root = path.resolve(out)
    const stats = yield* lstatOf(root)
    if (stats === undefined) return "absent"
    if (stats.isSymbolicLink()) {
      return yield* new FileError({ path: root, message: `refusing to write into ${root}: it is a symbolic link` })
    }
    if (!stats.isDirectory()) {
      return yield* new FileError({ path: root, message: `refusing to write into ${root}: it is ${kindOf(stats)}` })
    }
    if (!force && (yield* entriesOf(root)).length > 0) {
      return yield* new FileError({
        path: root,
        message: `refusing to write into ${root}: the folder is not empty (--force writes into it, replacing same-named files)`
      })
    }
    return "existing"
  })

/** A new folder of a random name in `parent` (created exclusively, with the usual permissions). */
const makeStage = (parent: string, name: string) =>
  Effect.gen(function*() {
    const stage = path.join(parent, `.${name}.${randomBytes(8).toString("hex")}.tmp`)
    yield* Effect.tryPromise({ try: () => fs.mkdir(stage), catch: failure(parent, "cannot write into") })
    return stage
  })

/**
 * Write `files` as the folder `out`, all or nothing: every file is first written into a new folder of this
 * process (no link in it, nothing else). When `out` does not exist that folder, made beside it, becomes `out` by
 * one rename. An existing folder (empty, or any with `force`) keeps its own inode, permissions and other files:
 * the new folder is made inside it, and each file is moved into place once every file is written, a same-named
 * one replaced.
 */
export const writeFolder = (
  out: string,
  files: ReadonlyArray<FolderFile>,
  force: boolean
): Effect.Effect<void, FileError> =>
  Effect.gen(function*() {
    const root = path.resolve(out)
    const target = yield* folderTarget(root, force)
    if (target === "existing") {
      const stage = yield* makeStage(root, "mcp-effect")
      return yield* fillStage(stage, files).pipe(
        Effect.andThen(mergeInto(root, stage, files)),
        Effect.ensuring(removeStage(stage))
      )
    }
    const parent = path.dirname(root)
    yield* Effect.tryPromise({ try: () => fs.mkdir(parent, { recursive: true }), catch: failure(parent, "cannot create") })
    const stage = yield* makeStage(parent, path.basename(root))
    yield* fillStage(stage, files).pipe(
      Effect.andThen(Effect.tryPromise({ try: () => fs.rename(stage, root), catch: failure(root, "cannot write") })),
      Effect.ensuring(removeStage(stage))
    )
  })
