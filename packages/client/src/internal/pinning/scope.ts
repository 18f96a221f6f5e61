/**
 * The default pin scope: something the server cannot choose. A server picks its `serverInfo.name` at every
 * connection, so a server that rewrites a tool and renames itself would be checked against an empty scope; the
 * scope is therefore what the client was told to connect to:
 *
 * - stdio: the command and its arguments, joined with spaces (the CLI's `--stdio` scope is the same string);
 * - HTTP: the endpoint's origin and path, without credentials, query or fragment (they may hold secrets);
 * - a configuration entry (`McpConfig`, `connectServers`, the CLI's `--server NAME`): the entry's name;
 * - `McpTestServer`: its declared name.
 *
 * The transport carries it (`McpTransport.Service.identity`); a transport without one and no `pinning.scope`
 * leaves the client no scope, and every tool is quarantined until one is given.
 *
 * @internal
 */

/** The scope of a stdio server: its command line. @internal */
export const stdioScope = (command: string, args: ReadonlyArray<string> | undefined): string =>
  [command, ...(args ?? [])].join(" ")

/** The scope of an HTTP endpoint: its origin and path (no userinfo, query or fragment). @internal */
export const httpScope = (url: string | URL): string => {
  const parsed = URL.canParse(String(url)) ? new URL(url) : undefined
  // An unparseable URL fails the transport anyway; its text up to a query or fragment is the scope meanwhile.
  if (parsed === undefined) return String(url).replace(/[?#].*$/s, "").replace(/\/\/[^/@]*@/, "//")
  return `${parsed.origin}${parsed.pathname}`
}
