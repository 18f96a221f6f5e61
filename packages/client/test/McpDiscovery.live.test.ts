/**
 * A card checked against the real server it describes: Effect 4's own `McpServer`
 * (`@mcp-effect/test-servers/effect`) and the official SDK's (`@mcp-effect/test-servers/official`), each over
 * Streamable HTTP on loopback. The card is served by a card host; the client connects where the card says
 * (`connectionOptions`), learns what the server says (`live`) and `compare` lists where the card is wrong:
 * nothing for a faithful card, every lie for a lying one.
 */
import * as McpDiscovery from "@mcp-effect/client/McpDiscovery"
import { McpClient, NodeMcpClient } from "@mcp-effect/client/node"
import { startCardHost } from "@mcp-effect/test-servers/card-host"
import * as EffectServer from "@mcp-effect/test-servers/effect-server"
import * as OfficialServer from "@mcp-effect/test-servers/official-server"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as FetchHttpClient from "effect/http/FetchHttpClient"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import { createRequire } from "node:module"
import { launch } from "./fixtures/httpServer.js"

const resolve = createRequire(import.meta.url).resolve

/** The real servers a card is checked against: each serves Streamable HTTP with `--http --port 0`. */
const servers = [
  {
    label: "Effect's McpServer",
    script: resolve("@mcp-effect/test-servers/effect"),
    name: EffectServer.SERVER_NAME,
    version: EffectServer.SERVER_VERSION
  },
  {
    label: "the official SDK server",
    script: resolve("@mcp-effect/test-servers/official"),
    name: OfficialServer.SERVER_NAME,
    version: OfficialServer.SERVER_VERSION
  }
] as const

/** The server over Streamable HTTP on a free loopback port (`--era both`); its `/mcp` URL. */
const launchServer = (script: string): Effect.Effect<string, Error, Scope.Scope> =>
  launch(process.execPath, [script, "--http", "--port", "0", "--era", "both"])

/** Serve `card` at `<host>/mcp/server-card`, fetch it back, connect where it says and compare. */
const checkCard = (script: string, describeServer: (serverUrl: string) => McpDiscovery.ServerCard) =>
  Effect.gen(function*() {
    const serverUrl = yield* launchServer(script)
    const cardHost = yield* Effect.acquireRelease(
      Effect.promise(() => startCardHost({ "/mcp/server-card": { kind: "json", body: describeServer(serverUrl) } })),
      (started) => Effect.promise(started.close)
    )
    const card = yield* McpDiscovery.card(`${cardHost.origin}/mcp/server-card`).pipe(
      Effect.provide(Layer.mergeAll(FetchHttpClient.layer, McpDiscovery.layerCache()))
    )
    const options = McpDiscovery.connectionOptions(card)
    if (Option.isNone(options)) return assert.fail("the card gives no endpoint")
    assert.strictEqual(options.value.url, serverUrl)
    const live = yield* Effect.provide(
      Effect.flatMap(McpClient.McpClient, McpDiscovery.live),
      NodeMcpClient.layerHttp({ url: options.value.url })
    )
    return { live, differences: McpDiscovery.compare(card, live) }
  })

for (const server of servers) {
  describe(`McpDiscovery.compare against ${server.label}`, () => {
    it.live("a faithful card: no difference", () =>
      Effect.gen(function*() {
        const { differences, live } = yield* checkCard(server.script, (url) => ({
          name: `io.github.mcp-effect/${server.name}`,
          version: server.version,
          remotes: [{ type: "streamable-http", url, supportedProtocolVersions: ["2026-07-28", "2025-11-25"] }]
        }))
        assert.strictEqual(live.serverInfo?.name, server.name)
        assert.isAbove(live.toolNames?.length ?? 0, 0)
        assert.deepStrictEqual(differences, [])
      }))

    it.live("a lying card: every lie found, the live values reported", () =>
      Effect.gen(function*() {
        const { differences, live } = yield* checkCard(server.script, (url) => ({
          name: "io.example/bank-of-example",
          version: "9.9.9",
          remotes: [{ type: "streamable-http", url, supportedProtocolVersions: ["2024-11-05"] }],
          tools: [{ name: "transfer_funds" }]
        }))
        assert.deepStrictEqual(differences.map((difference) => difference.field), [
          "name",
          "version",
          "protocolVersion",
          "tools"
        ])
        const byField = new Map(differences.map((difference) => [difference.field, difference]))
        assert.deepStrictEqual(byField.get("name"), { field: "name", card: "io.example/bank-of-example", live: server.name })
        assert.deepStrictEqual(byField.get("version"), { field: "version", card: "9.9.9", live: server.version })
        assert.strictEqual(byField.get("protocolVersion")?.live, live.protocolVersion)
        assert.strictEqual(byField.get("tools")?.live, [...(live.toolNames ?? [])].sort().join(", "))
      }))
  })
}
