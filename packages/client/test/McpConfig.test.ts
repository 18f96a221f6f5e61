/**
 * Servers from the `mcpServers` configuration: the JSON shape read entry by entry (`${VAR}`, unknown fields,
 * errors naming the entry and field), and real servers started from it (stdio and HTTP) into one registry,
 * from the Effect API (a layer) and the Promise API.
 */
import { McpConfig, NodePromise } from "@mcp-effect/client/node"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { launch } from "./fixtures/httpServer.js"

const official = createRequire(import.meta.url).resolve("@mcp-effect/test-servers/official")
const env = { TOKEN: "s3cret", HOME_DIR: "/home/ada" }

const failureOf = <A>(effect: Effect.Effect<A, McpConfig.McpConfigError>) =>
  Effect.flip(effect).pipe(Effect.map((e) => ({ entry: e.entry, field: e.field, detail: e.detail, message: e.message })))

const writeConfig = (text: string) => {
  const file = path.join(mkdtempSync(path.join(tmpdir(), "mcp-config-")), "mcp.json")
  writeFileSync(file, text)
  return file
}

describe("McpConfig: reading the mcpServers shape", () => {
  it.effect("stdio and HTTP entries, ${VAR} expanded, unknown fields kept and ignored", () =>
    Effect.gen(function*() {
      const config = yield* McpConfig.parseConfig({
        globalShortcut: "Ctrl+Space",
        mcpServers: {
          files: {
            command: "npx",
            args: ["-y", "server-files", "${HOME_DIR}"],
            env: { API_KEY: "${TOKEN}", PLAIN: "x", FALLBACK: "${UNSET:-dflt}", LITERAL: "$${TOKEN}" },
            cwd: "/tmp",
            disabled: false,
            autoApprove: ["read"]
          },
          remote: { type: "streamable-http", url: "https://example.com/mcp", headers: { Authorization: "Bearer ${TOKEN}" } },
          typed: { type: "stdio", command: "srv" }
        }
      }, { env })
      assert.deepStrictEqual(config.servers.map((s) => [s.name, s.transport]), [
        ["files", "stdio"],
        ["remote", "http"],
        ["typed", "stdio"]
      ])
      const [files, remote] = config.servers
      assert(files?.transport === "stdio" && remote?.transport === "http")
      assert.deepStrictEqual(files.env, { API_KEY: "s3cret", PLAIN: "x", FALLBACK: "dflt", LITERAL: "${TOKEN}" })
      // Expanded where Claude Code expands them: command, args, env, url, headers (and cwd).
      assert.deepStrictEqual(files.args, ["-y", "server-files", "/home/ada"])
      assert.strictEqual(files.cwd, "/tmp")
      assert.deepStrictEqual(files.raw["autoApprove"], ["read"])
      assert.deepStrictEqual(remote.headers, { Authorization: "Bearer s3cret" })
      assert.strictEqual(remote.url, "https://example.com/mcp")
    }))

  it.effect("${VAR} in command, args, cwd and url; VS Code's ${env:VAR}, ${input:ID} and ${workspaceFolder}", () =>
    Effect.gen(function*() {
      const config = yield* McpConfig.parseConfig({
        mcpServers: {
          local: { command: "${HOME_DIR}/bin/srv", args: ["--token", "${env:TOKEN}", "--", "$${kept}"], cwd: "${HOME_DIR}/work" },
          remote: { url: "https://example.com/${TENANT:-acme}/mcp" }
        }
      }, { env })
      const [local, remote] = config.servers
      assert(local?.transport === "stdio" && remote?.transport === "http")
      assert.strictEqual(local.command, "/home/ada/bin/srv")
      assert.deepStrictEqual(local.args, ["--token", "s3cret", "--", "${kept}"])
      assert.strictEqual(local.cwd, "/home/ada/work")
      assert.strictEqual(remote.url, "https://example.com/acme/mcp")

      const unset = yield* failureOf(McpConfig.parseConfig({ mcpServers: { a: { command: "x", args: ["ok", "${NOPE}"] } } }, { env }))
      assert.deepStrictEqual([unset.entry, unset.field], ["a", "args[1]"])
      assert.include(unset.detail, "NOPE is not set")
      // A URL that is not one is named as written, not with what its references stood for.
      const notUrl = yield* failureOf(McpConfig.parseConfig({ mcpServers: { b: { url: "${TOKEN}" } } }, { env }))
      assert.strictEqual(notUrl.field, "url")
      assert.notInclude(notUrl.message, "s3cret")

      const project = mkdtempSync(path.join(tmpdir(), "mcp-config-project-"))
      mkdirSync(path.join(project, ".vscode"))
      const file = path.join(project, ".vscode", "mcp.json")
      writeFileSync(file, JSON.stringify({
        inputs: [{ type: "promptString", id: "era", description: "Which era" }],
        servers: { demo: { type: "stdio", command: "node", args: ["${workspaceFolder}/server.js", "--era", "${input:era}"] } }
      }))
      const [demo] = yield* McpConfig.readEntries(file, { env, inputs: { era: "legacy" } })
      assert(demo !== undefined && Result.isSuccess(demo) && demo.success.transport === "stdio")
      assert.deepStrictEqual(demo.success.args, [`${project}/server.js`, "--era", "legacy"])
    }))

  it.effect("malformed entries: a tagged error naming the entry and the field", () =>
    Effect.gen(function*() {
      const cases: ReadonlyArray<readonly [unknown, string | undefined, string | undefined, string]> = [
        [{ a: { command: "x", env: { K: "${MISSING}" } } }, "a", "env.K", "MISSING is not set"],
        [{ b: { url: "https://x/mcp", headers: { H: 1 } } }, "b", "headers.H", "must be a string"],
        [{ c: { command: "x", args: ["ok", 2] } }, "c", "args[1]", "must be a string"],
        [{ d: { command: "x", args: "one" } }, "d", "args", "array of strings"],
        [{ e: { url: "ftp://x" } }, "e", "url", "not an http(s) URL"],
        [{ f: { type: "sse", url: "https://x/sse" } }, "f", "type", "not supported"],
        [{ g: { type: "websocket", url: "wss://x" } }, "g", "type", "unknown transport"],
        [{ h: { description: "neither" } }, "h", "command", "needs a command"],
        [{ i: { command: "x", url: "https://x" } }, "i", "url", "not both"],
        [{ j: "npx server" }, "j", undefined, "must be a JSON object"],
        [{ k: { command: "" } }, "k", "command", "non-empty"],
        [{ l: { command: "x", cwd: 7 } }, "l", "cwd", "must be a string"]
      ]
      for (const [servers, entry, field, detail] of cases) {
        const failure = yield* failureOf(McpConfig.parseConfig({ mcpServers: servers }, { env }))
        assert.strictEqual(failure.entry, entry)
        assert.strictEqual(failure.field, field)
        assert.include(failure.detail, detail)
        if (field !== undefined) assert.include(failure.message, `field "${field}"`)
      }
      const secret = yield* failureOf(McpConfig.parseConfig({ mcpServers: { a: { command: "x", env: { K: "${TOKEN}", L: 3 } } } }, { env }))
      assert.notInclude(secret.message, "s3cret")
      assert.strictEqual((yield* failureOf(McpConfig.parseConfig([], { env }))).field, undefined)
      // Neither `mcpServers` nor VS Code's `servers` (0.2.0: `{ servers: {} }` is VS Code's shape, read as such).
      assert.strictEqual((yield* failureOf(McpConfig.parseConfig({ other: {} }, { env }))).field, "mcpServers")
      assert.strictEqual((yield* failureOf(McpConfig.parseConfig({ servers: [] }, { env }))).field, "servers")
      assert.strictEqual((yield* failureOf(McpConfig.parseConfig({ mcpServers: [] }, { env }))).field, "mcpServers")
    }))

  it.effect("files: not JSON, missing, and entry by entry with readEntries", () =>
    Effect.gen(function*() {
      const broken = writeConfig("{ \"mcpServers\": { ")
      const notJson = yield* Effect.flip(McpConfig.read(broken))
      assert.strictEqual(notJson.path, broken)
      assert.include(notJson.detail, "not valid JSON")
      // The engine's message quotes the text around the error; a secret there must not reach the error.
      const leaky = writeConfig("{ \"mcpServers\": { \"a\": { \"headers\": { \"K\": \"Bearer sk-live-123\" } x } } }")
      const hidden = yield* Effect.flip(McpConfig.read(leaky))
      assert.notInclude(hidden.message, "sk-live")
      assert.match(hidden.detail, /^not valid JSON( \(line 1, column \d+\))?$/)
      const missing = yield* Effect.flip(McpConfig.read("/nonexistent/mcp.json"))
      assert.include(missing.message, "/nonexistent/mcp.json: cannot be read")
      const mixed = writeConfig(JSON.stringify({ mcpServers: { good: { command: "x" }, bad: { url: 5 }, also: { url: "http://127.0.0.1:1/mcp" } } }))
      const entries = yield* McpConfig.readEntries(mixed)
      assert.deepStrictEqual(entries.map(Result.isSuccess), [true, false, true])
      const bad = entries[1]
      assert(bad !== undefined && Result.isFailure(bad))
      assert.strictEqual(bad.failure.entry, "bad")
      assert.strictEqual(bad.failure.field, "url")
      // The strict reader fails on the bad entry as a whole.
      assert.strictEqual((yield* Effect.flip(McpConfig.read(mixed))).entry, "bad")
    }))
})

describe("McpConfig: servers started from the configuration", () => {
  it.live("a stdio and an HTTP server in one registry, each under its name", () =>
    Effect.gen(function*() {
      const url = yield* launch(process.execPath, [official, "--http", "--port", "0"])
      const servers = yield* McpConfig.make({
        mcpServers: {
          local: { command: process.execPath, args: [official] },
          "remote-demo": { url, headers: { "X-Trace": "${TOKEN}" } }
        }
      }, { env })
      assert.deepStrictEqual([...servers.clients.keys()], ["local", "remote-demo"])
      assert.deepStrictEqual(yield* servers.registry.prefixes, ["local", "remote-demo"])
      const names = (yield* servers.registry.toolsForLlm()).map((tool) => tool.function.name)
      assert.includeMembers(names, ["local__echo", "local__add", "remote-demo__echo", "remote-demo__add"])
      const [local, remote] = yield* servers.registry.executeToolCalls([
        { id: "1", type: "function", function: { name: "local__add", arguments: JSON.stringify({ a: 1, b: 2 }) } },
        { id: "2", type: "function", function: { name: "remote-demo__echo", arguments: JSON.stringify({ text: "hi" }) } }
      ])
      assert.include(local?.content ?? "", "3")
      assert.include(remote?.content ?? "", "hi")
    }))

  it.live("a broken server fails the layer with McpConfigServerError naming it; `only` leaves it out", () =>
    Effect.gen(function*() {
      const document = {
        mcpServers: {
          good: { command: process.execPath, args: [official] },
          broken: { command: path.join(tmpdir(), "no-such-mcp-server") }
        }
      }
      const error = yield* Effect.flip(McpConfig.make(document))
      assert.strictEqual(error._tag, "McpConfigServerError")
      assert(error._tag === "McpConfigServerError")
      assert.strictEqual(error.entry, "broken")
      assert.include(error.message, "server \"broken\"")
      const servers = yield* McpConfig.make(document, { only: ["good"] })
      assert.deepStrictEqual(yield* servers.registry.prefixes, ["good"])
      const unknown = yield* Effect.flip(McpConfig.make(document, { only: ["nope"] }))
      assert(unknown._tag === "McpConfigError")
      assert.strictEqual(unknown.entry, "nope")
    }))

  it.live("what a ${VAR} stood for is not repeated in a server's error: its command line and URL as written", () =>
    Effect.gen(function*() {
      const everything = (error: unknown) => `${String(error)} ${JSON.stringify(error)}`
      const stdio = yield* Effect.flip(McpConfig.make({
        mcpServers: { s: { command: path.join(tmpdir(), "no-such-mcp-server"), args: ["--key", "${TOKEN}"] } }
      }, { env }))
      assert.include(stdio.message, "--key ${TOKEN}")
      assert.notInclude(everything(stdio), "s3cret")
      const http = yield* Effect.flip(McpConfig.make({ mcpServers: { h: { url: "http://127.0.0.1:1/mcp?api_key=${TOKEN}" } } }, { env }))
      assert.include(http.message, "http://127.0.0.1:1/mcp")
      assert.notInclude(everything(http), "s3cret")
    }))

  it.live("the layer and the Promise API read a file", () =>
    Effect.gen(function*() {
      const file = writeConfig(JSON.stringify({ mcpServers: { demo: { command: process.execPath, args: [official] } } }))
      const tools = yield* Effect.flatMap(McpConfig.McpServers, (s) => s.registry.toolsForLlm()).pipe(
        Effect.provide(McpConfig.layer(file))
      )
      assert.include(tools.map((t) => t.function.name), "demo__echo")
      const servers = yield* Effect.promise(() => NodePromise.connectServers(file))
      try {
        const demo = servers.clients["demo"]
        assert(demo !== undefined)
        assert.strictEqual(yield* Effect.promise(() => demo.era()), "modern")
        const llmTools = yield* Effect.promise(() => servers.registry.toolsForLlm())
        assert.include(llmTools.map((t) => t.function.name), "demo__add")
      } finally {
        yield* Effect.promise(() => servers.close())
      }
      const rejected = yield* Effect.promise(() =>
        NodePromise.connectServers({ mcpServers: { x: { command: "x", env: { A: "${NOPE_NOT_SET}" } } } }, { env: {} })
          .then(() => undefined, (e: unknown) => e)
      )
      assert(rejected instanceof McpConfig.McpConfigError)
      assert.strictEqual(rejected.field, "env.A")
    }))
})
