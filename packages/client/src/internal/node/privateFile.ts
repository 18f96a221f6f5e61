/**
 * The one writer of the files that hold a user's credentials or data (the token file, the pin file, what the CLI
 * writes): whole or not at all, readable by the owner alone. The bytes go to a new file of a random name beside
 * the target, created exclusively and without following a link, with mode 0600 from its first byte; it is
 * flushed to disk and then renamed over the target. Renaming replaces the name itself: a symbolic link there is
 * replaced, never written through, and a hard link keeps what it had. A failure at any step (a full disk, a file
 * size limit, a crash before the rename) leaves the target as it was, and a failed write removes its new file. A
 * folder the writer creates is 0700. What reads these files is `regularFile.ts` (regular files only, bounded).
 *
 * @internal
 */
import { randomBytes } from "node:crypto"
import { constants } from "node:fs"
import * as fs from "node:fs/promises"
import * as path from "node:path"

/** How a file is written. @internal */
export interface Options {
  /** The written file's permissions: 0600 unless given (the CLI keeps those of a file it replaces). */
  readonly mode?: number | undefined
  /** Whether a missing folder is created, with its parents, 0700 (the default); otherwise the write fails. */
  readonly createFolder?: boolean | undefined
}

/** A name beside `file` that nothing else uses, hidden from a plain `ls`: `.<name>.<random>.tmp`. */
const temporaryBeside = (file: string): string =>
  path.join(path.dirname(file), `.${path.basename(file)}.${randomBytes(8).toString("hex")}.tmp`)

/**
 * Write `content` to `file` whole, or leave `file` as it was (see the module's comment). Rejects with Node's own
 * error (its `code` says why: `ENOENT`, `EACCES`, `ENOSPC`, `EFBIG`, ...).
 *
 * @internal
 */
export const writePrivateFile = async (file: string, content: string | Uint8Array, options: Options = {}): Promise<void> => {
  if (options.createFolder !== false) await fs.mkdir(path.dirname(file), { recursive: true, mode: 0o700 })
  const temporary = temporaryBeside(file)
  const handle = await fs.open(temporary, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600)
  try {
    try {
      await handle.writeFile(content)
      // The open's mode is cut by the umask; this is the mode asked for, whatever the umask.
      await handle.chmod(options.mode ?? 0o600)
      await handle.sync()
    } finally {
      await handle.close()
    }
    await fs.rename(temporary, file)
  } catch (error) {
    await fs.rm(temporary, { force: true }).catch(() => undefined)
    throw error
  }
}
