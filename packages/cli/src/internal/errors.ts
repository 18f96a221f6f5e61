/**
 * What the command can fail with, and the exit code of each outcome.
 */
import * as Data from "effect/Data"

/** Exit codes (documented in the README and in `--help`). */
export const ExitCode = {
  /** Success. */
  ok: 0,
  /**
   * The tool answered with `isError: true` (or `servers` found a broken entry, `card --check` a difference,
   * `verify` a changed server).
   */
  toolError: 1,
  /**
   * Bad command line, unknown server name, malformed configuration; and a Node older than 22.19, refused by
   * `bin/mcp-effect.js` before this program loads (kept equal by hand: that file cannot import this one).
   */
  usage: 2,
  /** The client failed: the server could not be started or reached, a protocol error, a timeout. */
  client: 3,
  /** Interrupted (Ctrl-C): the call in flight was cancelled. */
  interrupted: 130
} as const

/** A command line or configuration the command cannot act on. */
export class UsageError extends Data.TaggedError("UsageError")<{ readonly message: string }> {}

/** The tool answered with `isError` (already printed). */
export class ToolReturnedError extends Data.TaggedError("ToolReturnedError")<{ readonly tool: string }> {}

/** Some entries of `servers` were broken (already printed). */
export class SomeServersFailed extends Data.TaggedError("SomeServersFailed")<{ readonly count: number }> {}

/** `card --check`: the card contradicts the live server (the differences already printed). */
export class CardDisagrees extends Data.TaggedError("CardDisagrees")<{ readonly count: number }> {}

/** `verify`: the live server answered otherwise than the cassette (the changes already printed). */
export class CassetteChanged extends Data.TaggedError("CassetteChanged")<{ readonly count: number }> {}
