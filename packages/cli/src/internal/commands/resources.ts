/**
 * `resources [--wide]`: the server's resources as a table.
 */
import * as Command from "effect/cli/Command"
import * as Effect from "effect/Effect"
import { whenCapable } from "../session/capability.js"
import { withClient } from "../session/connection.js"
import { shared } from "../session/options.js"
import { print, printJson, table } from "../terminal/print.js"
import { wide } from "./flags.js"

export const resources = Command.make("resources", { ...shared, wide }, (options) =>
  withClient(options, (client) =>
    Effect.gen(function*() {
      const list = yield* whenCapable(client, "resources", [], client.listResources())
      if (options.json) return yield* printJson(list)
      yield* print(table(
        ["URI", "NAME", "MIME", "DESCRIPTION"],
        list.map((r) => [r.uri, r.name, r.mimeType ?? "", r.description ?? ""]),
        { wide: options.wide }
      ))
    }))).pipe(Command.withDescription("the server's resources"))
