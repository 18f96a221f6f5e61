/**
 * `templates [--wide]`: the server's resource templates as a table.
 */
import * as Command from "effect/cli/Command"
import * as Effect from "effect/Effect"
import { whenCapable } from "../session/capability.js"
import { withClient } from "../session/connection.js"
import { shared } from "../session/options.js"
import { print, printJson, table } from "../terminal/print.js"
import { wide } from "./flags.js"

export const templates = Command.make("templates", { ...shared, wide }, (options) =>
  withClient(options, (client) =>
    Effect.gen(function*() {
      const list = yield* whenCapable(client, "resources", [], client.listResourceTemplates())
      if (options.json) return yield* printJson(list)
      yield* print(table(
        ["URI TEMPLATE", "NAME", "MIME", "DESCRIPTION"],
        list.map((r) => [r.uriTemplate, r.name, r.mimeType ?? "", r.description ?? ""]),
        { wide: options.wide }
      ))
    }))).pipe(Command.withDescription("the server's resource templates"))
