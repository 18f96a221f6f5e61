/**
 * The legacy error `-32042` (URL elicitation required): the server refuses a request until the user has
 * done what one or more links ask (`error.data.elicitations`, each a URL elicitation with its id). Each link
 * is shown and, at a terminal, opened if the user agrees (see `url.ts`); then the command waits for
 * the server's completion of every one of them, or, at a terminal, for Enter, and sends the request again.
 * Not at a terminal nothing is opened: the command waits up to the request timeout for the completions
 * (the user may open the links by hand). At most `MAX_ROUNDS` such rounds; a declined or cancelled link,
 * Ctrl-C, or a wait that ends without the completions gives the server's error.
 */
import { McpClient, McpProtocolError, McpSchema } from "@mcp-effect/client"
import type * as Prompt from "effect/cli/Prompt"
import type * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import * as Terminal from "effect/Terminal"
import * as urlElicit from "./url.js"

/** How many times a request is sent again after `-32042`. */
export const MAX_ROUNDS = 3

/** How many links of one `-32042` are offered (a server asking for more gets the error back). */
const MAX_LINKS = 8

interface Required extends urlElicit.UrlElicitation {
  readonly elicitationId: string
}

const isUrlRequired = (error: unknown): error is McpProtocolError =>
  error instanceof McpProtocolError && error.code === McpSchema.ErrorCode.UrlElicitationRequired

/** The URL elicitations of the error's data; malformed entries are left out. */
export const requiredOf = (data: unknown): ReadonlyArray<Required> => {
  const list = McpSchema.isRecord(data) && Array.isArray(data["elicitations"]) ? data["elicitations"] : []
  return list.filter(McpSchema.isRecord).flatMap((entry): ReadonlyArray<Required> => {
    const { elicitationId, message, mode, url } = entry
    if (mode !== "url" || typeof url !== "string" || typeof elicitationId !== "string") return []
    return [{ url, elicitationId, message: typeof message === "string" ? message : "(no message)" }]
  })
}

/** Enter pressed at the terminal; Ctrl-C, Ctrl-D or Esc fail with `QuitError`. */
const enterPressed = (terminal: Context.Context<Prompt.Environment>): Effect.Effect<void, Terminal.QuitError> =>
  Effect.scoped(Effect.gen(function*() {
    const input = yield* (yield* Terminal.Terminal).readInput
    for (;;) {
      const key = yield* Queue.take(input).pipe(Effect.mapError(() => new Terminal.QuitError({})))
      if (key.key.name === "return" || key.key.name === "enter") return
    }
  })).pipe(Effect.provide(terminal))

/** Wait at the terminal for every completion, or for Enter; false when the user stops. */
const waitAtTerminal = (
  interaction: urlElicit.Interaction,
  terminal: Context.Context<Prompt.Environment>,
  done: Effect.Effect<void>
): Effect.Effect<boolean> => {
  interaction.status.note(`${urlElicit.WAITING} (press Enter to retry now, Ctrl-C to stop)`)
  return Effect.raceFirst(done, enterPressed(terminal)).pipe(
    Effect.as(true),
    Effect.catchTag("QuitError", () => Effect.succeed(false)),
    Effect.ensuring(Effect.sync(interaction.status.clear))
  )
}

/** Wait (no terminal) up to the request timeout for every completion; false when they did not all come. */
const waitUnattended = (interaction: urlElicit.Interaction, done: Effect.Effect<void>): Effect.Effect<boolean> => {
  interaction.status.note(`mcp-effect: waiting up to ${interaction.timeout} s for the server to say the browser step is done`)
  return done.pipe(
    Effect.timeoutOption(Duration.seconds(interaction.timeout)),
    Effect.map(Option.isSome),
    Effect.tap((came) =>
      Effect.sync(() => {
        if (!came) interaction.status.line("mcp-effect: no word from the server; open the link above, then run the command again")
      })
    )
  )
}

/** Show (and at a terminal offer to open) each link; whether they were all accepted (or left to the user). */
const offer = (interaction: urlElicit.Interaction, required: ReadonlyArray<Required>): Effect.Effect<boolean> =>
  Effect.gen(function*() {
    for (const elicitation of required) {
      const url = urlElicit.show(interaction.status, elicitation)
      if (url === undefined) return false
      if (interaction.terminal === undefined) {
        interaction.status.line("mcp-effect: not opened (not at a terminal): open it yourself")
      } else if ((yield* urlElicit.consent(interaction.terminal, interaction.status, url)) !== "accept") {
        return false
      }
    }
    return true
  })

/** One round: the links of the error done (true), or not (false: the error stands). */
const round = (interaction: urlElicit.Interaction, error: McpProtocolError): Effect.Effect<boolean> =>
  Effect.gen(function*() {
    const required = requiredOf(error.data)
    if (required.length === 0 || required.length > MAX_LINKS) return false
    // Waited for before anything is shown: a completion that comes during the questions counts.
    const signals = yield* Effect.forEach(required, (elicitation) => interaction.completions.expect(elicitation.elicitationId))
    if (!(yield* offer(interaction, required))) return false
    const done = Effect.forEach(signals, Deferred.await, { discard: true })
    const { terminal } = interaction
    return yield* (terminal === undefined ? waitUnattended(interaction, done) : waitAtTerminal(interaction, terminal, done))
  })

/** The request, sent again after each `-32042` whose links were done, up to `MAX_ROUNDS` times. */
export const retrying = (interaction: urlElicit.Interaction) =>
<A, E, R>(request: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> => {
  const attempt = (rounds: number): Effect.Effect<A, E, R> =>
    request.pipe(Effect.catch((error) => {
      if (!isUrlRequired(error) || rounds >= MAX_ROUNDS) return Effect.fail(error)
      return Effect.flatMap(round(interaction, error), (done) => {
        if (!done) return Effect.fail(error)
        interaction.status.line("mcp-effect: sending the request again")
        return attempt(rounds + 1)
      })
    }))
  return attempt(0)
}

/**
 * The client with every call of the command (each operation of kind `call` in `McpClient.operations`: the
 * requests) sent through `retrying`; the effects, the subscription and the streams are as they are.
 */
export const retryingClient = (client: McpClient.Service, interaction: urlElicit.Interaction): McpClient.Service => {
  const retry = retrying(interaction)
  return McpClient.wrapOperations(client, (effect, _name, kind) => kind === "call" ? retry(effect) : effect)
}
