/**
 * Node older than 22.19 (issue 26, item 6), on a real old Node of this machine (Debian's Node 20, `/usr/bin/node`;
 * any Node on PATH older than 22.19 will do): the Node entry loads, running nothing at import (the package says
 * `"sideEffects": []`), and its stdio and HTTP transports refuse to connect with an `McpTransportError` naming
 * the version needed and the one found (undici 8, which does not load there, is never loaded), while the
 * portable entry loads and talks to a real server over HTTP on `fetch`.
 * Skipped, saying so, where no such Node is installed. What each package declares follows its entries (issue 33,
 * item 23): `engines` is per package, so the client's and the toolkit's say the portable entry's floor (Node 20),
 * which this old Node meets, and the CLI's (the Node wing alone) says 22.19.
 */
import { spawn, spawnSync } from "node:child_process"
import * as fs from "node:fs"
import { createRequire } from "node:module"
import * as path from "node:path"
import { afterAll, assert, beforeAll, describe, it } from "vitest"

const official = createRequire(import.meta.url).resolve("@mcp-effect/test-servers/official")
const repo = path.resolve(import.meta.dirname, "../../../..")

const versionOf = (binary: string): string | undefined => {
  const result = spawnSync(binary, ["--version"], { encoding: "utf8" })
  return result.status === 0 ? result.stdout.trim().replace(/^v/, "") : undefined
}

const older = (version: string) => {
  const [major = 0, minor = 0] = version.split(".").map(Number)
  return major < 22 || (major === 22 && minor < 19)
}

/** A Node binary older than 22.19: on PATH, or Debian's. */
const oldNode = (() => {
  const candidates = [
    ...(process.env["PATH"] ?? "").split(path.delimiter).map((dir) => path.join(dir, "node")),
    "/usr/bin/node",
    "/usr/local/bin/node"
  ]
  for (const candidate of new Set(candidates)) {
    if (!fs.existsSync(candidate)) continue
    const version = versionOf(candidate)
    if (version !== undefined && older(version)) return { binary: candidate, version }
  }
  return undefined
})()

const runOld = (source: string) => {
  if (oldNode === undefined) throw new Error("no old Node")
  return spawnSync(oldNode.binary, ["--input-type=module", "-e", source], { cwd: repo, encoding: "utf8", timeout: 60_000 })
}

let server: { readonly url: string; readonly stop: () => void } | undefined
beforeAll(async () => {
  if (oldNode === undefined) return
  const child = spawn(process.execPath, [official, "--http", "--port", "0", "--era", "both"], { stdio: ["ignore", "pipe", "inherit"] })
  const url = await new Promise<string>((resolve, reject) => {
    let out = ""
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString()
      const found = /listening (\S+)/.exec(out)
      if (found?.[1] !== undefined) resolve(found[1])
    })
    child.once("exit", () => reject(new Error(`the server exited: ${out}`)))
  })
  server = { url, stop: () => child.kill("SIGTERM") }
})
afterAll(() => server?.stop())

/** Whether `version` meets an `engines.node` range of the form `>=MAJOR[.MINOR[.PATCH]]` (the only form used). */
const meets = (version: string, range: string): boolean => {
  const floor = /^>=(\d+)(?:\.(\d+))?(?:\.(\d+))?$/.exec(range.trim())
  if (floor === null) throw new Error(`an engines range of another form: ${range}`)
  const have = version.split(".").map(Number)
  const need = [Number(floor[1]), Number(floor[2] ?? 0), Number(floor[3] ?? 0)]
  for (let i = 0; i < 3; i++) {
    if ((have[i] ?? 0) !== need[i]) return (have[i] ?? 0) > (need[i] ?? 0)
  }
  return true
}

const enginesOf = (pkg: string): string => {
  const manifest = JSON.parse(fs.readFileSync(path.join(repo, "packages", pkg, "package.json"), "utf8")) as {
    readonly engines: { readonly node: string }
  }
  return manifest.engines.node
}

describe("engines: what each package declares", () => {
  it("the client and the toolkit admit Node 20 (the portable entry's floor); the CLI asks for 22.19 (the Node wing's)", () => {
    assert.isTrue(meets("20.0.0", enginesOf("client")), enginesOf("client"))
    assert.isTrue(meets("20.0.0", enginesOf("ai")), enginesOf("ai"))
    assert.isFalse(meets("18.20.0", enginesOf("client")), "nothing older than the tested floor is promised")
    assert.strictEqual(enginesOf("cli"), ">=22.19")
  })

  it.skipIf(oldNode === undefined)("this old Node meets the client's and the toolkit's engines", () => {
    assert.isTrue(meets(oldNode?.version ?? "", enginesOf("client")))
    assert.isTrue(meets(oldNode?.version ?? "", enginesOf("ai")))
  })
})

describe(`on Node ${oldNode?.version ?? "(none older than 22.19 installed)"}`, () => {
  it.skipIf(oldNode === undefined)("the Node entry loads; connecting over stdio or HTTP fails, naming both versions", () => {
    const result = runOld(`
      import { createRequire } from "node:module"
      const node = await import("@mcp-effect/client/node")
      const outcome = (connect) =>
        connect().then(() => "connected", (error) => ({ tag: error._tag, reason: error.reason, detail: error.detail }))
      const stdio = await outcome(() => node.connectStdio({ command: process.execPath, args: [${JSON.stringify(official)}] }))
      const http = await outcome(() => node.connectHttp({ url: ${JSON.stringify(server?.url)} }))
      const undici = Object.keys(createRequire(import.meta.url).cache).some((file) => file.includes("/node_modules/undici/"))
      console.log(JSON.stringify({ stdio, http, undici }))
    `)
    assert.strictEqual(result.status, 0, result.stderr)
    const detail = `@mcp-effect/client/node needs Node 22.19 or newer; this is Node ${oldNode?.version}. ` +
      `Install a newer Node (https://nodejs.org), or use the portable entry "@mcp-effect/client" (connectHttp on fetch).`
    assert.deepStrictEqual(JSON.parse(result.stdout.trim()), {
      stdio: { tag: "McpTransportError", reason: "Spawn", detail },
      http: { tag: "McpTransportError", reason: "Http", detail },
      undici: false
    })
  })

  it.skipIf(oldNode === undefined)("the toolkit (@mcp-effect/ai) and the portable entry's subpaths load", () => {
    const result = runOld(`
      const ai = await import("@mcp-effect/ai")
      const core = await import("@mcp-effect/client")
      const auth = await import("@mcp-effect/client/McpAuth")
      console.log(JSON.stringify({ ai: typeof ai.McpToolkit, connectHttp: typeof core.connectHttp, auth: typeof auth.layer }))
    `)
    assert.strictEqual(result.status, 0, result.stderr)
    assert.deepStrictEqual(JSON.parse(result.stdout.trim()), { ai: "object", connectHttp: "function", auth: "function" })
  })

  it.skipIf(oldNode === undefined)("the portable entry loads and connectHttp (fetch) lists and calls a real server", () => {
    const result = runOld(`
      import { connectHttp } from "@mcp-effect/client"
      const client = await connectHttp({ url: ${JSON.stringify(server?.url)} })
      const tools = (await client.listTools()).map((tool) => tool.name)
      const echoed = await client.callTool("echo", { text: "from an old Node" })
      console.log(JSON.stringify({ era: await client.era(), hasEcho: tools.includes("echo"), text: echoed.content[0]?.text }))
      await client.close()
    `)
    assert.strictEqual(result.status, 0, result.stderr)
    assert.deepStrictEqual(JSON.parse(result.stdout.trim()), { era: "modern", hasEcho: true, text: "from an old Node" })
  })
})
