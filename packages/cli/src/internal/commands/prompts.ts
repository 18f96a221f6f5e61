/**
 * `prompts [--wide]`: the server's prompts as a table, each with its arguments (`?` after an optional one).
 */
import * as Command from "effect/cli/Command"
import * as Effect from "effect/Effect"
import { whenCapable } from "../session/capability.js"
import { withClient } from "../session/connection.js"
import { shared } from "../session/options.js"
import { print, printJson, table } from "../terminal/print.js"
import { wide } from "./flags.js"

export const prompts = Command.make("prompts", { ...shared, wide }, (options) =>
  withClient(options, (client) =>
    Effect.gen(function*() {
      const list = yield* whenCapable(client, "prompts", [], client.listPrompts())
      if (options.json) return yield* printJson(list)
      yield* print(table(
        ["NAME", "ARGUMENTS", "DESCRIPTION"],
        list.map((p) => [
          p.name,
          (p.arguments ?? []).map((a) => `${a.name}${a.required === true ? "" : "?"}`).join(" "),
          p.description ?? ""
        ]),
        { wide: options.wide }
      ))
    }))).pipe(Command.withDescription("the server's prompts"))
