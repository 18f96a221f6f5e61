/**
 * One call of the Promise API: its effect runs in a fiber forked with the client's context and its Promise is
 * settled by that fiber's observer, the moment the fiber ends (resumed by the peer's correlator). One Promise
 * per call, no `runPromiseExit` (which adds a Promise of the `Exit` and a second one to unwrap it). An
 * `AbortSignal` interrupts the fiber, which cancels the request on the wire exactly as interrupting the Effect
 * API's call does.
 */
import type * as Cause from "effect/Cause"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"

/** What a failed run rejects with (the signal's reason when it was aborted, otherwise the error itself). @internal */
export type FailureOf = (cause: Cause.Cause<unknown>, signal: AbortSignal | undefined) => unknown

/** @internal */
export type Run = <A, E>(effect: Effect.Effect<A, E>, signal?: AbortSignal | undefined) => Promise<A>

/**
 * Runs effects with `context`; the caller rejects an already aborted signal before calling (nothing is started).
 *
 * @internal
 */
export const make = <R>(context: Context.Context<R>, failureOf: FailureOf): Run => {
  const fork = Effect.runForkWith(context)
  return <A, E>(effect: Effect.Effect<A, E>, signal?: AbortSignal | undefined) =>
    new Promise<A>((resolve, reject) => {
      // The fiber starts right here, on this stack: an effect that needs no I/O has ended when `runForkWith`
      // returns, and its observer is called at once.
      const fiber = fork(effect)
      const settle = (exit: Exit.Exit<A, E>) =>
        Exit.isSuccess(exit) ? resolve(exit.value) : reject(failureOf(exit.cause, signal))
      if (signal === undefined) return void fiber.addObserver(settle)
      const onAbort = () => fiber.interruptUnsafe()
      signal.addEventListener("abort", onAbort, { once: true })
      fiber.addObserver((exit) => {
        signal.removeEventListener("abort", onAbort)
        settle(exit)
      })
    })
}
