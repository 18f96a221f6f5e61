/**
 * The tool catalogue: what the last `tools/list` said (names, task tools, output schemas, the `x-mcp-header`
 * declarations of modern Streamable HTTP), the pins that guard it, and the listing that fills it. Calls read it
 * (`tools.ts`); they never list on their own.
 */
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import type { ListOptions } from "../../McpClient.js"
import { McpDiagnostic } from "../../McpDiagnostic.js"
import type { McpClientError } from "../../McpError.js"
import { CacheScope, decodeWire, isRecord, type JsonObject, Meta, OpenStruct, Tool } from "../../McpSchema.js"
import { onFirstUse } from "../firstUse.js"
import * as mcpHeaders from "../mcpHeaders.js"
import type * as PinGuard from "../pinning/guard.js"
import * as Tasks from "../tasks.js"
import type { Session } from "./connection.js"
import type { ClientContext } from "./context.js"
import type { Pagination } from "./pagination.js"

/** @internal */
export interface Catalogue {
  readonly listTools: (options: ListOptions | undefined) => Effect.Effect<ReadonlyArray<Tool>, McpClientError>
  /** Whether the last listing named the tool. */
  readonly knows: (name: string) => boolean
  /** Whether the last listing said the tool must be called as a task (legacy `taskSupport: "required"`). */
  readonly isTask: (name: string) => boolean
  /** The tool's `outputSchema` in the last listing, if it had one. */
  readonly outputSchema: (name: string) => unknown
  /** Whether tool pinning is on (`admit` then has work to do). */
  readonly guarded: boolean
  /** Refuses a quarantined tool (tool pinning); succeeds at once when pinning is off. */
  readonly admit: (name: string) => Effect.Effect<void, McpClientError>
  /** The catalogue fetched for a call of a tool not known yet, once; never fails. */
  readonly knowTool: (name: string) => Effect.Effect<void>
  /** The tool's `x-mcp-header` headers for these arguments (`refresh`: list again first). */
  readonly mirroredHeaders: (
    name: string,
    args: JsonObject | undefined,
    refresh: boolean
  ) => Effect.Effect<Record<string, string> | undefined>
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
export const mirrorsHeaders = (current: Session): boolean =>
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

/** The tools that decode; each one that does not is logged and reported as `InvalidTool`. */
const toolsOf = (context: ClientContext, raws: ReadonlyArray<unknown>) =>
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

/**
 * The tools whose `x-mcp-header` declarations are valid, kept in `headerTools` for mirroring; each other one is
 * dropped from it, logged and reported as `InvalidTool`.
 */
const keepValid = (context: ClientContext, headerTools: Map<string, Tool>, tools: ReadonlyArray<Tool>) =>
  Effect.gen(function*() {
    const valid: Array<Tool> = []
    for (const tool of tools) {
      const invalid = mcpHeaders.invalidToolHeaders(tool)
      if (invalid === undefined) {
        valid.push(tool)
        headerTools.set(tool.name, tool)
      } else {
        headerTools.delete(tool.name)
        yield* Effect.logWarning(`MCP tool ${tool.name} left out: ${invalid}`)
        yield* context.report(McpDiagnostic.InvalidTool({ name: tool.name, reason: invalid }))
      }
    }
    return valid as ReadonlyArray<Tool>
  })

/** @internal */
export const make = (
  context: ClientContext,
  pagination: Pagination,
  session: Effect.Effect<Session, McpClientError>
): Catalogue => {
  /** The tools whose `x-mcp-header` arguments are mirrored (modern Streamable HTTP only). */
  const headerTools = new Map<string, Tool>()
  /** The `outputSchema` of every listed tool that has one; its results are checked against it. */
  const outputSchemas = new Map<string, unknown>()
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

  /** Cached or fresh, a listing is checked against the pins: quarantined tools are left out. */
  const pinned = (tools: ReadonlyArray<Tool>, changes: number) =>
    pins === undefined ? Effect.succeed(tools) : pins.check(pinScope(context), tools).pipe(
      Effect.tap(() => Effect.sync(() => void (checkedChanges = Math.max(checkedChanges, changes))))
    )

  const listTools = (listOptions: ListOptions | undefined): Effect.Effect<ReadonlyArray<Tool>, McpClientError> =>
    Effect.flatMap(session, (current) => {
      const changes = context.listChanges.tools
      return pagination.listAll("tools/list", ToolsPage, (page) => page.tools, listOptions).pipe(
        Effect.flatMap((raws) => toolsOf(context, raws)),
        Effect.tap((tools) => Effect.sync(() => remember(tools))),
        Effect.flatMap((tools) => pinned(tools, changes)),
        Effect.flatMap((tools) => mirrorsHeaders(current) ? keepValid(context, headerTools, tools) : Effect.succeed(tools))
      )
    })

  const headersOf = (name: string, args: JsonObject | undefined) => {
    const tool = headerTools.get(name)
    return tool === undefined ? undefined : mcpHeaders.paramHeaders(tool, args)
  }

  const mirroredHeaders = (
    name: string,
    args: JsonObject | undefined,
    refresh: boolean
  ): Effect.Effect<Record<string, string> | undefined> => {
    // Not again when the catalogue was just fetched for this call (`knowTool`).
    if (!refresh && (headerTools.has(name) || fetched !== undefined)) return Effect.sync(() => headersOf(name, args))
    // Without a catalogue no header can be mirrored: the call goes without, and a server that needs them
    // answers -32020, which retries once after a fresh listing.
    return listTools({ refresh }).pipe(
      Effect.catch((error) =>
        context.report(
          McpDiagnostic.RefusedRequest({ method: "tools/list", reason: `no catalogue for x-mcp-header: ${error.message}` })
        )
      ),
      Effect.andThen(Effect.sync(() => headersOf(name, args)))
    )
  }

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

  return {
    listTools,
    knows: (name) => known.has(name),
    isTask: (name) => taskTools.has(name),
    outputSchema: (name) => outputSchemas.get(name),
    guarded: pins !== undefined,
    admit,
    knowTool,
    mirroredHeaders
  }
}
