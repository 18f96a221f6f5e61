/**
 * The errors of cassettes, in a module of their own: the reader, the recorder and the replay construct them,
 * and `McpCassette` re-exports them.
 *
 * @since 0.3.0
 */
import * as Schema from "effect/Schema"

/**
 * A cassette that cannot be read or written: names the file (when there is one), the line and what is wrong
 * (`Read`: the file; `Bounds`: past a size, line-length or depth bound; `Format`: not a cassette, or a line
 * that is not one; `Version`: a format version this reader does not know; `Write`: the file could not be
 * written).
 *
 * @since 0.3.0
 * @category errors
 */
export class McpCassetteError extends Schema.TaggedError<McpCassetteError>()("McpCassetteError", {
  reason: Schema.Literals(["Read", "Bounds", "Format", "Version", "Write"]),
  path: Schema.optional(Schema.String),
  line: Schema.optional(Schema.Number),
  detail: Schema.String
}) {
  override get message(): string {
    const where = [this.path, this.line === undefined ? undefined : `line ${this.line}`].filter((p) => p !== undefined)
    return `${where.length === 0 ? "cassette" : `cassette ${where.join(", ")}`}: ${this.detail}`
  }
}

/**
 * A replayed session went another way than the recorded one: the client sent `received` where the cassette
 * expected `expected` (the recorded request, or the client's answer to a recorded server request), and
 * `difference` says where they differ (`params.arguments.city: "Paris" recorded, "Lyon" sent`).
 *
 * @since 0.3.0
 * @category errors
 */
export class McpCassetteMismatchError extends Schema.TaggedError<McpCassetteMismatchError>()(
  "McpCassetteMismatchError",
  {
    /** The recorded message expected next, in short (`tools/call {"name":"echo",...}`), or `nothing more`. */
    expected: Schema.String,
    /** What the client sent, in short. */
    received: Schema.String,
    difference: Schema.String,
    /** The line of the cassette that was expected (1 is the header). */
    line: Schema.optional(Schema.Number)
  }
) {
  override get message(): string {
    return `the cassette expected ${this.expected}${this.line === undefined ? "" : ` (line ${this.line})`}, ` +
      `the client sent ${this.received}: ${this.difference}`
  }
}
