/**
 * The authorization error: which step of the OAuth flow failed and what the server said. It never carries a
 * token, a secret or a response body, only OAuth error codes, descriptions, statuses and URLs.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { TypeId } from "./McpError.js"

/**
 * The step of the authorization flow that failed.
 *
 * @since 0.1.0
 * @category models
 */
export const AuthStep = Schema.Literals(["discovery", "registration", "authorization", "token", "refresh"])

/**
 * @since 0.1.0
 * @category models
 */
export type AuthStep = typeof AuthStep.Type

/**
 * An OAuth failure. A call that could not be authorized fails with it (a member of `McpClientError`: an Effect
 * caller catches it with `catchTag("McpAuthError", ...)`, the Promise API rejects with it); `McpAuth.authErrorOf`
 * also finds it as the `cause` of an `McpTransportError` (reason `"Auth"`), as a custom authorizer may report it.
 *
 * @since 0.1.0
 * @category errors
 */
export class McpAuthError extends Schema.TaggedError<McpAuthError>()("McpAuthError", {
  step: AuthStep,
  detail: Schema.String,
  /** The OAuth `error` code the server answered with (`invalid_grant`, `access_denied`, ...). */
  error: Schema.optional(Schema.String),
  /** The server's `error_description`. */
  errorDescription: Schema.optional(Schema.String),
  /** The HTTP status of the failing answer, if one came. */
  status: Schema.optional(Schema.Number)
}) {
  readonly [TypeId]: TypeId = TypeId
  override get message(): string {
    const said = this.error === undefined
      ? ""
      : ` (server said ${this.error}${this.errorDescription === undefined ? "" : `: ${this.errorDescription}`})`
    return `authorization failed at ${this.step}: ${this.detail}${said}`
  }
}
