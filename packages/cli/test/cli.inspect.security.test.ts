/**
 * The inspector's local server refuses what is not its page: no token, another token, a foreign `Origin`, a
 * `Host` that is not its own (DNS rebinding), a token in a query string; and spawns nothing for a refused
 * request. The server it would start writes a marker file the moment it runs, so "nothing spawned" is
 * observed, and the last request (with everything right) shows that the marker does appear when it runs.
 * Also: a non-loopback `--host` needs `--allow-remote`.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs"
import { createServer, request } from "node:http"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, assert, beforeAll, describe, it } from "vitest"
import { type Inspector, startInspector } from "./fixtures/inspector.js"
import { run } from "./fixtures/run.js"
import * as Effect from "effect/Effect"

const dir = mkdtempSync(path.join(tmpdir(), "mcp-effect-inspect-"))
const marker = path.join(dir, "spawned")
const server = path.join(dir, "server.cjs")
let inspector: Inspector

beforeAll(async () => {
  writeFileSync(server, `require("node:fs").writeFileSync(${JSON.stringify(marker)}, String(process.pid)); setInterval(() => {}, 1000)\n`)
  inspector = await startInspector(["--", process.execPath, server])
})

afterAll(async () => {
  await inspector.stop()
  rmSync(dir, { recursive: true, force: true })
})

interface Answer {
  readonly status: number
  readonly body: string
}

/** A raw request (node:http, so that `Host` and `Origin` can be anything). */
const send = (pathname: string, headers: Readonly<Record<string, string>>, body?: string): Promise<Answer> =>
  new Promise((resolve, reject) => {
    const req = request(
      { host: "127.0.0.1", port: inspector.port, path: pathname, method: body === undefined ? "GET" : "POST", headers },
      (res) => {
        let text = ""
        res.on("data", (chunk: Buffer) => void (text += chunk.toString()))
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }))
      }
    )
    req.on("error", reject)
    req.end(body)
  })

const own = () => ({ host: `127.0.0.1:${inspector.port}`, origin: inspector.origin })
const start = '{"target":"0"}'

describe("mcp-effect inspect: the relay is locked", () => {
  it("no token: 401, nothing spawned", async () => {
    const answer = await send("/api/stdio", own(), start)
    assert.strictEqual(answer.status, 401)
    assert.isFalse(existsSync(marker))
  })

  it("a request target in absolute form or another spelling of a path, no token: 401, nothing spawned", async () => {
    for (const target of [`http://127.0.0.1:${inspector.port}/api/stdio`, "//api/stdio", "/./api/stdio", "/API/stdio"]) {
      const answer = await send(target, own(), start)
      assert.strictEqual(answer.status, 401, target)
    }
    assert.isFalse(existsSync(marker))
  })

  it("a wrong token: 401, nothing spawned", async () => {
    const answer = await send("/api/stdio", { ...own(), "x-inspector-token": `${inspector.token.slice(0, -2)}AA` }, start)
    assert.strictEqual(answer.status, 401)
    assert.isFalse(existsSync(marker))
  })

  it("a foreign Origin, with the right token: 403, nothing spawned", async () => {
    const answer = await send("/api/stdio", { ...own(), origin: "http://evil.example", "x-inspector-token": inspector.token }, start)
    assert.strictEqual(answer.status, 403)
    assert.isFalse(existsSync(marker))
  })

  it("a rebinding Host (another name for 127.0.0.1), with the right token: 403, nothing spawned", async () => {
    const host = `evil.example:${inspector.port}`
    const answer = await send("/api/stdio", { host, origin: `http://${host}`, "x-inspector-token": inspector.token }, start)
    assert.strictEqual(answer.status, 403)
    const page = await send("/", { host })
    assert.strictEqual(page.status, 403, "the page itself is not served under another name")
    assert.isFalse(existsSync(marker))
  })

  it("the token in a query string: refused (400), nothing spawned", async () => {
    const answer = await send(`/api/stdio?token=${inspector.token}`, own(), start)
    assert.strictEqual(answer.status, 400)
    const page = await send(`/?token=${inspector.token}`, own())
    assert.strictEqual(page.status, 400)
    assert.isFalse(existsSync(marker))
  })

  it("the HTTP relay: no token, 401, nothing forwarded", async () => {
    let reached = 0
    const upstream = createServer((_req, res) => {
      reached++
      res.end("{}")
    })
    await new Promise<void>((done) => upstream.listen(0, "127.0.0.1", done))
    const address = upstream.address()
    const target = `http://127.0.0.1:${typeof address === "object" && address !== null ? address.port : 0}/mcp`
    const refused = await send("/api/http", { ...own(), "x-inspector-target": target, "content-type": "application/json" }, "{}")
    assert.strictEqual(refused.status, 401)
    assert.strictEqual(reached, 0)
    const forwarded = await send("/api/http", { ...own(), "x-inspector-token": inspector.token, "x-inspector-target": target }, "{}")
    assert.strictEqual(forwarded.status, 200, "with the token it is forwarded (the check above was not vacuous)")
    assert.strictEqual(reached, 1)
    await new Promise<void>((done) => upstream.close(() => done()))
  })

  it("the token is not in the command's output but its one line", () => {
    const lines = inspector.stdout().trim().split("\n")
    assert.deepStrictEqual(lines, [`mcp-effect inspector: ${inspector.url}`])
    assert.notInclude(inspector.stderr(), inspector.token)
  })

  it("everything right: the server starts (the marker shows the checks above were not vacuous)", async () => {
    const answer = await send("/api/stdio", { ...own(), "x-inspector-token": inspector.token }, start)
    assert.strictEqual(answer.status, 201)
    for (let i = 0; i < 200 && !existsSync(marker); i++) await new Promise((r) => setTimeout(r, 25))
    assert.isTrue(existsSync(marker))
  })

  it("Ctrl-C (SIGINT) ends the command and the server it started", async () => {
    const pid = Number(readFileSync(marker, "utf8"))
    assert.isTrue(Number.isInteger(pid) && pid > 0)
    await inspector.stop()
    const alive = () => {
      try {
        process.kill(pid, 0)
        return true
      } catch {
        return false
      }
    }
    // The server is ended with the command (stdin closed, SIGTERM, SIGKILL to its group); reaping takes a moment.
    for (let i = 0; i < 200 && alive(); i++) await new Promise((r) => setTimeout(r, 25))
    assert.isFalse(alive())
  })
})

describe("mcp-effect inspect: the browser", () => {
  it("is opened ($BROWSER) on a private page that sends it to the inspector: the token is on no command line", async () => {
    const opened = path.join(dir, "opened")
    const browser = path.join(dir, "browser.sh")
    writeFileSync(browser, `#!/bin/sh\nprintf '%s' "$1" >> ${JSON.stringify(opened)}\n`, { mode: 0o755 })
    const withBrowser = await startInspector([], { BROWSER: browser }, true)
    for (let i = 0; i < 200 && !existsSync(opened); i++) await new Promise((r) => setTimeout(r, 25))
    const argument = readFileSync(opened, "utf8")
    assert.notInclude(argument, withBrowser.token)
    const launcher = fileURLToPath(argument)
    assert.strictEqual(statSync(launcher).mode & 0o777, 0o600)
    assert.strictEqual(statSync(path.dirname(launcher)).mode & 0o777, 0o700)
    assert.include(readFileSync(launcher, "utf8"), `location.replace(${JSON.stringify(withBrowser.url)})`)
    await withBrowser.stop()
    // Gone with the inspector.
    assert.isFalse(existsSync(launcher))
  })
})

describe("mcp-effect inspect: the command line", () => {
  it("--port on a port in use: exit 2 saying so, no line", async () => {
    const taken = createServer()
    await new Promise<void>((done) => taken.listen(0, "127.0.0.1", done))
    const address = taken.address()
    const port = typeof address === "object" && address !== null ? address.port : 0
    const ran = await Effect.runPromise(run(["inspect", "--no-open", "--port", String(port)], { env: { BROWSER: "none" } }))
    await new Promise<void>((done) => taken.close(() => done()))
    assert.strictEqual(ran.code, 2)
    assert.include(ran.stderr, `cannot listen on 127.0.0.1:${port}`)
    assert.strictEqual(ran.stdout, "")
  })

  it("a configuration with a broken entry: the others are offered, the broken one is named on stderr", async () => {
    const config = path.join(dir, "broken.json")
    writeFileSync(config, JSON.stringify({ mcpServers: { good: { command: process.execPath, args: [server] }, bad: { url: 42 } } }))
    const started = await startInspector(["-c", config])
    const targets = await fetch(`${started.origin}/api/targets`, { headers: { "x-inspector-token": started.token } })
    const body = await targets.json() as { targets: ReadonlyArray<{ name: string }> }
    await started.stop()
    assert.deepStrictEqual(body.targets.map((t) => t.name), ["good"])
    assert.include(started.stderr(), "bad")
  })
})

describe("mcp-effect inspect: --host", () => {
  it("a non-loopback --host without --allow-remote is a usage error (exit 2), nothing listens", async () => {
    const ran = await Effect.runPromise(run(["inspect", "--no-open", "--host", "0.0.0.0"], { env: { BROWSER: "none" } }))
    assert.strictEqual(ran.code, 2)
    assert.include(ran.stderr, "--allow-remote")
    assert.strictEqual(ran.stdout, "")
  })
})
