/**
 * Things the client noticed that are not failures of any call: a frame that is not JSON-RPC, an answer to no
 * request in flight, a notification for a progress token nobody holds. They are published on the client's
 * `diagnostics` stream and logged at warning/debug level; they never break the connection.
 *
 * @since 0.1.0
 */
import * as Data from "effect/Data"
import type { RequestId } from "./McpSchema.js"

/**
 * @since 0.1.0
 * @category models
 */
export type McpDiagnostic = Data.TaggedEnum<{
  /** A frame that is not valid JSON, or not a JSON-RPC 2.0 message. */
  MalformedFrame: { readonly frame: string; readonly reason: string }
  /** A response whose id matches no request in flight (late, after a timeout or cancel, or bogus). */
  UnmatchedResponse: { readonly id: RequestId | null | undefined }
  /** A notification that was dropped, and why (e.g. progress for an unknown or finished token). */
  DroppedNotification: { readonly method: string; readonly reason: string }
  /** A request from the server that the client refused or could not serve. */
  RefusedRequest: { readonly method: string; readonly reason: string }
  /**
   * A tool left out of `listTools`: it does not decode (e.g. an `inputSchema` that is not an object), over HTTP
   * its `x-mcp-header` annotations are invalid, or tool pinning cannot check it (`pinning`: the pins' scope and
   * the reason alone; a call of it fails with `McpToolQuarantinedError`).
   */
  InvalidTool: {
    readonly name: string
    readonly reason: string
    readonly pinning?: { readonly scope: string; readonly reason: string } | undefined
  }
  /** A hook (onLog, onProgress, ...) failed; the failure was contained. */
  HookFailed: { readonly hook: string; readonly reason: string }
  /**
   * A `skills/list` entry left out: it breaks the skills extension's rules. `uri` is the entry's `uri` when it
   * is a string, and `name` the folder that URI gives the skill (the segment before `/SKILL.md`), so a caller
   * looking for a skill by name can tell "refused" from "not listed".
   */
  InvalidSkill: { readonly reason: string; readonly uri?: string | undefined; readonly name?: string | undefined }
  /**
   * A tool's `outputSchema` the client does not use: larger than `maxOutputSchemaBytes`, nested too deep, not
   * compilable (e.g. a pattern RE2 does not take), or failing while validating (e.g. `{"$ref": "#"}`). The
   * call was answered with its result unchecked.
   */
  UnusableOutputSchema: {
    readonly tool: string
    readonly reason: "too-large" | "too-deep" | "compile" | "validate"
    readonly detail: string
  }
  /**
   * Tool pinning (`ClientOptions.pinning`): a tool of a pinned scope that was not there before. It is pinned as
   * it is now (trust on first use).
   */
  ToolAdded: { readonly scope: string; readonly name: string }
  /** Tool pinning: a pinned tool the server no longer lists (its pin is kept). */
  ToolRemoved: { readonly scope: string; readonly name: string }
  /**
   * Tool pinning: a tool whose definition differs from its pin; `changes` says what changed in short lines
   * (never a description's text), `decision` what `onChanged` (or, without it, the client) decided; `held`
   * whether its definition differs from the pin (`"changed"`) or its stored pin does not decode (`"damaged"`:
   * nothing to compare with), as `McpToolQuarantinedError.held` says.
   */
  ToolChanged: {
    readonly scope: string
    readonly name: string
    readonly changes: ReadonlyArray<string>
    readonly decision: "approve" | "quarantine"
    readonly held?: "changed" | "damaged" | undefined
  }
  /**
   * Tool pinning: the pin store could not be read or written (or a write would pass its bounds), or the client
   * has no scope (`scope: "(none)"`). Reported once per outage. While it cannot be read, the tools are checked
   * against what the client last read (a change it saw stays quarantined), a tool it knows nothing of is
   * quarantined (`onStoreUnavailable: "allow"`: usable), and no first-sight pin is written (it could overwrite a
   * pin the client cannot see). A tool pinning cannot check for other reasons (a name listed twice, a definition
   * nested too deep) is reported as `InvalidTool` and quarantined.
   */
  PinStoreUnavailable: { readonly scope: string; readonly operation: "read" | "write"; readonly reason: string }
}>

/**
 * @since 0.1.0
 * @category constructors
 */
export const McpDiagnostic = Data.taggedEnum<McpDiagnostic>()
