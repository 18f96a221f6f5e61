/**
 * `McpConfig` against configurations that would exhaust the machine (issue 25, item 7): many entries start
 * at most `concurrency` servers at once (default 8), counted from what each server process writes when it
 * starts and when it answers the era probe.
 */
import { McpConfig, NodePromise } from "@mcp-effect/client/node"
import { assert, describe, it } from "@effect/vitest"
import type * as Duration from "effect/Duration"
import { spawnSync } from "node:child_process"
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

/** This process's children running `command`: the process table, not a log. */
const childrenRunning = (command: string): number => {
  const ps = spawnSync("ps", ["-o", "comm=", "--ppid", String(process.pid)], { encoding: "utf8" })
  return ps.stdout.split("\n").filter((line) => line.trim() === command).length
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
  assert.strictEqual(childrenRunning(path.basename(process.execPath)), 0, "server processes left after close")
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

  it("a connectTimeout that is not a duration is an McpConfigError, and starts nothing", async () => {
    const log = path.join(mkdtempSync(path.join(tmpdir(), "mcp-config-bounds-")), "starts.log")
    // As it comes from an untyped setting (a JSON file, an environment variable).
    const connectTimeout = JSON.parse(`"2 fortnights"`) as Duration.Input
    const error: unknown = await NodePromise.connectServers(configOf(2, log), { connectTimeout }).then(
      () => undefined,
      (e: unknown) => e
    )
    assert.instanceOf(error, McpConfig.McpConfigError)
    assert.include(String(error), "connectTimeout is not a duration, got 2 fortnights")
    assert.isFalse(existsSync(log))
  })
})

const catChildren = () => childrenRunning("cat")

describe("McpConfig.connectServers when no server ever answers (issue 33, item 16)", () => {
  it("200 entries: at most 8 server processes alive at any time, each entry fails at its connect timeout, none left after", async () => {
    // `cat > /dev/null` reads the handshake and never answers, its stdout kept open (fd 3) so that it is not
    // gone but silent; it leaves when its stdin is closed.
    const config = {
      mcpServers: Object.fromEntries(Array.from({ length: 200 }, (_, i) => [
        `s${i}`,
        { command: "sh", args: ["-c", "exec 3>&1; exec cat > /dev/null"] }
      ]))
    }
    let most = 0
    const sampler = setInterval(() => void (most = Math.max(most, catChildren())), 10)
    let error: unknown
    try {
      // The connect timeout is what settles each entry: a server that never answers cannot make it pass.
      error = await NodePromise.connectServers(config, { connectTimeout: "250 millis" }).then(() => undefined, (e: unknown) => e)
    } finally {
      clearInterval(sampler)
    }
    assert.instanceOf(error, McpConfig.McpConfigServerError)
    assert.include(String(error), `server "s0": `)
    assert.include(String(error), "connect got no answer within the overall timeout of 250 ms")
    assert.isAtMost(most, 8, "server processes alive at once")
    assert.isAtLeast(most, 2, "the servers start in parallel")
    assert.strictEqual(catChildren(), 0, "server processes left after connectServers settled")
  }, 300_000)
})
