/**
 * Discovery is part of the portable core: bundled for the browser platform (where esbuild refuses any `node:`
 * module) it builds, and the bundle, loaded as a plain ES module, reads a card over `fetch`.
 */
import type { CardHost } from "@mcp-effect/test-servers/card-host"
import { startCardHost } from "@mcp-effect/test-servers/card-host"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as path from "node:path"
import { pathToFileURL } from "node:url"

const root = path.resolve(import.meta.dirname, "../../..")

let served: CardHost

beforeAll(async () => {
  served = await startCardHost({
    "/mcp/server-card": { kind: "json", body: { name: "com.example/portable", version: "1.0.0" } }
  })
})

afterAll(() => served.close())

describe("McpDiscovery in a browser bundle", () => {
  it("bundles with no node: module and reads a card over fetch", async () => {
    const esbuild = await import("esbuild")
    const outfile = path.join(root, "node_modules/.cache/mcp-effect-cards/discovery.mjs")
    const result = await esbuild.build({
      entryPoints: [path.join(import.meta.dirname, "../src/internal/promise/discovery.ts")],
      outfile,
      bundle: true,
      platform: "browser",
      format: "esm",
      logLevel: "silent",
      metafile: true
    })
    const inputs = Object.keys(result.metafile.inputs)
    expect(inputs.some((input) => input.includes("internal/discovery/fetch.ts"))).toBe(true)
    expect(inputs.filter((input) => input.startsWith("node:"))).toEqual([])
    const bundled: unknown = await import(pathToFileURL(outfile).href)
    if (typeof bundled !== "object" || bundled === null || !("endpointCard" in bundled)) {
      throw new Error("the bundle does not export endpointCard")
    }
    const endpointCard = bundled.endpointCard
    if (typeof endpointCard !== "function") throw new Error("endpointCard is not a function")
    const card: unknown = await endpointCard(`${served.origin}/mcp`)
    expect(card).toMatchObject({ name: "com.example/portable", version: "1.0.0" })
  })
})
