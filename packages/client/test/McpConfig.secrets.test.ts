/**
 * What a configuration's `${VAR}` stood for never reaches an error (issue 25, item 6): a command that cannot
 * start, a server that echoes its expanded argument (in a JSON-RPC error, on stderr before it dies) or its
 * expanded `X-Api-Key` header (in a JSON-RPC error, in an HTTP 500 body). Header values the caller gives
 * directly are kept out the same way. Real processes (`fixtures/configServer.mjs`) over stdio and loopback HTTP.
 */
import { McpConfig, NodeMcpClient } from "@mcp-effect/client/node"
import { McpClient } from "@mcp-effect/client"
import { assert, describe, it } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as path from "node:path"
import { launch } from "./fixtures/httpServer.js"

const server = path.join(import.meta.dirname, "fixtures/configServer.mjs")
const SECRET = "s3cr3t-Value-42"
const env = { S: SECRET }

/** Everything an error says: its message, its fields (the cause's too), as JSON. */
const everything = (error: unknown): string => {
  const cause = typeof error === "object" && error !== null ? Reflect.get(error, "cause") : undefined
  return [
    error instanceof Error ? error.message : String(error),
    JSON.stringify(error),
    cause instanceof Error ? `${cause.message} ${JSON.stringify(cause)}` : ""
  ].join("\n")
}

const assertClean = (error: unknown, ...expected: ReadonlyArray<string>) => {
  const said = everything(error)
  assert.notInclude(said, SECRET)
  assert.notInclude(said, encodeURIComponent(SECRET))
  assert.notInclude(said, Buffer.from(SECRET).toString("base64"))
  for (const text of expected) assert.include(said, text)
}

const entryOf = (entry: Record<string, unknown>) =>
  Effect.flatMap(McpConfig.parseConfig({ mcpServers: { s: entry } }, { env }), (config) => {
    const [first] = config.servers
    return first === undefined ? Effect.die(new Error("no entry")) : Effect.succeed(first)
  })

/** The error of connecting to the entry (start and probe). */
const connectFailure = (entry: Record<string, unknown>) =>
  Effect.flatMap(entryOf(entry), (parsed) =>
    McpConfig.connect(parsed).pipe(Effect.flatMap((client) => client.info), Effect.flip, Effect.scoped))

describe("McpConfig: expanded values stay out of errors (issue 25, item 6)", () => {
  it.effect("the entry records what its references stood for (6+ characters), not defaults nor HOME-like variables", () =>
    Effect.gen(function*() {
      const entry = yield* Effect.flatMap(
        McpConfig.parseConfig({
          mcpServers: {
            s: {
              command: "/opt/${S}/server",
              args: ["${SHORT}", "${UNSET:-a-default-value}", "${HOME}/projects", "${env:USER}"],
              env: { K: "${env:S}" }
            }
          }
        }, { env: { ...env, SHORT: "abc", HOME: "/home/ada-lovelace", USER: "ada-lovelace" } }),
        (config) => Effect.succeed(config.servers[0])
      )
      assert.deepStrictEqual(entry?.secrets, [SECRET])
    }))

  it.live("a command that cannot start: the error names it as written, without the value", () =>
    Effect.gen(function*() {
      const error = yield* connectFailure({ command: "/opt/${S}/server" })
      assertClean(error, "/opt/${S}/server", "ENOENT")
    }))

  it.live("a server that echoes its argument in a JSON-RPC error: message and data cleaned", () =>
    Effect.gen(function*() {
      const client = yield* Effect.flatMap(
        entryOf({ command: process.execPath, args: [server, "--echo", "${S}"] }),
        (entry) => McpConfig.connect(entry)
      )
      const error = yield* Effect.flip(client.listTools())
      assert.strictEqual(error._tag, "McpProtocolError")
      assertClean(error, "bad argument [redacted]")
      if (error._tag === "McpProtocolError") {
        assert.deepStrictEqual(error.data, { argument: "[redacted]", nested: ["again [redacted]"] })
      }
    }).pipe(Effect.scoped))

  it.live("a server that writes its argument to stderr and dies: the stderr tail is cleaned", () =>
    Effect.gen(function*() {
      const client = yield* Effect.flatMap(
        entryOf({ command: process.execPath, args: [server, "--stderr", "${S}"] }),
        (entry) => McpConfig.connect(entry)
      )
      const error = yield* Effect.flip(client.callTool("die", {}))
      assert.strictEqual(error._tag, "McpServerGoneError")
      assertClean(error, "started with [redacted]", "dying with [redacted]")
    }).pipe(Effect.scoped))

  it.live("a server that dies at once with its argument on stderr: cleaned in the start's error", () =>
    Effect.gen(function*() {
      const error = yield* connectFailure({ command: process.execPath, args: [server, "--die-with", "${S}"] })
      assertClean(error, "fatal: [redacted]")
    }))

  it.live("an HTTP server that echoes the expanded X-Api-Key in a JSON-RPC error: cleaned", () =>
    Effect.gen(function*() {
      const url = yield* launch(process.execPath, [server, "--http"])
      const error = yield* connectFailure({ url, headers: { "X-Api-Key": "${S}" } })
      assertClean(error, "key [redacted] refused")
    }))

  it.live("an HTTP server that echoes the expanded X-Api-Key in a 500 body: cleaned", () =>
    Effect.gen(function*() {
      const url = yield* launch(process.execPath, [server, "--http", "--status-echo"])
      const error = yield* connectFailure({ url, headers: { "X-Api-Key": "${S}" } })
      assertClean(error, "the key [redacted] was refused")
    }))

  it.live("an HTTP server that cannot be reached, its URL holding the value: the error shows the URL cleaned", () =>
    Effect.gen(function*() {
      const error = yield* connectFailure({ url: "http://127.0.0.1:1/${S}/mcp" })
      assertClean(error, "http://127.0.0.1:1/[redacted]/mcp")
    }))

  it.live("a header value the caller gives directly is a secret too (not only Authorization)", () =>
    Effect.gen(function*() {
      const url = yield* launch(process.execPath, [server, "--http"])
      const error = yield* Layer.build(NodeMcpClient.layerHttp({ url, headers: { "X-Api-Key": SECRET } })).pipe(
        Effect.map(Context.get(McpClient.McpClient)),
        Effect.flatMap((client) => client.info),
        Effect.flip,
        Effect.scoped
      )
      assertClean(error, "key [redacted] refused")
    }))

  it.live("StdioOptions.secrets: values given by the caller are cleaned from the stderr tail", () =>
    Effect.gen(function*() {
      const error = yield* Layer.build(
        NodeMcpClient.layerStdio({ command: process.execPath, args: [server, "--die-with", SECRET], secrets: [SECRET] })
      ).pipe(
        Effect.map(Context.get(McpClient.McpClient)),
        Effect.flatMap((client) => client.info),
        Effect.flip,
        Effect.scoped
      )
      assertClean(error, "fatal: [redacted]")
    }))
})
