/**
 * The error of a configuration that cannot be read or has a malformed entry, in a module of its own: the
 * parser and the file reader construct it, and the `McpConfig` module re-exports it.
 *
 * @since 0.3.0
 */
import * as Schema from "effect/Schema"

/**
 * A configuration that cannot be read or has a malformed entry: names the file, the entry and the field
 * (e.g. `entry "github", field "env.TOKEN": environment variable TOKEN is not set`).
 *
 * @since 0.1.0
 * @category errors
 */
export class McpConfigError extends Schema.TaggedError<McpConfigError>()("McpConfigError", {
  path: Schema.optional(Schema.String),
  entry: Schema.optional(Schema.String),
  field: Schema.optional(Schema.String),
  detail: Schema.String
}) {
  override get message(): string {
    const where = [
      this.path === undefined ? undefined : this.path,
      this.entry === undefined ? undefined : `entry ${JSON.stringify(this.entry)}`,
      this.field === undefined ? undefined : `field ${JSON.stringify(this.field)}`
    ].filter((part) => part !== undefined)
    return `${where.length === 0 ? "configuration" : where.join(", ")}: ${this.detail}`
  }
}
