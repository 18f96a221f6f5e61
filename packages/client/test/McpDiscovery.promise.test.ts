/**
 * The Promise forms of discovery (`internal/promise/discovery.ts`, to be wired into `McpPromise`): on `fetch`,
 * resolving with the decoded documents, rejecting with the `McpDiscoveryError` itself or an aborted signal's
 * reason.
 */
import * as McpDiscovery from "@mcp-effect/client/McpDiscovery"
import type { CardHost } from "@mcp-effect/test-servers/card-host"
import { startCardHost } from "@mcp-effect/test-servers/card-host"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { readFileSync } from "node:fs"
import * as PromiseDiscovery from "../src/internal/promise/discovery.js"

const fixture = (name: string): unknown =>
  JSON.parse(readFileSync(new URL(`./fixtures/cards/${name}`, import.meta.url), "utf8"))

let served: CardHost

beforeAll(async () => {
  served = await startCardHost({
    "/.well-known/ai-catalog.json": {
      kind: "json",
      body: fixture("catalog.json"),
      headers: { "content-type": "application/ai-catalog+json" }
    },
    "/weather/mcp/server-card": { kind: "json", body: fixture("weather-card.json") },
    "/page": { kind: "text", body: "<p>hi</p>", contentType: "text/html" }
  })
})

afterAll(() => served.close())

describe("McpDiscovery Promise forms", () => {
  it("catalog, then the card of its first server", async () => {
    const found = await PromiseDiscovery.catalog(served.origin)
    expect(found.servers.map((server) => server.identifier)).toEqual([
      "urn:air:example.com:mcp:weather",
      "urn:air:example.com:mcp:notes"
    ])
    const first = found.servers[0]
    if (first === undefined) throw new Error("no server listed")
    const card = await PromiseDiscovery.serverCard(first)
    expect(card.name).toBe("com.example/weather")
    expect((await PromiseDiscovery.card(`${served.origin}/weather/mcp/server-card`)).version).toBe("2.1.0")
    expect((await PromiseDiscovery.endpointCard(`${served.origin}/weather/mcp`)).title).toBe("Example Weather")
  })

  it("rejects with the McpDiscoveryError itself", async () => {
    const error: unknown = await PromiseDiscovery.card(`${served.origin}/page`).then(
      () => undefined,
      (reason: unknown) => reason
    )
    expect(error).toBeInstanceOf(McpDiscovery.McpDiscoveryError)
    expect(error).toMatchObject({ _tag: "McpDiscoveryError", reason: "media-type", url: `${served.origin}/page` })
  })

  it("an aborted signal rejects with its reason and sends nothing", async () => {
    const controller = new AbortController()
    const reason = new Error("stop")
    controller.abort(reason)
    const before = served.hits("/weather/mcp/server-card")
    await expect(
      PromiseDiscovery.card(`${served.origin}/weather/mcp/server-card`, { signal: controller.signal })
    ).rejects.toBe(reason)
    expect(served.hits("/weather/mcp/server-card")).toBe(before)
  })
})
