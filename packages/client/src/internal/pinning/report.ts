/**
 * What the guard tells and asks: facts reported once per client, and `onChanged` asked once per tool and
 * definition.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import { McpDiagnostic } from "../../McpDiagnostic.js"
import { cut } from "./fingerprint.js"
import type { Decision, PinningOptions, ToolChange } from "./model.js"

const describe = (e: unknown): string => e instanceof Error ? e.message : String(e)

const isPromiseLike = (u: unknown): u is PromiseLike<unknown> =>
  typeof u === "object" && u !== null && "then" in u && typeof u.then === "function"

const isDecision = (u: unknown): u is Decision => u === "approve" || u === "quarantine"

/** `onChanged`'s answer: a value, a Promise or an Effect; anything else, or a failure, quarantines (reported). */
const ask = (
  hook: PinningOptions["onChanged"],
  change: ToolChange,
  report: (diagnostic: McpDiagnostic) => Effect.Effect<void>
): Effect.Effect<Decision> => {
  if (hook === undefined) return Effect.succeed("quarantine")
  const failed = (reason: string) =>
    Effect.as(report(McpDiagnostic.HookFailed({ hook: "pinning.onChanged", reason: cut(reason, 300) })), "quarantine" as const)
  return Effect.try({ try: () => hook(change), catch: (e) => e }).pipe(
    Effect.flatMap((out): Effect.Effect<unknown, unknown> =>
      Effect.isEffect(out)
        ? out
        : isPromiseLike(out)
        ? Effect.tryPromise({ try: () => Promise.resolve(out), catch: (e) => e })
        : Effect.succeed(out)
    ),
    Effect.flatMap((answer) =>
      isDecision(answer) ? Effect.succeed(answer) : failed(`answered ${cut(String(answer), 60)}, not "approve" or "quarantine"`)
    ),
    Effect.catch((e) => failed(describe(e)))
  )
}

/** `onChanged`, asked once per client about each tool and definition (its answer is kept). @internal */
export const askHook = (
  hook: PinningOptions["onChanged"],
  report: (diagnostic: McpDiagnostic) => Effect.Effect<void>
) => {
  const decisions = new Map<string, Decision>()
  return (change: ToolChange): Effect.Effect<Decision> =>
    Effect.suspend(() => {
      const key = `${change.name}\u0000${change.hash}`
      const known = decisions.get(key)
      if (known !== undefined) return Effect.succeed(known)
      return Effect.tap(ask(hook, change, report), (decision) => Effect.sync(() => void decisions.set(key, decision)))
    })
}

/** Facts told once per client (a change, an addition, a removal, an outage); `forget` lets one be told again. @internal */
export const reporter = (report: (diagnostic: McpDiagnostic) => Effect.Effect<void>) => {
  const reported = new Set<string>()
  /** `warning` is logged with the diagnostic (a quarantine or an outage deserves a warning). */
  const once = (key: string, diagnostic: McpDiagnostic, warning?: string) =>
    Effect.suspend(() => {
      if (reported.has(key)) return Effect.void
      reported.add(key)
      return warning === undefined ? report(diagnostic) : Effect.andThen(Effect.logWarning(warning), report(diagnostic))
    })
  return { once, forget: (key: string) => void reported.delete(key) }
}
