/**
 * Every branch of the client against our scripted server, over real stdio (a real child process per test).
 */
import { connectStdio, McpClient, NodeMcpClient } from "@mcp-effect/client/node"
import { assert, describe, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Stream from "effect/Stream"
import { TestClock } from "effect/testing"
import * as fs from "node:fs"
import { createRequire } from "node:module"
import { isAlive, textOf } from "../fixtures/util.js"

const script = createRequire(import.meta.url).resolve("@mcp-effect/test-servers/scripted")

const scripted = (args: ReadonlyArray<string>, options: McpClient.ClientOptions = {}) =>
  NodeMcpClient.layerStdio({ command: process.execPath, args: [script, ...args], ...options })



const history = (client: McpClient.Service) =>
  client.request("scripted/history").pipe(
    Effect.map((result) => {
      const messages = typeof result === "object" && result !== null && "messages" in result ? result.messages : []
      return Array.isArray(messages) ? messages.filter((m): m is Record<string, unknown> => typeof m === "object" && m !== null) : []
    })
  )


describe("era branches over stdio", () => {
  it.live("modern: discover, then every request carries the envelope", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      assert.strictEqual(yield* client.era, "modern")
      assert.strictEqual((yield* client.serverInfo)?.name, "scripted")
      assert.strictEqual(textOf(yield* client.callTool("echo", { text: "hi" })), "hi")
      const seen = yield* history(client)
      const call = seen.find((m) => m["method"] === "tools/call")
      const params = call?.["params"]
      const meta = typeof params === "object" && params !== null && "_meta" in params ? params._meta : undefined
      assert.deepStrictEqual(meta, {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": { name: "mcp-effect-client", version: McpClient.CLIENT_VERSION },
        "io.modelcontextprotocol/clientCapabilities": {}
      })
    }).pipe(Effect.provide(scripted(["--mode", "modern"]))))

  it.live("legacy: an error to discover, then initialize at a version we speak", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      const info = yield* client.info
      assert.strictEqual(info.era, "legacy")
      assert.strictEqual(info.protocolVersion, "2025-11-25")
      assert.strictEqual(info.serverInfo?.name, "scripted-legacy")
      const methods = (yield* history(client)).map((m) => m["method"])
      assert.deepStrictEqual(methods.slice(0, 3), ["server/discover", "initialize", "notifications/initialized"])
    }).pipe(Effect.provide(scripted(["--mode", "legacy", "--discover-error", "-32602"]))))

  it.effect("legacy-silent: a real process that never answers the probe is legacy after probeTimeout (TestClock)", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      const fiber = yield* Effect.forkChild(client.era)
      // Let the probe reach the server and arm its timer before moving the clock.
      yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 300)))
      yield* TestClock.adjust("4 seconds")
      assert.isUndefined(fiber.pollUnsafe())
      yield* TestClock.adjust("1 second")
      assert.strictEqual(yield* Fiber.join(fiber), "legacy")
    }).pipe(Effect.provide(scripted(["--mode", "legacy-silent"]))))

  it.live("legacy-exit: the server exits on discover; it is restarted once and initialized", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      assert.strictEqual(yield* client.era, "legacy")
      assert.strictEqual(textOf(yield* client.callTool("echo", { text: "after restart" })), "after restart")
      const methods = (yield* history(client)).map((m) => m["method"])
      assert.notInclude(methods, "server/discover")
    }).pipe(Effect.provide(scripted(["--mode", "legacy-exit"]))))

  it.live("legacy-exit without the restart: the exit is raised with the server's stderr, never read as legacy", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      const error = yield* client.era.pipe(Effect.flip)
      assert.strictEqual(error._tag, "McpServerGoneError")
      if (error._tag === "McpServerGoneError") {
        assert.strictEqual(error.exitCode, 1)
        assert.include(error.stderrTail, "unknown method server/discover")
      }
    }).pipe(Effect.provide(scripted(["--mode", "legacy-exit"], { restartOnProbeExit: false }))))

  it.live("not-discover: a reply that is not a DiscoverResult means legacy", () =>
    McpClient.era.pipe(
      Effect.map((era) => assert.strictEqual(era, "legacy")),
      Effect.provide(scripted(["--mode", "not-discover"]))
    ))

  it.live("-32022 naming only legacy versions: initialize at the newest of them", () =>
    Effect.gen(function*() {
      const info = yield* Effect.flatMap(McpClient.McpClient, (client) => client.info)
      assert.strictEqual(info.era, "legacy")
      assert.strictEqual(info.protocolVersion, "2025-06-18")
    }).pipe(Effect.provide(scripted(["--mode", "unsupported-version", "--supported", "2025-06-18,2024-11-05"]))))

  it.live("-32022 naming no version we speak: McpUnsupportedVersionError", () =>
    Effect.gen(function*() {
      const error = yield* McpClient.era.pipe(Effect.flip)
      assert.strictEqual(error._tag, "McpUnsupportedVersionError")
      assert.include(error.message, "2026-09-01")
    }).pipe(Effect.provide(scripted(["--mode", "unsupported-version"]))))

  it.live("initialize answering a version we do not speak: a clear error", () =>
    Effect.gen(function*() {
      const error = yield* McpClient.era.pipe(Effect.flip)
      assert.strictEqual(error._tag, "McpUnsupportedVersionError")
      assert.include(error.message, "1999-01-01")
    }).pipe(Effect.provide(scripted(["--mode", "legacy", "--legacy-version", "1999-01-01"]))))
})

describe("the connection over stdio", () => {
  it.live("garbage lines are diagnostics; every request still gets its answer", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      const diagnostics = yield* client.diagnostics.pipe(Stream.take(4), Stream.runCollect, Effect.forkChild)
      const results = yield* Effect.forEach(["a", "b", "c"], (t) => client.callTool("echo", { text: t }), {
        concurrency: "unbounded"
      })
      assert.deepStrictEqual(results.map(textOf), ["a", "b", "c"])
      const seen = yield* Fiber.join(diagnostics)
      assert.isTrue([...seen].every((d) => d._tag === "MalformedFrame"))
    }).pipe(Effect.provide(scripted(["--mode", "garbage"]))))

  it.live("a server that dies mid-call fails it, and every call in flight, with McpServerGoneError and stderr", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      yield* client.era
      const slow = yield* Effect.forkChild(client.callTool("slow", { ms: 5000 }))
      yield* Effect.sleep("50 millis")
      const started = Date.now()
      const died = yield* client.callTool("die", {}).pipe(Effect.flip)
      assert.strictEqual(died._tag, "McpServerGoneError")
      if (died._tag === "McpServerGoneError") {
        assert.strictEqual(died.exitCode, 7)
        assert.include(died.stderrTail, "dying now")
      }
      const other = yield* Fiber.join(slow).pipe(Effect.flip)
      assert.strictEqual(other._tag, "McpServerGoneError")
      assert.isBelow(Date.now() - started, 2000)
      // The next call starts the server again.
      assert.strictEqual(textOf(yield* client.callTool("echo", { text: "again" })), "again")
    }).pipe(Effect.provide(scripted(["--mode", "modern"]))))

  it.live("the stderr tail keeps the last 8 KiB", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      yield* client.era
      const died = yield* client.callTool("die", {}).pipe(Effect.flip)
      assert.strictEqual(died._tag, "McpServerGoneError")
      if (died._tag === "McpServerGoneError") {
        assert.isAtMost(new TextEncoder().encode(died.stderrTail).length, 8192)
        assert.isTrue(died.stderrTail.trimEnd().endsWith("dying now"))
      }
    }).pipe(Effect.provide(scripted(["--mode", "modern", "--stderr-noise", "500"]))))

  it.effect("a slow answer past the request timeout: McpTimeoutError, and the server is told (TestClock)", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      yield* client.era
      const sent = yield* Deferred.make<void>()
      const fiber = yield* client.callTool("slow", { ms: 60_000 }, { timeout: "3 seconds" }).pipe(
        Effect.flip,
        Effect.forkChild
      )
      yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 200)))
      yield* Deferred.succeed(sent, undefined)
      yield* TestClock.adjust("3 seconds")
      const error = yield* Fiber.join(fiber)
      assert.strictEqual(error._tag, "McpTimeoutError")
      const seen = yield* history(client)
      const call = seen.find((m) => m["method"] === "tools/call")
      const cancel = seen.find((m) => m["method"] === "notifications/cancelled")
      const params = cancel?.["params"]
      assert.strictEqual(typeof params === "object" && params !== null && "requestId" in params ? params.requestId : undefined, call?.["id"])
    }).pipe(Effect.provide(scripted(["--mode", "modern"]))))

  it("the Promise API rejects with the same tagged error instances", async () => {
    const client = await connectStdio({ command: process.execPath, args: [script, "--mode", "modern"] })
    assert.strictEqual(textOf(await client.callTool("echo", { text: "promise" })), "promise")
    const error = await client.callTool("error", {}).catch((e: unknown) => e)
    assert.instanceOf(error, Error)
    assert.strictEqual(typeof error === "object" && error !== null && "_tag" in error ? error._tag : "", "McpProtocolError")
    await client.close()
    const after = await client.era().catch((e: unknown) => e)
    assert.strictEqual(typeof after === "object" && after !== null && "_tag" in after ? after._tag : "", "McpClosedError")
  })

  it.live("a server that ignores stdin close and SIGTERM is killed when the client closes", () =>
    Effect.gen(function*() {
      const pid = yield* Effect.gen(function*() {
        const client = yield* McpClient.McpClient
        yield* client.era
        const pid = findChild(script)
        assert.isTrue(pid !== undefined && isAlive(pid))
        return pid
      }).pipe(Effect.provide(scripted(["--mode", "modern", "--ignore-stdin-close"], {})))
      assert.isFalse(pid !== undefined && isAlive(pid))
    }))
})

describe("input, pagination, progress over stdio", () => {
  it.live("modern: several rounds, state-only rounds, two inputs at once", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      assert.strictEqual(textOf(yield* client.callTool("multi", { rounds: 3 })), "answers: a1, a2, a3")
      assert.strictEqual(textOf(yield* client.callTool("state_only", { rounds: 2 })), "state rounds done")
      assert.strictEqual(textOf(yield* client.callTool("both_inputs", {})), "elicit: accepted ok=true; roots: file:///srv")
      assert.strictEqual(textOf(yield* client.callTool("confirm", {})), "accepted ok=true")
    }).pipe(Effect.provide(scripted(["--mode", "modern"], {
      onElicit: ({ params }) => {
        const message = String(params["message"])
        const round = /Question (\d+)/.exec(message)?.[1]
        return round === undefined ? { action: "accept", content: { ok: true } } : { action: "accept", content: { answer: `a${round}` } }
      },
      onListRoots: () => ({ roots: [{ uri: "file:///srv" }] })
    }))))

  it.live("legacy: the same hooks answer the server's requests", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      assert.strictEqual(textOf(yield* client.callTool("confirm", {})), "accepted ok=false")
      assert.strictEqual(textOf(yield* client.callTool("sample", {})), "sampled: hello")
      assert.strictEqual(textOf(yield* client.callTool("roots", {})), "file:///a,file:///b")
      assert.strictEqual(textOf(yield* client.callTool("ping_client", {})), "pong received")
      yield* client.notifyRootsChanged
      assert.strictEqual(textOf(yield* client.callTool("roots_changed_count", {})), "1")
    }).pipe(Effect.provide(scripted(["--mode", "legacy"], {
      onElicit: () => ({ action: "accept", content: { ok: false } }),
      onSample: () => ({ role: "assistant", content: { type: "text", text: "hello" }, model: "m" }),
      onListRoots: () => ({ roots: [{ uri: "file:///a" }, { uri: "file:///b" }] })
    }))))

  it.live("no hooks: the tools take their declined path, in both eras", () =>
    Effect.gen(function*() {
      for (const mode of ["modern", "legacy"]) {
        const answers = yield* Effect.gen(function*() {
          const client = yield* McpClient.McpClient
          return yield* Effect.forEach(["confirm", "sample", "roots"], (tool) => client.callTool(tool, {}).pipe(Effect.map(textOf)))
        }).pipe(Effect.provide(scripted(["--mode", mode])))
        assert.deepStrictEqual(answers, ["no elicitation capability", "no sampling capability", "no roots capability"])
      }
    }))

  it.live("a server that asks forever ends in McpInputLoopExceededError after maxInputRounds retries", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      const error = yield* client.callTool("forever", {}).pipe(Effect.flip)
      assert.strictEqual(error._tag, "McpInputLoopExceededError")
      // 9 requests of the forever call (the original and 8 retries), then this one.
      assert.strictEqual(textOf(yield* client.callTool("count", {})), "10")
    }).pipe(Effect.provide(scripted(["--mode", "modern"], { onElicit: () => ({ action: "decline" }), maxInputRounds: 8 }))))

  it.live("a server asking for what was not declared is declined without calling anything", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      assert.strictEqual(textOf(yield* client.callTool("ask_undeclared", {})), "declined")
    }).pipe(Effect.provide(scripted(["--mode", "modern"]))))

  it.live("pagination: the empty-string cursor is followed; an endless list stops at maxPages", () =>
    Effect.gen(function*() {
      const tools = yield* McpClient.listTools().pipe(Effect.provide(scripted(["--mode", "modern", "--page-size", "5"])))
      assert.strictEqual(tools.length, 24)
      const error = yield* McpClient.listTools().pipe(
        Effect.flip,
        Effect.provide(scripted(["--mode", "modern", "--page-size", "5", "--endless-pages"], { maxPages: 20 }))
      )
      assert.strictEqual(error._tag, "McpPaginationLimitError")
    }))

  it.live("progress: in order, foreign and late reports dropped", () =>
    Effect.gen(function*() {
      const reports: Array<McpClient.ProgressReport> = []
      const result = yield* McpClient.callTool("progress", { steps: 3, ms: 10 }, { toolCallId: "t1" }).pipe(
        Effect.provide(scripted(["--mode", "modern"], { onProgress: (r) => void reports.push(r) }))
      )
      assert.strictEqual(textOf(result), "progress done")
      assert.deepStrictEqual(reports, [1, 2, 3].map((i) => ({ toolCallId: "t1", progress: i, total: 3, message: `step ${i}` })))
    }))

  it.live("ttlMs from the server: cached, refreshed, evicted by list_changed on a listen stream", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      yield* client.listTools()
      yield* client.listTools()
      yield* Effect.scoped(
        Effect.gen(function*() {
          const subscription = yield* client.listen({ toolsListChanged: true })
          assert.deepStrictEqual(subscription.acknowledged, { toolsListChanged: true })
          assert.include(textOf(yield* client.callTool("add_tool", {})), "notified 1")
          yield* subscription.notifications.pipe(Stream.take(1), Stream.runDrain)
        })
      )
      const tools = yield* client.listTools()
      assert.include(tools.map((t) => t.name), "extra")
      const lists = (yield* history(client)).filter((m) => m["method"] === "tools/list")
      assert.strictEqual(lists.length, 2)
    }).pipe(Effect.provide(scripted(["--mode", "modern", "--ttl", "60000"]))))
})

describe("listen across a restart", () => {
  it.live("a listen stream is re-established after the server died and was restarted", () =>
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      yield* Effect.scoped(
        Effect.gen(function*() {
          const subscription = yield* client.listen({ toolsListChanged: true })
          const received = yield* subscription.notifications.pipe(Stream.take(2), Stream.runCollect, Effect.forkChild)
          assert.include(textOf(yield* client.callTool("list_changed", { kind: "tools" })), "notified 1")
          yield* client.callTool("die", {}).pipe(Effect.flip)
          // The next call restarts the server; the subscription comes back on the new process.
          yield* client.era
          let notified = ""
          for (let i = 0; i < 50 && !notified.includes("notified 1"); i++) {
            yield* Effect.sleep("100 millis")
            notified = textOf(yield* client.callTool("list_changed", { kind: "tools" }))
          }
          assert.include(notified, "notified 1")
          const both = yield* Fiber.join(received)
          assert.deepStrictEqual([...both].map((n) => n.method), [
            "notifications/tools/list_changed",
            "notifications/tools/list_changed"
          ])
        })
      )
    }).pipe(Effect.provide(scripted(["--mode", "modern"]))))
})

/** The pid of a running child of this process whose command line mentions `needle` (Linux /proc). */
const findChild = (needle: string): number | undefined => {
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const status = fs.readFileSync(`/proc/${entry}/status`, "utf8")
      const ppid = /PPid:\s+(\d+)/.exec(status)?.[1]
      const cmdline = fs.readFileSync(`/proc/${entry}/cmdline`, "utf8")
      if (Number(ppid) === process.pid && cmdline.includes(needle) && cmdline.includes("--ignore-stdin-close")) {
        return Number(entry)
      }
    } catch {
      continue
    }
  }
  return undefined
}
