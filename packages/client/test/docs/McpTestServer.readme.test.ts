/** The testing kit's example in packages/client/README.md, verbatim: a user-style test written only against the kit, with TestClock. */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import { TestClock } from "effect/testing"
import { McpClient, McpTestServer } from "@mcp-effect/client"

// The code under test depends on McpClient only.
const deploy = (env: string) =>
  Effect.gen(function*() {
    const client = yield* McpClient.McpClient
    const result = yield* client.callTool("deploy", { env }, { timeout: "10 seconds" })
    const block = result.content[0]
    return block?.type === "text" ? block.text : ""
  })

const server = McpTestServer.make({
  era: "modern",
  tools: [
    McpTestServer.tool({
      name: "deploy",
      handler: (args, ctx) =>
        Effect.gen(function*() {
          yield* ctx.progress(1, { total: 2 })
          const answer = yield* ctx.elicit({ message: "Proceed?", requestedSchema: { type: "object", properties: {} } })
          if (args["env"] === "slow") yield* Effect.sleep("1 minute")
          return `${String(args["env"])}: ${String(answer["action"])}`
        })
    })
  ]
})

describe("deploy", () => {
  it.effect("asks, then deploys", () =>
    Effect.gen(function*() {
      const text = yield* deploy("prod").pipe(
        Effect.provide(server.layer({ onElicit: () => ({ action: "accept", content: {} }) }))
      )
      assert.strictEqual(text, "prod: accept")
    }))

  it.effect("times out on the TestClock", () =>
    Effect.gen(function*() {
      // Started from the clock, so that TestClock.adjust runs the call until it waits before moving time.
      const fiber = yield* deploy("slow").pipe(
        Effect.flip,
        Effect.provide(server.layer()),
        Effect.delay("1 millis"),
        Effect.forkChild
      )
      yield* TestClock.adjust("11 seconds")
      assert.strictEqual((yield* Fiber.join(fiber))._tag, "McpTimeoutError")
    }))
})
