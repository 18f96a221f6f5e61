/**
 * How long an authorization waits, in two budgets that are not the same kind of time: an HTTP exchange with
 * an endpoint (metadata, registration, a token request) is a machine and answers in seconds or not at all; a
 * caller's hook (`onAuthorize`: a person in a browser; a function that fetches an assertion or an ID token)
 * may take minutes. A hung endpoint therefore ends its exchange at `exchangeTimeout`, never at the person's
 * `signInTimeout`. The engine provides the session's budgets; without them, the defaults apply.
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
  failure: (limit: string) => McpAuthError
): Effect.Effect<A, E | McpAuthError> =>
  Budgets.use((budgets) =>
    Effect.timeoutOrElse(effect, {
      duration: budget(budgets),
      orElse: () => Effect.fail(failure(Duration.format(budget(budgets))))
    })
  )

/**
 * One HTTP exchange (`what`: the request, e.g. "the refresh token request"), ended at the exchange budget:
 * interrupting it aborts the request.
 *
 * @internal
 */
export const exchange = <A, E>(step: AuthStep, what: string, effect: Effect.Effect<A, E>) =>
  within(
    effect,
    (budgets) => budgets.exchange,
    (limit) => new McpAuthError({ step, detail: `no answer to ${what} within ${limit} (exchangeTimeout)` })
  )

/** One call of a caller's hook (`what`: its name), ended at the sign-in budget. @internal */
export const hook = <A, E>(step: AuthStep, what: string, effect: Effect.Effect<A, E>) =>
  within(
    effect,
    (budgets) => budgets.signIn,
    (limit) => new McpAuthError({ step, detail: `${what} did not finish within ${limit} (signInTimeout)` })
  )
