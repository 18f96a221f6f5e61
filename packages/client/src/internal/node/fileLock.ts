/**
 * A lock shared with other processes: a file created exclusively (`wx`) next to the file it guards, holding
 * the owner's pid and when it was taken. A lock older than `staleMs`, or whose owner on this host is gone, is
 * taken over; the wait for a live one is bounded. Within one process, the holders of a path take turns on a
 * semaphore first, so the file only ever arbitrates between processes.
 *
 * Whether a lock is abandoned is judged on the wall clock (`Date.now` against the file's time): it is compared
 * with what other processes wrote, which a `TestClock` knows nothing about. The wait for a live lock is this
 * fiber's own time, on its `Clock` (so a `TestClock` drives it in tests).
 *
 * Only a regular file is ever read as a lock, and without blocking: anything else at the lock's path (a FIFO,
 * a directory, a socket, a link) is no lock of ours, is neither read nor removed, and is waited on as a live
 * lock, so the wait ends in `LockTimeout` saying what is there (reading a FIFO would block forever).
 *
 * @internal
 */
import * as Clock from "effect/Clock"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Semaphore from "effect/Semaphore"
import type { Stats } from "node:fs"
import * as fs from "node:fs/promises"
import * as path from "node:path"
import * as regularFile from "./regularFile.js"

/** @internal */
export interface LockOptions {
  /** A lock this old is abandoned (default 5 s; a holder only reads, merges and writes a small file). */
  readonly staleMs?: number | undefined
  /** How long to wait for a live lock before giving up (default 10 s). */
  readonly waitMs?: number | undefined
}

/** @internal */
export class LockTimeout extends Data.TaggedError("LockTimeout")<{
  readonly lockPath: string
  /** What is at the lock's path when it is no lock file (`"a FIFO"`, `"a directory"`, ...). */
  readonly foreign?: string | undefined
}> {
  override get message(): string {
    return this.foreign === undefined
      ? `the lock ${this.lockPath} is held by another process`
      : `the lock ${this.lockPath} is not a lock file (it is ${this.foreign}): remove it`
  }
}

const semaphores = new Map<string, Semaphore.Semaphore>()

/** The semaphore of a path in this process. */
const turnOf = (lockPath: string): Semaphore.Semaphore => {
  let semaphore = semaphores.get(lockPath)
  if (semaphore === undefined) {
    semaphore = Semaphore.makeUnsafe(1)
    semaphores.set(lockPath, semaphore)
  }
  return semaphore
}

const attempt = <A>(thunk: () => Promise<A>): Effect.Effect<A, Error> =>
  Effect.tryPromise({ try: thunk, catch: (cause) => cause instanceof Error ? cause : new Error(String(cause)) })

const errorCode = (error: unknown): string | undefined =>
  typeof error === "object" && error !== null && "code" in error && typeof error.code === "string" ? error.code : undefined

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return errorCode(error) === "EPERM"
  }
}

/** Create the lock file; `false` when it exists. */
const create = async (lockPath: string): Promise<boolean> => {
  try {
    await fs.writeFile(lockPath, JSON.stringify({ pid: process.pid, at: Date.now() }), { flag: "wx", mode: 0o600 })
    return true
  } catch (error) {
    if (errorCode(error) === "EEXIST") return false
    throw error
  }
}

/** The lock there: gone already, abandoned (too old, or its owner on this host gone), live, or no lock file. */
type Judged = { readonly _tag: "gone" | "abandoned" | "live" } | { readonly _tag: "foreign"; readonly kind: string }

const judge = async (lockPath: string, staleMs: number): Promise<Judged> => {
  const stat = await fs.lstat(lockPath).then(
    (stats) => ({ stats }),
    (error: unknown) => ({ code: errorCode(error) })
  )
  // Looked at as its owner removes it: gone; any other failure to look: live (the wait decides).
  if (!("stats" in stat)) return { _tag: stat.code === "ENOENT" ? "gone" : "live" }
  return judgeStats(lockPath, stat.stats, staleMs)
}

const judgeStats = async (lockPath: string, stat: Stats, staleMs: number): Promise<Judged> => {
  if (stat.isSymbolicLink()) return { _tag: "foreign", kind: "a symbolic link" }
  if (!stat.isFile()) return { _tag: "foreign", kind: regularFile.kindOf(stat) }
  if (Date.now() - stat.mtimeMs > staleMs) return { _tag: "abandoned" }
  const found = await regularFile.readRegularText(lockPath, 4096)
  if (found._tag === "Absent") return { _tag: "gone" }
  if (found._tag === "NotRegular") return { _tag: "foreign", kind: found.kind }
  if (found._tag === "TooLarge") return { _tag: "foreign", kind: "a file too large to be a lock" }
  try {
    const owner: unknown = JSON.parse(found.text)
    const pid = typeof owner === "object" && owner !== null && "pid" in owner ? owner.pid : undefined
    const dead = typeof pid === "number" && Number.isInteger(pid) && pid > 0 && pid !== process.pid && !alive(pid)
    return { _tag: dead ? "abandoned" : "live" }
  } catch {
    // Half written (its owner is writing it now): live.
    return { _tag: "live" }
  }
}

const acquire = (lockPath: string, staleMs: number, waitMs: number) =>
  Effect.gen(function*() {
    const started = yield* Clock.currentTimeMillis
    for (let round = 0;; round++) {
      if (yield* attempt(() => create(lockPath))) return
      const lock = yield* attempt(() => judge(lockPath, staleMs))
      if (lock._tag === "gone") continue
      if (lock._tag === "abandoned") {
        // Two processes finding the same abandoned lock at the same moment may both take it over: the window
        // is one removal, after a holder crashed.
        yield* attempt(() => fs.rm(lockPath, { force: true }))
        continue
      }
      if ((yield* Clock.currentTimeMillis) - started >= waitMs) {
        return yield* new LockTimeout({ lockPath, foreign: lock._tag === "foreign" ? lock.kind : undefined })
      }
      yield* Effect.sleep(Math.min(200, 10 * 2 ** Math.min(round, 4)) + Math.floor(Math.random() * 10))
    }
  })

/**
 * Run `effect` holding the lock of `file` (`<file>.lock`): in turn with this process's other holders, and
 * exclusively among processes. Fails with `LockTimeout` when another process keeps it past the wait.
 *
 * @internal
 */
export const withFileLock = <A, E>(
  file: string,
  effect: Effect.Effect<A, E>,
  options: LockOptions = {}
): Effect.Effect<A, E | LockTimeout | Error> => {
  const lockPath = `${path.resolve(file)}.lock`
  const staleMs = options.staleMs ?? 5_000
  const waitMs = options.waitMs ?? 10_000
  return turnOf(lockPath).withPermits(1)(
    Effect.acquireUseRelease(
      attempt(() => fs.mkdir(path.dirname(lockPath), { recursive: true, mode: 0o700 })).pipe(
        Effect.andThen(acquire(lockPath, staleMs, waitMs))
      ),
      () => effect,
      () => Effect.ignore(attempt(() => fs.rm(lockPath, { force: true })))
    )
  )
}
