/**
 * `McpConfig` against configurations that would exhaust the machine (issue 25, item 7): many entries start
 * at most `concurrency` servers at once (default 8), counted from what each server process writes when it
 * starts and when it answers the era probe.
 */
import { McpConfig, NodePromise } from "@mcp-effect/client/node"
import { assert, describe, it } from "@effect/vitest"
import { existsSync, mkdtempSync, readFileSync } from "node:fs"
import { tmpdir } from "node:os"
import * as path from "node:path"

const server = path.join(import.meta.dirname, "fixtures/configServer.mjs")

/** The most servers that had started but not yet answered the probe at any one time, read from the log. */
const mostStartingAtOnce = (log: string): number => {
  let starting = 0
  let most = 0
  for (const line of readFileSync(log, "utf8").split("\n")) {
    if (line.startsWith("start ")) most = Math.max(most, ++starting)
    if (line.startsWith("ready ")) starting--
  }
  return most
}

const configOf = (count: number, log: string) => ({
  mcpServers: Object.fromEntries(Array.from({ length: count }, (_, i) => [
    `s${i}`,
    // Each server reads nothing for 300 ms, so the starts overlap whenever they may.
    { command: process.execPath, args: [server, "--log", log, "--delay", "300"] }
  ]))
})

const connectCounting = async (count: number, options: McpConfig.LayerOptions) => {
  const log = path.join(mkdtempSync(path.join(tmpdir(), "mcp-config-bounds-")), "starts.log")
  const servers = await NodePromise.connectServers(configOf(count, log), options)
  try {
    assert.deepStrictEqual(servers.failures, [])
    assert.strictEqual(Object.keys(servers.clients).length, count)
  } finally {
    await servers.close()
  }
  return mostStartingAtOnce(log)
}

describe("McpConfig.connectServers with many entries (issue 25, item 7)", () => {
  it("starts at most 8 servers at once by default, and every entry connects", async () => {
    const most = await connectCounting(20, {})
    assert.isAtMost(most, 8, "servers starting at once")
    assert.isAtLeast(most, 2, "the servers start in parallel")
  }, 120_000)

  it("concurrency sets the bound", async () => {
    assert.isAtMost(await connectCounting(9, { concurrency: 3 }), 3, "servers starting at once")
  }, 120_000)

  it("a concurrency below 1 is an McpConfigError, and starts nothing", async () => {
    const log = path.join(mkdtempSync(path.join(tmpdir(), "mcp-config-bounds-")), "starts.log")
    const error: unknown = await NodePromise.connectServers(configOf(2, log), { concurrency: 0 }).then(
      () => undefined,
      (e: unknown) => e
    )
    assert.instanceOf(error, McpConfig.McpConfigError)
    assert.include(String(error), "concurrency must be a whole number of at least 1, got 0")
    assert.isFalse(existsSync(log))
  })
})
