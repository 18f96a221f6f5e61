import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as FiberSet from "effect/FiberSet"
import { McpDiagnostic } from "../McpDiagnostic.js"

/**
 * A caller's callback: it may return nothing, a Promise or an Effect.
 *
 * @internal
 */
export type Leaf<A> = (value: A) => unknown

const describe = (e: unknown) => e instanceof Error ? e.message : String(e)

/** The hook's fiber starts on the scheduler, not inline: the reader goes on at once. */
const runOptions = { startImmediately: false } as const

/**
 * Run a caller's hook as a leaf: a synchronous hook runs right here (so reports keep their order); whatever
 * it returns that is asynchronous (a Promise, an Effect) is run on a fiber of its own, so a slow hook never
 * holds up the reader. Failures of any kind become a `HookFailed` diagnostic.
 *
 * @internal
 */
export const runLeaf = <A>(
  fibers: FiberSet.FiberSet,
  hook: string,
  f: Leaf<A>,
  value: A,
  report: (diagnostic: McpDiagnostic) => Effect.Effect<void>
): Effect.Effect<void> =>
  Effect.suspend(() => {
    const failed = (e: unknown) => report(McpDiagnostic.HookFailed({ hook, reason: describe(e) }))
    let out: unknown
    try {
      out = f(value)
    } catch (e) {
      return failed(e)
    }
    if (Effect.isEffect(out)) {
      const effect: Effect.Effect<unknown, unknown> = out as Effect.Effect<unknown, unknown>
      // The whole cause, rendered, so that the diagnostic says what failed and where.
      const contained = effect.pipe(Effect.catchCause((cause) => failed(Cause.pretty(cause))))
      return FiberSet.run(fibers, contained, runOptions).pipe(Effect.asVoid)
    }
    if (typeof out === "object" && out !== null && "then" in out && typeof out.then === "function") {
      const promise = out as PromiseLike<unknown>
      return FiberSet.run(
        fibers,
        Effect.tryPromise({ try: () => Promise.resolve(promise), catch: (e) => e }).pipe(Effect.catch(failed)),
        runOptions
      ).pipe(Effect.asVoid)
    }
    return Effect.void
  })
