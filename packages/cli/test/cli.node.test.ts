/**
 * The Node version check of `bin/mcp-effect.js`: on a Node older than 22.19 the command stops at once with a
 * message naming the version it needs and the one it found (exit 2), before the bundle is loaded; on the
 * repository's Node 22 it starts as usual; under Bun or Deno it is not refused. Each runs a real runtime found
 * on this machine (`which -a`, and the usual install paths), and is skipped, saying so, when there is none.
 */
import { spawnSync } from "node:child_process"
import { existsSync, readFileSync } from "node:fs"
import { homedir } from "node:os"
import * as path from "node:path"
import { assert, describe, it } from "vitest"
import { bin } from "./fixtures/run.js"

const version: string = JSON.parse(readFileSync(path.join(import.meta.dirname, "../package.json"), "utf8")).version

/** Every executable of that name on PATH (`which -a`), then the given paths that exist, without repeats. */
const installed = (name: string, known: ReadonlyArray<string>): ReadonlyArray<string> => {
  const which = spawnSync("which", ["-a", name], { encoding: "utf8" })
  const onPath = which.status === 0 ? which.stdout.split("\n").filter((line) => line !== "") : []
  return [...new Set([...onPath, ...known.filter((file) => existsSync(file))])]
}

/** The Node version an executable reports, or undefined when it does not run. */
const nodeVersionOf = (node: string): string | undefined => {
  const result = spawnSync(node, ["-p", "process.versions.node"], { encoding: "utf8", timeout: 30_000 })
  return result.status === 0 ? result.stdout.trim() : undefined
}

const isOlder = (found: string) => {
  const [major = 0, minor = 0] = found.split(".").map(Number)
  return major < 22 || (major === 22 && minor < 19)
}

/** A Node older than 22.19 on this machine, with its version. */
const oldNode = installed("node", ["/usr/bin/node", "/usr/local/bin/node"])
  .map((node) => ({ node, found: nodeVersionOf(node) }))
  .find((candidate) => candidate.found !== undefined && isOlder(candidate.found))

const bun = installed("bun", [path.join(homedir(), ".bun/bin/bun")])[0]
const deno = installed("deno", [path.join(homedir(), ".deno/bin/deno")])[0]

const runWith = (command: string, args: ReadonlyArray<string>) => {
  const result = spawnSync(command, [...args], { encoding: "utf8", timeout: 60_000 })
  return { code: result.status, stdout: result.stdout, stderr: result.stderr }
}

describe("the Node version check", () => {
  it.skipIf(oldNode === undefined)(
    oldNode === undefined
      ? "Node older than 22.19 is refused (skipped: no Node older than 22.19 on this machine)"
      : `Node ${oldNode.found} (${oldNode.node}) is refused, naming both versions, exit 2`,
    () => {
      if (oldNode === undefined || oldNode.found === undefined) return
      const ran = runWith(oldNode.node, [bin, "--version"])
      assert.strictEqual(ran.code, 2)
      assert.strictEqual(ran.stderr, `mcp-effect needs Node 22.19 or newer; this is Node ${oldNode.found}\n`)
      assert.strictEqual(ran.stdout, "")
    }
  )

  it("the repository's Node 22 starts the command", () => {
    assert.isFalse(isOlder(process.versions.node), `this test runs on Node ${process.versions.node}`)
    const ran = runWith(process.execPath, [bin, "--version"])
    assert.strictEqual(ran.code, 0, ran.stderr)
    assert.strictEqual(ran.stdout.trim(), version)
    assert.notInclude(ran.stderr, "needs Node")
  })

  it.skipIf(bun === undefined)("Bun is not refused (skipped: no bun on this machine)", () => {
    if (bun === undefined) return
    const ran = runWith(bun, [bin, "--version"])
    assert.notInclude(ran.stderr, "needs Node")
    assert.strictEqual(ran.stdout.trim(), version, ran.stderr)
  })

  it.skipIf(deno === undefined)("Deno is not refused (skipped: no deno on this machine)", () => {
    if (deno === undefined) return
    const ran = runWith(deno, ["run", "--allow-all", bin, "--version"])
    assert.notInclude(ran.stderr, "needs Node")
    assert.strictEqual(ran.stdout.trim(), version, ran.stderr)
  })
})
