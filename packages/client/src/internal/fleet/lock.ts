/**
 * The fleet's refresh lock in Redis (`SET key token NX PX lifetime`), for the token store's `exclusive`:
 *
 * - every attempt has a token of its own and a deadline; an attempt given up on may still run later (Redis
 *   paused: the command is already in its socket), so its late answer is watched, and a lock it took is let go
 *   at once: no lock outlives the caller that asked for it;
 * - Redis unreachable is a reason to wait, not to go on alone: attempts are retried (with backoff) until the
 *   lock's lifetime has passed, as for a lock held by another process; only then does the caller go on
 *   without it, with a warning;
 * - after a restart of a Redis without persistence the lock and the tokens are gone: a holder takes its lock
 *   back (for what is left of its lifetime) while it runs, and a process that takes the lock and finds no
 *   tokens where it held some first lets the lock go for a moment (`settle`), so that a holder that lost its
 *   lock to the restart takes it back and writes its new tokens again before anyone refreshes with old ones.
 *
 * @internal
 */
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Redis from "effect/persistence/Redis"
import { randomBytes } from "node:crypto"
import { type Health, reason } from "./health.js"

const releaseScript = Redis.script((key: string, token: string) => [key, token], {
  lua: `if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) else return 0 end`,
  numberOfKeys: 1
}).withReturnType<number>()

/** Still ours: 1; gone (a restart) and taken back for `ms`: 2; another's: 0. */
const retakeScript = Redis.script((key: string, token: string, ms: number) => [key, token, ms], {
  lua: `local held = redis.call("get", KEYS[1])
if held == ARGV[1] then return 1 end
if held == false then redis.call("set", KEYS[1], ARGV[1], "PX", ARGV[2]) return 2 end
return 0`,
  numberOfKeys: 1
}).withReturnType<number>()

/** One bounded round trip: `undefined` when Redis failed or was too slow (told to `Health`). @internal */
export type Trip = <A>(what: string, effect: Effect.Effect<A, Redis.RedisError>) => Effect.Effect<A | undefined>

/** @internal */
export const tripper = (
  options: { readonly timeout: Duration.Duration; readonly onRoundTrip?: (() => void) | undefined },
  health: Health
): Trip =>
<A>(what: string, effect: Effect.Effect<A, Redis.RedisError>) =>
  Effect.suspend(() => {
    options.onRoundTrip?.()
    return effect
  }).pipe(
    Effect.timeoutOrElse({ duration: options.timeout, orElse: () => Effect.fail("timeout" as const) }),
    Effect.matchEffect({
      onFailure: (error) => Effect.as(health.failed(what, reason(error)), undefined),
      onSuccess: (value) => Effect.as(health.answered, value)
    })
  )

/** Run `attempt` until it says done or `deadline` (epoch ms) passes, with a short backoff. @internal */
export const retryUntil = (deadline: number, attempt: Effect.Effect<boolean>): Effect.Effect<boolean> =>
  Effect.gen(function*() {
    let pause = 20
    while (true) {
      if (yield* attempt) return true
      if ((yield* Clock.currentTimeMillis) + pause >= deadline) return false
      yield* Effect.sleep(pause)
      pause = Math.min(pause * 2, 200)
    }
  })

/** @internal */
export interface LockOptions {
  readonly redis: Redis.Redis["Service"]
  readonly lockTtl: Duration.Duration
  readonly timeout: Duration.Duration
  readonly onRoundTrip?: (() => void) | undefined
  readonly health: Health
  readonly trip: Trip
}

/** @internal */
export interface Guard {
  /** Taken the lock: is the data it guards gone from Redis (a restart)? */
  readonly lost: Effect.Effect<boolean>
  /** Whether tokens written under the lock are still to be written (their write failed). */
  readonly unwritten: () => boolean
  /** Write them again, until Redis takes them or `deadline` (epoch ms) passes. */
  readonly writeAgain: (deadline: number) => Effect.Effect<unknown>
}

type Attempt = { readonly _tag: "Taken"; readonly token: string } | { readonly _tag: "Held" } | { readonly _tag: "Unreachable" }

/** @internal */
export const make = (options: LockOptions) => {
  const { redis, trip } = options
  const lockMs = Math.max(1, Duration.toMillis(options.lockTtl))
  const timeoutMs = Math.max(1, Duration.toMillis(options.timeout))
  /** How often a holder checks its lock is still there (and takes it back after a restart). */
  const watchMs = Math.min(250, Math.max(20, Math.floor(lockMs / 10)))
  /** How long a process that found the guarded data gone lets the lock go: a holder's check, then a round trip. */
  const settleMs = Math.min(lockMs, 2 * watchMs + timeoutMs)

  const release = (key: string, token: string) => Effect.asVoid(trip("unlock", redis.eval(releaseScript)(key, token)))

  /** One attempt: its own token, bounded; a late answer that took the lock lets it go. */
  const attempt = (key: string): Effect.Effect<Attempt> =>
    Effect.gen(function*() {
      // The holder's pid is in the value for diagnostics (which process holds it); the random part is its own.
      const token = `${process.pid}.${randomBytes(12).toString("base64url")}`
      options.onRoundTrip?.()
      const sent = yield* Effect.forkDetach(redis.send<unknown>("SET", key, token, "NX", "PX", String(lockMs)))
      const reply = yield* Fiber.join(sent).pipe(
        Effect.timeoutOrElse({ duration: options.timeout, orElse: () => Effect.fail("timeout" as const) }),
        Effect.matchEffect({
          onFailure: (error) => Effect.as(options.health.failed("lock", reason(error)), { _tag: "Unreachable" } as const),
          onSuccess: (value) => Effect.as(options.health.answered, value)
        })
      )
      if (typeof reply === "object" && reply !== null && "_tag" in reply) {
        if (reply._tag === "Unreachable") {
          // The command may still run when Redis answers again: a lock it takes then is let go at once.
          // Quietly: the connection may be closed by then.
          yield* Fiber.join(sent).pipe(
            Effect.flatMap((late) => late === "OK" ? redis.eval(releaseScript)(key, token) : Effect.void),
            Effect.ignore,
            Effect.forkDetach
          )
        }
        return { _tag: "Unreachable" }
      }
      return reply === "OK" ? { _tag: "Taken", token } : { _tag: "Held" }
    })

  /**
   * Take the lock, waiting at most its lifetime (Redis unreachable counts as held), then going on without it.
   * A lock Redis says is held lives at most its lifetime, so a holder is active: while Redis answers "held", the
   * wait goes on, up to three lifetimes (a holder that died, then the next ones), since going on alone then would
   * spend the refresh token the holder is spending.
   */
  const acquire = (key: string, guard: Guard) =>
    Effect.gen(function*() {
      const start = yield* Clock.currentTimeMillis
      const deadline = start + lockMs + 250
      const heldDeadline = start + 3 * lockMs + 250
      let pause = 10
      let settled = false
      let held = false
      while ((yield* Clock.currentTimeMillis) < (held ? heldDeadline : deadline)) {
        const got = yield* attempt(key)
        held = got._tag === "Held"
        if (got._tag === "Taken") {
          if (settled || !(yield* guard.lost)) return got.token
          settled = true
          yield* release(key, got.token)
          yield* Effect.logDebug(`mcp fleet: Redis lost the tokens (a restart?); letting a holder take its lock back first`)
          yield* Effect.sleep(settleMs)
          continue
        }
        yield* Effect.sleep(pause)
        pause = Math.min(pause * 2, got._tag === "Held" ? 100 : 200)
      }
      yield* Effect.logWarning(
        "mcp fleet: the refresh lock could not be taken within its lifetime (Redis unreachable, or a holder that did not let it go); going on without it"
      )
      return undefined
    })

  /** While the effect runs: the lock is still there, or taken back (Redis restarted) for what is left of its life. */
  const watch = (key: string, token: string, deadline: number) =>
    Effect.gen(function*() {
      while (true) {
        yield* Effect.sleep(watchMs)
        const left = deadline - (yield* Clock.currentTimeMillis)
        if (left <= 0) return
        const kept = yield* trip("lock check", redis.eval(retakeScript)(key, token, left))
        if (kept === 2) yield* Effect.logDebug("mcp fleet: took the refresh lock back after Redis lost it")
      }
    })

  /**
   * The effect under the lock. Tokens whose write failed are written again before the lock is let go, in the
   * background (the caller has its tokens already) and within the lock's lifetime, the holder keeping (or
   * taking back) its lock meanwhile.
   */
  const exclusive = <A, E, R>(
    key: string,
    effect: Effect.Effect<A, E, R>,
    guard: Guard,
    alone?: Effect.Effect<A, E, R>
  ): Effect.Effect<A, E, R> =>
    Effect.acquireUseRelease(
      Effect.gen(function*() {
        const token = yield* acquire(key, guard)
        const deadline = (yield* Clock.currentTimeMillis) + lockMs
        const watcher = token === undefined ? undefined : yield* Effect.forkDetach(watch(key, token, deadline))
        return { token, deadline, watcher }
      }),
      // Without the lock: what the caller does then (`alone`, e.g. keep a token that still lives), else the effect.
      ({ token }) => token === undefined && alone !== undefined ? alone : effect,
      ({ deadline, token, watcher }) => {
        if (token === undefined || watcher === undefined) return Effect.void
        const letGo = Effect.andThen(Fiber.interrupt(watcher), release(key, token))
        return guard.unwritten()
          ? Effect.asVoid(Effect.forkDetach(Effect.andThen(guard.writeAgain(deadline), letGo)))
          : letGo
      }
    )

  return { exclusive }
}
