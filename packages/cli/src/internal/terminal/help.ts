/**
 * The help text: `effect/cli`'s formatter with this command's additions. The exit codes belong in every help
 * text (scripts branch on them) and `effect/cli` has no footer option, so the formatter appends them; it describes
 * what the built-in `--log-level` does here (the server's log messages). A command line that does not parse
 * gets its errors and a pointer to `--help` on stderr, not the whole help on stdout (which `--json` keeps for
 * results).
 */
import * as CliOutput from "effect/cli/CliOutput"
import * as Console from "effect/Console"
import type { FlagDoc, HelpDoc } from "effect/cli/HelpDoc"
import * as TerminalCapabilities from "effect/cli/TerminalCapabilities"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"

/** The end of every help text. */
export const FOOTER = [
  "EXIT CODES",
  "  0 success; 1 the tool returned isError (servers: an entry is broken; card --check: the card differs;",
  "  verify: the server's answers changed); 2 usage or configuration error (or a Node older than 22.19; replay:",
  "  the cassette cannot be read); 3 client or connection error (card: the card cannot be read; verify: it could",
  "  not run); 130 interrupted (Ctrl-C cancels the call)."
].join("\n")

const LOG_LEVEL = "show the server's log messages at this level and above on stderr (default: none)"

const describeLogLevel = (flags: ReadonlyArray<FlagDoc> | undefined) =>
  flags?.map((flag) => (flag.name === "log-level" ? { ...flag, description: Option.some(LOG_LEVEL) } : flag))

/** The formatter: `colors` as `TerminalCapabilities` decides; a subcommand's help points at the root's global flags. */
export const formatter = (colors: boolean): CliOutput.Formatter => {
  const base = CliOutput.defaultFormatter({ colors, globalFlags: "summary" })
  return {
    ...base,
    formatHelpDoc: (doc: HelpDoc) => {
      const globalFlags = describeLogLevel(doc.globalFlags)
      const text = base.formatHelpDoc(globalFlags === undefined ? doc : { ...doc, globalFlags })
      return `${text.trimEnd()}\n\n${FOOTER}\n`
    }
  }
}

/** Help and the version on stdout; parse errors on stderr with a pointer to the command's help. */
const presenter = (colors: { readonly stdout: boolean; readonly stderr: boolean }): CliOutput.Presenter => {
  const out = formatter(colors.stdout)
  return {
    present: (event) => {
      switch (event._tag) {
        case "Help":
          return Console.log(out.formatHelpDoc(event.helpDoc))
        case "Version":
          // The bare version, nothing around it: scripts read it.
          return Console.log(event.version)
        case "InvalidInvocation":
          return Console.error(
            `${formatter(colors.stderr).formatErrors(event.errors).trim()}\n\nRun '${event.commandPath.join(" ")} --help' for usage.`
          )
      }
    }
  }
}

/**
 * The formatter and presenter of the command. They colour only when `TerminalCapabilities` says so: the
 * output is a terminal (or `FORCE_COLOR` is set), `NO_COLOR` is unset or empty, and `TERM` is not `dumb`.
 */
export const layer: Layer.Layer<never> = Layer.unwrap(
  Effect.map(TerminalCapabilities.TerminalCapabilities, ({ canColor }) => {
    // TerminalCapabilities looks at stdout only; errors go to stderr, which may be redirected on its own.
    const stderr = canColor && (process.stderr.isTTY === true || process.stdout.isTTY !== true)
    return Layer.merge(
      CliOutput.layer(formatter(canColor)),
      CliOutput.layerPresenter(presenter({ stdout: canColor, stderr }))
    )
  })
)
