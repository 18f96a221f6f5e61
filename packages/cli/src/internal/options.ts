/**
 * The options the commands share: which server, the output format, roots and the request timeout.
 */
import * as Options from "@effect/cli/Options"
import { DEFAULT_CALLBACK_PORT } from "./auth.js"

/** The options every command takes. */
export const shared = {
  config: Options.text("config").pipe(
    Options.withAlias("c"),
    Options.withDescription("mcpServers configuration file (default ./.mcp.json, then ./mcp.json)"),
    Options.optional
  ),
  server: Options.text("server").pipe(
    Options.withAlias("s"),
    Options.withDescription("the entry of the configuration to use (default: its only entry)"),
    Options.optional
  ),
  stdio: Options.text("stdio").pipe(
    Options.withDescription("start this server command over stdio (or put the command after --)"),
    Options.optional
  ),
  url: Options.text("url").pipe(Options.withDescription("a Streamable HTTP server's URL"), Options.optional),
  header: Options.text("header").pipe(
    Options.withAlias("H"),
    Options.withDescription("an HTTP header for --url, \"Name: value\" (repeatable)"),
    Options.repeated
  ),
  callbackPort: Options.integer("callback-port").pipe(
    Options.withDescription("the 127.0.0.1 port that receives the sign-in redirect of a --url server asking for one"),
    Options.withDefault(DEFAULT_CALLBACK_PORT)
  ),
  json: Options.boolean("json").pipe(Options.withDescription("machine-readable JSON on stdout")),
  root: Options.text("root").pipe(
    Options.withDescription("a root directory offered to the server (repeatable)"),
    Options.repeated
  ),
  timeout: Options.integer("timeout").pipe(
    Options.withDescription("request timeout in seconds"),
    Options.withDefault(60)
  )
}

