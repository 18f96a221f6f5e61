/** packages/client/README.md's cassette example, verbatim but for the cassette's path: a recorded session replayed under TestClock. */
import { assert, it } from "@effect/vitest"
import * as NodeServices from "@effect/platform-node/NodeServices"
import { Effect, Fiber } from "effect"
import { TestClock } from "effect/testing"
import { McpCassette, McpClient, McpTestServer } from "@mcp-effect/client"
import * as path from "node:path"

const file = path.join(import.meta.dirname, "../fixtures/cassettes/everything.ndjson")

it.effect("get-sum, answered from the recording", () =>
  Effect.gen(function*() {
    const server = McpTestServer.fromCassette(yield* McpCassette.read(file))
    const fiber = yield* Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      yield* client.listTools()
      return yield* client.callTool("get-sum", { a: 2, b: 3 })
    }).pipe(Effect.provide(server.layer()), Effect.delay("1 millis"), Effect.forkChild)
    yield* TestClock.adjust("5 seconds") // each answer comes at its recorded offset on the test's clock
    const result = yield* Fiber.join(fiber)
    assert.deepStrictEqual(result.content, [{ type: "text", text: "The sum of 2 and 3 is 5." }])
  }).pipe(Effect.provide(NodeServices.layer)))
