/**
 * `mcp-effect`: the command line. Everything after a bare `--` is a server command run over stdio.
 *
 * Exit codes: 0 success, 1 the tool returned `isError` (or `servers` found a broken entry, or `card --check` a
 * card that contradicts its server, or `verify` a server that changed since its cassette), 2 usage error
 * (command line or configuration; `bin/mcp-effect.js` also exits 2 on a Node older than 22.19), 3 client or
 * connection error, 130 interrupted (Ctrl-C cancels the call).
 */
import packageJson from "../package.json" with { type: "json" }
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeServices from "@effect/platform-node/NodeServices"
import * as Cause from "effect/Cause"
import * as CliError from "effect/cli/CliError"
import * as Command from "effect/cli/Command"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as References from "effect/References"
import { command } from "./internal/commands/root.js"
import { ExitCode } from "./internal/errors.js"
import * as Help from "./internal/terminal/help.js"
import { errorJson, wantsJson } from "./internal/terminal/print.js"
import { visible } from "./internal/terminal/sanitize.js"
import { CommandTail } from "./internal/session/connection.js"

/** The command's version: its package's (`package.json`, the one source; the bundle carries it inline). */
const cli = Command.runWith(command, { version: packageJson.version })

/** Split the command line (`process.argv`) at the first bare `--`; the arguments without node and the script. */
const splitArgv = (argv: ReadonlyArray<string>) => {
  const cut = argv.indexOf("--", 2)
  return cut === -1 ? { args: argv.slice(2), tail: undefined } : { args: argv.slice(2, cut), tail: argv.slice(cut + 1) }
}

/** An error on stderr: its message may quote the server, so its controls are made visible. */
const report = (message: string) => Effect.sync(() => process.stderr.write(`mcp-effect: ${visible(message)}\n`))

/** Under `--json` a failure is JSON on stdout too (`{ "error": { "tag", "message", ... } }`), same exit code. */
const reportAs = (json: boolean) => (error: unknown, message: string) =>
  json ? Effect.sync(() => void process.stdout.write(`${errorJson(error)}\n`)) : report(message)

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error))

/** The program: its exit code, with every failure reported on stderr. */
export const program = (argv: ReadonlyArray<string>): Effect.Effect<number, never, NodeServices.NodeServices> => {
  const { args, tail } = splitArgv(argv)
  const fail = reportAs(wantsJson(args))
  return cli(args).pipe(
    Effect.as<number>(ExitCode.ok),
    Effect.provideService(CommandTail, tail),
    // Help and the parse errors are already printed by effect/cli. A command without a subcommand (`mcp-effect`,
    // `mcp-effect auth`) shows its help, a ShowHelp without errors: exit 0, since asking what there is is no error.
    Effect.catch((error): Effect.Effect<number> => {
      if (CliError.isCliError(error)) {
        return Effect.succeed(error._tag === "ShowHelp" && error.errors.length === 0 ? ExitCode.ok : ExitCode.usage)
      }
      switch (error._tag) {
        case "ToolReturnedError":
        case "SomeServersFailed":
        case "CardDisagrees":
        case "CassetteChanged":
          return Effect.succeed(ExitCode.toolError)
        case "UsageError":
          return Effect.as(fail(error, error.message), ExitCode.usage)
        default:
          return Effect.as(fail(error, messageOf(error)), ExitCode.client)
      }
    }),
    Effect.catchDefect((defect) => Effect.as(fail(defect, `unexpected: ${messageOf(defect)}`), ExitCode.client)),
    Effect.provide(Help.layer)
  )
}

const main = program(process.argv).pipe(
  Effect.flatMap((code) => Effect.sync(() => void (process.exitCode = code))),
  Effect.provide(NodeServices.layer),
  // The minimum log level is the server log level (see `--log-level`): none unless asked for.
  Effect.provideService(References.MinimumLogLevel, "None")
)

NodeRuntime.runMain(
  main,
  {
    disableErrorReporting: true,
    teardown: (exit, onExit) => {
      if (Exit.isSuccess(exit)) return onExit(typeof process.exitCode === "number" ? process.exitCode : ExitCode.ok)
      return onExit(Cause.hasInterruptsOnly(exit.cause) ? ExitCode.interrupted : ExitCode.client)
    }
  }
)
