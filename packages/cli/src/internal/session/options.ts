/**
 * The options the commands share: which server (and the variables a stdio server is given), the output format,
 * roots and the request timeout.
 */
import * as Flag from "effect/cli/Flag"
import { DEFAULT_CALLBACK_PORT } from "./auth.js"

/** The options that pick the server (a configuration entry, a command, a URL) and what it is given. */
export const serverFlags = {
  config: Flag.String("config").pipe(
    Flag.withAlias("c"),
    Flag.withDescription("mcpServers configuration file (default ./.mcp.json, then ./mcp.json)"),
    Flag.optional
  ),
  server: Flag.String("server").pipe(
    Flag.withAlias("s"),
    Flag.withDescription("the entry of the configuration to use (default: its only entry)"),
    Flag.optional
  ),
  stdio: Flag.String("stdio").pipe(
    Flag.withDescription("start this server command over stdio (or put the command after --)"),
    Flag.optional
  ),
  env: Flag.String("env").pipe(
    Flag.withAlias("e"),
    Flag.withDescription(
      "a variable for the stdio server, KEY=VALUE (repeatable; its value is kept out of errors). A server gets only " +
        "PATH, HOME, locale, proxy and certificate variables and the like, unless given --env-all"
    ),
    Flag.atLeast(0)
  ),
  envAll: Flag.Boolean("env-all").pipe(
    Flag.withDescription("give the stdio server this command's whole environment (--env over it)"),
    Flag.withDefault(false)
  ),
  url: Flag.String("url").pipe(Flag.withDescription("a Streamable HTTP server's URL"), Flag.optional),
  header: Flag.String("header").pipe(
    Flag.withAlias("H"),
    Flag.withDescription("an HTTP header for --url, \"Name: value\" (repeatable)"),
    Flag.atLeast(0)
  )
}

/** The options every command takes. */
export const shared = {
  ...serverFlags,
  callbackPort: Flag.Int("callback-port").pipe(
    Flag.withDescription(
      `the 127.0.0.1 port that receives the sign-in redirect of a --url server asking for one (default ${DEFAULT_CALLBACK_PORT})`
    ),
    Flag.withDefault(DEFAULT_CALLBACK_PORT)
  ),
  json: Flag.Boolean("json").pipe(Flag.withDescription("machine-readable JSON on stdout"), Flag.withDefault(false)),
  root: Flag.String("root").pipe(
    Flag.withDescription("a root directory offered to the server (repeatable)"),
    Flag.atLeast(0)
  ),
  timeout: Flag.Int("timeout").pipe(
    Flag.withDescription("request timeout in seconds (default 60)"),
    Flag.withDefault(60)
  ),
  connectTimeout: Flag.Int("connect-timeout").pipe(
    Flag.withDescription("seconds the server has to start and answer the handshake (default 30); calls keep --timeout"),
    Flag.withDefault(30)
  )
}
