/**
 * The tasks extension over modern Streamable HTTP: `Mcp-Name` carries the `taskId` of `tasks/*` requests
 * (SEP-2663), so intermediaries can route a task's requests to the instance holding it.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type { McpSchema, McpTransport } from "@mcp-effect/client"
import { exchange, receive } from "./fixtures/connection.js"
import { connectHttp, json, result, scripted } from "./fixtures/httpServer.js"

describe("tasks over HTTP", () => {
  it.live("tasks/get, tasks/update and tasks/cancel carry Mcp-Name = taskId", () =>
    Effect.gen(function*() {
      const server = yield* scripted((seen, res) => json(res, 200, result(seen, { resultType: "complete" })))
      const connection = yield* connectHttp(server.url)
      const inbox = yield* receive(connection)
      const context: McpTransport.SendContext = { era: "modern", protocolVersion: "2026-07-28" }
      const send = (message: McpSchema.OutboundMessage) => exchange(connection, inbox, message, context)
      yield* send({ jsonrpc: "2.0", id: 1, method: "tasks/get", params: { taskId: "task-7" } })
      yield* send({ jsonrpc: "2.0", id: 2, method: "tasks/update", params: { taskId: "task-7", inputResponses: {} } })
      yield* send({ jsonrpc: "2.0", id: 3, method: "tasks/cancel", params: { taskId: "task-7" } })
      assert.deepStrictEqual(server.seen.map((s) => [s.headers["mcp-method"], s.headers["mcp-name"]]), [
        ["tasks/get", "task-7"],
        ["tasks/update", "task-7"],
        ["tasks/cancel", "task-7"]
      ])
    }))
})
