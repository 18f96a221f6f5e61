/**
 * The one error of card and catalog discovery. It names the URL and what went wrong, never a body: a hostile
 * host's answer could be huge or crafted to mislead whoever reads the log.
 *
 * @internal
 */
import * as Schema from "effect/Schema"

/** @internal */
export const DiscoveryReason = Schema.Literals([
  "http",
  "media-type",
  "too-large",
  "insecure",
  "redirect",
  "invalid",
  "timeout"
])

/** @internal */
export type DiscoveryReason = typeof DiscoveryReason.Type

/** A detail longer than this is cut: a schema issue may quote the document it could not decode. */
const MAX_DETAIL = 300

/** `text` cut to `MAX_DETAIL` characters. @internal */
export const shortDetail = (text: string): string =>
  text.length <= MAX_DETAIL ? text : `${text.slice(0, MAX_DETAIL)}... (${text.length - MAX_DETAIL} more characters)`

/** @internal */
export class McpDiscoveryError extends Schema.TaggedError<McpDiscoveryError>()("McpDiscoveryError", {
  reason: DiscoveryReason,
  /** The URL asked for (for a redirect: the hop that failed). */
  url: Schema.String,
  detail: Schema.String,
  /** The HTTP status, when an answer came. */
  status: Schema.optional(Schema.Number)
}) {
  override get message(): string {
    return `server card discovery failed (${this.reason}) at ${this.url}: ${this.detail}`
  }
}

/** @internal */
export const fail = (reason: DiscoveryReason, url: URL | string, detail: string, status?: number) =>
  new McpDiscoveryError({
    reason,
    url: typeof url === "string" ? url : url.href,
    detail: shortDetail(detail),
    ...(status === undefined ? {} : { status })
  })
