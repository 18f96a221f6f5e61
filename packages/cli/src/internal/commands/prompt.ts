/**
 * `prompt NAME [name=value...]`: get a prompt with its arguments, its messages as text.
 */
import * as Argument from "effect/cli/Argument"
import * as Command from "effect/cli/Command"
import * as Effect from "effect/Effect"
import { withClient } from "../session/connection.js"
import { shared } from "../session/options.js"
import { blockText } from "../terminal/content.js"
import { print, printJson } from "../terminal/print.js"
import { pairs } from "./arguments.js"
import { keyValues } from "./flags.js"

export const prompt = Command.make("prompt", {
  ...shared,
  name: Argument.String("name").pipe(Argument.withDescription("the name of the prompt")),
  values: keyValues("the prompt's arguments as name=value")
}, (options) =>
  withClient(options, (client) =>
    Effect.gen(function*() {
      const args = Object.fromEntries(yield* pairs(options.values))
      const result = yield* client.getPrompt(options.name, args)
      if (options.json) return yield* printJson(result)
      if (result.description !== undefined) yield* print(`# ${result.description}`)
      for (const message of result.messages) yield* print(`${message.role}: ${blockText(message.content)}`)
    }))).pipe(Command.withDescription("get a prompt with its arguments"))
