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
  "WINDIR",
  // The user's proxy and certificates, as a server's own network access needs them (an `npx -y` or `uvx`
  // server cannot fetch its package without them). They point at the user's network, not at the user's
  // services; a password in a proxy URL is kept out of errors (`secretsOf`).
  "HTTP_PROXY",
  "HTTPS_PROXY",
  "ALL_PROXY",
  "NO_PROXY",
  "NODE_EXTRA_CA_CERTS",
  "NODE_USE_ENV_PROXY",
  "SSL_CERT_FILE",
  "SSL_CERT_DIR",
  "REQUESTS_CA_BUNDLE",
  "CURL_CA_BUNDLE",
  // npm's registry, certificate and proxy settings, by name: other `npm_config_*` variables may hold a
  // registry token (`npm_config__authToken`).
  "NPM_CONFIG_REGISTRY",
  "NPM_CONFIG_CAFILE",
  "NPM_CONFIG_PROXY",
  "NPM_CONFIG_HTTPS_PROXY",
  "NPM_CONFIG_NOPROXY",
  "NPM_CONFIG_STRICT_SSL"
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

/** The password of a URL (`http://user:password@proxy`), if the value is one that has a password. */
const urlPassword = (value: string): string | undefined => {
  if (!value.includes("@") || !URL.canParse(value)) return undefined
  const password = new URL(value).password
  return password === "" ? undefined : decodeURIComponent(password)
}

/**
 * The values a connection keeps out of errors and stderr tails: the caller's `secrets`, and the passwords of the
 * URLs the server's environment holds (a proxy URL with credentials), which the server gets but errors never show.
 *
 * @internal
 */
export const secretsOf = (options: StdioOptions, env: Readonly<Record<string, string>>): ReadonlyArray<string> => {
  const passwords = Object.values(env).flatMap((value) => urlPassword(value) ?? [])
  return passwords.length === 0 ? options.secrets ?? [] : [...(options.secrets ?? []), ...passwords]
}

/**
 * The environment of a connection's server, and its options with the secrets that environment adds.
 *
 * @internal
 */
export const prepare = (given: StdioOptions): { readonly options: StdioOptions; readonly env: Record<string, string> } => {
  const env = childEnvironment(given)
  return { options: { ...given, secrets: secretsOf(given, env) }, env }
}
