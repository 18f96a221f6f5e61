/**
 * The default pin scope: something the server cannot choose. A server picks its `serverInfo.name` at every
 * connection, so a server that rewrites a tool and renames itself would be checked against an empty scope; the
 * scope is therefore what the client was told to connect to:
 *
 * - stdio: the command and its arguments, joined with spaces (the CLI's `--stdio` scope is the same string),
 *   with the value of a credential-like argument replaced by `[secret]` (see `stdioScope`);
 * - HTTP: the endpoint's origin and path, without credentials, query or fragment (they may hold secrets);
 * - a configuration entry (`McpConfig`, `connectServers`, the CLI's `--server NAME`): the entry's name;
 * - `McpTestServer`: its declared name.
 *
 * The transport carries it (`McpTransport.Service.identity`); a transport without one and no `pinning.scope`
 * leaves the client no scope, and every tool is quarantined until one is given.
 *
 * @internal
 */
import { credentialLike } from "../credentialName.js"

/** What stands in a scope for a credential given on the command line. @internal */
export const SECRET_ARGUMENT = "[secret]"

/** `--name=value`, `-name=value`, `NAME=value` (an `env` assignment): the name and the value. */
const ASSIGNMENT = /^(-{0,2})([A-Za-z][\w.-]*)=(.*)$/s
/** `Name: value` (a header given as an argument). */
const HEADER = /^([A-Za-z][\w-]*):\s*(.*)$/s
/** `--name` or `-name` alone: its value is the next argument. */
const FLAG = /^-{1,2}([A-Za-z][\w.-]*)$/
/** `Bearer …`, `Basic …`, `DPoP …` anywhere in an argument. */
const SCHEME = /\b(Bearer|Basic|DPoP)(\s+)\S+/gi

/** One argument with its credential replaced; `secretNext` when it is a credential-like flag whose value follows. */
const cleanArgument = (arg: string): { readonly text: string; readonly secretNext: boolean } => {
  const assignment = ASSIGNMENT.exec(arg)
  if (assignment !== null && credentialLike(assignment[2] ?? "")) {
    return { text: `${assignment[1] ?? ""}${assignment[2] ?? ""}=${SECRET_ARGUMENT}`, secretNext: false }
  }
  const header = HEADER.exec(arg)
  if (header !== null && credentialLike(header[1] ?? "")) return { text: `${header[1] ?? ""}: ${SECRET_ARGUMENT}`, secretNext: false }
  const flag = FLAG.exec(arg)
  if (flag !== null) return { text: arg, secretNext: credentialLike(flag[1] ?? "") }
  return { text: arg.replace(SCHEME, `$1$2${SECRET_ARGUMENT}`), secretNext: false }
}

/**
 * The scope of a stdio server: its command line, the shape of its arguments kept but the value of each
 * credential-like argument replaced by `[secret]`: `--token=…`, `--api-key …` (the next argument), `API_KEY=…`,
 * `Authorization: …`, `Bearer …`. The scope is written to the pins file and printed by `pins`, where a secret
 * must not go; the same command with another credential is the same server, so its pins hold across a rotated
 * key. Stable across runs (no digest, no salt). @internal
 */
export const stdioScope = (command: string, args: ReadonlyArray<string> | undefined): string => {
  const out = [command]
  let secretNext = false
  for (const arg of args ?? []) {
    if (secretNext && !arg.startsWith("-")) {
      out.push(SECRET_ARGUMENT)
      secretNext = false
      continue
    }
    const cleaned = cleanArgument(arg)
    out.push(cleaned.text)
    secretNext = cleaned.secretNext
  }
  return out.join(" ")
}

/** The scope of an HTTP endpoint: its origin and path (no userinfo, query or fragment). @internal */
export const httpScope = (url: string | URL): string => {
  const parsed = URL.canParse(String(url)) ? new URL(url) : undefined
  // An unparseable URL fails the transport anyway; its text up to a query or fragment is the scope meanwhile.
  if (parsed === undefined) return String(url).replace(/[?#].*$/s, "").replace(/\/\/[^/@]*@/, "//")
  return `${parsed.origin}${parsed.pathname}`
}
