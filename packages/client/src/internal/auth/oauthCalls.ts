/**
 * The oauth4webapi calls the flow makes, as Effects whose failures are `McpAuthError`s naming the step and
 * what the server said (OAuth error code, description, status), never a body, token or secret.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as oauth from "oauth4webapi"
import type { AuthStep } from "../../McpAuthError.js"
import { McpAuthError } from "../../McpAuthError.js"
import { exchange } from "./budgets.js"
import { loadJose } from "./jose.js"

type CryptoKey = Awaited<ReturnType<typeof oauth.generateKeyPair>>["privateKey"]

/** An error's message, with its own cause's (e.g. `fetch failed (read ECONNRESET)`). */
const describe = (cause: unknown): string =>
  cause instanceof Error
    ? cause.cause instanceof Error ? `${cause.message} (${cause.cause.message})` : cause.message
    : String(cause)

/** @internal */
export const toAuthError = (step: AuthStep, what: string) => (cause: unknown): McpAuthError => {
  if (cause instanceof McpAuthError) return cause
  if (cause instanceof oauth.ResponseBodyError) {
    return new McpAuthError({
      step,
      detail: `${what} was refused (HTTP ${cause.status})`,
      error: cause.error,
      ...(cause.error_description === undefined ? {} : { errorDescription: cause.error_description }),
      status: cause.status
    })
  }
  if (cause instanceof oauth.AuthorizationResponseError) {
    return new McpAuthError({
      step,
      detail: `${what}: the authorization server answered with an error`,
      error: cause.error,
      ...(cause.error_description === undefined ? {} : { errorDescription: cause.error_description })
    })
  }
  if (cause instanceof oauth.WWWAuthenticateChallengeError) {
    const challenge = cause.cause[0]
    const error = challenge?.parameters.error
    return new McpAuthError({
      step,
      detail: `${what} was refused (HTTP ${cause.status})`,
      ...(error === undefined ? {} : { error }),
      status: cause.status
    })
  }
  return new McpAuthError({ step, detail: `${what}: ${describe(cause)}` })
}

/**
 * Run an oauth4webapi request and its processing, within the exchange budget; a DPoP nonce challenge
 * (`use_dpop_nonce`) is answered once (oauth4webapi has kept the nonce the server sent), as an exchange of its
 * own.
 *
 * @internal
 */
export const call = <A>(
  step: AuthStep,
  what: string,
  request: (signal: AbortSignal) => Promise<Response>,
  process: (response: Response) => Promise<A>
): Effect.Effect<A, McpAuthError> => {
  // Interrupting the Effect (the budget running out) aborts the HTTP request.
  const once = exchange(
    step,
    what,
    Effect.tryPromise({ try: (signal) => request(signal).then(process), catch: (error: unknown) => error })
  )
  return once.pipe(
    Effect.catchIf((error) => oauth.isDPoPNonceError(error), () => once),
    Effect.mapError(toAuthError(step, what))
  )
}

/** A private key from PKCS#8 PEM (or a key as it is). @internal */
export const importPrivateKey = (key: string | CryptoKey, alg: string): Effect.Effect<CryptoKey, McpAuthError> =>
  typeof key === "string"
    ? Effect.tryPromise({
      try: () => loadJose().then((jose) => jose.importPKCS8(key, alg)),
      catch: () => new McpAuthError({ step: "token", detail: `the private key is not a PKCS#8 PEM ${alg} key` })
    })
    : Effect.succeed(key)
