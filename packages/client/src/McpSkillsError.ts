/**
 * The errors of skill operations, in a module of their own: the client's internals construct them, and the
 * `McpSkills` module (which builds on `McpClient`) re-exports them.
 *
 * @since 0.3.0
 */
import * as Schema from "effect/Schema"

/**
 * @since 0.1.0
 * @category type IDs
 */
export const TypeId: unique symbol = Symbol.for("@mcp-effect/client/McpSkills")

/**
 * A file did not match the skill's listing: its byte size, its SHA-256 digest, its frontmatter (`SKILL.md`:
 * `expected` holds the listed values of the fields that differ, `actual` names them; or `actual` says why the
 * frontmatter could not be read: no leading `---` block, YAML that does not parse, or YAML that expands
 * aliases — an alias of a mapping or list, or aliases taking it past twice its size, refused unexpanded), or
 * its contents were not one resource of that URI. Nothing of the file is handed out.
 *
 * @since 0.1.0
 * @category errors
 */
export class McpSkillVerificationError extends Schema.TaggedError<McpSkillVerificationError>()(
  "McpSkillVerificationError",
  {
    /** The URI of the skill's `SKILL.md`. */
    skill: Schema.String,
    /** The file that failed. */
    uri: Schema.String,
    reason: Schema.Literals(["size", "digest", "frontmatter", "contents"]),
    expected: Schema.String,
    actual: Schema.String
  }
) {
  readonly [TypeId] = TypeId
  override get message(): string {
    return `skill file ${this.uri} failed verification (${this.reason}): expected ${this.expected}, got ${this.actual}`
  }
}

/**
 * A skill operation that was not sent or not usable: the server does not declare the extension (or
 * `directoryRead`), the URI is outside the skill, or the server's entry breaks the extension's rules.
 *
 * @since 0.1.0
 * @category errors
 */
export class McpSkillError extends Schema.TaggedError<McpSkillError>()("McpSkillError", {
  reason: Schema.Literals(["unsupported", "outside-skill", "invalid-entry", "not-found"]),
  uri: Schema.String,
  detail: Schema.String
}) {
  readonly [TypeId] = TypeId
  override get message(): string {
    return `skill ${this.uri}: ${this.detail}`
  }
}
