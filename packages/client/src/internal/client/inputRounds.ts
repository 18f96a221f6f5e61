/**
 * The `input_required` answers of modern servers: their input requests served through the caller's hooks,
 * and the next round's retry (`inputResponses` keyed like the requests, `requestState` echoed), bounded.
 */
import * as Effect from "effect/Effect"
import { McpInputLoopExceededError, McpInputRefusedError, McpInvalidResponseError } from "../../McpError.js"
import type { InputRequiredResult, JsonObject } from "../../McpSchema.js"
import type { ClientContext } from "./context.js"
import { decodeInputRequired } from "./decode.js"

/** The final raw result of a call, with the number of `input_required` retries it took. @internal */
export interface Round {
  readonly round: number
  readonly retry: JsonObject | undefined
  readonly result: unknown
}

/** @internal */
export const FIRST: Round = { round: 0, retry: undefined, result: undefined }

/** Serve every input request of one answer (at most `maxInputRequests`), keyed like the requests. @internal */
export const serveInputs = (
  context: ClientContext,
  method: string,
  requests: InputRequiredResult["inputRequests"] & {}
) => {
  const entries = Object.entries(requests)
  if (entries.length > context.maxInputRequests) {
    return Effect.fail(
      new McpInvalidResponseError({
        method,
        reason: `input_required with ${entries.length} input requests, more than maxInputRequests (${context.maxInputRequests})`
      })
    )
  }
  const telemetry = context.telemetry
  return Effect.forEach(
    entries,
    ([key, request]) => {
      const served = context.fulfiller.fulfil(request, "modern", context.report).pipe(
        Effect.map((response) => [key, response] as const),
        Effect.mapError((refusal) =>
          new McpInputRefusedError({ method, inputMethod: refusal.method, key, reason: refusal.message })
        )
      )
      return telemetry.input(request.method, key, served)
    },
    // The hooks themselves are bounded by `maxConcurrentHooks` in the fulfiller.
    { concurrency: "unbounded" }
  ).pipe(Effect.map((served) => Object.fromEntries(served)))
}

/** The retry of an `input_required` answer, or the error that ends the loop (`maxInputRounds`). @internal */
export const nextRound = (context: ClientContext, method: string, state: Round, raw: unknown) =>
  Effect.gen(function*() {
    if (state.round >= context.maxInputRounds) {
      return yield* new McpInputLoopExceededError({ method, rounds: context.maxInputRounds })
    }
    const interim = yield* decodeInputRequired(raw)
    if (interim.inputRequests === undefined && interim.requestState === undefined) {
      return yield* new McpInvalidResponseError({
        method,
        reason: "input_required with neither inputRequests nor requestState",
        response: raw
      })
    }
    const retry: Record<string, unknown> = {}
    if (interim.inputRequests !== undefined) retry["inputResponses"] = yield* serveInputs(context, method, interim.inputRequests)
    if (interim.requestState !== undefined) retry["requestState"] = interim.requestState
    const next: Round = { round: state.round + 1, retry, result: undefined }
    return next
  })
