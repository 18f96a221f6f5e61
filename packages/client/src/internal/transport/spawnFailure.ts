/**
 * How a stdio server is named in errors, and what is kept out of them. Node keeps the arguments on its spawn
 * error (`spawnargs`) and `effect/process` writes them into its message; the command or an argument may hold what
 * a configuration's `${VAR}` stood for (a token), so the error says the command line as the caller describes it
 * and the error code, cleaned of the caller's `secrets`, and carries neither of those errors.
 *
 * @internal
 */
import { McpTransportError } from "../../McpError.js"
import type { StdioOptions } from "../../McpTransport.js"
import { redactor } from "../redact.js"

/** `text` without the caller's `secrets` (as it is when there are none). @internal */
export const cleanerOf = (options: StdioOptions): (text: string) => string => redactor(options.secrets) ?? ((text) => text)

/** The server as errors name it: the caller's description, else its command line (without its secrets). @internal */
export const describeCommand = (options: StdioOptions): string =>
  cleanerOf(options)(options.description ?? [options.command, ...(options.args ?? [])].join(" "))

/** The first string `code` (ENOENT, EACCES…) on the error or the errors it wraps (`cause`, `reason`). */
const codeOf = (error: unknown, depth = 0): string | undefined => {
  if (typeof error !== "object" || error === null || depth > 4) return undefined
  const code: unknown = Reflect.get(error, "code")
  if (typeof code === "string") return code
  return codeOf(Reflect.get(error, "cause"), depth + 1) ?? codeOf(Reflect.get(error, "reason"), depth + 1)
}

/** The error of a server that could not be started. @internal */
export const spawnFailure = (options: StdioOptions, cause: unknown): McpTransportError =>
  new McpTransportError({
    reason: "Spawn",
    detail: `cannot start ${describeCommand(options)}: spawn ${cleanerOf(options)(options.command)} ${codeOf(cause) ?? "failed"}`
  })
