/**
 * VS Code's `inputs` (`.vscode/mcp.json`): the values its `${input:ID}` references stand for, asked at the
 * terminal (a password prompt for `password: true`) when stdin and stdout are one. Without a terminal nothing is
 * asked, and an entry that references an input is reported as malformed, naming the input.
 */
import { McpConfig } from "@mcp-effect/client"
import * as Prompt from "effect/cli/Prompt"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import { CONFIG_LIMIT, readRegularText } from "./files.js"

/** The inputs the file declares, answered at the terminal; `undefined` when none is declared or no terminal. */
export const ask = (path: string): Effect.Effect<Readonly<Record<string, string>> | undefined, never, Prompt.Environment> =>
  Effect.gen(function*() {
    if (process.stdin.isTTY !== true || process.stdout.isTTY !== true) return undefined
    // A regular file of at most 4 MiB (what the configuration itself is read as); anything else declares no input.
    const text = yield* readRegularText(path, CONFIG_LIMIT)
    const document = yield* Effect.try((): unknown => JSON.parse(text))
    const inputs = McpConfig.inputsOf(document)
    if (inputs.length === 0) return undefined
    const answers: Record<string, string> = {}
    for (const input of inputs) {
      const message = input.description ?? input.id
      const answer = input.password
        ? yield* Effect.map(Prompt.run(Prompt.Password({ message })), Redacted.value)
        : yield* Prompt.run(Prompt.String({ message }))
      answers[input.id] = answer
    }
    return answers
  }).pipe(Effect.catch(() => Effect.succeed(undefined)))
