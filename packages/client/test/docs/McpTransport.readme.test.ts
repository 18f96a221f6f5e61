/** The `McpTransport.layerMemory` example in packages/client/README.md, verbatim: a fake server that never answers fails loudly (McpProbeStalledError), it does not hang. */
import { assert, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { McpClient, McpTransport } from "@mcp-effect/client"

// Answers nothing, not even the probe.
const mute = McpTransport.layerMemory({ onMessage: () => Effect.void }, { probeWatchdog: "200 millis" })

it.effect("a fake server that ignores server/discover fails loudly", () =>
  Effect.gen(function*() {
    const error = yield* McpClient.listTools().pipe(
      Effect.flip,
      Effect.provide(McpClient.layer({ clientName: "test" }).pipe(Layer.provide(mute)))
    )
    assert.strictEqual(error._tag, "McpProbeStalledError")
  }))
