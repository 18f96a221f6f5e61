/**
 * A lock shared with other processes: a file created exclusively (`wx`) next to the file it guards, holding
 * the owner's pid and when it was taken. A lock older than `staleMs`, or whose owner on this host is gone, is
 * taken over; the wait for a live one is bounded. Within one process, the holders of a path take turns on a
 * semaphore first, so the file only ever arbitrates between processes.
 *
 * Its times are the wall clock's (`Date.now`, file times), not the fiber's `Clock`: they are compared with
 * those of other processes, which a `TestClock` knows nothing about.
 *
 * @internal
 */
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Semaphore from "effect/Semaphore"
import * as fs from "node:fs/promises"
import * as path from "node:path"

/** @internal */
export interface LockOptions {
  /** A lock this old is abandoned (default 5 s; a holder only reads, merges and writes a small file). */
  readonly staleMs?: number | undefined
  /** How long to wait for a live lock before giving up (default 10 s). */
  readonly waitMs?: number | undefined
}

/** @internal */
export class LockTimeout extends Data.TaggedError("LockTimeout")<{ readonly lockPath: string }> {
  override get message(): string {
    return `the lock ${this.lockPath} is held by another process`
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

/** A real-time pause (another process's progress is not on the fiber's clock). */
const pause = (millis: number): Effect.Effect<void> =>
  Effect.callback<void>((resume) => {
    const timer = setTimeout(() => resume(Effect.void), millis)
    return Effect.sync(() => clearTimeout(timer))
  })

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

/** The lock there: gone already, abandoned (too old, or its owner on this host gone), or live. */
const judge = async (lockPath: string, staleMs: number): Promise<"gone" | "abandoned" | "live"> => {
  try {
    const stat = await fs.stat(lockPath)
    if (Date.now() - stat.mtimeMs > staleMs) return "abandoned"
    const owner: unknown = JSON.parse(await fs.readFile(lockPath, "utf8"))
    const pid = typeof owner === "object" && owner !== null && "pid" in owner ? owner.pid : undefined
    const dead = typeof pid === "number" && Number.isInteger(pid) && pid > 0 && pid !== process.pid && !alive(pid)
    return dead ? "abandoned" : "live"
  } catch (error) {
    // Half written (its owner is writing it now): live.
    return errorCode(error) === "ENOENT" ? "gone" : "live"
  }
}

const acquire = (lockPath: string, staleMs: number, waitMs: number) =>
  Effect.gen(function*() {
    const started = Date.now()
    for (let round = 0;; round++) {
      if (yield* attempt(() => create(lockPath))) return
      const lock = yield* Effect.promise(() => judge(lockPath, staleMs))
      if (lock === "gone") continue
      if (lock === "abandoned") {
        // Two processes finding the same abandoned lock at the same moment may both take it over: the window
        // is one removal, after a holder crashed.
        yield* attempt(() => fs.rm(lockPath, { force: true }))
        continue
      }
      if (Date.now() - started > waitMs) return yield* new LockTimeout({ lockPath })
      yield* pause(Math.min(200, 10 * 2 ** Math.min(round, 4)) + Math.floor(Math.random() * 10))
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
