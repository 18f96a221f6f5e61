/**
 * Tools: listing (with the `x-mcp-header` catalogue of modern Streamable HTTP: tools that misuse it are left
 * out, the others' headers are mirrored on every call) and calling (a header mismatch lists again and retries
 * once).
 */
import * as Effect from "effect/Effect"
import type { CallOptions, ListOptions } from "../../McpClient.js"
import { McpDiagnostic } from "../../McpDiagnostic.js"
import { type McpClientError, McpInvalidResponseError } from "../../McpError.js"
import { type CallToolResult, ErrorCode, type JsonObject, ListToolsResult, type Tool } from "../../McpSchema.js"
import * as mcpHeaders from "../mcpHeaders.js"
import * as outputSchema from "../outputSchema.js"
import * as Tasks from "../tasks.js"
import type { Session } from "./connection.js"
import type { ClientContext } from "./context.js"
import { decodeCallToolResult } from "./decode.js"
import type { Pagination } from "./pagination.js"
import type { Progress } from "./progress.js"
import type { Requests } from "./request.js"
import { invalidCall } from "./arguments.js"

/** @internal */
export interface Tools {
  readonly listTools: (options: ListOptions | undefined) => Effect.Effect<ReadonlyArray<Tool>, McpClientError>
  readonly callTool: (
    name: string,
    args: JsonObject | undefined,
    options: CallOptions | undefined
  ) => Effect.Effect<CallToolResult, McpClientError>
}

/** Modern Streamable HTTP must mirror `x-mcp-header` arguments into headers and hide tools that misuse it. */
const mirrorsHeaders = (current: Session) =>
  current.info.era === "modern" && current.link.peer.connection.kind === "http"

/** @internal */
export const make = (
  context: ClientContext,
  requests: Requests,
  pagination: Pagination,
  session: Effect.Effect<Session, McpClientError>,
  progress: Progress
): Tools => {
  const catalogue = new Map<string, Tool>()
  const telemetry = context.telemetry
  /** The `outputSchema` of every listed tool that has one; its results are checked against it. */
  const outputSchemas = new Map<string, unknown>()
  const checkOutput = outputSchema.makeChecker({ maxSchemaBytes: context.options.maxOutputSchemaBytes })
  /** Tools the server said must be called as tasks (legacy `execution.taskSupport: "required"`). */
  const taskTools = new Set<string>()

  const remember = (tools: ReadonlyArray<Tool>) => {
    outputSchemas.clear()
    taskTools.clear()
    for (const tool of tools) {
      if (tool.outputSchema !== undefined) outputSchemas.set(tool.name, tool.outputSchema)
      if (Tasks.requiresTask(tool)) taskTools.add(tool.name)
    }
  }

  const keepValid = (tools: ReadonlyArray<Tool>) =>
    Effect.gen(function*() {
      const valid: Array<Tool> = []
      for (const tool of tools) {
        const invalid = mcpHeaders.invalidToolHeaders(tool)
        if (invalid === undefined) {
          valid.push(tool)
          catalogue.set(tool.name, tool)
        } else {
          catalogue.delete(tool.name)
          yield* Effect.logWarning(`MCP tool ${tool.name} left out: ${invalid}`)
          yield* context.report(McpDiagnostic.InvalidTool({ name: tool.name, reason: invalid }))
        }
      }
      return valid as ReadonlyArray<Tool>
    })

  const listTools = (listOptions: ListOptions | undefined) =>
    Effect.flatMap(session, (current) =>
      pagination.listAll("tools/list", ListToolsResult, (page) => page.tools, listOptions).pipe(
        Effect.tap((tools) => Effect.sync(() => remember(tools))),
        Effect.flatMap((tools) => mirrorsHeaders(current) ? keepValid(tools) : Effect.succeed(tools))
      ))

  const toolHeaders = (name: string, args: JsonObject | undefined, refresh: boolean) => (current: Session) =>
    mirrorsHeaders(current) ? mirroredHeaders(name, args, refresh) : undefined

  const mirroredHeaders = (name: string, args: JsonObject | undefined, refresh: boolean) =>
    Effect.gen(function*() {
      if (refresh || !catalogue.has(name)) {
        // Without a catalogue no header can be mirrored: the call goes without, and a server that needs
        // them answers -32020, which retries once after a fresh listing.
        yield* listTools({ refresh }).pipe(
          Effect.catch((error) =>
            context.report(
              McpDiagnostic.RefusedRequest({ method: "tools/list", reason: `no catalogue for x-mcp-header: ${error.message}` })
            )
          )
        )
      }
      const tool = catalogue.get(name)
      return tool === undefined ? undefined : mcpHeaders.paramHeaders(tool, args)
    })

  /** The result decoded, and checked against the tool's `outputSchema` when the catalogue gave one. */
  const decoded = (name: string) => (raw: unknown): Effect.Effect<CallToolResult, McpClientError> => {
    const schema = outputSchemas.get(name)
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

  /**
   * A legacy tool that must run as a task: created with `params.task`, polled, its result read; progress is
   * reported for the task's whole life (its token is held until the task ends), interruption is `tasks/cancel`.
   * `overallTimeout` bounds the whole task (the task is then cancelled).
   */
  const callAsTask = (current: Session, params: JsonObject, callOptions: CallOptions | undefined) =>
    Effect.acquireUseRelease(
      Effect.sync(() => progress.hold(callOptions?.toolCallId)),
      (ticket) =>
        requests.overall(
          current,
          "tools/call",
          callOptions,
          Tasks.callAsTask(
            { request: (method, taskParams) => requests.requestComplete(current, method, taskParams, callOptions) },
            requests.requestComplete(current, "tools/call", { ...params, task: {} }, {
              ...callOptions,
              progressToken: ticket.token
            }),
            context.options.onTaskCreated
          )
        ),
      (ticket) => Effect.sync(() => progress.release(ticket))
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
      if (taskTools.has(name)) {
        return Effect.flatMap(session, (current) =>
          current.info.era === "legacy" && Tasks.serverTakesToolTasks(current.info.capabilities)
            ? callAsTask(current, params, callOptions)
            : Effect.map(requests.requestWithInput("tools/call", params, callOptions), (last) => last.result)).pipe(
            Effect.flatMap(decoded(name))
          )
      }
      const call = (refresh: boolean) =>
        requests.requestWithInput("tools/call", params, callOptions, toolHeaders(name, args, refresh))
      return call(false).pipe(
        // A header mismatch may mean the schema changed: list the tools again and retry once.
        Effect.catchIf(
          (error) => error._tag === "McpProtocolError" && error.code === ErrorCode.HeaderMismatch,
          () => telemetry === undefined ? call(true) : telemetry.retry("tools/call", "header mismatch (-32020)", call(true))
        ),
        Effect.flatMap((last) => decoded(name)(last.result))
      )
    })

  return { listTools, callTool }
}
