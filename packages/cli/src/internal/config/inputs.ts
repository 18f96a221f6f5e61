/**
 * VS Code's `inputs` (`.vscode/mcp.json`): the values its `${input:ID}` references stand for, asked at the
 * terminal (a password prompt for `password: true`) when stdin and stdout are one. Only the inputs the command's
 * entries reference are asked: the entry chosen with `--server` (`ChosenEntry`, else the only one), or every
 * entry for `servers`. Without a terminal nothing is asked, and an entry that references an input is reported as
 * malformed, naming the input. Esc (or Ctrl-D) at a prompt stops the asking: the inputs not yet answered stay
 * without a value, and the command's output starts a line of its own.
 */
import { McpSchema } from "@mcp-effect/client"
import { McpConfig } from "@mcp-effect/client/node"
import * as Prompt from "effect/cli/Prompt"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import { CONFIG_LIMIT, readRegularText } from "../files.js"

/** The entry the command line names (`--server NAME`); unset, the configuration's only entry is the one used. */
export const ChosenEntry = Context.Reference<string | undefined>("mcp-effect/cli/inputs/ChosenEntry", {
  defaultValue: () => undefined
})

/** Which entries the command reads: the chosen one (`ChosenEntry`), or every entry (`servers`). */
export type Scope = "chosen" | "every"

/** The entries of the document the command reads: by name, `mcpServers` else VS Code's `servers`. */
const entriesRead = (document: unknown, scope: Scope, chosen: string | undefined): ReadonlyArray<unknown> => {
  const servers = McpSchema.isRecord(document) ? document["mcpServers"] ?? document["servers"] : undefined
  if (!McpSchema.isRecord(servers)) return []
  if (scope === "every") return Object.values(servers)
  if (chosen !== undefined) return Object.hasOwn(servers, chosen) ? [servers[chosen]] : []
  // Without `--server` the command reads the only entry; with several it stops and asks for `--server`.
  const names = Object.keys(servers)
  return names.length === 1 ? [servers[names[0] ?? ""]] : []
}

/** The declared inputs the entries read reference, in the file's order. */
const neededInputs = (document: unknown, scope: Scope, chosen: string | undefined) => {
  const used = new Set(entriesRead(document, scope, chosen).flatMap(McpConfig.inputReferencesOf))
  return McpConfig.inputsOf(document).filter((input) => used.has(input.id))
}

const askOne = (input: McpConfig.Input) => {
  const message = input.description ?? input.id
  return input.password
    ? Effect.map(Prompt.run(Prompt.Password({ message })), Redacted.value)
    : Prompt.run(Prompt.String({ message }))
}

/**
 * The inputs the command's entries use, answered at the terminal; `undefined` when none is needed or there is
 * no terminal.
 */
export const ask = (
  path: string,
  scope: Scope = "chosen"
): Effect.Effect<Readonly<Record<string, string>> | undefined, never, Prompt.Environment> =>
  Effect.gen(function*() {
    if (process.stdin.isTTY !== true || process.stdout.isTTY !== true) return undefined
    // A regular file of at most 4 MiB (what the configuration itself is read as); anything else declares no input.
    const text = yield* readRegularText(path, CONFIG_LIMIT)
    const document = yield* Effect.try((): unknown => JSON.parse(text))
    const inputs = neededInputs(document, scope, yield* ChosenEntry)
    if (inputs.length === 0) return undefined
    const answers: Record<string, string> = {}
    for (const input of inputs) {
      const answer = yield* askOne(input).pipe(
        // The prompt leaves the cursor on its line when quit: end that line before anything else is printed.
        Effect.catchTag("QuitError", () => Effect.as(Effect.sync(() => process.stdout.write("\n")), undefined))
      )
      if (answer === undefined) break
      answers[input.id] = answer
    }
    return answers
  }).pipe(Effect.catch(() => Effect.succeed(undefined)))
