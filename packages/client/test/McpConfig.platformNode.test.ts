/**
 * Without the optional peer `@effect/platform-node` (issue 33, item 20): a real Node process in which that
 * package cannot be resolved (`fixtures/withoutPlatformNode`, as for a project that did not install it) loads
 * the Node entry, connects a configuration given as an object, and fails to read a configuration file with an
 * `McpConfigError` that says what to install, not Node's `ERR_MODULE_NOT_FOUND`. Runs the built package.
 */
import { spawnSync } from "node:child_process"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { assert, describe, it } from "vitest"

const repo = path.resolve(import.meta.dirname, "../../..")
const withoutPlatformNode = path.join(import.meta.dirname, "fixtures/withoutPlatformNode/register.mjs")
const server = path.join(import.meta.dirname, "fixtures/configServer.mjs")

const runWithout = (source: string, ...args: ReadonlyArray<string>) =>
  spawnSync(process.execPath, ["--import", withoutPlatformNode, "--input-type=module", "-e", source, "--", ...args], {
    cwd: repo,
    encoding: "utf8",
    timeout: 60_000
  })

const config = { mcpServers: { local: { command: process.execPath, args: [server] } } }

describe("connectServers without @effect/platform-node installed", () => {
  it("the package cannot be imported in that process (the condition under test holds)", () => {
    const ran = runWithout(`await import("@effect/platform-node/NodeFileSystem")`)
    assert.notStrictEqual(ran.status, 0)
    assert.include(ran.stderr, "ERR_MODULE_NOT_FOUND")
  })

  it("a configuration file: an McpConfigError that names the package to install", () => {
    const file = path.join(mkdtempSync(path.join(tmpdir(), "mcp-config-platform-")), ".mcp.json")
    writeFileSync(file, JSON.stringify(config))
    const ran = runWithout(
      `
      import { McpConfig, NodePromise } from "@mcp-effect/client/node"
      const error = await NodePromise.connectServers(process.argv[1]).then(() => undefined, (e) => e)
      console.log(JSON.stringify({ tagged: error instanceof McpConfig.McpConfigError, tag: error?._tag, message: String(error?.message) }))
      `,
      file
    )
    assert.strictEqual(ran.status, 0, ran.stderr)
    const out = JSON.parse(ran.stdout.trim()) as { readonly tagged: boolean; readonly tag: string; readonly message: string }
    assert.deepStrictEqual({ tagged: out.tagged, tag: out.tag }, { tagged: true, tag: "McpConfigError" })
    assert.include(out.message, "reading a configuration file needs @effect/platform-node, which is not installed")
    assert.include(out.message, "npm install @effect/platform-node")
    assert.notInclude(out.message, "ERR_MODULE_NOT_FOUND")
    assert.notInclude(ran.stderr, "ERR_MODULE_NOT_FOUND")
  })

  it("a configuration given as an object needs no file system: it connects", () => {
    const ran = runWithout(
      `
      import { NodePromise } from "@mcp-effect/client/node"
      const servers = await NodePromise.connectServers(JSON.parse(process.argv[1]))
      console.log(JSON.stringify({ clients: Object.keys(servers.clients), failures: servers.failures.length }))
      await servers.close()
      `,
      JSON.stringify(config)
    )
    assert.strictEqual(ran.status, 0, ran.stderr)
    assert.deepStrictEqual(JSON.parse(ran.stdout.trim()), { clients: ["local"], failures: 0 })
  })
})
