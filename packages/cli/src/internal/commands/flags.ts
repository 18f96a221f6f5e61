/**
 * The argument and flag that several subcommands take: `key=value...` and `--wide`.
 */
import * as Argument from "effect/cli/Argument"
import * as Flag from "effect/cli/Flag"

/** `key=value...` positional arguments. */
export const keyValues = (description: string) =>
  Argument.String("key=value").pipe(Argument.withDescription(description), Argument.variadic())

/** `--wide` of the commands that print a table. */
export const wide = Flag.Boolean("wide").pipe(
  Flag.withDescription("every cell on one line, cut only past 400 characters (by default the table fits the terminal: columns shrink, cells wrap)"),
  Flag.withDefault(false)
)
