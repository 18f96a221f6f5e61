/**
 * How long an authorization waits, in two budgets that are not the same kind of time: an HTTP exchange with
 * an endpoint (metadata, registration, a token request) is a machine and answers in seconds or not at all; a
 * caller's hook (`onAuthorize`: a person in a browser; a function that fetches an assertion or an ID token)
 * may take minutes. A hung endpoint therefore ends its exchange at `exchangeTimeout`, never at the person's
 * `signInTimeout`. Inside a call, what the client does alone (the exchanges, a hook giving an assertion or an
 * ID token) is also bounded by what is left of that call's `requestTimeout`: a machine-to-machine client whose
 * token endpoint hangs fails the call at its request timeout, not 30 s later. The person's own time (the
 * `onAuthorize` sign-in) is not the call's: the call's budget stands still while a person signs in. The engine
 * provides the session's budgets; without them, the defaults apply.
 *
 * @internal
 */
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type { AuthStep } from "../../McpAuthError.js"
import { McpAuthError } from "../../McpAuthError.js"
import type { AuthOptions } from "./options.js"

/** @internal */
export interface Budgets {
  /** One HTTP exchange with an authorization server or a metadata location. */
  readonly exchange: Duration.Duration
  /** One call of a caller's hook: a sign-in in the browser, an assertion, an ID token. */
  readonly signIn: Duration.Duration
  /** The call this authorization work is for, when it has a timeout (`requestTimeout`). */
  readonly call?: CallBudget | undefined
}

/** @internal */
export interface CallBudget {
  /** The call's timeout, for messages. */
  readonly limit: Duration.Duration
  /** What is left of it (ms, the fiber's clock), the person's sign-in time not counted. */
  readonly remaining: Effect.Effect<number>
}

/** The default budget of one HTTP exchange. */
const EXCHANGE_TIMEOUT = Duration.seconds(30)
/** The default budget of a sign-in. */
const SIGN_IN_TIMEOUT = Duration.minutes(5)

/** @internal */
export const Budgets = Context.Reference<Budgets>("@mcp-effect/client/McpAuth/Budgets", {
  defaultValue: () => ({ exchange: EXCHANGE_TIMEOUT, signIn: SIGN_IN_TIMEOUT })
})

/** The budgets the caller's options give. @internal */
export const fromOptions = (options: AuthOptions): Budgets => ({
  exchange: options.exchangeTimeout === undefined ? EXCHANGE_TIMEOUT : Duration.fromInputUnsafe(options.exchangeTimeout),
  signIn: options.signInTimeout === undefined ? SIGN_IN_TIMEOUT : Duration.fromInputUnsafe(options.signInTimeout)
})

const within = <A, E>(
  effect: Effect.Effect<A, E>,
  budget: (budgets: Budgets) => Duration.Duration,
  failure: (limit: string) => McpAuthError,
  callFailure: (limit: string) => McpAuthError
): Effect.Effect<A, E | McpAuthError> =>
  Budgets.use((budgets) => {
    const own = budget(budgets)
    const call = budgets.call
    const bounded = (duration: Duration.Duration, fail: () => McpAuthError) =>
      Effect.timeoutOrElse(effect, { duration, orElse: () => Effect.fail(fail()) })
    if (call === undefined) return bounded(own, () => failure(Duration.format(own)))
    // The sooner of the two ends it, and the error names that one.
    return Effect.flatMap(call.remaining, (left) =>
      left < Duration.toMillis(own)
        ? bounded(Duration.millis(Math.max(0, left)), () => callFailure(Duration.format(call.limit)))
        : bounded(own, () => failure(Duration.format(own))))
  })

/**
 * One HTTP exchange (`what`: the request, e.g. "the refresh token request"), ended at the exchange budget or at
 * the end of the call it is for, whichever comes first: interrupting it aborts the request.
 *
 * @internal
 */
export const exchange = <A, E>(step: AuthStep, what: string, effect: Effect.Effect<A, E>) =>
  within(
    effect,
    (budgets) => budgets.exchange,
    (limit) => new McpAuthError({ step, detail: `no answer to ${what} within ${limit} (exchangeTimeout)` }),
    (limit) => new McpAuthError({ step, detail: `no answer to ${what} within the call's ${limit} (requestTimeout)` })
  )

/**
 * One call of a caller's hook (`what`: its name), ended at the sign-in budget or, for a hook the client runs
 * alone (an assertion, an ID token), at the end of the call it is for. The person's sign-in runs outside the
 * call's budget (`outsideCall`).
 *
 * @internal
 */
export const hook = <A, E>(step: AuthStep, what: string, effect: Effect.Effect<A, E>) =>
  within(
    effect,
    (budgets) => budgets.signIn,
    (limit) => new McpAuthError({ step, detail: `${what} did not finish within ${limit} (signInTimeout)` }),
    (limit) => new McpAuthError({ step, detail: `${what} did not finish within the call's ${limit} (requestTimeout)` })
  )

/** `effect` with no call's budget over it: the person's own time. @internal */
export const outsideCall = <A, E>(effect: Effect.Effect<A, E>): Effect.Effect<A, E> =>
  Budgets.use((budgets) => Effect.provideService(effect, Budgets, { ...budgets, call: undefined }))
