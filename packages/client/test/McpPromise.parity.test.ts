/**
 * The Promise API has what the Effect API has: ping, the legacy log level, resource subscriptions, and
 * listen as an async iterator.
 */
import { McpPromise, McpTestServer } from "@mcp-effect/client"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"

const serverOf = (era: "modern" | "legacy") =>
  McpTestServer.make({
    era,
    resources: [{ uri: "file:///notes.txt", read: () => Effect.succeed("milk") }]
  })

describe("Promise API parity", () => {
  for (const era of ["modern", "legacy"] as const) {
    it.live(`${era}: ping; listen as an async iterator with a resource subscription; close ends it`, () =>
      Effect.promise(async () => {
        const kit = serverOf(era)
        const client = await McpPromise.fromLayer(kit.layer())
        try {
          await client.ping()
          assert.strictEqual((await Effect.runPromise(kit.requests("ping"))).length, 1)
          const subscription = await client.listen({ resourceSubscriptions: ["file:///notes.txt"] })
          if (era === "legacy") {
            const subscribed = await Effect.runPromise(kit.requests("resources/subscribe"))
            assert.deepStrictEqual(subscribed.map((m) => (m["params"] as { uri?: unknown }).uri), ["file:///notes.txt"])
          }
          await Effect.runPromise(kit.notify("notifications/resources/updated", { uri: "file:///notes.txt" }))
          const seen: Array<string> = []
          for await (const notification of subscription) {
            seen.push(`${notification.method} ${String(notification.params?.["uri"])}`)
            break // leaving the loop closes the subscription
          }
          assert.deepStrictEqual(seen, ["notifications/resources/updated file:///notes.txt"])
          await subscription.close()
        } finally {
          await client.close()
        }
      }))
  }

  it.live("legacy: setLogLevel sends logging/setLevel", () =>
    Effect.promise(async () => {
      const kit = serverOf("legacy")
      const client = await McpPromise.fromLayer(kit.layer())
      try {
        await client.setLogLevel("warning")
        const sent = await Effect.runPromise(kit.requests("logging/setLevel"))
        assert.deepStrictEqual(sent.map((m) => (m["params"] as { level?: unknown }).level), ["warning"])
      } finally {
        await client.close()
      }
    }))
})
