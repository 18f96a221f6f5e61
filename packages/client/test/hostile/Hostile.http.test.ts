/**
 * The hostile suite over loopback HTTP: a real server process (`test-servers/src/hostile-http.ts`) that
 * misbehaves on demand, driven through the public Promise API. Each case names its expected tagged error and
 * bounds the time (against hanging) and, for size, the memory.
 */
import { connectHttp, type McpClient, type McpPromise } from "@mcp-effect/client"
import { connectHttp as connectHttpNode } from "@mcp-effect/client/node"
import { assert, describe, it } from "@effect/vitest"
import { textOf } from "../fixtures/util.js"
import { peakRssDuring, rssMiB, settle, sleep, startHostileHttp } from "../fixtures/hostile.js"

type Options = Partial<McpClient.HttpClientOptions>

type Connect = typeof connectHttp

/** Both HTTP paths: `fetch` (the portable entry, as in a browser) and undici (the Node entry). */
const entries: ReadonlyArray<{ readonly name: string; readonly connect: Connect }> = [
  { name: "fetch, the portable entry", connect: connectHttp },
  { name: "undici, the Node entry", connect: connectHttpNode }
]

const withServer = (connect: Connect) => async (
  args: ReadonlyArray<string>,
  options: Options,
  body: (client: McpPromise.PromiseClient, stats: () => Promise<Record<string, number>>) => Promise<void>
) => {
  const server = await startHostileHttp(args)
  try {
    const client = await connect({ url: server.url, ...options })
    const stats = async () => JSON.parse(textOf(await client.callTool("stats", {}))) as Record<string, number>
    try {
      await body(client, stats)
    } finally {
      await client.close()
    }
  } finally {
    await server.stop()
  }
}

const failsWith = async (promise: Promise<unknown>, expected: string, withinMillis: number) => {
  const started = Date.now()
  const outcome = await settle(promise)
  assert.isTrue("tag" in outcome, `expected ${expected}, got a result`)
  if ("tag" in outcome) assert.strictEqual(outcome.tag, expected, String(outcome.error))
  assert.isBelow(Date.now() - started, withinMillis)
  return "error" in outcome ? outcome.error : undefined
}

for (const { connect, name } of entries) {
  describe(`hostile HTTP servers (${name})`, () => {
    const withServer_ = withServer(connect)
    it("an SSE answer that never ends (keep-alive comments only): McpTimeoutError at the request timeout", () =>
      withServer_([], {}, async (client) => {
        await failsWith(client.callTool("never_ending", {}, { timeout: "500 millis" }), "McpTimeoutError", 5000)
        assert.strictEqual(textOf(await client.callTool("echo", { text: "after" })), "after")
      }))

    it("a connection reset in the middle of the body: a tagged error at once, the next call works", () =>
      withServer_([], {}, async (client) => {
        const outcome = await settle(client.callTool("reset", {}))
        assert.isTrue("tag" in outcome && ["McpServerGoneError", "McpTransportError"].includes(outcome.tag))
        assert.strictEqual(textOf(await client.callTool("echo", { text: "after" })), "after")
      }))

    it("a redirect to another origin: McpTransportError 307, never followed, the credentials stay home", () =>
      withServer_([], { headers: { authorization: "Bearer secret-token" } }, async (client, stats) => {
        const error = await failsWith(client.callTool("redirect", {}), "McpTransportError", 5000)
        assert.strictEqual((error as { status?: number }).status, 307)
        assert.strictEqual((await stats())["redirectHits"], 0)
      }))

    it("an HTML page instead of JSON: McpTransportError", () =>
      withServer_([], {}, async (client) => {
        await failsWith(client.callTool("garbage_body", {}), "McpTransportError", 5000)
      }))

    it("a server that went away: McpTransportError without a status", async () => {
      const server = await startHostileHttp()
      const client = await connect({ url: server.url })
      try {
        await client.callTool("echo", { text: "x" })
        await server.stop()
        const error = await failsWith(client.callTool("echo", { text: "y" }), "McpTransportError", 5000)
        assert.strictEqual((error as { status?: number }).status, undefined)
      } finally {
        await client.close()
      }
    })

    it("item 4: a 256 MiB JSON body: dropped past maxMessageBytes, its call fails, memory stays bounded", () =>
      withServer_([], { maxMessageBytes: 1 << 20 }, async (client) => {
        const before = rssMiB()
        const { peak } = await peakRssDuring(() =>
          failsWith(client.callTool("huge_body", { bytes: 256 << 20 }), "McpInvalidResponseError", 20_000)
        )
        assert.isBelow(peak - before, 100, "peak RSS growth (MiB)")
        assert.strictEqual(textOf(await client.callTool("echo", { text: "after" })), "after")
      }))

    it("item 4: a 64 MiB SSE event: dropped past maxMessageBytes, its call fails, memory stays bounded", () =>
      withServer_([], { maxMessageBytes: 1 << 20 }, async (client) => {
        const before = rssMiB()
        const { peak } = await peakRssDuring(() =>
          failsWith(client.callTool("huge_sse", { bytes: 64 << 20 }), "McpInvalidResponseError", 20_000)
        )
        assert.isBelow(peak - before, 100, "peak RSS growth (MiB)")
      }))

    it("item 5: one timed-out server/discover is not remembered: the next call settles the era again", () =>
      withServer_(["--discover-delay-once", "1500"], { probeTimeout: "300 millis" }, async (client) => {
        await failsWith(client.callTool("echo", { text: "first" }), "McpTimeoutError", 5000)
        assert.strictEqual(textOf(await client.callTool("echo", { text: "second" })), "second")
        assert.strictEqual(await client.era(), "modern")
      }))

    it("item 8: a legacy GET stream that says retry: 0 and closes: reconnects have a floor and a bound", () =>
      withServer_(["--era", "legacy", "--retry0"], {}, async (client, stats) => {
        assert.strictEqual(textOf(await client.callTool("echo", { text: "x" })), "x")
        await sleep(2000)
        const { gets } = await stats()
        assert.isAtLeast(gets ?? 0, 1, "the GET stream was opened")
        assert.isAtMost(gets ?? 0, 10, "GET requests in 2 s")
      }))
  })
}
