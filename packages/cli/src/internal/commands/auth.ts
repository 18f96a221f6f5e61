/**
 * `auth login` (sign in to a server and keep its tokens) and `auth logout` (forget one server's, or all).
 */
import * as Command from "effect/cli/Command"
import * as Flag from "effect/cli/Flag"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as SignIn from "../session/auth.js"
import { UsageError } from "../errors.js"
import { shared } from "../session/options.js"
import { entryOf, withClient } from "../session/connection.js"

const login = Command.make("login", shared, (options) =>
  Effect.gen(function*() {
    const entry = yield* entryOf(options)
    if (entry.transport !== "http") {
      return yield* new UsageError({ message: "auth login is for a Streamable HTTP server: give --url URL (or a url entry)" })
    }
    yield* withClient(options, (client) => client.info)
    const file = SignIn.tokenFile()
    const stored = yield* SignIn.hasStored(entry.url, file)
    yield* Console.log(
      stored ? `signed in to ${entry.url} (tokens kept in ${file})` : `${entry.url} did not ask for a sign-in`
    )
  })).pipe(Command.withDescription("sign in to a --url server now and keep its tokens for the next commands"))

const logout = Command.make(
  "logout",
  { url: Flag.String("url").pipe(Flag.withDescription("only this server (default: every one)"), Flag.optional) },
  (options) =>
    Effect.gen(function*() {
      const url = Option.getOrUndefined(options.url)
      const file = SignIn.tokenFile()
      const removed = yield* SignIn.logout(url, file)
      const what = url === undefined ? "every server" : url
      yield* Console.log(
        removed === 0 ? `no stored sign-in for ${what}` : `signed out of ${what} (${removed} removed from ${file})`
      )
    })
).pipe(Command.withDescription("forget the stored sign-in of a --url server (or of every server)"))

/** `auth login`, `auth logout`. */
export const auth = Command.make("auth").pipe(
  Command.withDescription("sign in to servers that ask for it, or forget their stored tokens"),
  Command.withSubcommands([login, logout])
)
