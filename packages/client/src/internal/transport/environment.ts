/**
 * The environment of a spawned server, shared by both stdio transports (a module of its own so that the Node
 * fast path does not load the portable transport and `effect/process`).
 */
import type { StdioOptions } from "../../McpTransport.js"

/** @internal */
export const SAFE_ENV_KEYS: ReadonlyArray<string> = [
  "PATH",
  "HOME",
  "USER",
  "LOGNAME",
  "SHELL",
  "TERM",
  "LANG",
  "LC_ALL",
  "LC_CTYPE",
  "TMPDIR",
  "TZ",
  // Windows
  "APPDATA",
  "HOMEDRIVE",
  "HOMEPATH",
  "LOCALAPPDATA",
  "PATHEXT",
  "PROGRAMFILES",
  "SYSTEMDRIVE",
  "SYSTEMROOT",
  "TEMP",
  "USERNAME",
  "USERPROFILE",
  "WINDIR"
]

/** @internal */
export const childEnvironment = (options: StdioOptions): Record<string, string> => {
  const inherited: Record<string, string> = {}
  const mode = options.inheritEnv ?? "safe"
  if (mode !== "none") {
    for (const [key, value] of Object.entries(process.env)) {
      if (value === undefined || value.startsWith("()")) continue // exported shell functions
      if (mode === "all" || SAFE_ENV_KEYS.includes(key.toUpperCase())) inherited[key] = value
    }
  }
  return { ...inherited, ...options.env }
}
