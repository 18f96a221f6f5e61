/**
 * `structuredContent` is validated against the tool's `outputSchema` (as the official client does): a
 * mismatch is an `McpInvalidResponseError` naming the tool and what is wrong.
 */
import { McpClient, McpTestServer } from "@mcp-effect/client"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Stream from "effect/Stream"

const weatherSchema = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  type: "object",
  properties: { temperature: { type: "number" }, sky: { type: "string", enum: ["clear", "cloudy"] } },
  required: ["temperature", "sky"]
}

const serverOf = (era: "modern" | "legacy") =>
  McpTestServer.make({
    era,
    tools: [
      McpTestServer.tool({
        name: "weather",
        outputSchema: weatherSchema,
        handler: (args) =>
          Effect.succeed(
            args["mode"] === "good"
              ? { temperature: 21, sky: "clear" }
              : args["mode"] === "bad"
              ? { temperature: "warm", sky: "purple" }
              : args["mode"] === "error"
              ? { content: [{ type: "text", text: "sensor offline" }], isError: true }
              : { content: [{ type: "text", text: "no structure" }] }
          )
      })
    ]
  })

describe("outputSchema", () => {
  for (const era of ["modern", "legacy"] as const) {
    it.effect(`${era}: matching structuredContent passes; a mismatch or a missing one is McpInvalidResponseError`, () =>
      Effect.gen(function*() {
        const client = yield* McpClient.McpClient
        yield* client.listTools()
        const good = yield* client.callTool("weather", { mode: "good" })
        assert.deepStrictEqual(good.structuredContent, { temperature: 21, sky: "clear" })

        const bad = yield* Effect.flip(client.callTool("weather", { mode: "bad" }))
        assert.strictEqual(bad._tag, "McpInvalidResponseError")
        assert.match(bad.message, /structuredContent of tool weather does not match its outputSchema/)
        assert.match(bad.message, /\/temperature Instance type "string" is invalid\. Expected "number"/)
        assert.match(bad.message, /\/sky Instance does not match any of \["clear","cloudy"\]/)

        const missing = yield* Effect.flip(client.callTool("weather", { mode: "none" }))
        assert.match(missing.message, /declares an outputSchema but its result has no structuredContent/)

        const failed = yield* client.callTool("weather", { mode: "error" })
        assert.isTrue(failed.isError)
      }).pipe(Effect.provide(serverOf(era).layer())))
  }
})

describe("outputSchema before any listing", () => {
  for (const era of ["modern", "legacy"] as const) {
    it.effect(`${era}: callTool fetches the catalogue once and checks the result against the tool's outputSchema`, () =>
      Effect.gen(function*() {
        const client = yield* McpClient.McpClient
        const bad = yield* Effect.flip(client.callTool("weather", { mode: "bad" }))
        assert.strictEqual(bad._tag, "McpInvalidResponseError")
        assert.match(bad.message, /structuredContent of tool weather does not match its outputSchema/)
        const good = yield* client.callTool("weather", { mode: "good" })
        assert.deepStrictEqual(good.structuredContent, { temperature: 21, sky: "clear" })
        const missing = yield* Effect.flip(client.callTool("weather", { mode: "none" }))
        assert.match(missing.message, /declares an outputSchema but its result has no structuredContent/)
      }).pipe(Effect.provide(serverOf(era).layer())))
  }
})

describe("outputSchema bounds", () => {
  it.effect("maxOutputSchemaBytes: a schema above it is not used; the call is answered, with a diagnostic", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      const seen = yield* Effect.forkChild(Stream.runCollect(Stream.take(client.diagnostics, 1)), { startImmediately: true })
      yield* Effect.yieldNow
      yield* client.listTools()
      const bad = yield* client.callTool("weather", { mode: "bad" })
      assert.deepStrictEqual(bad.structuredContent, { temperature: "warm", sky: "purple" })
      const [diagnostic] = yield* Fiber.join(seen)
      assert.deepInclude(diagnostic, { _tag: "UnusableOutputSchema", tool: "weather", reason: "too-large" })
    }).pipe(Effect.provide(serverOf("modern").layer({ maxOutputSchemaBytes: 100 }))))
})

/** `^(a+)+$` on a backtracking engine takes seconds per character past 25 on a near miss: RE2 takes microseconds. */
const redos = "^(a+)+$"
const near = "a".repeat(40) + "!"

/** 40 levels, each referring twice to the next: 2^40 evaluations unless the check is bounded. */
const refBomb = () => {
  const $defs: Record<string, unknown> = { d40: { type: "object" } }
  for (let i = 0; i < 40; i++) $defs[`d${i}`] = { allOf: [{ $ref: `#/$defs/d${i + 1}` }, { $ref: `#/$defs/d${i + 1}` }] }
  return { $defs, $ref: "#/$defs/d0" }
}

const hostileServer = McpTestServer.make({
  tools: [
    McpTestServer.tool({
      name: "patterned",
      outputSchema: {
        type: "object",
        properties: { s: { type: "string", pattern: redos } },
        patternProperties: { "^x-(a+)+$": { type: "number" } },
        additionalProperties: false
      },
      handler: (args) => Effect.succeed(args["value"] as Record<string, unknown>)
    }),
    McpTestServer.tool({
      name: "bomb",
      outputSchema: refBomb(),
      handler: () => Effect.succeed({ any: "thing" })
    })
  ]
})

describe("outputSchema patterns and bombs (no backtracking, bounded work)", () => {
  it.effect("pattern and patternProperties run on RE2: conforming passes, a near miss is a prompt mismatch", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      yield* client.listTools()
      const good = yield* client.callTool("patterned", { value: { s: "aaa", "x-aa": 1 } })
      assert.deepStrictEqual(good.structuredContent, { s: "aaa", "x-aa": 1 })

      const pattern = yield* Effect.flip(client.callTool("patterned", { value: { s: near } }))
      assert.strictEqual(pattern._tag, "McpInvalidResponseError")
      assert.match(pattern.message, /\/s must match pattern/)

      const typed = yield* Effect.flip(client.callTool("patterned", { value: { "x-a": "text" } }))
      assert.match(typed.message, /\/x-a Instance type "string" is invalid/)

      // A key that misses the pattern is an additional property, refused; the pattern never ran on a backtracking engine.
      const key = yield* Effect.flip(client.callTool("patterned", { value: { [`x-${near}`]: 1 } }))
      assert.match(key.message, /does not match its outputSchema/)
      assert.match(key.message, /additional properties|False boolean schema/)
    }).pipe(Effect.provide(hostileServer.layer())))

  it.effect("a $ref bomb (2^40 evaluations) is stopped by the budget: answered unchecked, with a diagnostic", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      const seen = yield* Effect.forkChild(Stream.runCollect(Stream.take(client.diagnostics, 1)), { startImmediately: true })
      yield* Effect.yieldNow
      yield* client.listTools()
      const answered = yield* client.callTool("bomb", {})
      assert.deepStrictEqual(answered.structuredContent, { any: "thing" })
      const [diagnostic] = yield* Fiber.join(seen)
      assert.deepInclude(diagnostic, { _tag: "UnusableOutputSchema", tool: "bomb", reason: "validate" })
    }).pipe(Effect.provide(hostileServer.layer())))
})
