/**
 * Tool pinning on the command line: `--pins FILE` (or `MCP_EFFECT_PINS`) turns it on with a file store, under a
 * scope that names the server: `--scope`, else the configuration entry's name, else the URL's origin and path,
 * else the stdio command line (so that two servers never share pins by accident, and one server keeps its pins
 * across runs). These are the library's own default scopes (`McpPinning.httpScope`, `stdioScope`): the CLI and
 * a program pinning the same server share its pins. Never the server's own name, which the server picks.
 */
import { McpPinning } from "@mcp-effect/client"
import { type McpConfig, NodeMcpPinning } from "@mcp-effect/client/node"
import * as Flag from "effect/cli/Flag"
import * as Option from "effect/Option"

/** The flags of the commands that pin: `--pins FILE` and `--scope NAME`. */
export const pinning = {
  pins: Flag.String("pins").pipe(
    Flag.withDescription(
      "pin each tool's definition in this file and hold back a tool that changed since (default $MCP_EFFECT_PINS)"
    ),
    Flag.optional
  ),
  scope: Flag.String("scope").pipe(
    Flag.withDescription("the pins' scope (default: the --server name, else the URL, else the stdio command line)"),
    Flag.optional
  )
}

export interface PinningFlags {
  readonly pins?: Option.Option<string> | undefined
  readonly scope?: Option.Option<string> | undefined
  /** How the server was chosen (the scope follows it). */
  readonly server: Option.Option<string>
  readonly url: Option.Option<string>
  readonly stdio: Option.Option<string>
}

/**
 * The pins file: `--pins`, else `MCP_EFFECT_PINS` (an empty value is no file); none for a command without the
 * flag, so that the variable turns pinning on only where the command says it does.
 */
export const pinsFile = (flags: Pick<PinningFlags, "pins">): string | undefined => {
  if (flags.pins === undefined) return undefined
  const fromEnv = process.env["MCP_EFFECT_PINS"]
  return Option.getOrUndefined(flags.pins) ?? (fromEnv === undefined || fromEnv === "" ? undefined : fromEnv)
}

/** The scope of an entry: `--scope`, else the configuration entry's name, else the URL, else the command line. */
export const scopeOf = (entry: McpConfig.ServerEntry, flags: PinningFlags): string => {
  const given = flags.scope === undefined ? undefined : Option.getOrUndefined(flags.scope)
  if (given !== undefined) return given
  if (Option.isSome(flags.server)) return entry.name
  if (entry.transport === "http") return Option.isSome(flags.url) ? McpPinning.httpScope(entry.url) : entry.name
  // A command given with --stdio or after `--` is the entry named "stdio" (see `target.ts`).
  return Option.isSome(flags.stdio) || entry.name === "stdio" ? McpPinning.stdioScope(entry.command, entry.args) : entry.name
}

/** `text` as one shell word (POSIX single quotes), bare when it needs none. */
const shellWord = (text: string): string => /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replaceAll("'", "'\\''")}'`

/**
 * The command that approves `name`, whole: the pins file and the scope are named, so that it works as printed
 * (`pins approve` connects to no server, and without `--pins` it has no file). Server text in it (a tool's
 * name, a scope from a command line) is made visible by the caller, as every line it prints.
 */
export const approveCommand = (file: string | undefined, scope: string, names: ReadonlyArray<string>): string =>
  ["mcp-effect pins approve", ...names.map(shellWord), "--pins", shellWord(file ?? "FILE"), "--scope", shellWord(scope)].join(" ")

/** The client's `pinning` option, when a pins file is given. */
export const pinningOf = (
  entry: McpConfig.ServerEntry,
  flags: PinningFlags
): McpPinning.PinningOptions | undefined => {
  const file = pinsFile(flags)
  return file === undefined ? undefined : { store: NodeMcpPinning.fileStore(file), scope: scopeOf(entry, flags) }
}
