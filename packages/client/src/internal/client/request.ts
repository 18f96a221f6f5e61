/**
 * Sending: one request with its deadline (the connection's sweeper), its progress token and its envelope;
 * `resultType` checks; the whole call's budget; and the bounded `input_required` loop of modern servers.
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type { CallOptions } from "../../McpClient.js"
import { type McpClientError, McpInvalidResponseError, McpTimeoutError } from "../../McpError.js"
import { isRecord, type JsonObject } from "../../McpSchema.js"
import type * as McpTransport from "../../McpTransport.js"
import type { Session } from "./connection.js"
import type { ClientContext } from "./context.js"
import { FIRST, nextRound, type Round, serveInputs } from "./inputRounds.js"
import * as ModernTasks from "../modernTasks.js"
import * as Tasks from "../tasks.js"
import { envelope } from "./envelope.js"
import type { Progress } from "./progress.js"
import type { TaskWatcher } from "./taskWatch.js"

/** @internal */
export type { Round } from "./inputRounds.js"

/** @internal */
export interface Requests {
  /** One request, its result checked for `resultType`. */
  readonly requestComplete: (
    current: Session,
    method: string,
    params: JsonObject | undefined,
    callOptions?: CallOptions
  ) => Effect.Effect<unknown, McpClientError>
  /** One request of an operation already open (no operation span of its own; its request span when tracing). */
  readonly requestInOperation: (
    current: Session,
    method: string,
    params: JsonObject | undefined,
    callOptions?: CallOptions
  ) => Effect.Effect<unknown, McpClientError>
  /** `tasks/cancel` for a task a call gives up: its answer awaited `Tasks.CANCEL_WAIT` at most, its failure ignored. */
  readonly cancelTask: (current: Session, callOptions: CallOptions | undefined) => (taskId: string) => Effect.Effect<void>
  /** A request that may be answered with `input_required` (modern), served until the final result. */
  readonly requestWithInput: (
    method: string,
    params: JsonObject,
    callOptions?: CallOptions
  ) => Effect.Effect<Round, McpClientError>
  /**
   * An operation whose course is decided with the session in hand (`body`): its span, its `overallTimeout`, the
   * session's attributes; `body` runs its rounds (`rounds`) or another way to its final result.
   */
  readonly operation: (
    method: string,
    params: JsonObject,
    callOptions: CallOptions | undefined,
    body: (current: Session) => Effect.Effect<Round, McpClientError>
  ) => Effect.Effect<Round, McpClientError>
  /** Every round of a call with these headers on every request, until one has the final result. */
  readonly rounds: (
    current: Session,
    method: string,
    params: JsonObject,
    callOptions: CallOptions | undefined,
    headers: Readonly<Record<string, string>> | undefined
  ) => Effect.Effect<Round, McpClientError>
  /** The call's timeout. */
  readonly timeoutOf: (callOptions: CallOptions | undefined) => Duration.Duration
  /** Bound a call of several requests (a legacy task) by its `overallTimeout`. */
  readonly overall: <A>(
    current: Session,
    method: string,
    callOptions: CallOptions | undefined,
    effect: Effect.Effect<A, McpClientError>
  ) => Effect.Effect<A, McpClientError>
}

/** What is wrong with `raw`'s `resultType`, if anything: absent or `complete` is final; nothing else is here. */
const incomplete = (method: string, raw: unknown): McpInvalidResponseError | undefined => {
  const resultType = isRecord(raw) ? raw["resultType"] : undefined
  if (resultType === undefined || resultType === "complete") return undefined
  return new McpInvalidResponseError({
    method,
    reason: resultType === "input_required"
      ? `input_required is not allowed for ${method}`
      : `unknown resultType ${JSON.stringify(resultType)}`,
    response: raw
  })
}

/** Check `resultType` (see `incomplete`). @internal */
export const complete = (method: string, raw: unknown): Effect.Effect<unknown, McpInvalidResponseError> => {
  const invalid = incomplete(method, raw)
  return invalid === undefined ? Effect.succeed(raw) : Effect.fail(invalid)
}

const timeoutOf = (context: ClientContext, callOptions: CallOptions | undefined) =>
  callOptions?.timeout === undefined ? context.requestTimeout : Duration.fromInputUnsafe(callOptions.timeout)

/** One request on the session's peer: its envelope, deadline and progress token (and its id on the span). */
const send = (
  context: ClientContext,
  progress: Progress,
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
    const traced = context.telemetry.withRequestId((noteId) =>
      peer.request(method, envelope(context, current.info, params, meta), {
        timeout: timeoutOf(context, callOptions),
        maxTotal: ticket?.ours === true && context.options.resetTimeoutOnProgress === true
          ? context.maxTotalTimeout
          : undefined,
        context: sendContext,
        onId: ticket === undefined ? noteId : (id) => {
          noteId(id)
          progress.bind(ticket, id, peer)
        }
      })
    )
    return ticket === undefined ? traced : Effect.ensuring(traced, Effect.sync(() => progress.end(ticket)))
  })

/** The operation's span and duration when tracing is on (`Telemetry.none` hands the effect back). */
const traced = <A, E>(
  context: ClientContext,
  method: string,
  params: JsonObject | undefined,
  effect: Effect.Effect<A, E>,
  isToolError?: (a: A) => boolean
): Effect.Effect<A, E> =>
  context.telemetry.operation(method, params, effect, isToolError)

/** The budget of the whole call (`overallTimeout`), every request of it included, on the connection's sweeper. */
const overall = <A>(
  current: Session,
  method: string,
  callOptions: CallOptions | undefined,
  effect: Effect.Effect<A, McpClientError>
): Effect.Effect<A, McpClientError> => {
  if (callOptions?.overallTimeout === undefined) return effect
  const millis = Duration.toMillis(Duration.fromInputUnsafe(callOptions.overallTimeout))
  return current.link.peer.deadlines.within(
    effect,
    millis,
    () => new McpTimeoutError({ method, limit: "overall", timeoutMillis: millis })
  )
}

/** The `input_required` rounds after the first, until one has the final result (bounded by `nextRound`). */
const loop = (step: (state: Round) => Effect.Effect<Round, McpClientError>, first: Round) =>
  Effect.gen(function*() {
    let state = first
    while (state.result === undefined) state = yield* step(state)
    return state
  })

/** @internal */
export const make = (
  context: ClientContext,
  progress: Progress,
  session: Effect.Effect<Session, McpClientError>,
  watchTasks: TaskWatcher
): Requests => {
  const telemetry = context.telemetry

  const requestInOperation = (
    current: Session,
    method: string,
    params: JsonObject | undefined,
    callOptions?: CallOptions
  ) => {
    const sent = send(context, progress, current, method, params, callOptions)
    return telemetry.round(method, 0, sent).pipe(
      Effect.flatMap((raw) => complete(method, raw))
    )
  }

  const requestComplete = (current: Session, method: string, params: JsonObject | undefined, callOptions?: CallOptions) =>
    traced(
      context,
      method,
      params,
      telemetry.inSession(
        current.info.protocolVersion,
        current.link.peer.connection.kind,
        requestInOperation(current, method, params, callOptions)
      )
    )

  const cancelTask = (current: Session, callOptions: CallOptions | undefined) => (taskId: string) =>
    requestComplete(current, "tasks/cancel", { taskId }, {
      ...callOptions,
      timeout: Duration.min(timeoutOf(context, callOptions), Tasks.CANCEL_WAIT)
    }).pipe(Effect.ignore)

  /** One round: the request (with the last round's retry), then its result, a task to follow, or the next round. */
  const round = (
    current: Session,
    method: string,
    params: JsonObject,
    callOptions: CallOptions | undefined,
    headers: Readonly<Record<string, string>> | undefined
  ) =>
  (state: Round): Effect.Effect<Round, McpClientError> => {
    const sent = send(
      context,
      progress,
      current,
      method,
      state.retry === undefined ? params : { ...params, ...state.retry },
      callOptions,
      headers
    )
    return telemetry.round(method, state.round, sent).pipe(
      Effect.flatMap((raw) => {
        const resultType = isRecord(raw) ? raw["resultType"] : undefined
        if (resultType === "task" && current.info.era === "modern" && ModernTasks.serverOffersTasks(current.info.capabilities)) {
          return ModernTasks.followModernTask(method, raw, {
            request: (taskMethod, taskParams) => requestComplete(current, taskMethod, taskParams, callOptions),
            cancel: cancelTask(current, callOptions),
            serve: (inputs) => serveInputs(context, method, inputs),
            maxInputRounds: context.maxInputRounds,
            watch: watchTasks(current, timeoutOf(context, callOptions)),
            onStatus: context.options.onTaskStatus
          }, context.options.onTaskCreated).pipe(
            Effect.flatMap((result) => complete(method, result)),
            Effect.map((result): Round => ({ ...state, result }))
          )
        }
        if (resultType !== "input_required" || current.info.era === "legacy") {
          const invalid = incomplete(method, raw)
          return invalid === undefined ? Effect.succeed<Round>({ ...state, result: raw }) : Effect.fail(invalid)
        }
        return nextRound(context, method, state, raw)
      })
    )
  }

  /** Every round of a call; headers come from the original params, so every round carries the same ones. */
  const rounds = (
    current: Session,
    method: string,
    params: JsonObject,
    callOptions: CallOptions | undefined,
    headers: Readonly<Record<string, string>> | undefined
  ) => {
    const step = round(current, method, params, callOptions, headers)
    // Most calls end in the first round: the loop starts only for `input_required`.
    return Effect.flatMap(step(FIRST), (state) => state.result !== undefined ? Effect.succeed(state) : loop(step, state))
  }

  const operation = (
    method: string,
    params: JsonObject,
    callOptions: CallOptions | undefined,
    body: (current: Session) => Effect.Effect<Round, McpClientError>
  ) =>
    traced(
      context,
      method,
      params,
      Effect.flatMap(session, (current) =>
        overall(
          current,
          method,
          callOptions,
          telemetry.inSession(current.info.protocolVersion, current.link.peer.connection.kind, body(current))
        )),
      (last) => isRecord(last.result) && last.result["isError"] === true
    )

  /**
   * Each retry is a new request: a fresh id, the full envelope, `inputResponses` keyed like the requests and
   * `requestState` echoed as it came (absent when the server sent none).
   */
  const requestWithInput = (method: string, params: JsonObject, callOptions?: CallOptions) =>
    operation(method, params, callOptions, (current) => rounds(current, method, params, callOptions, undefined))

  return {
    requestComplete,
    requestInOperation,
    cancelTask,
    requestWithInput,
    operation,
    rounds,
    timeoutOf: (callOptions) => timeoutOf(context, callOptions),
    overall
  }
}
