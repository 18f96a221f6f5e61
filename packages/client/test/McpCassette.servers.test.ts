/**
 * Cassettes of servers written by others, recorded with `McpCassette.layerRecord` around our client's own
 * transports (server-everything over stdio; the official SDK 2.x server over Streamable HTTP in both eras),
 * written to a file, read back and replayed to our client under `TestClock`: the progress of a long call
 * arrives at its recorded offsets, and only as the test moves the clock. The secrets given to the recorder
 * are searched for in the file byte by byte.
 */
import { McpCassette, McpClient, McpTestServer, McpTransport, NodeMcpClient } from "@mcp-effect/client/node"
import * as NodeServices from "@effect/platform-node/NodeServices"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import { TestClock } from "effect/testing"
import * as fs from "node:fs"
import { createRequire } from "node:module"
import * as os from "node:os"
import * as path from "node:path"
import { launch } from "./fixtures/httpServer.js"
import { advance } from "./fixtures/testClock.js"

const everything = createRequire(import.meta.url).resolve("@modelcontextprotocol/server-everything/dist/index.js")
const official = path.join(import.meta.dirname, "../../test-servers/dist/official.js")
const TOKEN = "sk-test-4c2d9e8f1a7b3c5d"

const textOf = (result: { readonly content: ReadonlyArray<unknown> }) =>
  result.content.map((block) => (block as { text?: string }).text ?? "").join("")

/** Run `use` with a client over `transport`, recorded to `file`, on the live clock. */
const recordTo = <A, E>(
  file: string,
  transport: Layer.Layer<McpTransport.McpTransport, Error>,
  use: Effect.Effect<A, E, McpClient.McpClient>
) =>
  use.pipe(
    Effect.provide(
      McpClient.layer({ onProgress: () => undefined }).pipe(
        Layer.provide(McpCassette.layerRecord(file, { secrets: [{ value: TOKEN, kind: "api key" }] })),
        Layer.provide(Layer.merge(transport, NodeServices.layer))
      )
    ),
    Effect.scoped,
    TestClock.withLive
  )

/** The offsets of the progress after the call of `tool`, from the cassette itself. */
const progressOffsets = (cassette: McpCassette.Cassette, tool: string) => {
  const call = cassette.entries.find((e) => (e.message["params"] as { name?: string } | undefined)?.name === tool)
  assert.isDefined(call)
  return cassette.entries
    .filter((e) => e.message["method"] === "notifications/progress")
    .map((e) => e.t - (call?.t ?? 0))
}

/**
 * Replay the call of `tool` under TestClock: nothing before each recorded offset, each report at it, the
 * answer last.
 */
const replayCall = <E>(
  file: string,
  tool: string,
  args: Record<string, unknown>,
  before: (
    settle: <A, E2, R>(effect: Effect.Effect<A, E2, R>) => Effect.Effect<A, E2, R>
  ) => Effect.Effect<void, E, McpClient.McpClient> = () => Effect.void
) =>
  Effect.gen(function*() {
    const cassette = yield* McpCassette.read(file).pipe(Effect.provide(NodeServices.layer))
    const offsets = progressOffsets(cassette, tool)
    assert.isAtLeast(offsets.length, 2, "the recording has progress")
    const progress: Array<number> = []
    const replay = McpTestServer.fromCassette(cassette)
    const result = yield* Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      // An answer recorded with no progress before it, taken as the clock moves past its offset.
      const settle = <A, E2, R>(effect: Effect.Effect<A, E2, R>) =>
        effect.pipe(Effect.forkChild, Effect.tap(() => advance("10 seconds")), Effect.flatMap(Fiber.join))
      yield* settle(client.listTools())
      yield* before(settle)
      const call = yield* Effect.forkChild(client.callTool(tool, args))
      let at = 0
      for (const [i, offset] of offsets.entries()) {
        if (offset - 1 > at) yield* advance(`${offset - 1 - at} millis`)
        assert.strictEqual(progress.length, i, `report ${i + 1} not before ${offset} ms`)
        yield* advance("1 millis")
        at = offset
        assert.strictEqual(progress.length, i + 1, `report ${i + 1} at ${offset} ms`)
      }
      yield* advance("10 seconds")
      return yield* Fiber.join(call)
    }).pipe(Effect.provide(replay.layer({ onProgress: (p) => void progress.push(p.progress) })), Effect.scoped)
    assert.deepStrictEqual(yield* replay.mismatches, [])
    return { result, progress, cassette }
  })

const tmpFile = (name: string) => path.join(fs.mkdtempSync(path.join(os.tmpdir(), "mcp-cassette-")), name)

describe("cassettes of real servers, replayed under TestClock", () => {
  it.effect("server-everything over stdio: a long operation's progress at its recorded offsets", () =>
    Effect.gen(function*() {
      const file = tmpFile("everything.ndjson")
      const live = yield* recordTo(
        file,
        NodeMcpClient.layerStdioTransport({ command: process.execPath, args: [everything, "stdio"] }),
        Effect.gen(function*() {
          const client = yield* McpClient.McpClient
          yield* client.listTools()
          return yield* client.callTool("trigger-long-running-operation", { duration: 0.6, steps: 3 })
        })
      )
      const { result, progress, cassette } = yield* replayCall(file, "trigger-long-running-operation", { duration: 0.6, steps: 3 })
      assert.strictEqual(cassette.header.era, "legacy")
      assert.deepStrictEqual(progress, [1, 2, 3])
      assert.strictEqual(textOf(result), textOf(live))
    }), 60_000)

  for (const era of ["modern", "legacy"] as const) {
    it.effect(`the official SDK server over HTTP (${era}): progress at its offsets; the secret given never in the file`, () =>
      Effect.gen(function*() {
        const file = tmpFile(`official-${era}.ndjson`)
        const live = yield* recordTo(
          file,
          Layer.unwrap(Effect.map(
            launch(process.execPath, [official, "--http", "--port", "0", "--era", era]),
            (url) => NodeMcpClient.layerHttpTransport({ url, headers: { "X-Api-Key": TOKEN } })
          )),
          Effect.gen(function*() {
            const client = yield* McpClient.McpClient
            yield* client.listTools()
            // The server echoes the key back.
            assert.strictEqual(textOf(yield* client.callTool("echo", { text: `key ${TOKEN}` })), `key ${TOKEN}`)
            return yield* client.callTool("slow", { ms: 450, steps: 3 })
          })
        )
        const bytes = fs.readFileSync(file)
        for (const form of [TOKEN, Buffer.from(TOKEN).toString("base64")]) assert.strictEqual(bytes.indexOf(form), -1)
        assert.include(bytes.toString(), `"key [redacted]"`)
        const cassette = yield* McpCassette.read(file).pipe(Effect.provide(NodeServices.layer))
        assert.strictEqual(cassette.header.era, era)
        assert.strictEqual(cassette.header.server?.["name"], "official-demo")
        const replayed = yield* replayCall(file, "slow", { ms: 450, steps: 3 }, (settle) =>
          Effect.gen(function*() {
            // The echo's recorded arguments are redacted: the replaying client sends them as recorded.
            const echo = yield* settle(McpClient.callTool("echo", { text: "key [redacted]" }))
            assert.strictEqual(textOf(echo), "key [redacted]")
          }))
        assert.deepStrictEqual(replayed.progress, [1, 2, 3])
        assert.strictEqual(textOf(replayed.result), textOf(live))
      }), 60_000)
  }
})
