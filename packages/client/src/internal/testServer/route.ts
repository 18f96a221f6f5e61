/** Test server, method routing: each request method to the part that answers it, in the connection's era. */
import * as Effect from "effect/Effect"
import * as Ref from "effect/Ref"
import { isRecord, type JsonObject } from "../../McpSchema.js"
import { findPrompt, findResource, findTool, listPrompts, listResources, listTools, toolResult } from "./catalog.js"
import { runWithInput } from "./context.js"
import { discover, initialize } from "./handshake.js"
import { clientTakesTasks, modernTaskRoute, startModernTask } from "./modernTasks.js"
import { LEVELS, paramsOf, RpcFailure } from "./protocol.js"
import { skillsRoute } from "./skills.js"
import { complete, type ConnectionState } from "./state.js"
import { startTask, taskRoute } from "./tasks.js"

const notFound = (method: string) => Effect.fail(new RpcFailure(-32601, `Method not found: ${method}`))

/** `tools/call`: a legacy task, a modern task, a refused call of a task-only tool, or a plain run. */
const callTool = (conn: ConnectionState, message: JsonObject): Effect.Effect<JsonObject, RpcFailure> => {
  const params = paramsOf(message)
  const tool = findTool(conn.definition, params["name"])
  if (tool === undefined) return Effect.fail(new RpcFailure(-32602, `Unknown tool: ${String(params["name"])}`))
  if (conn.era === "legacy" && tool.taskSupport !== undefined && isRecord(params["task"])) {
    return startTask(conn, tool, message)
  }
  if (conn.modernTasksOffered && tool.taskSupport !== undefined && clientTakesTasks(params)) {
    return startModernTask(conn, tool, message)
  }
  if (conn.era === "legacy" && tool.taskSupport === "required") {
    return Effect.fail(new RpcFailure(-32600, `Tool ${tool.name} must be called as a task`))
  }
  return runWithInput(conn, message, (context) => tool.handler(context.arguments, context), (value) =>
    complete(conn, { ...toolResult(value) }))
}

/** `resources/read`: the resource's text as its one content. */
const readResource = (conn: ConnectionState, message: JsonObject): Effect.Effect<JsonObject, RpcFailure> => {
  const params = paramsOf(message)
  const resource = findResource(conn.definition, params["uri"])
  if (resource === undefined) {
    return Effect.fail(new RpcFailure(conn.era === "modern" ? -32602 : -32002, `Resource not found: ${String(params["uri"])}`))
  }
  return runWithInput(conn, message, (context) => resource.read(context), (text) =>
    complete(conn, {
      contents: [{ uri: resource.uri, text, ...(resource.mimeType === undefined ? {} : { mimeType: resource.mimeType }) }]
    }))
}

/** `prompts/get`: the prompt's text as one user message. */
const getPrompt = (conn: ConnectionState, message: JsonObject): Effect.Effect<JsonObject, RpcFailure> => {
  const params = paramsOf(message)
  const prompt = findPrompt(conn.definition, params["name"])
  if (prompt === undefined) return Effect.fail(new RpcFailure(-32602, `Unknown prompt: ${String(params["name"])}`))
  return runWithInput(conn, message, (context) => prompt.get(context.arguments, context), (text) =>
    complete(conn, { messages: [{ role: "user", content: { type: "text", text } }] }))
}

/** `tasks/get`, `tasks/result`, `tasks/cancel`, `tasks/update`: to the era's tasks, if it offers them. */
const routeTask = (conn: ConnectionState, method: string, params: JsonObject): Effect.Effect<JsonObject, RpcFailure> => {
  if (method === "tasks/update") return conn.modernTasksOffered ? modernTaskRoute(conn, method, params) : notFound(method)
  if (conn.modernTasksOffered && method !== "tasks/result") return modernTaskRoute(conn, method, params)
  return conn.tasksOffered ? taskRoute(conn, method, params) : notFound(method)
}

/** A request's answer (anything but `subscriptions/listen`). @internal */
export const route = (conn: ConnectionState, method: string, message: JsonObject): Effect.Effect<JsonObject, RpcFailure> => {
  const params = paramsOf(message)
  const skills = skillsRoute(conn, method, message)
  if (skills !== undefined) return skills
  switch (method) {
    case "server/discover":
      return discover(conn)
    case "initialize":
      return initialize(conn, params)
    case "ping":
      return Effect.succeed({})
    case "resources/subscribe":
    case "resources/unsubscribe":
      return conn.era === "legacy" ? Effect.succeed({}) : notFound(method)
    case "logging/setLevel":
      return Ref.set(conn.legacyLevel, LEVELS.find((l) => l === params["level"])).pipe(Effect.as({}))
    case "tools/list":
      return Effect.succeed(complete(conn, listTools(conn.definition, conn.era)))
    case "tools/call":
      return callTool(conn, message)
    case "tasks/update":
    case "tasks/get":
    case "tasks/result":
    case "tasks/cancel":
      return routeTask(conn, method, params)
    case "resources/list":
      return Effect.succeed(complete(conn, listResources(conn.definition)))
    case "resources/templates/list":
      return Effect.succeed(complete(conn, { resourceTemplates: [] }))
    case "resources/read":
      return readResource(conn, message)
    case "prompts/list":
      return Effect.succeed(complete(conn, listPrompts(conn.definition)))
    case "prompts/get":
      return getPrompt(conn, message)
    default:
      return notFound(method)
  }
}
