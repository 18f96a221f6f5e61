/** Test server, the per-connection state record (era, offers, open requests, listens, tasks), made once and shared. */
import type * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import type * as Fiber from "effect/Fiber"
import * as Ref from "effect/Ref"
import type { JsonObject, LoggingLevel } from "../../McpSchema.js"
import type { Definition } from "../../McpTestServer.js"
import type * as McpTransport from "../../McpTransport.js"
import { capabilitiesOf, type ServerInfo, serverInfoOf } from "./capabilities.js"
import type { Outbound, RpcFailure } from "./protocol.js"

/** A legacy (2025-11-25) task. @internal */
export interface TaskState {
  status: "working" | "completed" | "failed" | "cancelled"
  readonly pollInterval: number
  readonly result: Deferred.Deferred<JsonObject, RpcFailure>
  fiber: Fiber.Fiber<unknown, unknown> | undefined
}

/** A task of the modern tasks extension. @internal */
export interface ModernTaskState {
  readonly taskId: string
  status: "working" | "input_required" | "completed" | "failed" | "cancelled"
  readonly pollIntervalMs: number
  responses: JsonObject
  inputRequests: JsonObject | undefined
  result: JsonObject | undefined
  error: JsonObject | undefined
  fiber: Fiber.Fiber<unknown, unknown> | undefined
  readonly message: JsonObject
}

/** One connection's state: it lives as long as the connection. @internal */
export interface ConnectionState {
  readonly definition: Definition
  readonly era: McpTransport.Era
  readonly out: Outbound
  /** Legacy tasks offered (legacy era, a tool with `taskSupport`). */
  readonly tasksOffered: boolean
  /** The modern tasks extension offered (modern era, a tool with `taskSupport`). */
  readonly modernTasksOffered: boolean
  readonly capabilities: JsonObject
  readonly serverInfo: ServerInfo
  /** Our own requests to the client (legacy input) awaiting their answer, by id. */
  readonly pending: Map<string, Deferred.Deferred<unknown>>
  /** Modern `subscriptions/listen` requests still open, by their id. */
  readonly listens: Map<string | number, JsonObject>
  /** The level set by legacy `logging/setLevel`. */
  readonly legacyLevel: Ref.Ref<LoggingLevel | undefined>
  readonly tasks: Map<string, TaskState>
  readonly modernTasks: Map<string, ModernTaskState>
  nextServerId: number
  nextTask: number
}

/** @internal */
export const make = (definition: Definition, out: Outbound): Effect.Effect<ConnectionState> =>
  Effect.map(Ref.make<LoggingLevel | undefined>(undefined), (legacyLevel) => {
    const era = definition.era ?? "modern"
    const anyTaskTool = (definition.tools ?? []).some((tool) => tool.taskSupport !== undefined)
    const tasksOffered = era === "legacy" && anyTaskTool
    const modernTasksOffered = era === "modern" && anyTaskTool
    return {
      definition,
      era,
      out,
      tasksOffered,
      modernTasksOffered,
      capabilities: capabilitiesOf(definition, { tasks: tasksOffered, modernTasks: modernTasksOffered }),
      serverInfo: serverInfoOf(definition),
      pending: new Map(),
      listens: new Map(),
      legacyLevel,
      tasks: new Map(),
      modernTasks: new Map(),
      nextServerId: 0,
      nextTask: 0
    }
  })

/** A result as the era frames it: modern results say `resultType: "complete"`. @internal */
export const complete = (conn: ConnectionState, result: JsonObject): JsonObject =>
  conn.era === "modern" ? { resultType: "complete", ...result } : result
