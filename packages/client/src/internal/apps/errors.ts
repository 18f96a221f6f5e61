/**
 * The errors of hosting an MCP App, in a module of their own: the bridge, the resource reader and the browser
 * mount construct them; `McpApps` re-exports them.
 *
 * @internal
 */
import * as Schema from "effect/Schema"

/** @internal */
export const TypeId: unique symbol = Symbol.for("@mcp-effect/client/McpApps")

/**
 * An App that cannot be hosted, or an App request refused:
 * - `no-ui`: the tool names no UI resource;
 * - `invalid-uri`: the UI resource's URI is not a plain `ui://` URI (another scheme, a `..` segment, encoded
 *   separators, whitespace, ...);
 * - `invalid-resource`: `resources/read` gave no content of that URI, or not the App media type;
 * - `too-large`: the resource is past `maxResourceBytes`;
 * - `invalid-csp`: a declared CSP source could break out of the policy (`;`, quotes, `<`, `>`, whitespace, ...);
 * - `sandbox`: no separate sandbox origin, or the sandbox page did not answer;
 * - `closed`: the App is gone (torn down, or its frame removed);
 * - `protocol`: the App broke the protocol (a second `ui/initialize`, an answer to nothing, ...), or refused a
 *   request of the host's (its JSON-RPC error's message is the detail);
 * - `timeout`: the App did not answer a request of the host's in time (a call of one of its tools: 30 s).
 *
 * @internal
 */
export class McpAppsError extends Schema.TaggedError<McpAppsError>()("McpAppsError", {
  reason: Schema.Literals(["no-ui", "invalid-uri", "invalid-resource", "too-large", "invalid-csp", "sandbox", "closed", "protocol", "timeout"]),
  detail: Schema.String,
  /** The tool or resource concerned, when there is one. */
  subject: Schema.optional(Schema.String)
}) {
  readonly [TypeId] = TypeId
  override get message(): string {
    return this.subject === undefined ? `MCP App: ${this.detail}` : `MCP App ${this.subject}: ${this.detail}`
  }
}

/**
 * A limit an App went past: one message too large (`message-size`), too many messages in a second (`rate`),
 * too many of its requests in flight (`pending`), too many Apps on the page (`frames`), more than 50 tools of
 * its own (`app-tools`: the rest are left out). The message is dropped
 * (a request is answered with an error); the App keeps running unless the limit is `frames`.
 *
 * @internal
 */
export class McpAppsLimitError extends Schema.TaggedError<McpAppsLimitError>()("McpAppsLimitError", {
  limit: Schema.Literals(["message-size", "rate", "pending", "frames", "app-tools"]),
  /** The configured maximum. */
  maximum: Schema.Number,
  /** What the App reached (bytes, messages per second, requests, frames). */
  actual: Schema.Number,
  /** The App instance, when there is one. */
  instance: Schema.optional(Schema.String)
}) {
  readonly [TypeId] = TypeId
  override get message(): string {
    return `MCP App${this.instance === undefined ? "" : ` ${this.instance}`}: past the ${this.limit} limit (${this.actual} > ${this.maximum})`
  }
}
