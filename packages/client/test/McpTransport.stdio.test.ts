import { McpTransport, NodeMcpClient } from "@mcp-effect/client/node"
import * as NodeServices from "@effect/platform-node/NodeServices"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Queue from "effect/Queue"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import { messages, receive } from "./fixtures/connection.js"
import { hostile, livingTagged, newTag, reap, running, waitFor } from "./fixtures/hostile.js"
import { isAlive } from "./fixtures/util.js"

/** Both stdio transports: the portable one (`effect/process` `ChildProcess`) and Node's (`child_process`). */
const transports = [
  ["effect/process ChildProcess", (options: McpTransport.StdioOptions) => McpTransport.layerStdio(options).pipe(Layer.provide(NodeServices.layer))],
  ["Node child_process", NodeMcpClient.layerStdioTransport]
] as const

for (const [name, layerOf] of transports) {
const connect = (options: McpTransport.StdioOptions) =>
  Effect.flatMap(McpTransport.McpTransport, (transport) => transport.connect).pipe(Effect.provide(layerOf(options)))

const node = (script: string, extra: Partial<McpTransport.StdioOptions> = {}): McpTransport.StdioOptions => ({
  command: process.execPath,
  args: ["-e", script],
  ...extra
})


describe(`stdio transport (${name})`, () => {
  it.live("children the server started in sessions of their own (setsid) are ended with the connection", () =>
    Effect.gen(function*() {
      const tag = newTag()
      const scope = yield* Scope.make()
      yield* connect({ ...hostile(tag, ["--session-children", "2", "--depth", "2"]), shutdownTimeout: "500 millis" }).pipe(
        Scope.provide(scope)
      )
      const tree = yield* Effect.promise(() => waitFor(() => livingTagged(tag).length === 5, 3000))
      yield* Scope.close(scope, Exit.void)
      yield* Effect.promise(() => waitFor(() => livingTagged(tag).length === 0, 3000))
      const left = yield* Effect.promise(() => reap(tag))
      assert.isTrue(tree, "the server and its four descendants ran")
      assert.deepStrictEqual(left, [], "processes left behind")
    }))

  it.live("frames newline-delimited JSON both ways, multi-byte characters intact", () =>
    Effect.gen(function*() {
      const connection = yield* connect(node("process.stdin.pipe(process.stdout)"))
      const inbox = yield* receive(connection)
      yield* Effect.scoped(connection.send({ jsonrpc: "2.0", id: 1, method: "echo", params: { text: "héllo 世界\nline" } }, {}))
      yield* Effect.scoped(connection.send({ jsonrpc: "2.0", method: "n" }, {}))
      const lines = yield* messages(inbox).pipe(Stream.take(2), Stream.runCollect)
      assert.deepStrictEqual(lines, [
        { jsonrpc: "2.0", id: 1, method: "echo", params: { text: "héllo 世界\nline" } },
        { jsonrpc: "2.0", method: "n" }
      ])
    }))

  it.live("a server's death ends the connection with its exit code and the last 8 KiB of stderr", () =>
    Effect.gen(function*() {
      const connection = yield* connect(
        node("for (let i = 0; i < 2000; i++) process.stderr.write('noise ' + i + '\\n'); process.stderr.write('final words', () => process.exit(3))")
      )
      yield* receive(connection)
      const reason = yield* connection.ended
      assert.strictEqual(reason._tag, "McpServerGoneError")
      if (reason._tag === "McpServerGoneError") {
        assert.strictEqual(reason.exitCode, 3)
        assert.isTrue(reason.stderrTail.endsWith("final words"))
        assert.isAtMost(new TextEncoder().encode(reason.stderrTail).length, 8192)
        assert.isAtLeast(reason.stderrTail.length, 8000)
      }
    }))

  it.live("secrets: kept out of error responses, lines that are not JSON, the stderr tail and the exit report", () =>
    Effect.gen(function*() {
      const secret = "s3cr3t-Value-42"
      const script = "const s = process.argv[1];" +
        "process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: 1, error: { code: 1, message: 'bad ' + s, data: { s } } }) + '\\n');" +
        "process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: 2, result: { kept: s } }) + '\\n');" +
        "process.stdout.write('not json ' + s + '\\n');" +
        "process.stderr.write('stderr ' + s, () => setTimeout(() => process.exit(4), 100))"
      const connection = yield* connect({ command: process.execPath, args: ["-e", script, secret], secrets: [secret] })
      const inbox = yield* receive(connection)
      const reason = yield* connection.ended
      const received = yield* Queue.takeAll(inbox)
      assert.deepStrictEqual(received.map((r) => r._tag === "Message" ? r.message : r), [
        { jsonrpc: "2.0", id: 1, error: { code: 1, message: "bad [redacted]", data: { s: "[redacted]" } } },
        // A result is the server's answer, not an error: it is handed over as it is.
        { jsonrpc: "2.0", id: 2, result: { kept: secret } },
        { _tag: "Malformed", frame: "not json [redacted]" }
      ])
      assert.strictEqual(reason._tag, "McpServerGoneError")
      assert.notInclude(reason.message, secret)
      assert.include(reason.message, "stderr [redacted]")
      assert.include(reason.message, `-e ${script} [redacted] exited`)
    }))

  it.live("secrets: kept out of the error of a command that cannot start", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(connect({ command: "/opt/s3cr3t-Value-42/server", secrets: ["s3cr3t-Value-42"] }))
      assert.strictEqual(error.message, "MCP transport failure (Spawn): cannot start /opt/[redacted]/server: spawn /opt/[redacted]/server ENOENT")
    }))

  it.live("the child's environment: a safe inherited set under the caller's env; clean on request", () =>
    Effect.gen(function*() {
      process.env["MCP_EFFECT_SECRET"] = "leak"
      const safe = McpTransport.childEnvironment({ command: "x", env: { EXTRA: "1", PATH: "/custom" } })
      assert.strictEqual(safe["EXTRA"], "1")
      assert.strictEqual(safe["PATH"], "/custom")
      assert.strictEqual(safe["MCP_EFFECT_SECRET"], undefined)
      assert.strictEqual(safe["HOME"], process.env["HOME"])
      assert.deepStrictEqual(McpTransport.childEnvironment({ command: "x", inheritEnv: "none", env: { A: "b" } }), { A: "b" })
      assert.strictEqual(McpTransport.childEnvironment({ command: "x", inheritEnv: "all" })["MCP_EFFECT_SECRET"], "leak")
      // And it is what the process really sees.
      const seen = yield* Effect.scoped(
        Effect.gen(function*() {
          const connection = yield* connect(
            node("console.log(JSON.stringify({ secret: process.env.MCP_EFFECT_SECRET ?? null, extra: process.env.EXTRA }))", {
              env: { EXTRA: "yes" }
            })
          )
          return yield* messages(yield* receive(connection)).pipe(Stream.runHead)
        })
      )
      delete process.env["MCP_EFFECT_SECRET"]
      assert.deepStrictEqual(seen._tag === "Some" ? seen.value : {}, { secret: null, extra: "yes" })
    }))

  it.live("no shell is involved: arguments reach the server as they are", () =>
    Effect.scoped(
      Effect.gen(function*() {
        const connection = yield* connect({
          command: process.execPath,
          args: ["-e", "console.log(JSON.stringify(process.argv.slice(1)))", "$HOME", "a b", ";rm -rf /"]
        })
        // A JSON array is a batch: its elements are handed over one by one.
        const values = yield* messages(yield* receive(connection)).pipe(Stream.take(3), Stream.runCollect)
        assert.deepStrictEqual(values, ["$HOME", "a b", ";rm -rf /"])
      })
    ))

  it.live("a command that cannot be started is an McpTransportError", () =>
    Effect.gen(function*() {
      const error = yield* Effect.scoped(connect({ command: "/nonexistent/mcp-server" })).pipe(Effect.flip)
      assert.strictEqual(error._tag, "McpTransportError")
      assert.strictEqual(error.reason, "Spawn")
      assert.include(error.message, "cannot start /nonexistent/mcp-server: spawn /nonexistent/mcp-server ENOENT")
    }))

  it.live("a command that cannot be started is named by its description; its arguments are in no part of the error", () =>
    Effect.gen(function*() {
      const error = yield* Effect.scoped(
        connect({ command: "/nonexistent/mcp-server", args: ["--key", "s3cret-arg"], description: "/nonexistent/mcp-server --key ${KEY}" })
      ).pipe(Effect.flip)
      assert.include(error.message, "cannot start /nonexistent/mcp-server --key ${KEY}: spawn /nonexistent/mcp-server ENOENT")
      assert.notInclude(`${String(error)} ${JSON.stringify(error)}`, "s3cret-arg")
    }))

  it.live("closing the scope closes stdin first: a well-behaved server exits on its own", () =>
    Effect.gen(function*() {
      const scope = yield* Scope.make()
      const connection = yield* connect(
        node("process.stdin.resume(); process.stdin.on('end', () => { console.log('bye'); process.exit(0) }); console.log(process.pid)")
      ).pipe(Scope.provide(scope))
      const pid = Number(yield* messages(yield* receive(connection).pipe(Scope.provide(scope))).pipe(Stream.runHead, Effect.map((o) => o._tag === "Some" ? o.value : 0)))
      const started = Date.now()
      yield* Scope.close(scope, Exit.void)
      assert.isFalse(isAlive(pid))
      assert.isBelow(Date.now() - started, 1500)
    }))

  it.live("a server that exits when stdin closes, leaving a child behind: the child is ended with the group", () =>
    Effect.gen(function*() {
      const scope = yield* Scope.make()
      const connection = yield* connect(
        node(
          "const c = require('node:child_process').spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' }); " +
            "console.log(c.pid); process.stdin.resume(); process.stdin.on('end', () => process.exit(0))",
          { shutdownTimeout: "500 millis" }
        )
      ).pipe(Scope.provide(scope))
      const child = Number(yield* messages(yield* receive(connection).pipe(Scope.provide(scope))).pipe(Stream.runHead, Effect.map((o) => o._tag === "Some" ? o.value : 0)))
      assert.isTrue(running(child))
      const started = Date.now()
      yield* Scope.close(scope, Exit.void)
      assert.isTrue(yield* Effect.promise(() => waitFor(() => !running(child), 1000)), "the child is still running")
      // A bound against hanging: where init does not reap at once, the spawner waits out the grace on the zombie.
      assert.isBelow(Date.now() - started, 5000)
    }))

  it.live("a server that ignores stdin close and SIGTERM is SIGKILLed; no child survives", () =>
    Effect.gen(function*() {
      const scope = yield* Scope.make()
      const connection = yield* connect(
        node("process.on('SIGTERM', () => {}); process.stdin.resume(); console.log(process.pid); setInterval(() => {}, 1000)", {
          shutdownTimeout: "300 millis"
        })
      ).pipe(Scope.provide(scope))
      const pid = Number(yield* messages(yield* receive(connection).pipe(Scope.provide(scope))).pipe(Stream.runHead, Effect.map((o) => o._tag === "Some" ? o.value : 0)))
      assert.isTrue(isAlive(pid))
      yield* Scope.close(scope, Exit.void)
      assert.isFalse(isAlive(pid))
    }))
})
}
