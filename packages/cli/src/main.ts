/**
 * `mcp-effect`: the command line. Everything after a bare `--` is a server command run over stdio.
 *
 * Exit codes: 0 success, 1 the tool returned `isError` (or `servers` found a broken entry), 2 usage error
 * (command line or configuration), 3 client or connection error, 130 interrupted (Ctrl-C cancels the call).
 */
import * as CliConfig from "@effect/cli/CliConfig"
import * as Command from "@effect/cli/Command"
import * as HelpDoc from "@effect/cli/HelpDoc"
import * as ValidationError from "@effect/cli/ValidationError"
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import { command } from "./internal/commands.js"
import { ExitCode } from "./internal/errors.js"
import { visible } from "./internal/sanitize.js"
import { CommandTail } from "./internal/session.js"

const VERSION = "0.1.0"

const cli = Command.run(command, {
  name: "mcp-effect",
  version: VERSION,
  footer: HelpDoc.p(
    "Exit codes: 0 success; 1 the tool returned isError (servers: an entry is broken); 2 usage or configuration error; " +
      "3 client or connection error; 130 interrupted (Ctrl-C cancels the call). " +
      "--log-level (all, trace, debug, info, warning, error, fatal, none) shows the server's log messages on stderr."
  )
})

/** Split the command line at the first bare `--`. */
const splitArgv = (argv: ReadonlyArray<string>) => {
  const cut = argv.indexOf("--", 2)
  return cut === -1 ? { args: argv, tail: undefined } : { args: argv.slice(0, cut), tail: argv.slice(cut + 1) }
}

/** An error on stderr: its message may quote the server, so its controls are made visible. */
const report = (message: string) => Effect.sync(() => process.stderr.write(`mcp-effect: ${visible(message)}\n`))

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error))

/** The program: its exit code, with every failure reported on stderr. */
export const program = (argv: ReadonlyArray<string>): Effect.Effect<number, never, NodeContext.NodeContext> => {
  const { args, tail } = splitArgv(argv)
  return cli(args).pipe(
    Effect.as<number>(ExitCode.ok),
    Effect.provideService(CommandTail, tail),
    Effect.catchAll((error): Effect.Effect<number> => {
      if (ValidationError.isValidationError(error)) return Effect.succeed(ExitCode.usage)
      switch (error._tag) {
        case "ToolReturnedError":
        case "SomeServersFailed":
          return Effect.succeed(ExitCode.toolError)
        case "UsageError":
          return Effect.as(report(error.message), ExitCode.usage)
        default:
          return Effect.as(report(messageOf(error)), ExitCode.client)
      }
    }),
    Effect.catchAllDefect((defect) => Effect.as(report(`unexpected: ${messageOf(defect)}`), ExitCode.client))
  )
}

const MainLive = Layer.mergeAll(NodeContext.layer, CliConfig.layer({ showBuiltIns: false }))

const main = program(process.argv).pipe(
  Effect.flatMap((code) => Effect.sync(() => void (process.exitCode = code))),
  Effect.provide(MainLive),
  // The minimum log level is the server log level (see `--log-level`): none unless asked for.
  Logger.withMinimumLogLevel(LogLevel.None)
)

NodeRuntime.runMain(
  main,
  {
    disableErrorReporting: true,
    teardown: (exit, onExit) => {
      if (Exit.isSuccess(exit)) return onExit(typeof process.exitCode === "number" ? process.exitCode : ExitCode.ok)
      return onExit(Cause.isInterruptedOnly(exit.cause) ? ExitCode.interrupted : ExitCode.client)
    }
  }
)
