/**
 * `complete PROMPT-OR-URI-TEMPLATE name=partial [other=value...]`: the server's completions of one argument of a
 * prompt or resource template (argument completion, not the elicitation kind).
 */
import type { CompletionReference } from "@mcp-effect/client/McpSchema"
import * as Argument from "effect/cli/Argument"
import * as Command from "effect/cli/Command"
import * as Effect from "effect/Effect"
import { UsageError } from "../errors.js"
import { withClient } from "../session/connection.js"
import { shared } from "../session/options.js"
import { print, printJson } from "../terminal/print.js"
import { pairs } from "./arguments.js"
import { keyValues } from "./flags.js"

const referenceOf = (ref: string): CompletionReference =>
  ref.includes("://") || ref.includes("{")
    ? { type: "ref/resource", uri: ref }
    : { type: "ref/prompt", name: ref }

export const complete = Command.make(
  "complete",
  {
    ...shared,
    ref: Argument.String("prompt-or-uri-template").pipe(
      Argument.withDescription("the prompt's name, or the resource template's URI template")
    ),
    values: keyValues("the argument to complete as name=partial-value, then other arguments as name=value")
  },
  (options) =>
    withClient(options, (client) =>
      Effect.gen(function*() {
        const [argument, ...context] = yield* pairs(options.values)
        if (argument === undefined) {
          return yield* new UsageError({ message: "complete needs the argument to complete, as name=partial-value" })
        }
        const result = yield* client.complete(
          referenceOf(options.ref),
          { name: argument[0], value: argument[1] },
          context.length === 0 ? undefined : { arguments: Object.fromEntries(context) }
        )
        if (options.json) return yield* printJson(result)
        for (const value of result.completion.values) yield* print(value)
        if (result.completion.hasMore === true) yield* print(`(more: ${result.completion.total ?? "?"} in all)`)
      }))
).pipe(Command.withDescription("complete an argument of a prompt or resource template: NAME arg=partial [other=value...]"))
