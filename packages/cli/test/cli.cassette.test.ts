/**
 * `record`, `replay` and `verify` as real processes, with clients and servers written by others: the official
 * SDK 1.x client as the host, `@modelcontextprotocol/server-everything` over stdio and the official SDK 2.x
 * server over Streamable HTTP (legacy era), and a scripted server whose tool changes for `verify`. Every
 * cassette is searched byte by byte for the secrets given on the command line and sent by the host.
 */
import { assert, describe, it } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { followAuthorization, startOAuthProtected } from "@mcp-effect/test-servers/oauth-protected"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import { type ChildProcess, spawn } from "node:child_process"
import * as fs from "node:fs"
import { createServer as createHttpServer, request as httpRequest, type Server as HttpServer } from "node:http"
import { type AddressInfo, createServer as createNetServer } from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { bin, everything, launch, official, run } from "./fixtures/run.js"

const fixture = path.join(import.meta.dirname, "fixtures/cassette-server.mjs")
const envServer = path.join(import.meta.dirname, "../../client/test/fixtures/envServer.mjs")
const ENV_SECRET = "env-secret-7f3a9c2e41"
const HEADER_SECRET = "header-secret-0b8d6e5f92"
const HOST_TOKEN = "host-token-c4e1a7d3b6f8"
const DPOP_PROOF = "eyJ0eXAiOiJkcG9wK2p3dCJ9.eyJodG0iOiJQT1NUIn0.c2lnbmF0dXJlLXByb29m"
const COOKIE = "cookie-value-9a8b7c6d5e"

const freePort = Effect.promise(() =>
  new Promise<number>((resolve, reject) => {
    const server = createNetServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      server.close(() => resolve(port))
    })
  })
)

const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), "mcp-cassette-"))

/** Every form a secret could be written in: as it is, base64, percent-encoded. */
const assertAbsent = (file: string, secrets: ReadonlyArray<string>) => {
  const bytes = fs.readFileSync(file)
  for (const secret of secrets) {
    for (const form of [secret, Buffer.from(secret).toString("base64"), encodeURIComponent(secret)]) {
      assert.strictEqual(bytes.indexOf(Buffer.from(form)), -1, `${form} found in ${file}`)
    }
  }
}

const lines = (file: string) => fs.readFileSync(file, "utf8").trim().split("\n").map((l) => JSON.parse(l) as Record<string, unknown>)

/** The official SDK's client on a transport, closed with the scope. */
const sdkClient = (transport: StdioClientTransport | StreamableHTTPClientTransport) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const client = new Client({ name: "sdk-host", version: "1.0.0" })
      await client.connect(transport)
      return client
    }),
    (client) => Effect.promise(() => client.close())
  )

/** `mcp-effect ARGS` that prints a URL as its first stdout line; the process and the URL. */
const startPrintingUrl = (args: ReadonlyArray<string>): Effect.Effect<{ url: string; child: ChildProcess }, Error, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.callback<{ url: string; child: ChildProcess }, Error>((resume) => {
      const child = spawn(process.execPath, [bin, ...args], { stdio: ["pipe", "pipe", "pipe"] })
      let out = ""
      let err = ""
      child.stdout.on("data", (chunk: Buffer) => {
        out += chunk.toString()
        const match = /^(http:\/\/127\.0\.0\.1:\d+\/\S*)\n/.exec(out)
        if (match?.[1] !== undefined) resume(Effect.succeed({ url: match[1], child }))
      })
      child.stderr.on("data", (chunk: Buffer) => void (err += chunk.toString()))
      child.on("exit", (code) => resume(Effect.fail(new Error(`exited (${code}) before printing its URL: ${err}`))))
    }),
    ({ child }) => Effect.sync(() => void (child.exitCode === null && child.kill("SIGKILL")))
  )

/** Ctrl-C to a process, and its exit code. */
const interrupt = (child: ChildProcess) =>
  Effect.callback<number | null>((resume) => {
    if (child.exitCode !== null) return resume(Effect.succeed(child.exitCode))
    child.once("exit", (code) => resume(Effect.succeed(code)))
    child.kill("SIGINT")
  })

/** The host has gone: the file is complete once the recorder exits. */
const waitForExit = (child: ChildProcess | undefined) =>
  Effect.callback<void>((resume) => {
    if (child === undefined || child.exitCode !== null || child.signalCode !== null) return resume(Effect.void)
    child.once("exit", () => resume(Effect.void))
  })

describe("mcp-effect record / replay / verify", () => {
  it.live("stdio: the SDK's client records server-everything through record; no secret in the file; replay answers the same", () =>
    Effect.gen(function*() {
      const file = path.join(tmp(), "everything.ndjson")
      const recording = new StdioClientTransport({
        command: process.execPath,
        args: [bin, "record", file, "--env", `API_KEY=${ENV_SECRET}`, "--", process.execPath, everything, "stdio"],
        stderr: "pipe"
      })
      const live = yield* Effect.scoped(Effect.gen(function*() {
        const client = yield* sdkClient(recording)
        const tools = yield* Effect.promise(() => client.listTools())
        const sum = yield* Effect.promise(() => client.callTool({ name: "get-sum", arguments: { a: 2, b: 3 } }))
        // The server echoes the secret back in its answer.
        const echoed = yield* Effect.promise(() => client.callTool({ name: "echo", arguments: { message: `key ${ENV_SECRET}` } }))
        assert.include(JSON.stringify(echoed), ENV_SECRET)
        return { tools, sum }
      }))
      yield* waitForExit(recording["_process"] as ChildProcess | undefined)

      assertAbsent(file, [ENV_SECRET])
      const [header, ...entries] = lines(file)
      assert.deepInclude(header, { format: "mcp-effect/cassette", version: 1, era: "legacy", transport: "stdio" })
      assert.strictEqual((header?.["server"] as { name: string }).name, "mcp-servers/everything")
      const echo = entries.find((e) => JSON.stringify(e["message"]).includes("Echo: key"))
      assert.include(JSON.stringify(echo?.["message"]), "Echo: key [redacted]")
      assert.deepStrictEqual(echo?.["redacted"], ["--env value"])

      // The SDK's client again, answered from the cassette alone.
      const replayed = yield* Effect.scoped(Effect.gen(function*() {
        const client = yield* sdkClient(new StdioClientTransport({ command: process.execPath, args: [bin, "replay", file, "--fast"] }))
        const tools = yield* Effect.promise(() => client.listTools())
        const sum = yield* Effect.promise(() => client.callTool({ name: "get-sum", arguments: { a: 2, b: 3 } }))
        return { tools, sum }
      }))
      assert.deepStrictEqual(replayed, live)

      // A request other than the recorded one: the SDK's call fails, naming the expected request.
      const mismatch = yield* Effect.scoped(Effect.gen(function*() {
        const client = yield* sdkClient(new StdioClientTransport({ command: process.execPath, args: [bin, "replay", file, "--fast"], stderr: "pipe" }))
        yield* Effect.promise(() => client.listTools())
        return yield* Effect.promise(() => client.callTool({ name: "get-sum", arguments: { a: 5, b: 3 } }).then(() => "answered", (e: Error) => e.message))
      }))
      assert.include(mismatch, `the cassette expected tools/call {"name":"get-sum","arguments":{"a":2,"b":3}}`)
      assert.include(mismatch, `params.arguments.a: 2 recorded, 5 now`)

      // Our client, which probes with server/discover first (the SDK's session has none: refused as the server did).
      const ours = yield* run(["call", "get-sum", "a=2", "b=3", "--", process.execPath, bin, "replay", file, "--fast"])
      assert.deepStrictEqual([ours.code, ours.stdout], [0, "The sum of 2 and 3 is 5.\n"])

      // --any-order: the recorded calls answered in another order.
      const reordered = yield* Effect.scoped(Effect.gen(function*() {
        const client = yield* sdkClient(new StdioClientTransport({ command: process.execPath, args: [bin, "replay", file, "--fast", "--any-order"] }))
        const echoed = yield* Effect.promise(() => client.callTool({ name: "echo", arguments: { message: "key [redacted]" } }))
        const sum = yield* Effect.promise(() => client.callTool({ name: "get-sum", arguments: { a: 2, b: 3 } }))
        return { echoed, sum }
      }))
      assert.deepStrictEqual(reordered.sum, live.sum)
      assert.deepStrictEqual(reordered.echoed.content, [{ type: "text", text: "Echo: key [redacted]" }])
    }), 60_000)

  it.live("HTTP (legacy era): record --url in front of the official SDK server; the host's token and --header never reach the file; replay --http answers the SDK's client", () =>
    Effect.gen(function*() {
      const dir = tmp()
      const file = path.join(dir, "official.ndjson")
      const upstream = yield* launch([official, "--http", "--port", "0", "--era", "legacy"])
      const recorder = yield* startPrintingUrl(["record", file, "--url", upstream, "--header", `X-Api-Key: ${HEADER_SECRET}`])
      assert.strictEqual(new URL(recorder.url).pathname, new URL(upstream).pathname)
      const live = yield* Effect.scoped(Effect.gen(function*() {
        const client = yield* sdkClient(new StreamableHTTPClientTransport(new URL(recorder.url), {
          requestInit: { headers: { Authorization: `Bearer ${HOST_TOKEN}`, DPoP: DPOP_PROOF, Cookie: `sid=${COOKIE}` } }
        }))
        const tools = yield* Effect.promise(() => client.listTools())
        const sum = yield* Effect.promise(() => client.callTool({ name: "add", arguments: { a: 1, b: 2 } }))
        // The server echoes what it is given: the host's token and the header's value come back in answers.
        const echoed = yield* Effect.promise(() => client.callTool({ name: "echo", arguments: { text: `${HOST_TOKEN} ${HEADER_SECRET}` } }))
        assert.include(JSON.stringify(echoed), HOST_TOKEN)
        return { tools, sum }
      }))
      // Ctrl-C ends the recording and leaves a complete file.
      assert.strictEqual(yield* interrupt(recorder.child), 130)
      assertAbsent(file, [HOST_TOKEN, HEADER_SECRET, DPOP_PROOF, COOKIE])
      const [header, ...entries] = lines(file)
      assert.deepInclude(header, { era: "legacy", transport: "http", path: "/mcp" })
      const echo = entries.find((e) => e["from"] === "server" && JSON.stringify(e["message"]).includes("[redacted] [redacted]"))
      assert.isDefined(echo, "the echoed answer is kept with the markers in place")
      const first = entries.find((e) => e["from"] === "client") as { http: { headers: Record<string, string> } }
      assert.deepInclude(first.http.headers, { authorization: "[redacted]", dpop: "[redacted]", cookie: "[redacted]" })
      const initialized = entries.find((e) => (e["http"] as { headers?: Record<string, string> } | undefined)?.headers?.["mcp-session-id"] !== undefined)
      assert.match(String((initialized?.["http"] as { headers: Record<string, string> }).headers["mcp-session-id"]), /^session-\d+$/)

      const replay = yield* startPrintingUrl(["replay", file, "--http", "--fast"])
      const replayed = yield* Effect.scoped(Effect.gen(function*() {
        const client = yield* sdkClient(new StreamableHTTPClientTransport(new URL(replay.url)))
        const tools = yield* Effect.promise(() => client.listTools())
        const sum = yield* Effect.promise(() => client.callTool({ name: "add", arguments: { a: 1, b: 2 } }))
        return { tools, sum }
      }))
      assert.deepStrictEqual(replayed, live)
    }), 60_000)

  it.live("record --url sends the --header credentials to the upstream only: not to a host a path names, not for a web page", () =>
    Effect.gen(function*() {
      // Two plain servers noting what reaches them: the upstream, and another host a path tries to name.
      const noting = (seen: Array<string>) =>
        Effect.acquireRelease(
          Effect.promise(() =>
            new Promise<HttpServer>((resolve) => {
              const server = createHttpServer((req, res) => {
                seen.push(`${req.url ?? ""} ${String(req.headers["x-api-key"] ?? "")}`)
                res.writeHead(404).end()
              })
              server.listen(0, "127.0.0.1", () => resolve(server))
            })
          ),
          (server) => Effect.promise(() => new Promise<void>((resolve) => server.close(() => resolve())))
        ).pipe(Effect.map((server) => (server.address() as AddressInfo).port))
      const atUpstream: Array<string> = []
      const elsewhere: Array<string> = []
      const upstream = yield* noting(atUpstream)
      const other = yield* noting(elsewhere)
      const recorder = yield* startPrintingUrl([
        "record", path.join(tmp(), "proxy.ndjson"), "--url", `http://127.0.0.1:${upstream}/mcp`, "--header", `X-Api-Key: ${HEADER_SECRET}`
      ])
      const port = new URL(recorder.url).port
      // A raw request target (fetch would normalise it): `/.//host/x` resolves to another host as a URL.
      const send = (target: string, headers: Record<string, string> = {}) =>
        Effect.promise(() =>
          new Promise<number>((resolve) => {
            const req = httpRequest({ host: "127.0.0.1", port, path: target, headers }, (res) => {
              res.resume()
              resolve(res.statusCode ?? 0)
            })
            req.on("error", () => resolve(0))
            req.end()
          })
        )
      assert.strictEqual(yield* send(`/.//127.0.0.1:${other}/steal`), 404)
      assert.deepStrictEqual(elsewhere, [])
      assert.deepStrictEqual(atUpstream, [`//127.0.0.1:${other}/steal ${HEADER_SECRET}`])
      // A page's request (another Origin), and one through DNS rebinding (another Host): refused, nothing sent.
      assert.strictEqual(yield* send("/mcp", { origin: "https://evil.example" }), 403)
      assert.strictEqual(yield* send("/mcp", { host: `evil.example:${port}` }), 403)
      assert.strictEqual(yield* send("/mcp", { origin: "null" }), 403)
      assert.strictEqual(atUpstream.length, 1)
      // A loopback page (a local inspector) is a host like any other.
      assert.strictEqual(yield* send("/mcp", { origin: "http://localhost:6274" }), 404)
      assert.strictEqual(atUpstream.length, 2)
      assert.strictEqual(yield* interrupt(recorder.child), 130)
    }))

  it.live("HTTP (modern era): two sessions of our client recorded through record --url; replay --http answers them in turn at the recorded pacing; verify --url finds them the same", () =>
    Effect.gen(function*() {
      const file = path.join(tmp(), "modern.ndjson")
      const upstream = yield* launch([official, "--http", "--port", "0", "--era", "modern"])
      const recorder = yield* startPrintingUrl(["record", file, "--url", upstream])
      const add = yield* run(["call", "add", "a=1", "b=2", "--json", "--url", recorder.url])
      const slow = yield* run(["call", "slow", "ms=300", "steps=3", "--json", "--url", recorder.url])
      assert.deepStrictEqual([add.code, slow.code], [0, 0])
      assert.strictEqual(yield* interrupt(recorder.child), 130)
      const [header] = lines(file)
      assert.deepInclude(header, { era: "modern", transport: "http", protocolVersion: "2026-07-28" })

      const replay = yield* startPrintingUrl(["replay", file, "--http"])
      const again = yield* run(["call", "add", "a=1", "b=2", "--json", "--url", replay.url])
      const started = Date.now()
      const slowAgain = yield* run(["call", "slow", "ms=300", "steps=3", "--json", "--url", replay.url])
      // The recorded pacing: the slow call's 300 ms are waited again.
      assert.isAtLeast(Date.now() - started, 300)
      assert.deepStrictEqual([again.stdout, slowAgain.stdout], [add.stdout, slow.stdout])

      const verified = yield* run(["verify", file, "--url", upstream])
      assert.deepStrictEqual([verified.code, verified.stdout], [0, "same: 6 requests answered as recorded\n"])
    }), 60_000)

  it.live("HTTP with OAuth: a token from a real sign-in, sent by the host through record --url, never reaches the file", () =>
    Effect.gen(function*() {
      const server = yield* Effect.acquireRelease(Effect.promise(() => startOAuthProtected()), (s) => Effect.promise(s.close))
      const home = tmp()
      const port = yield* freePort
      const redirectUrl = `http://127.0.0.1:${port}/callback`
      // Signed in once, directly (the command follows the sign-in; the test plays the browser).
      const signIn = yield* run(["call", "whoami", "--url", server.mcpUrl, "--callback-port", String(port)], {
        env: { XDG_CONFIG_HOME: home, BROWSER: "none" },
        started: (child, output) => {
          let done = false
          child.stderr?.on("data", () => {
            const match = /^(http:\/\/127\.0\.0\.1:\d+\/auth\S*)$/m.exec(output().stderr)
            if (done || match?.[1] === undefined) return
            done = true
            void followAuthorization(new URL(match[1]), redirectUrl).then((landing) => fetch(landing)).then((r) => r.text())
          })
        }
      })
      assert.strictEqual(signIn.code, 0, signIn.stderr)
      const stored = JSON.parse(fs.readFileSync(path.join(home, "mcp-effect", "tokens.json"), "utf8")) as Record<string, { tokens?: { accessToken?: string } }>
      const token = Object.values(stored)[0]?.tokens?.accessToken ?? ""
      assert.isAbove(token.length, 10)

      const file = path.join(tmp(), "oauth.ndjson")
      const recorder = yield* startPrintingUrl(["record", file, "--url", server.mcpUrl])
      const call = yield* run(["call", "whoami", "--url", recorder.url, "--header", `Authorization: Bearer ${token}`])
      assert.deepStrictEqual([call.code, call.stdout], [0, "hello demo-user\n"], call.stderr)
      assert.strictEqual(yield* interrupt(recorder.child), 130)
      assertAbsent(file, [token])
      const kept = lines(file).filter((l) => (l["http"] as { headers?: Record<string, string> } | undefined)?.headers?.["authorization"] !== undefined)
      assert.isAbove(kept.length, 0)
      for (const line of kept) assert.strictEqual((line["http"] as { headers: Record<string, string> }).headers["authorization"], "[redacted]")
    }), 60_000)

  it.live("verify: 0 against the same server, 1 naming the changed tool and field (--json too), 3 when it cannot run", () =>
    Effect.gen(function*() {
      const file = path.join(tmp(), "scripted.ndjson")
      const recorded = yield* run([
        "call", "echo", "text=hi", "--", process.execPath, bin, "record", file, "--", process.execPath, fixture, "a"
      ])
      assert.strictEqual(recorded.code, 0, recorded.stderr)
      assert.strictEqual(recorded.stdout, "hi\n")
      const same = yield* run(["verify", file, "--", process.execPath, fixture, "a"])
      assert.deepInclude(same, { code: 0 })
      assert.match(same.stdout, /^same: \d+ requests answered as recorded\n$/)

      const changed = yield* run(["verify", file, "--", process.execPath, fixture, "b"])
      assert.strictEqual(changed.code, 1, changed.stderr)
      assert.include(changed.stdout, "tool echo changed: inputSchema.properties.text")
      assert.include(changed.stdout, "tool extra added")
      const json = yield* run(["verify", file, "--json", "--", process.execPath, fixture, "b"])
      assert.strictEqual(json.code, 1)
      const report = JSON.parse(json.stdout) as { same: boolean; changes: Array<{ kind: string; tool?: string; field?: string }> }
      assert.isFalse(report.same)
      assert.isTrue(report.changes.some((c) => c.kind === "tool-added" && c.tool === "extra"))
      assert.isTrue(report.changes.some((c) => c.kind === "tool-changed" && c.tool === "echo" && c.field === "inputSchema.properties.text"))

      const missing = yield* run(["verify", path.join(tmp(), "none.ndjson"), "--", process.execPath, fixture, "a"])
      assert.strictEqual(missing.code, 3)
      const gone = yield* run(["verify", file, "--", "/nonexistent/server"])
      assert.strictEqual(gone.code, 3)
    }), 60_000)

  it.live("record -s ENTRY: a configuration's secret and an --env value, echoed back by the server, never reach the file", () =>
    Effect.gen(function*() {
      const dir = tmp()
      const file = path.join(dir, "env.ndjson")
      const config = path.join(dir, "mcp.json")
      const CONFIG_SECRET = "config-secret-5e9b2d7a13"
      fs.writeFileSync(config, JSON.stringify({
        mcpServers: { envy: { command: process.execPath, args: [envServer], env: { CONFIG_TOKEN: "${CASSETTE_CONFIG_TOKEN}" } } }
      }))
      // Our command as the host: it passes its whole environment to `record` (--env-all), which resolves the entry.
      const ran = yield* run(
        ["call", "env", "--json", "--env-all", "--", process.execPath, bin, "record", file, "-c", config, "-s", "envy", "--env", `API_KEY=${ENV_SECRET}`],
        { env: { CASSETTE_CONFIG_TOKEN: CONFIG_SECRET } }
      )
      assert.strictEqual(ran.code, 0, ran.stderr)
      // The server did get both, and answered with them.
      assert.include(ran.stdout, CONFIG_SECRET)
      assert.include(ran.stdout, ENV_SECRET)
      assertAbsent(file, [CONFIG_SECRET, ENV_SECRET])
      const answer = lines(file).find((l) => JSON.stringify(l).includes("CONFIG_TOKEN") && l["from"] === "server")
      assert.includeMembers([...(answer?.["redacted"] as Array<string>)], ["configuration secret", "--env value"])
    }), 60_000)

  it.live("record: a FILE that cannot be written fails at once (exit 2), before the server is started", () =>
    Effect.gen(function*() {
      const marker = path.join(tmp(), "started")
      const ran = yield* run(["record", path.join(tmp(), "missing", "x.ndjson"), "--", process.execPath, "-e", `require("fs").writeFileSync(${JSON.stringify(marker)}, "")`])
      assert.strictEqual(ran.code, 2)
      assert.match(ran.stderr, /^mcp-effect: .*x\.ndjson.*\n$/)
      assert.isFalse(fs.existsSync(marker), "the server was not started")
    }))

  it.live("replay: an unreadable cassette ends it at once, exit 2 and one line", () =>
    Effect.gen(function*() {
      const dir = tmp()
      const bad = path.join(dir, "bad.ndjson")
      fs.writeFileSync(bad, `${JSON.stringify({ format: "mcp-effect/cassette", version: 9, transport: "stdio" })}\n`)
      const ran = yield* run(["replay", bad])
      assert.strictEqual(ran.code, 2)
      assert.strictEqual(ran.stderr, `mcp-effect: cassette ${bad}, line 1: format version 9; this reader knows 1\n`)
      const fifo = yield* run(["replay", dir])
      assert.strictEqual(fifo.code, 2)
      assert.include(fifo.stderr, "not a regular file (a directory)")
    }))
})
