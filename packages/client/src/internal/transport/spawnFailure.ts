/**
 * How a stdio server that could not be started is named in errors. Node keeps the arguments on its spawn error
 * (`spawnargs`) and `effect/process` writes them into its message; an argument may hold what a configuration's
 * `${VAR}` stood for (a token), so the error says the command line as the caller describes it and the error
 * code, and carries neither of those errors.
 *
 * @internal
 */
import { McpTransportError } from "../../McpError.js"
import type { StdioOptions } from "../../McpTransport.js"

/** The server as errors name it: the caller's description, else its command line. @internal */
export const describeCommand = (options: StdioOptions): string =>
  options.description ?? [options.command, ...(options.args ?? [])].join(" ")

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
    detail: `cannot start ${describeCommand(options)}: spawn ${options.command} ${codeOf(cause) ?? "failed"}`
  })
