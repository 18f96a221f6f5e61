/**
 * The one Promise runner's pieces: what a failed run rejects with, the runner of effects that need no service,
 * and an Effect LLM bridge as Promise methods. Nothing here loads the LLM bridge's own modules (`toolkits.ts`
 * does): a page that only calls tools never loads them.
 *
 * @internal
 */
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type * as LlmBridge from "../../LlmBridge.js"
import type { PromiseBridge, SignalOptions } from "../../McpPromise.js"
import * as PromiseRun from "../promiseRun.js"

/** Why a signal was aborted: its reason, or a `DOMException` named `AbortError` when it has none. @internal */
export const abortReason = (signal: AbortSignal): unknown => {
  const reason: unknown = signal.reason
  return reason === undefined ? new DOMException("This operation was aborted", "AbortError") : reason
}

/** What a failed run rejects with: the signal's reason when it was aborted, otherwise the error itself. @internal */
export const failureOf = (cause: Cause.Cause<unknown>, signal?: AbortSignal | undefined): unknown =>
  signal?.aborted === true && Cause.hasInterruptsOnly(cause) ? abortReason(signal) : Cause.squash(cause)

/**
 * Runs effects that need no service (the bridges, toolkits and registries): on the empty context, so that a
 * bridge keeps working after the client it came from was closed and its runtime disposed.
 *
 * @internal
 */
export const runDetached: PromiseRun.Run = PromiseRun.make(Context.empty(), failureOf)

/** Run with `signal`, rejecting at once (nothing started) when it is already aborted. @internal */
export const runSignalled = <A, E>(
  run: PromiseRun.Run,
  effect: Effect.Effect<A, E>,
  signal: AbortSignal | undefined
): Promise<A> => signal?.aborted === true ? Promise.reject(abortReason(signal)) : run(effect, signal)

const forLlm = (options: (LlmBridge.ToolsForLlmOptions & SignalOptions) | undefined): LlmBridge.ToolsForLlmOptions =>
  options?.strict === undefined ? {} : { strict: options.strict }

/** @internal */
export const fromBridge = <E>(bridge: LlmBridge.Bridge<E>): PromiseBridge<E> => {
  const run = <A>(effect: Effect.Effect<A, unknown>, options: SignalOptions | undefined): Promise<A> =>
    runSignalled(runDetached, effect, options?.signal)
  return {
    toolsForLlm: (options) => run(bridge.toolsForLlm(forLlm(options)), options),
    describeTools: (options) => run(bridge.describeTools(forLlm(options)), options),
    executeToolCalls: (calls, options) => run(bridge.executeToolCalls(calls), options),
    toolAnnotations: (name, options) => run(Effect.map(bridge.toolAnnotations(name), Option.getOrUndefined), options),
    bridge
  }
}
