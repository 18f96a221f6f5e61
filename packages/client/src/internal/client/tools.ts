/**
 * Tools: listing (with the `x-mcp-header` catalogue of modern Streamable HTTP: tools that misuse it are left
 * out, the others' headers are mirrored on every call) and calling (a header mismatch lists again and retries
 * once).
 */
import * as Effect from "effect/Effect"
import type { CallOptions, ListOptions } from "../../McpClient.js"
import { McpDiagnostic } from "../../McpDiagnostic.js"
import type { McpClientError } from "../../McpError.js"
import { type CallToolResult, ErrorCode, type JsonObject, ListToolsResult, type Tool } from "../../McpSchema.js"
import * as mcpHeaders from "../mcpHeaders.js"
import type { Session } from "./connection.js"
import type { ClientContext } from "./context.js"
import { decodeCallToolResult } from "./decode.js"
import type { Pagination } from "./pagination.js"
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

const noHeaders = Effect.succeed(undefined)

/** @internal */
export const make = (
  context: ClientContext,
  requests: Requests,
  pagination: Pagination,
  session: Effect.Effect<Session, McpClientError>
): Tools => {
  const catalogue = new Map<string, Tool>()

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
        Effect.flatMap((tools) => mirrorsHeaders(current) ? keepValid(tools) : Effect.succeed(tools))
      ))

  const toolHeaders = (name: string, args: JsonObject | undefined, refresh: boolean) => (current: Session) =>
    mirrorsHeaders(current) ? mirroredHeaders(name, args, refresh) : noHeaders

  const mirroredHeaders = (name: string, args: JsonObject | undefined, refresh: boolean) =>
    Effect.gen(function*() {
      if (refresh || !catalogue.has(name)) {
        // Without a catalogue no header can be mirrored: the call goes without, and a server that needs
        // them answers -32020, which retries once after a fresh listing.
        yield* listTools({ refresh }).pipe(
          Effect.catchAll((error) =>
            context.report(
              McpDiagnostic.RefusedRequest({ method: "tools/list", reason: `no catalogue for x-mcp-header: ${error.message}` })
            )
          )
        )
      }
      const tool = catalogue.get(name)
      return tool === undefined ? undefined : mcpHeaders.paramHeaders(tool, args)
    })

  const callTool = (name: string, args: JsonObject | undefined, callOptions: CallOptions | undefined) => {
    const invalid = invalidCall("tools/call", "tool name", name, args)
    if (invalid !== undefined) return Effect.fail(invalid)
    const params = args === undefined ? { name } : { name, arguments: args }
    const call = (refresh: boolean) =>
      requests.requestWithInput("tools/call", params, callOptions, toolHeaders(name, args, refresh))
    return call(false).pipe(
      // A header mismatch may mean the schema changed: list the tools again and retry once.
      Effect.catchIf(
        (error) => error._tag === "McpProtocolError" && error.code === ErrorCode.HeaderMismatch,
        () => call(true)
      ),
      Effect.flatMap((last) => decodeCallToolResult(last.result))
    )
  }

  return { listTools, callTool }
}
