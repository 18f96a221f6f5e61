/**
 * Sending: one request with its deadline (the connection's sweeper), its progress token and its envelope;
 * `resultType` checks; the whole call's budget; and the bounded `input_required` loop of modern servers.
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type { CallOptions } from "../../McpClient.js"
import {
  type McpClientError,
  McpInputLoopExceededError,
  McpInputRefusedError,
  McpInvalidResponseError,
  McpTimeoutError
} from "../../McpError.js"
import { type InputRequiredResult, isRecord, type JsonObject, type RequestId } from "../../McpSchema.js"
import type * as McpTransport from "../../McpTransport.js"
import type { Session } from "./connection.js"
import type { ClientContext } from "./context.js"
import { decodeInputRequired } from "./decode.js"
import * as Tasks from "../tasks.js"
import { envelope } from "./envelope.js"
import type { Progress } from "./progress.js"

/** Where a call's request goes and what headers it carries, known once the session is. @internal */
export type HeadersFor = (
  current: Session
) => Effect.Effect<Readonly<Record<string, string>> | undefined, McpClientError>

/** The final raw result of a call, with the number of `input_required` retries it took. @internal */
export interface Round {
  readonly round: number
  readonly retry: JsonObject | undefined
  readonly result: unknown
}

/** @internal */
export interface Requests {
  /** One request, its result checked for `resultType`. */
  readonly requestComplete: (
    current: Session,
    method: string,
    params: JsonObject | undefined,
    callOptions?: CallOptions
  ) => Effect.Effect<unknown, McpClientError>
  /** A request that may be answered with `input_required` (modern), served until the final result. */
  readonly requestWithInput: (
    method: string,
    params: JsonObject,
    callOptions?: CallOptions,
    headersFor?: HeadersFor
  ) => Effect.Effect<Round, McpClientError>
  /** The call's timeout. */
  readonly timeoutOf: (callOptions: CallOptions | undefined) => Duration.Duration
}

/** Check `resultType`: absent or `complete` is final; anything else here is invalid. @internal */
export const complete = (method: string, raw: unknown): Effect.Effect<unknown, McpInvalidResponseError> => {
  const resultType = isRecord(raw) ? raw["resultType"] : undefined
  if (resultType === undefined || resultType === "complete") return Effect.succeed(raw)
  return Effect.fail(
    new McpInvalidResponseError({
      method,
      reason: resultType === "input_required"
        ? `input_required is not allowed for ${method}`
        : `unknown resultType ${JSON.stringify(resultType)}`,
      response: raw
    })
  )
}

const FIRST: Round = { round: 0, retry: undefined, result: undefined }
const noHeaders = Effect.succeed(undefined)

/** @internal */
export const make = (
  context: ClientContext,
  progress: Progress,
  session: Effect.Effect<Session, McpClientError>
): Requests => {
  const telemetry = context.telemetry
  const timeoutOf = (callOptions: CallOptions | undefined) =>
    callOptions?.timeout === undefined ? context.requestTimeout : Duration.decode(callOptions.timeout)

  const send = (
    current: Session,
    method: string,
    params: JsonObject | undefined,
    callOptions?: CallOptions,
    headers?: Readonly<Record<string, string>>
  ) =>
    Effect.suspend(() => {
      const sendContext: McpTransport.SendContext = {
        era: current.info.era,
        protocolVersion: current.info.protocolVersion,
        headers
      }
      const ticket = progress.begin(callOptions?.progressToken, callOptions?.toolCallId)
      const meta = ticket === undefined ? callOptions?.meta : { ...callOptions?.meta, progressToken: ticket.token }
      const peer = current.link.peer
      let requestId: RequestId | undefined
      const request = peer.request(method, envelope(context, current.info, params, meta), {
        timeout: timeoutOf(callOptions),
        maxTotal: ticket?.ours === true && context.options.resetTimeoutOnProgress === true
          ? context.maxTotalTimeout
          : undefined,
        context: sendContext,
        onId: telemetry !== undefined
          ? (id) => {
            requestId = id
            if (ticket !== undefined) progress.bind(ticket, id, peer)
          }
          : ticket === undefined
          ? undefined
          : (id) => progress.bind(ticket, id, peer)
      })
      // Tracing: the id goes on the request's span once it is known (after the answer, on the same span).
      const traced = telemetry === undefined ? request : Effect.ensuring(
        request,
        Effect.suspend(() => requestId === undefined ? Effect.void : telemetry.requestId(requestId))
      )
      return ticket === undefined ? traced : Effect.ensuring(traced, Effect.sync(() => progress.end(ticket)))
    })

  /** The operation's span and duration when tracing is on; the effect itself otherwise. */
  const traced = <A, E>(
    method: string,
    params: JsonObject | undefined,
    effect: Effect.Effect<A, E>,
    isToolError?: (a: A) => boolean
  ): Effect.Effect<A, E> => telemetry === undefined ? effect : telemetry.operation(method, params, effect, isToolError)

  const requestComplete = (current: Session, method: string, params: JsonObject | undefined, callOptions?: CallOptions) =>
    telemetry === undefined
      ? send(current, method, params, callOptions).pipe(Effect.flatMap((raw) => complete(method, raw)))
      : traced(
        method,
        params,
        telemetry.session(current.info.protocolVersion, current.link.peer.connection.kind).pipe(
          Effect.zipRight(telemetry.round(method, 0, send(current, method, params, callOptions))),
          Effect.flatMap((raw) => complete(method, raw))
        )
      )

  /** The budget of the whole call, every round included, on the connection's sweeper. */
  const withOverall = <A>(
    effect: (current: Session) => Effect.Effect<A, McpClientError>,
    method: string,
    callOptions: CallOptions | undefined
  ): Effect.Effect<A, McpClientError> =>
    Effect.flatMap(session, (current) => {
      if (callOptions?.overallTimeout === undefined) return effect(current)
      const millis = Duration.toMillis(Duration.decode(callOptions.overallTimeout))
      return current.link.peer.deadlines.within(
        effect(current),
        millis,
        () => new McpTimeoutError({ method, limit: "overall", timeoutMillis: millis })
      )
    })

  const serveInputs = (method: string, requests: InputRequiredResult["inputRequests"] & {}) => {
    const entries = Object.entries(requests)
    if (entries.length > context.maxInputRequests) {
      return Effect.fail(
        new McpInvalidResponseError({
          method,
          reason: `input_required with ${entries.length} input requests, more than maxInputRequests (${context.maxInputRequests})`
        })
      )
    }
    return Effect.forEach(
      entries,
      ([key, request]) => {
        const served = context.fulfiller.fulfil(request, "modern", context.report).pipe(
          Effect.map((response) => [key, response] as const),
          Effect.mapError((refusal) =>
            new McpInputRefusedError({ method, inputMethod: refusal.method, key, reason: refusal.message })
          )
        )
        return telemetry === undefined ? served : telemetry.input(request.method, key, served)
      },
      // The hooks themselves are bounded by `maxConcurrentHooks` in the fulfiller.
      { concurrency: "unbounded" }
    ).pipe(Effect.map((served) => Object.fromEntries(served)))
  }

  /** The retry of an `input_required` answer: the responses keyed like the requests, `requestState` echoed. */
  const nextRound = (method: string, state: Round, raw: unknown) =>
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
      if (interim.inputRequests !== undefined) retry["inputResponses"] = yield* serveInputs(method, interim.inputRequests)
      if (interim.requestState !== undefined) retry["requestState"] = interim.requestState
      const next: Round = { round: state.round + 1, retry, result: undefined }
      return next
    })

  const round = (
    current: Session,
    method: string,
    params: JsonObject,
    callOptions: CallOptions | undefined,
    headers: Readonly<Record<string, string>> | undefined
  ) =>
  (state: Round): Effect.Effect<Round, McpClientError> => {
    const sent = send(current, method, state.retry === undefined ? params : { ...params, ...state.retry }, callOptions, headers)
    return (telemetry === undefined ? sent : telemetry.round(method, state.round, sent)).pipe(
      Effect.flatMap((raw) => {
        const resultType = isRecord(raw) ? raw["resultType"] : undefined
        if (resultType === "task" && current.info.era === "modern" && Tasks.serverOffersTasks(current.info.capabilities)) {
          return Tasks.followModernTask(method, raw, {
            request: (taskMethod, taskParams) => requestComplete(current, taskMethod, taskParams, callOptions),
            serve: (inputs) => serveInputs(method, inputs)
          }).pipe(
            Effect.flatMap((result) => complete(method, result)),
            Effect.map((result): Round => ({ ...state, result }))
          )
        }
        if (resultType !== "input_required" || current.info.era === "legacy") {
          return Effect.map(complete(method, raw), (result): Round => ({ ...state, result }))
        }
        return nextRound(method, state, raw)
      })
    )
  }

  /**
   * Each retry is a new request: a fresh id, the full envelope, `inputResponses` keyed like the requests and
   * `requestState` echoed as it came (absent when the server sent none).
   */
  const requestWithInput = (method: string, params: JsonObject, callOptions?: CallOptions, headersFor?: HeadersFor) =>
    traced(
      method,
      params,
      withOverall(
        (current) =>
          // Headers come from the original params, so every round carries the same ones.
          Effect.flatMap(headersFor === undefined ? noHeaders : headersFor(current), (headers) => {
            const step = round(current, method, params, callOptions, headers)
            // Most calls end in the first round: the loop starts only for `input_required`.
            const rounds = Effect.flatMap(step(FIRST), (state) =>
              state.result !== undefined
                ? Effect.succeed(state)
                : Effect.iterate(state, { while: (next) => next.result === undefined, body: step }))
            return telemetry === undefined
              ? rounds
              : Effect.zipRight(telemetry.session(current.info.protocolVersion, current.link.peer.connection.kind), rounds)
          }),
        method,
        callOptions
      ),
      (last) => isRecord(last.result) && last.result["isError"] === true
    )

  return { requestComplete, requestWithInput, timeoutOf }
}
