/**
 * `read URI [--out FILE]`: a resource's contents, or its first blob (else text) saved to a file.
 */
import * as Argument from "effect/cli/Argument"
import * as Command from "effect/cli/Command"
import * as Flag from "effect/cli/Flag"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { withClient } from "../session/connection.js"
import { shared } from "../session/options.js"
import { contentsText } from "../terminal/content.js"
import { print, printJson } from "../terminal/print.js"
import { saveFirst } from "./save.js"

export const read = Command.make("read", {
  ...shared,
  out: Flag.String("out").pipe(Flag.withDescription("save the resource (its first blob, else its text) to this file"), Flag.optional),
  uri: Argument.String("uri").pipe(Argument.withDescription("the URI of the resource"))
}, (options) =>
  withClient(options, (client) =>
    Effect.gen(function*() {
      const result = yield* client.readResource(options.uri)
      if (Option.isSome(options.out)) return yield* saveFirst(options.out.value, result.contents)
      if (options.json) return yield* printJson(result)
      for (const contents of result.contents) yield* print(contentsText(contents))
    }))).pipe(Command.withDescription("read a resource"))
