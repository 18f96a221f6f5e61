import { EraResolver, McpError, type McpSchema } from "@mcp-effect/client"
import { assert, describe, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"

type Answer = ReturnType<EraResolver.ProbeContext["request"]>

const DISCOVER = {
  resultType: "complete",
  supportedVersions: ["2026-07-28"],
  capabilities: { tools: {} },
  _meta: { "io.modelcontextprotocol/serverInfo": { name: "s", version: "1" } }
}
const INITIALIZE = { protocolVersion: "2025-11-25", capabilities: {}, serverInfo: { name: "s", version: "1" } }

const protocol = (code: number, data?: unknown, httpStatus?: number) =>
  new McpError.McpProtocolError({
    method: "server/discover",
    code,
    message: "no",
    ...(data === undefined ? {} : { data }),
    ...(httpStatus === undefined ? {} : { httpStatus })
  })

/** A probe context whose requests are answered by `answer`, recording what was sent. */
const fake = (
  answer: (method: string, params: McpSchema.JsonObject | undefined, call: number) => Answer,
  overrides: Partial<EraResolver.ProbeContext> = {}
) => {
  const sent: Array<string> = []
  let restarts = 0
  const context: EraResolver.ProbeContext = {
    request: (method, params) => Effect.suspend(() => answer(method, params, sent.push(method))),
    notify: (method) => Effect.sync(() => void sent.push(method)),
    modernMeta: (version) => ({ "io.modelcontextprotocol/protocolVersion": version }),
    initializeParams: (protocolVersion) => ({ protocolVersion }),
    restart: Effect.sync(() => void restarts++),
    preference: "auto",
    transportKind: "stdio",
    probeTimeout: Duration.seconds(5),
    requestTimeout: Duration.seconds(60),
    restartOnProbeExit: true,
    ...overrides
  }
  return { context, sent, restarts: () => restarts }
}

const resolve = (context: EraResolver.ProbeContext) => EraResolver.make.resolve(context)

describe("EraResolver (isolated)", () => {
  it.effect("a DiscoverResult is modern, at the newest shared version; nothing else is sent", () =>
    Effect.gen(function*() {
      const { context, sent } = fake(() => Effect.succeed(DISCOVER))
      const info = yield* resolve(context)
      assert.deepInclude(info, { era: "modern", protocolVersion: "2026-07-28" })
      assert.deepStrictEqual(info.serverInfo, { name: "s", version: "1" })
      assert.deepStrictEqual(sent, ["server/discover"])
    }))

  it.effect("-32601 (stdio) falls back to initialize and notifications/initialized", () =>
    Effect.gen(function*() {
      const { context, sent } = fake((method) =>
        method === "initialize" ? Effect.succeed(INITIALIZE) : Effect.fail(protocol(-32601))
      )
      assert.deepInclude(yield* resolve(context), { era: "legacy", protocolVersion: "2025-11-25" })
      assert.deepStrictEqual(sent, ["server/discover", "initialize", "notifications/initialized"])
    }))

  it.effect("-32022 naming a modern version we speak: probed again at it", () =>
    Effect.gen(function*() {
      const { context, sent } = fake((_, __, call) =>
        call === 1 ? Effect.fail(protocol(-32022, { supported: ["2026-07-28"], requested: "x" })) : Effect.succeed(DISCOVER)
      )
      assert.deepInclude(yield* resolve(context), { era: "modern" })
      assert.deepStrictEqual(sent, ["server/discover", "server/discover"])
    }))

  it.effect("a server that exits on the probe is restarted once and initialized; with restarts off it is raised", () =>
    Effect.gen(function*() {
      const gone = new McpError.McpServerGoneError({ reason: "exited", stderrTail: "" })
      const first = fake((method) => method === "initialize" ? Effect.succeed(INITIALIZE) : Effect.fail(gone))
      assert.deepInclude(yield* resolve(first.context), { era: "legacy" })
      assert.strictEqual(first.restarts(), 1)
      const off = fake(() => Effect.fail(gone), { restartOnProbeExit: false })
      assert.deepInclude(yield* Effect.flip(resolve(off.context)), { _tag: "McpServerGoneError" })
      assert.strictEqual(off.restarts(), 0)
    }))

  it.effect("over HTTP: a 4xx without a modern body is legacy; 401, 5xx and a probe timeout are raised", () =>
    Effect.gen(function*() {
      const http = { transportKind: "http" as const }
      const status = (code: number) => new McpError.McpTransportError({ reason: "Http", status: code, detail: "" })
      const legacy400 = fake((m) => m === "initialize" ? Effect.succeed(INITIALIZE) : Effect.fail(status(400)), http)
      assert.deepInclude(yield* resolve(legacy400.context), { era: "legacy" })
      for (const code of [401, 403, 429, 500]) {
        const raised = fake(() => Effect.fail(status(code)), http)
        assert.deepInclude(yield* Effect.flip(resolve(raised.context)), { _tag: "McpTransportError", status: code })
        assert.deepStrictEqual(raised.sent, ["server/discover"])
      }
      const timeout = new McpError.McpTimeoutError({ method: "server/discover", limit: "probe", timeoutMillis: 5000 })
      const slow = fake(() => Effect.fail(timeout), http)
      assert.deepInclude(yield* Effect.flip(resolve(slow.context)), { _tag: "McpTimeoutError", limit: "probe" })
      const modern404 = fake(() => Effect.fail(protocol(-32601, undefined, 404)), http)
      assert.deepInclude(yield* resolve(modern404.context), { era: "modern", protocolVersion: "2026-07-28" })
    }))

  it.effect("era: legacy skips the probe; era: modern raises what auto would fall back on", () =>
    Effect.gen(function*() {
      const legacy = fake(() => Effect.succeed(INITIALIZE), { preference: "legacy" })
      assert.deepInclude(yield* resolve(legacy.context), { era: "legacy" })
      assert.deepStrictEqual(legacy.sent, ["initialize", "notifications/initialized"])
      const modern = fake(() => Effect.fail(protocol(-32601)), { preference: "modern" })
      assert.deepInclude(yield* Effect.flip(resolve(modern.context)), { _tag: "McpProtocolError", code: -32601 })
    }))

  it.effect("an initialize answer at a version we do not speak is McpUnsupportedVersionError", () =>
    Effect.gen(function*() {
      const { context } = fake((m) =>
        m === "initialize" ? Effect.succeed({ ...INITIALIZE, protocolVersion: "1999-01-01" }) : Effect.fail(protocol(-32601))
      )
      assert.deepInclude(yield* Effect.flip(resolve(context)), { _tag: "McpUnsupportedVersionError" })
    }))
})
