/**
 * A tool's `structuredContent` is checked against its `outputSchema` where code generation is refused: in
 * Cloudflare's workerd (`wrangler dev --local`) and in headless Chromium on a page whose CSP has no
 * `'unsafe-eval'`. The client's main entry is bundled from its sources with esbuild (browser platform, no
 * externals); the server is the official SDK's (`fixtures/outputSchemaServer.mjs`). A conforming result passes,
 * a non-conforming one fails with `McpInvalidResponseError`, and a near miss of `^(a+)+$` fails promptly (its
 * pattern ran on RE2, not on the runtime's backtracking engine). No diagnostic says the schema went unused.
 */
import { build } from "esbuild"
import { spawn } from "node:child_process"
import type { ChildProcess } from "node:child_process"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { createServer } from "node:net"
import { createRequire } from "node:module"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { createInterface } from "node:readline"
import { chromium } from "playwright-core"
import type { Browser } from "playwright-core"
import { afterAll, assert, beforeAll, describe, it } from "vitest"
import { repo, startListening } from "./fixtures/project.js"
import type { RunningServer } from "./fixtures/project.js"

const require = createRequire(import.meta.url)
const pageHost = require.resolve("@mcp-effect/test-servers/page-host")
const CHROMIUM = process.env["MCP_EFFECT_CHROMIUM"] ?? "/usr/bin/chromium-headless-shell"
const COMPATIBILITY_DATE = "2026-11-01"
/** The page's policy: scripts from its own origin only, so `eval` and `new Function` are refused. */
const CSP = "default-src 'self'; script-src 'self'; connect-src 'self'"

interface Outcome {
  readonly ok: boolean
  readonly tag?: string
  readonly message?: string
  readonly structuredContent?: unknown
}
interface Calls {
  readonly evalRefused: boolean
  readonly good: Outcome
  readonly bad: Outcome
  readonly redos: Outcome
  readonly redosMillis: number
  readonly diagnostics: ReadonlyArray<string>
}

const dir = mkdtempSync(path.join(tmpdir(), "mcp-effect-output-schema-"))
const servers: Array<RunningServer> = []
let wrangler: ChildProcess | undefined
let workerUrl = ""
let hostUrl = ""
let serverUrl = ""
let browser: Browser | undefined

const bundle = (entry: string, outfile: string) =>
  build({
    entryPoints: [path.join(import.meta.dirname, "fixtures", entry)],
    outfile: path.join(dir, outfile),
    bundle: true,
    platform: "browser",
    format: "esm",
    conditions: ["@mcp-effect/source", "worker", "browser"],
    logLevel: "silent"
  })

const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const probe = createServer()
    probe.once("error", reject)
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      probe.close(() => resolve(port))
    })
  })

/** `wrangler dev --local` on the pre-bundled Worker (`--no-bundle`); resolves with its address. */
const startWrangler = async (): Promise<string> => {
  writeFileSync(
    path.join(dir, "wrangler.toml"),
    `name = "output-schema"\nmain = "worker.js"\ncompatibility_date = "${COMPATIBILITY_DATE}"\ncompatibility_flags = ["nodejs_compat"]\n`
  )
  const [port, inspectorPort] = [await freePort(), await freePort()]
  const child = spawn(
    path.join(repo, "node_modules/.bin/wrangler"),
    ["dev", "--local", "--no-bundle", "--ip", "127.0.0.1", "--port", String(port), "--inspector-port", String(inspectorPort), "--show-interactive-dev-session=false"],
    {
      cwd: dir,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
      env: {
        ...process.env,
        PATH: `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH ?? ""}`,
        CLOUDFLARE_CF_FETCH_ENABLED: "false",
        WRANGLER_SEND_METRICS: "false"
      }
    }
  )
  wrangler = child
  const output: Array<string> = []
  return new Promise((resolve, reject) => {
    for (const stream of [child.stdout, child.stderr]) {
      createInterface({ input: stream }).on("line", (line) => {
        output.push(line)
        const ready = /Ready on (http:\/\/\S+)/.exec(line)
        if (ready?.[1] !== undefined) resolve(ready[1])
      })
    }
    child.once("exit", (code) => reject(new Error(`wrangler exited (${code}):\n${output.join("\n")}`)))
  })
}

beforeAll(async () => {
  await Promise.all([bundle("worker-output.mjs", "worker.js"), bundle("page-output.mjs", "page.js")])
  writeFileSync(
    path.join(dir, "page.html"),
    `<!doctype html><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="${CSP}">` +
      `<title>outputSchema</title><script type="module" src="./page.js"></script>\n`
  )
  const server = await startListening(path.join(import.meta.dirname, "fixtures/outputSchemaServer.mjs"), [])
  servers.push(server)
  serverUrl = server.url
  const host = await startListening(pageHost, ["--root", dir, "--upstream", `output=${server.url}`])
  servers.push(host)
  hostUrl = host.url
  workerUrl = await startWrangler()
  browser = await chromium.launch({ executablePath: CHROMIUM })
}, 240_000)

afterAll(async () => {
  await browser?.close()
  const child = wrangler
  if (child?.pid !== undefined && child.exitCode === null) {
    await new Promise<void>((resolve) => {
      child.once("exit", () => resolve())
      process.kill(-(child.pid ?? 0), "SIGTERM")
    })
  }
  await Promise.all(servers.map((server) => server.stop()))
  rmSync(dir, { recursive: true, force: true })
})

const inWorker = async (): Promise<Calls> => {
  const response = await fetch(`${workerUrl}/?url=${encodeURIComponent(serverUrl)}`)
  const body = await response.text()
  if (!response.ok) throw new Error(`the Worker answered ${response.status}: ${body.slice(0, 2000)}`)
  return JSON.parse(body) as Calls
}

const inPage = async (): Promise<Calls> => {
  if (browser === undefined) throw new Error("no browser")
  const page = await browser.newPage()
  const violations: Array<string> = []
  page.on("console", (message) => {
    if (message.type() === "error") violations.push(message.text())
  })
  try {
    await page.goto(`${hostUrl}page.html`)
    await page.waitForFunction(() => "runOutputSchemaCalls" in globalThis, undefined, { timeout: 10_000 })
    const calls = await page.evaluate(() =>
      (globalThis as unknown as { runOutputSchemaCalls: () => Promise<Calls> }).runOutputSchemaCalls()
    )
    // The CSP refusal of our own `new Function` probe is the only one: the client generated no code.
    assert.isAtMost(violations.filter((text) => /unsafe-eval|Content Security Policy/i.test(text)).length, 1, violations.join("\n"))
    return calls
  } finally {
    await page.close()
  }
}

const runtimes = { "workerd (wrangler dev)": inWorker, "Chromium, CSP without 'unsafe-eval'": inPage } as const

for (const [runtime, run] of Object.entries(runtimes)) {
  describe(`outputSchema checked in ${runtime}`, () => {
    let calls: Promise<Calls> | undefined
    const once = () => (calls ??= run())

    it("the runtime refuses code generation", async () => {
      assert.isTrue((await once()).evalRefused)
    }, 60_000)

    it("a conforming structuredContent passes", async () => {
      assert.deepStrictEqual((await once()).good, { ok: true, structuredContent: { temperature: 21, sky: "clear", code: "aaa" } })
    }, 60_000)

    it("a non-conforming one fails with McpInvalidResponseError, never unchecked", async () => {
      const { bad, diagnostics } = await once()
      assert.strictEqual(bad.tag, "McpInvalidResponseError", JSON.stringify(bad))
      assert.match(bad.message ?? "", /structuredContent of tool weather does not match its outputSchema/)
      assert.match(bad.message ?? "", /\/temperature .*Expected "number"/)
      assert.notInclude(diagnostics, "UnusableOutputSchema")
    }, 60_000)

    it("a near miss of ^(a+)+$ is a prompt mismatch (RE2, no backtracking)", async () => {
      const { redos, redosMillis } = await once()
      assert.strictEqual(redos.tag, "McpInvalidResponseError", JSON.stringify(redos))
      assert.match(redos.message ?? "", /\/code must match pattern/)
      assert.isBelow(redosMillis, 10_000)
    }, 60_000)
  })
}
