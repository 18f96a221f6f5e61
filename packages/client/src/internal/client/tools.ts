/**
 * Tools: listing (with the `x-mcp-header` catalogue of modern Streamable HTTP: tools that misuse it are left
 * out, the others' headers are mirrored on every call) and calling (a header mismatch lists again and retries
 * once).
 */
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import type { CallOptions, ListOptions } from "../../McpClient.js"
import { McpDiagnostic } from "../../McpDiagnostic.js"
import { type McpClientError, McpInvalidResponseError } from "../../McpError.js"
import {
  CacheScope,
  type CallToolResult,
  decodeWire,
  ErrorCode,
  isRecord,
  type JsonObject,
  Meta,
  OpenStruct,
  Tool
} from "../../McpSchema.js"
import * as mcpHeaders from "../mcpHeaders.js"
import * as outputSchema from "../outputSchema.js"
import type * as PinGuard from "../pinning/guard.js"
import * as Tasks from "../tasks.js"
import type { Session } from "./connection.js"
import type { ClientContext } from "./context.js"
import { decodeCallToolResult } from "./decode.js"
import type { Pagination } from "./pagination.js"
import type { Progress } from "./progress.js"
import { FIRST, type Round } from "./inputRounds.js"
import type { Requests } from "./request.js"
import { invalidCall } from "./arguments.js"
import { onFirstUse } from "../firstUse.js"

/** @internal */
export interface Tools {
  readonly listTools: (options: ListOptions | undefined) => Effect.Effect<ReadonlyArray<Tool>, McpClientError>
  readonly callTool: (
    name: string,
    args: JsonObject | undefined,
    options: CallOptions | undefined
  ) => Effect.Effect<CallToolResult, McpClientError>
}

/**
 * A page of `tools/list` whose tools are decoded one by one (`toolsOf`): one malformed tool is left out and
 * reported, it does not fail the listing of the others.
 */
const ToolsPage = OpenStruct({
  nextCursor: Schema.optional(Schema.String),
  ttlMs: Schema.optional(Schema.Number),
  cacheScope: Schema.optional(CacheScope),
  _meta: Meta,
  tools: Schema.Array(Schema.Unknown)
})

const decodeTool = decodeWire(Tool)

/** A server's text in a diagnostic is cut to this many characters (a name or a reason may be megabytes). */
const MAX_TEXT = 300

/** Cut never between the two halves of a surrogate pair. */
const shortened = (text: string): string =>
  text.length <= MAX_TEXT ? text : `${text.slice(0, MAX_TEXT - 1).replace(/[\uD800-\uDBFF]$/, "")}…`

/** What is said of a malformed tool: its name when it has one, else its place in the listing. */
const nameOf = (raw: unknown, index: number): string =>
  isRecord(raw) && typeof raw["name"] === "string" ? shortened(raw["name"]) : `#${index} of tools/list`

/** Modern Streamable HTTP must mirror `x-mcp-header` arguments into headers and hide tools that misuse it. */
const mirrorsHeaders = (current: Session) =>
  current.info.era === "modern" && current.link.peer.connection.kind === "http"

/**
 * Whose pins the tools are: the caller's scope, else what the transport says it connects to (never the server's
 * `serverInfo.name`, which the server picks); none leaves every tool quarantined (see `McpPinning`).
 */
const pinScope = (context: ClientContext): string | undefined =>
  context.options.pinning?.scope ?? context.transport.identity

// Tool pinning is opt-in: its guard (hashing, diffs, stores) is loaded by the clients that ask for it.
let guardModule: Promise<typeof import("../pinning/guard.js")> | undefined
const loadGuard = () => (guardModule ??= import("../pinning/guard.js"))

/** The pin guard, made when first used. */
const lazyGuard = (
  options: NonNullable<ClientContext["options"]["pinning"]>,
  report: ClientContext["report"]
): PinGuard.Guard => {
  const guard = onFirstUse(Effect.map(Effect.promise(loadGuard), (module) => module.make(options, report)))
  return {
    check: (scope, tools) => Effect.flatMap(guard, (g) => g.check(scope, tools)),
    admit: (name) => Effect.flatMap(guard, (g) => g.admit(name))
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
  const catalogue = new Map<string, Tool>()
  const telemetry = context.telemetry
  /** The `outputSchema` of every listed tool that has one; its results are checked against it. */
  const outputSchemas = new Map<string, unknown>()
  const checkOutput = outputSchema.makeChecker({ maxSchemaBytes: context.options.maxOutputSchemaBytes })
  /** Tools the server said must be called as tasks (legacy `execution.taskSupport: "required"`). */
  const taskTools = new Set<string>()
  /** The names of the last listing: a tool not among them is not known yet. */
  const known = new Set<string>()
  /** The catalogue fetched for a call (once per client), which the calls of unknown tools wait for. */
  let fetched: Deferred.Deferred<void> | undefined
  /** Tool pinning, when asked for: every listing is checked, quarantined tools are refused. */
  const pins = context.options.pinning === undefined ? undefined : lazyGuard(context.options.pinning, context.report)
  /** The `tools/list_changed` count as of the start of the last listing the pins checked. */
  let checkedChanges = 0
  /**
   * A quarantined tool is refused before anything goes on the wire; after a `tools/list_changed` since the last
   * checked listing, the tools are listed (and checked) again first: the notice does not say which one changed.
   */
  const admit = (name: string): Effect.Effect<void, McpClientError> =>
    pins === undefined
      ? Effect.void
      : Effect.suspend(() =>
        context.listChanges.tools === checkedChanges
          ? pins.admit(name)
          : Effect.andThen(listTools({ refresh: true }), pins.admit(name))
      )

  const remember = (tools: ReadonlyArray<Tool>) => {
    outputSchemas.clear()
    taskTools.clear()
    known.clear()
    for (const tool of tools) {
      known.add(tool.name)
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

  /** The tools that decode; each one that does not is logged and reported as `InvalidTool`. */
  const toolsOf = (raws: ReadonlyArray<unknown>) =>
    Effect.gen(function*() {
      const tools: Array<Tool> = []
      for (const [index, raw] of raws.entries()) {
        const decoded = yield* Effect.result(decodeTool(raw))
        if (Result.isSuccess(decoded)) {
          tools.push(decoded.success)
          continue
        }
        const name = nameOf(raw, index)
        const reason = shortened(`not a valid tool: ${decoded.failure.message.replace(/\s+/g, " ")}`)
        yield* Effect.logWarning(`MCP tool ${name} left out: ${reason}`)
        yield* context.report(McpDiagnostic.InvalidTool({ name, reason }))
      }
      return tools as ReadonlyArray<Tool>
    })

  /** Cached or fresh, a listing is checked against the pins: quarantined tools are left out. */
  const pinned = (tools: ReadonlyArray<Tool>, changes: number) =>
    pins === undefined ? Effect.succeed(tools) : pins.check(pinScope(context), tools).pipe(
      Effect.tap(() => Effect.sync(() => void (checkedChanges = Math.max(checkedChanges, changes))))
    )

  const listTools = (listOptions: ListOptions | undefined): Effect.Effect<ReadonlyArray<Tool>, McpClientError> =>
    Effect.flatMap(session, (current) => {
      const changes = context.listChanges.tools
      return pagination.listAll("tools/list", ToolsPage, (page) => page.tools, listOptions).pipe(
        Effect.flatMap(toolsOf),
        Effect.tap((tools) => Effect.sync(() => remember(tools))),
        Effect.flatMap((tools) => pinned(tools, changes)),
        Effect.flatMap((tools) => mirrorsHeaders(current) ? keepValid(tools) : Effect.succeed(tools))
      )
    })

  const mirroredHeaders = (name: string, args: JsonObject | undefined, refresh: boolean) =>
    Effect.gen(function*() {
      // Not again when the catalogue was just fetched for this call (`knowTool`).
      if (refresh || (!catalogue.has(name) && fetched === undefined)) {
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

  /**
   * Before calling a tool the client does not know: the catalogue, fetched once (a task tool, an
   * `outputSchema`), shared by the calls that come meanwhile. A listing that fails does not fail the call: it
   * goes as it is (logged at debug level). The listing is an ordinary one (a modern answer's cache hints apply; a
   * legacy answer is never cached).
   */
  const knowTool = (name: string): Effect.Effect<void> =>
    Effect.suspend(() => {
      if (known.has(name)) return Effect.void
      if (fetched !== undefined) return Deferred.await(fetched)
      const done = Deferred.makeUnsafe<void>()
      fetched = done
      return listTools(undefined).pipe(
        Effect.asVoid,
        Effect.catch((error) => Effect.logDebug(`mcp: no catalogue before tools/call ${name}: ${error.message}`)),
        Effect.ensuring(Deferred.succeed(done, undefined))
      )
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
    mirrorsHeaders(current)
      ? Effect.flatMap(mirroredHeaders(name, args, refresh), (headers) =>
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
      Effect.andThen(knowTool(name), admit(name)),
      Effect.suspend(() => {
        if (!taskTools.has(name)) return callRounds(current, name, args, params, callOptions, false)
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
      if (!known.has(name)) return withRetry(name, args, params, callOptions, firstCall(name, args, params, callOptions))
      if (taskTools.has(name)) {
        // A known task tool: a legacy task (its own operation, requests and `overallTimeout`), else plain rounds.
        return Effect.flatMap(Effect.andThen(admit(name), session), (current) =>
          legacyTasks(current)
            ? callAsTask(current, params, callOptions, false)
            : Effect.map(requests.requestWithInput("tools/call", params, callOptions), (last) => last.result)).pipe(
            Effect.flatMap(decoded(name))
          )
      }
      return Effect.andThen(
        admit(name),
        withRetry(name, args, params, callOptions, (current) => callRounds(current, name, args, params, callOptions, false))
      )
    })

  /** The call, its result decoded; a header mismatch may mean the schema changed: list again and retry once. */
  const withRetry = (
    name: string,
    args: JsonObject | undefined,
    params: JsonObject,
    callOptions: CallOptions | undefined,
    body: (current: Session) => Effect.Effect<Round, McpClientError>
  ) => {
    const retry = requests.operation(
      "tools/call",
      params,
      callOptions,
      (current) => callRounds(current, name, args, params, callOptions, true)
    )
    return requests.operation("tools/call", params, callOptions, body).pipe(
      Effect.catchIf(
        (error) => error._tag === "McpProtocolError" && error.code === ErrorCode.HeaderMismatch && !taskTools.has(name),
        () => telemetry.retry("tools/call", "header mismatch (-32020)", retry)
      ),
      Effect.flatMap((last) => decoded(name)(last.result))
    )
  }

  return { listTools, callTool }
}
