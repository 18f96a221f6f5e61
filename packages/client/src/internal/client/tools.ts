/**
 * Tools: listing (the catalogue, `toolCatalogue.ts`) and calling: the tool's headers mirrored where modern
 * Streamable HTTP needs them (a header mismatch lists again and retries once), a legacy task tool run as a task,
 * the result checked against the tool's `outputSchema`.
 */
import * as Effect from "effect/Effect"
import type { CallOptions, ListOptions } from "../../McpClient.js"
import { McpDiagnostic } from "../../McpDiagnostic.js"
import { type McpClientError, McpInvalidResponseError } from "../../McpError.js"
import { type CallToolResult, ErrorCode, type JsonObject, type Tool } from "../../McpSchema.js"
import * as outputSchema from "../outputSchema.js"
import * as Tasks from "../tasks.js"
import type { Session } from "./connection.js"
import type { ClientContext } from "./context.js"
import { decodeCallToolResult } from "./decode.js"
import type { Pagination } from "./pagination.js"
import type { Progress } from "./progress.js"
import { FIRST, type Round } from "./inputRounds.js"
import type { Requests } from "./request.js"
import { invalidCall } from "./arguments.js"
import * as ToolCatalogue from "./toolCatalogue.js"

/** @internal */
export interface Tools {
  readonly listTools: (options: ListOptions | undefined) => Effect.Effect<ReadonlyArray<Tool>, McpClientError>
  readonly callTool: (
    name: string,
    args: JsonObject | undefined,
    options: CallOptions | undefined
  ) => Effect.Effect<CallToolResult, McpClientError>
}

/** The result decoded, and checked against the tool's `outputSchema` when the catalogue gave one. */
const resultDecoder = (context: ClientContext, catalogue: ToolCatalogue.Catalogue) => {
  const checkOutput = outputSchema.makeChecker({ maxSchemaBytes: context.options.maxOutputSchemaBytes })
  return (name: string) => (raw: unknown): Effect.Effect<CallToolResult, McpClientError> => {
    const schema = catalogue.outputSchema(name)
    if (schema === undefined) return decodeCallToolResult(raw)
    return Effect.flatMap(decodeCallToolResult(raw), (result) =>
      checkOutput(name, schema, result).pipe(
        // A schema the client cannot use does not fail the call: it is answered unchecked, with a diagnostic.
        Effect.catchTag("OutputSchemaUnusable", (unusable) =>
          Effect.as(
            context.report(
              McpDiagnostic.UnusableOutputSchema({ tool: name, reason: unusable.reason, detail: unusable.detail })
            ),
            undefined
          )),
        Effect.flatMap((problem) =>
          problem === undefined
            ? Effect.succeed(result)
            : Effect.fail(new McpInvalidResponseError({ method: "tools/call", reason: problem, response: result }))
        )
      ))
  }
}

/** @internal */
export const make = (
  context: ClientContext,
  requests: Requests,
  pagination: Pagination,
  session: Effect.Effect<Session, McpClientError>,
  progress: Progress
): Tools => {
  const telemetry = context.telemetry
  const catalogue = ToolCatalogue.make(context, pagination, session)
  const { admit } = catalogue
  const decoded = resultDecoder(context, catalogue)

  /**
   * A legacy tool that must run as a task: created with `params.task`, polled, its result read; progress is
   * reported for the task's whole life (its token is held until the task ends), interruption is `tasks/cancel`.
   * `overallTimeout` bounds the whole task (the task is then cancelled). `inOperation`: the call's `tools/call`
   * operation is already open (its span, its duration, its `overallTimeout`), so the task's first request is
   * one of its requests, not an operation of its own.
   */
  const callAsTask = (current: Session, params: JsonObject, callOptions: CallOptions | undefined, inOperation: boolean) =>
    Effect.acquireUseRelease(
      Effect.sync(() => progress.hold(callOptions?.toolCallId)),
      (ticket) => {
        const createOptions = { ...callOptions, progressToken: ticket.token }
        const task = Tasks.callAsTask(
          {
            request: (method, taskParams) => requests.requestComplete(current, method, taskParams, callOptions),
            cancel: requests.cancelTask(current, callOptions),
            onStatus: context.options.onTaskStatus
          },
          inOperation
            ? requests.requestInOperation(current, "tools/call", { ...params, task: {} }, createOptions)
            : requests.requestComplete(current, "tools/call", { ...params, task: {} }, createOptions),
          context.options.onTaskCreated
        )
        return inOperation ? task : requests.overall(current, "tools/call", callOptions, task)
      },
      (ticket) => Effect.sync(() => progress.release(ticket))
    )

  /** A legacy server that takes tool tasks: a task tool runs as one there. */
  const legacyTasks = (current: Session) =>
    current.info.era === "legacy" && Tasks.serverTakesToolTasks(current.info.capabilities)

  /**
   * The call's rounds, with the tool's headers mirrored where the transport needs them (modern Streamable HTTP).
   * The headers may come from a fresh listing (`refresh`: a retry after -32020): the pins have seen it before
   * the call goes.
   */
  const callRounds = (
    current: Session,
    name: string,
    args: JsonObject | undefined,
    params: JsonObject,
    callOptions: CallOptions | undefined,
    refresh: boolean
  ): Effect.Effect<Round, McpClientError> =>
    ToolCatalogue.mirrorsHeaders(current)
      ? Effect.flatMap(catalogue.mirroredHeaders(name, args, refresh), (headers) =>
        Effect.andThen(admit(name), requests.rounds(current, "tools/call", params, callOptions, headers)))
      : requests.rounds(current, "tools/call", params, callOptions, undefined)

  /**
   * A tool the client does not know yet: inside the `tools/call` operation, once the session is known (the era
   * probe stays under the operation), the catalogue is fetched (`knowTool`), then the call goes as a task or
   * with its mirrored headers.
   */
  const firstCall = (name: string, args: JsonObject | undefined, params: JsonObject, callOptions: CallOptions | undefined) =>
  (current: Session): Effect.Effect<Round, McpClientError> =>
    Effect.andThen(
      Effect.andThen(catalogue.knowTool(name), admit(name)),
      Effect.suspend(() => {
        if (!catalogue.isTask(name)) return callRounds(current, name, args, params, callOptions, false)
        return legacyTasks(current)
          ? Effect.map(callAsTask(current, params, callOptions, true), (result): Round => ({ ...FIRST, result }))
          : requests.rounds(current, "tools/call", params, callOptions, undefined)
      })
    )

  /**
   * Whether the call is a task is decided when it runs, not when it is built: `Effect.andThen(listTools(),
   * callTool(...))` builds the call before the listing that says the tool is a task.
   */
  const callTool = (name: string, args: JsonObject | undefined, callOptions: CallOptions | undefined) =>
    Effect.suspend(() => {
      const invalid = invalidCall("tools/call", "tool name", name, args)
      if (invalid !== undefined) return Effect.fail(invalid)
      const params = args === undefined ? { name } : { name, arguments: args }
      if (!catalogue.knows(name)) return withRetry(name, args, params, callOptions, firstCall(name, args, params, callOptions))
      if (catalogue.isTask(name)) {
        // A known task tool: a legacy task (its own operation, requests and `overallTimeout`), else plain rounds.
        return Effect.flatMap(Effect.andThen(admit(name), session), (current) =>
          legacyTasks(current)
            ? callAsTask(current, params, callOptions, false)
            : Effect.map(requests.requestWithInput("tools/call", params, callOptions), (last) => last.result)).pipe(
            Effect.flatMap(decoded(name))
          )
      }
      const call = withRetry(name, args, params, callOptions, (current) => callRounds(current, name, args, params, callOptions, false))
      return catalogue.guarded ? Effect.andThen(admit(name), call) : call
    })

  /** The call, its result decoded; a header mismatch may mean the schema changed: list again and retry once. */
  const withRetry = (
    name: string,
    args: JsonObject | undefined,
    params: JsonObject,
    callOptions: CallOptions | undefined,
    body: (current: Session) => Effect.Effect<Round, McpClientError>
  ) => {
    // The retry is built only when a mismatch asks for it (not on every call).
    const retry = () =>
      requests.operation("tools/call", params, callOptions, (current) => callRounds(current, name, args, params, callOptions, true))
    return requests.operation("tools/call", params, callOptions, body).pipe(
      Effect.catchIf(
        (error) => error._tag === "McpProtocolError" && error.code === ErrorCode.HeaderMismatch && !catalogue.isTask(name),
        () => telemetry.retry("tools/call", "header mismatch (-32020)", retry())
      ),
      Effect.flatMap((last) => decoded(name)(last.result))
    )
  }

  return { listTools: catalogue.listTools, callTool }
}
