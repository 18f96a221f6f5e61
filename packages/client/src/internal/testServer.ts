/**
 * The in-memory MCP server of the testing kit: answers JSON-RPC in either era from declared tools, resources
 * and prompts. It knows nothing of transports: it is given a message and a way to send.
 *
 * @internal
 */
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Ref from "effect/Ref"
import { type InputRequest, isRecord, type JsonObject, LEGACY_VERSIONS, type LoggingLevel, MetaKey, MODERN_VERSION } from "../McpSchema.js"
import type { Definition, HandlerContext, InputResponse, ToolDefinition } from "../McpTestServer.js"
import { capabilitiesOf, serverInfoOf, TASKS_EXTENSION } from "./testServer/capabilities.js"
import {
  findPrompt,
  findResource,
  findTool,
  listPrompts,
  listResources,
  listTools,
  toolResult
} from "./testServer/catalog.js"
import { LEVELS, metaOf, type Outbound, paramsOf, RpcFailure } from "./testServer/protocol.js"

interface ModernTaskState {
  status: "working" | "input_required" | "completed" | "failed" | "cancelled"
  readonly pollIntervalMs: number
  responses: JsonObject
  inputRequests: JsonObject | undefined
  result: JsonObject | undefined
  error: JsonObject | undefined
  fiber: Fiber.RuntimeFiber<unknown, unknown> | undefined
  readonly message: JsonObject
}

/** Whether the request's client declared the tasks extension. */
const clientTakesTasks = (params: JsonObject): boolean => {
  const meta = params["_meta"]
  const capabilities = isRecord(meta) ? meta[MetaKey.clientCapabilities] : undefined
  const extensions = isRecord(capabilities) ? capabilities["extensions"] : undefined
  return isRecord(extensions) && isRecord(extensions[TASKS_EXTENSION])
}

interface TaskState {
  status: "working" | "completed" | "failed" | "cancelled"
  readonly pollInterval: number
  readonly result: Deferred.Deferred<JsonObject, RpcFailure>
  fiber: Fiber.RuntimeFiber<unknown, unknown> | undefined
}

/** Raised inside a modern handler when it needs input the client has not given yet. @internal */
class NeedsInput {
  readonly _tag = "NeedsInput"
  constructor(readonly key: string, readonly request: InputRequest) {}
}

/** One connection's server: its state lives as long as the connection. @internal */
export const makeConnection = (definition: Definition, out: Outbound) =>
  Effect.gen(function*() {
    const era = definition.era ?? "modern"
    const pending = new Map<string, Deferred.Deferred<unknown>>()
    /** Modern `subscriptions/listen` requests still open, by their id. */
    const listens = new Map<string | number, JsonObject>()
    const legacyLevel = yield* Ref.make<LoggingLevel | undefined>(undefined)
    let nextServerId = 0

    const anyTaskTool = (definition.tools ?? []).some((tool) => tool.taskSupport !== undefined)
    const tasksOffered = era === "legacy" && anyTaskTool
    const modernTasksOffered = era === "modern" && anyTaskTool
    const modernTasks = new Map<string, ModernTaskState>()
    const tasks = new Map<string, TaskState>()
    let nextTask = 0
    const capabilities = capabilitiesOf(definition, { tasks: tasksOffered, modernTasks: modernTasksOffered })
    const serverInfo = serverInfoOf(definition)
    const complete = (result: JsonObject): JsonObject => era === "modern" ? { resultType: "complete", ...result } : result

    const askLegacy = (method: string, params: JsonObject) =>
      Effect.gen(function*() {
        const id = `test-server-${++nextServerId}`
        const answer = yield* Deferred.make<unknown>()
        pending.set(id, answer)
        yield* out.send({ jsonrpc: "2.0", id, method, params })
        return yield* Deferred.await(answer).pipe(Effect.ensuring(Effect.sync(() => pending.delete(id))))
      })

    const contextFor = (message: JsonObject, responses: Record<string, unknown>): HandlerContext => {
      const params = paramsOf(message)
      const meta = metaOf(params)
      const token = meta["progressToken"]
      const modernLevel = meta[MetaKey.logLevel]
      let asked = 0
      const input = (method: string, inputParams: JsonObject): Effect.Effect<InputResponse> => {
        const key = `input_${++asked}`
        if (era === "legacy") return Effect.map(askLegacy(method, inputParams), (answer) => isRecord(answer) ? answer : {})
        const answer = responses[key]
        if (key in responses) return Effect.succeed(isRecord(answer) ? answer : {})
        return Effect.die(new NeedsInput(key, { method, params: inputParams }))
      }
      return {
        era,
        arguments: isRecord(params["arguments"]) ? params["arguments"] : {},
        progress: (progress, options) =>
          token === undefined ? Effect.void : out.send({
            jsonrpc: "2.0",
            method: "notifications/progress",
            params: { progressToken: token, progress, ...options }
          }),
        log: (level, data) =>
          Effect.gen(function*() {
            const threshold = era === "modern"
              ? (typeof modernLevel === "string" ? modernLevel : undefined)
              : (yield* Ref.get(legacyLevel)) ?? "debug"
            if (threshold === undefined) return
            if (LEVELS.indexOf(level) < LEVELS.findIndex((l) => l === threshold)) return
            yield* out.send({ jsonrpc: "2.0", method: "notifications/message", params: { level, data } })
          }),
        notify: (method, notificationParams) =>
          out.send({ jsonrpc: "2.0", method, ...(notificationParams === undefined ? {} : { params: notificationParams }) }),
        elicit: (elicitParams) => input("elicitation/create", { mode: "form", ...elicitParams }),
        sample: (sampleParams) => input("sampling/createMessage", sampleParams),
        listRoots: Effect.suspend(() => input("roots/list", {}))
      }
    }

    /** Run a handler in the era's input model: modern rounds through `input_required`, legacy through requests. */
    const runWithInput = <A>(
      message: JsonObject,
      run: (context: HandlerContext) => Effect.Effect<A, unknown>,
      done: (value: A) => JsonObject
    ): Effect.Effect<JsonObject, RpcFailure> => {
      const params = paramsOf(message)
      const state = typeof params["requestState"] === "string" ? params["requestState"] : undefined
      const carried: Record<string, unknown> = state === undefined ? {} : JSON.parse(state)
      const fresh = isRecord(params["inputResponses"]) ? params["inputResponses"] : {}
      const responses = { ...carried, ...fresh }
      return Effect.suspend(() => run(contextFor(message, responses))).pipe(
        Effect.map(done),
        Effect.catchAllDefect((defect) =>
          defect instanceof NeedsInput
            ? Effect.succeed<JsonObject>({
              resultType: "input_required",
              inputRequests: { [defect.key]: defect.request },
              requestState: JSON.stringify(responses)
            })
            : Effect.fail(new RpcFailure(-32603, `the handler died: ${String(defect)}`))
        ),
        Effect.catchAll((error) =>
          error instanceof RpcFailure ? Effect.fail(error) : Effect.fail(new RpcFailure(-32603, String(error)))
        )
      )
    }

    const taskView = (taskId: string, state: TaskState): JsonObject => ({
      taskId,
      status: state.status,
      createdAt: "2025-11-25T00:00:00Z",
      lastUpdatedAt: "2025-11-25T00:00:00Z",
      ttl: null,
      pollInterval: state.pollInterval
    })

    /** A task-augmented call: answered with the task at once; the handler runs on a fiber of its own. */
    const startTask = (tool: ToolDefinition, message: JsonObject) =>
      Effect.gen(function*() {
        const taskId = `task-${++nextTask}`
        const result = yield* Deferred.make<JsonObject, RpcFailure>()
        const state: TaskState = { status: "working", pollInterval: tool.pollInterval ?? 100, result, fiber: undefined }
        tasks.set(taskId, state)
        const run = runWithInput(message, (context) => tool.handler(context.arguments, context), (value) => ({ ...toolResult(value) })).pipe(
          Effect.exit,
          Effect.flatMap((exit) =>
            Effect.sync(() => {
              state.status = exit._tag === "Success" && exit.value["isError"] !== true ? "completed" : "failed"
            }).pipe(Effect.zipRight(Deferred.complete(result, exit)))
          )
        )
        // Interruptible whatever the transport's fiber was: tasks/cancel must be able to stop it.
        state.fiber = yield* Effect.forkDaemon(Effect.interruptible(run))
        return { task: taskView(taskId, state) }
      })

    /** Modern tasks extension: one handler run per input round, as MRTR, its answers gathered by tasks/update. */
    const modernTaskView = (taskId: string, state: ModernTaskState): JsonObject => ({
      taskId,
      status: state.status,
      createdAt: "2026-07-28T00:00:00Z",
      lastUpdatedAt: "2026-07-28T00:00:00Z",
      ttlMs: null,
      pollIntervalMs: state.pollIntervalMs,
      ...(state.status === "input_required" && state.inputRequests !== undefined ? { inputRequests: state.inputRequests } : {}),
      ...(state.status === "completed" && state.result !== undefined ? { result: state.result } : {}),
      ...(state.status === "failed" && state.error !== undefined ? { error: state.error } : {})
    })

    const runModernTask = (tool: ToolDefinition, message: JsonObject, state: ModernTaskState) => {
      const params = paramsOf(message)
      const round = { ...message, params: { ...params, inputResponses: state.responses } }
      return runWithInput(round, (context) => tool.handler(context.arguments, context), (value) => ({ ...toolResult(value) })).pipe(
        Effect.match({
          onFailure: (failure) => {
            state.status = "failed"
            state.error = { code: failure.code, message: failure.message }
          },
          onSuccess: (result) => {
            if (result["resultType"] === "input_required" && isRecord(result["inputRequests"])) {
              state.status = "input_required"
              state.inputRequests = result["inputRequests"]
            } else {
              state.status = "completed"
              state.result = result
            }
          }
        }),
        Effect.interruptible,
        Effect.forkDaemon,
        Effect.map((fiber) => {
          state.fiber = fiber
        })
      )
    }

    const startModernTask = (tool: ToolDefinition, message: JsonObject) =>
      Effect.gen(function*() {
        const taskId = `task-${++nextTask}`
        const state: ModernTaskState = {
          status: "working",
          pollIntervalMs: tool.pollInterval ?? 100,
          responses: {},
          inputRequests: undefined,
          result: undefined,
          error: undefined,
          fiber: undefined,
          message
        }
        modernTasks.set(taskId, state)
        yield* runModernTask(tool, message, state)
        return { resultType: "task", ...modernTaskView(taskId, { ...state, status: "working" }) }
      })

    const modernTaskRoute = (method: string, params: JsonObject): Effect.Effect<JsonObject, RpcFailure> => {
      const taskId = typeof params["taskId"] === "string" ? params["taskId"] : ""
      const state = modernTasks.get(taskId)
      if (state === undefined) return Effect.fail(new RpcFailure(-32602, `Unknown task: ${taskId}`))
      switch (method) {
        case "tasks/get":
          return Effect.succeed(complete(modernTaskView(taskId, state)))
        case "tasks/update": {
          const tool = findTool(definition, paramsOf(state.message)["name"])
          const answers = isRecord(params["inputResponses"]) ? params["inputResponses"] : {}
          if (tool === undefined || state.status !== "input_required") return Effect.succeed(complete({}))
          state.responses = { ...state.responses, ...answers }
          state.status = "working"
          state.inputRequests = undefined
          return Effect.as(runModernTask(tool, state.message, state), complete({}))
        }
        default: {
          if (state.status === "completed" || state.status === "failed" || state.status === "cancelled") {
            return Effect.fail(new RpcFailure(-32602, `Task ${taskId} is already ${state.status}`))
          }
          state.status = "cancelled"
          const fiber = state.fiber
          return Effect.as(fiber === undefined ? Effect.void : Fiber.interrupt(fiber), complete({}))
        }
      }
    }

    const taskRoute = (method: string, params: JsonObject): Effect.Effect<JsonObject, RpcFailure> => {
      const taskId = typeof params["taskId"] === "string" ? params["taskId"] : ""
      const state = tasks.get(taskId)
      if (state === undefined) return Effect.fail(new RpcFailure(-32602, `Unknown task: ${taskId}`))
      switch (method) {
        case "tasks/get":
          return Effect.succeed(taskView(taskId, state))
        case "tasks/result":
          return Deferred.await(state.result)
        default: {
          // tasks/cancel
          if (state.status !== "working") return Effect.fail(new RpcFailure(-32602, `Task ${taskId} is already ${state.status}`))
          state.status = "cancelled"
          const fiber = state.fiber
          return Effect.zipRight(
            fiber === undefined ? Effect.void : Fiber.interrupt(fiber),
            Effect.zipRight(Deferred.fail(state.result, new RpcFailure(-32000, "Task cancelled")), Effect.succeed(taskView(taskId, state)))
          )
        }
      }
    }

    const route = (method: string, message: JsonObject): Effect.Effect<JsonObject, RpcFailure> => {
      const params = paramsOf(message)
      switch (method) {
        case "server/discover":
          if (era === "legacy") return Effect.fail(new RpcFailure(-32601, "Method not found: server/discover"))
          return Effect.succeed({
            resultType: "complete",
            supportedVersions: [MODERN_VERSION],
            capabilities,
            ...(definition.instructions === undefined ? {} : { instructions: definition.instructions }),
            _meta: { [MetaKey.serverInfo]: serverInfo }
          })
        case "initialize": {
          if (era === "modern") return Effect.fail(new RpcFailure(-32601, "Method not found: initialize"))
          const asked = params["protocolVersion"]
          const version = typeof asked === "string" && LEGACY_VERSIONS.includes(asked) ? asked : LEGACY_VERSIONS[0]
          return Effect.succeed({
            protocolVersion: version ?? "2025-11-25",
            capabilities,
            serverInfo,
            ...(definition.instructions === undefined ? {} : { instructions: definition.instructions })
          })
        }
        case "ping":
          return Effect.succeed({})
        case "resources/subscribe":
        case "resources/unsubscribe":
          return era === "legacy" ? Effect.succeed({}) : Effect.fail(new RpcFailure(-32601, `Method not found: ${method}`))
        case "logging/setLevel":
          return Ref.set(legacyLevel, LEVELS.find((l) => l === params["level"])).pipe(Effect.as({}))
        case "tools/list":
          return Effect.succeed(complete(listTools(definition, era)))
        case "tools/call": {
          const tool = findTool(definition, params["name"])
          if (tool === undefined) return Effect.fail(new RpcFailure(-32602, `Unknown tool: ${String(params["name"])}`))
          if (era === "legacy" && tool.taskSupport !== undefined && isRecord(params["task"])) return startTask(tool, message)
          if (modernTasksOffered && tool.taskSupport !== undefined && clientTakesTasks(params)) {
            return startModernTask(tool, message)
          }
          if (era === "legacy" && tool.taskSupport === "required") {
            return Effect.fail(new RpcFailure(-32600, `Tool ${tool.name} must be called as a task`))
          }
          return runWithInput(message, (context) => tool.handler(context.arguments, context), (value) =>
            complete({ ...toolResult(value) }))
        }
        case "tasks/update":
          return modernTasksOffered ? modernTaskRoute(method, params) : Effect.fail(new RpcFailure(-32601, `Method not found: ${method}`))
        case "tasks/get":
        case "tasks/result":
        case "tasks/cancel":
          if (modernTasksOffered && method !== "tasks/result") return modernTaskRoute(method, params)
          return tasksOffered ? taskRoute(method, params) : Effect.fail(new RpcFailure(-32601, `Method not found: ${method}`))
        case "resources/list":
          return Effect.succeed(complete(listResources(definition)))
        case "resources/templates/list":
          return Effect.succeed(complete({ resourceTemplates: [] }))
        case "resources/read": {
          const resource = findResource(definition, params["uri"])
          if (resource === undefined) {
            return Effect.fail(new RpcFailure(era === "modern" ? -32602 : -32002, `Resource not found: ${String(params["uri"])}`))
          }
          return runWithInput(message, (context) => resource.read(context), (text) =>
            complete({
              contents: [{ uri: resource.uri, text, ...(resource.mimeType === undefined ? {} : { mimeType: resource.mimeType }) }]
            }))
        }
        case "prompts/list":
          return Effect.succeed(complete(listPrompts(definition)))
        case "prompts/get": {
          const prompt = findPrompt(definition, params["name"])
          if (prompt === undefined) return Effect.fail(new RpcFailure(-32602, `Unknown prompt: ${String(params["name"])}`))
          return runWithInput(message, (context) => prompt.get(context.arguments, context), (text) =>
            complete({ messages: [{ role: "user", content: { type: "text", text } }] }))
        }
        default:
          return Effect.fail(new RpcFailure(-32601, `Method not found: ${method}`))
      }
    }

    const handle = (message: JsonObject): Effect.Effect<void> => {
      const method = message["method"]
      const id = message["id"]
      if (typeof method !== "string") {
        // A response to one of our requests (legacy input).
        const answer = typeof id === "string" ? pending.get(id) : undefined
        if (answer === undefined) return Effect.void
        return Deferred.succeed(answer, "result" in message ? message["result"] : { error: message["error"] }).pipe(
          Effect.asVoid
        )
      }
      if (id === undefined) return Effect.void
      if (method === "subscriptions/listen" && era === "modern" && (typeof id === "string" || typeof id === "number")) {
        // Acknowledged at once with everything asked; the request stays open until the client cancels it.
        const asked = paramsOf(message)["notifications"]
        const filter = isRecord(asked) ? asked : {}
        listens.set(id, filter)
        return out.send({
          jsonrpc: "2.0",
          method: "notifications/subscriptions/acknowledged",
          params: { notifications: filter, _meta: { [MetaKey.subscriptionId]: id } }
        })
      }
      return route(method, message).pipe(
        Effect.matchEffect({
          onFailure: (failure) =>
            out.send({ jsonrpc: "2.0", id, error: { code: failure.code, message: failure.message } }),
          onSuccess: (result) => out.send({ jsonrpc: "2.0", id, result })
        })
      )
    }
    /** A server-initiated notification: to every open listen (modern), or as it is (legacy). */
    const broadcast = (method: string, params: JsonObject): Effect.Effect<void> =>
      era === "legacy"
        ? out.send({ jsonrpc: "2.0", method, params })
        : Effect.forEach(
          [...listens.keys()],
          (id) => out.send({ jsonrpc: "2.0", method, params: { ...params, _meta: { [MetaKey.subscriptionId]: id } } }),
          { discard: true }
        )
    const forget = (message: JsonObject): void => {
      if (message["method"] !== "notifications/cancelled") return
      const requestId = paramsOf(message)["requestId"]
      if (typeof requestId === "string" || typeof requestId === "number") listens.delete(requestId)
    }
    return { handle: (message: JsonObject) => Effect.zipRight(Effect.sync(() => forget(message)), handle(message)), broadcast }
  })
