/**
 * `mcp-effect --url` against a server that asks for a sign-in (the official SDK's server behind
 * oidc-provider): the command prints the authorization URL, the test follows it as a browser would and
 * lands on the command's loopback receiver; the tokens go to `$XDG_CONFIG_HOME/mcp-effect/tokens.json`,
 * are reused by the next run, and `auth logout` removes them.
 */
import { assert, describe, it } from "@effect/vitest"
import { followAuthorization, startOAuthProtected } from "@mcp-effect/test-servers/oauth-protected"
import * as Effect from "effect/Effect"
import { existsSync } from "node:fs"
import * as fs from "node:fs/promises"
import { createServer } from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { launch, official, run, type RunOptions } from "./fixtures/run.js"

const freePort = () =>
  Effect.promise(() =>
    new Promise<number>((resolve, reject) => {
      const server = createServer()
      server.once("error", reject)
      server.listen(0, "127.0.0.1", () => {
        const address = server.address()
        const port = typeof address === "object" && address !== null ? address.port : 0
        server.close(() => resolve(port))
      })
    })
  )

/** A port held by another listener for the life of the scope. */
const busyPort = Effect.acquireRelease(
  Effect.promise(() =>
    new Promise<{ port: number; close: () => void }>((resolve, reject) => {
      const server = createServer()
      server.once("error", reject)
      server.listen(0, "127.0.0.1", () => {
        const address = server.address()
        resolve({ port: typeof address === "object" && address !== null ? address.port : 0, close: () => server.close() })
      })
    })
  ),
  (held) => Effect.sync(held.close)
).pipe(Effect.map((held) => held.port))

const tempConfigHome = Effect.acquireRelease(
  Effect.promise(() => fs.mkdtemp(path.join(os.tmpdir(), "mcp-effect-auth-"))),
  (dir) => Effect.promise(() => fs.rm(dir, { recursive: true, force: true }))
)

const oauthServer = Effect.acquireRelease(
  Effect.promise(() => startOAuthProtected()),
  (server) => Effect.promise(server.close)
)

/** Play the browser: once the command prints the authorization URL, follow it to the loopback receiver. */
const browser = (redirectUrl: string, visited: Array<string>): NonNullable<RunOptions["started"]> => (child, output) => {
  let done = false
  child.stderr?.on("data", () => {
    const match = /^(http:\/\/127\.0\.0\.1:\d+\/auth\S*)$/m.exec(output().stderr)
    if (done || match?.[1] === undefined) return
    done = true
    visited.push(match[1])
    followAuthorization(new URL(match[1]), redirectUrl)
      .then((landing) => fetch(landing))
      .then((response) => response.text())
      .catch((error: unknown) => void visited.push(`failed: ${String(error)}`))
  })
}

/** The browser of a person who takes `millis` (real time) from the printed URL to the redirect. */
const slowBrowser = (redirectUrl: string, visited: Array<string>, millis: number): NonNullable<RunOptions["started"]> =>
(child, output) => {
  let seen = false
  child.stderr?.on("data", () => {
    const match = /^(http:\/\/127\.0\.0\.1:\d+\/auth\S*)$/m.exec(output().stderr)
    if (seen || match?.[1] === undefined) return
    seen = true
    const url = match[1]
    setTimeout(() => {
      visited.push(url)
      followAuthorization(new URL(url), redirectUrl)
        .then((landing) => fetch(landing))
        .then((response) => response.text())
        .catch((error: unknown) => void visited.push(`failed: ${String(error)}`))
    }, millis)
  })
}

const readTokens = (file: string) =>
  Effect.promise(async () => JSON.parse(await fs.readFile(file, "utf8")) as Record<string, { server: string; tokens?: { accessToken?: string } }>)

describe("mcp-effect sign-in (OAuth)", () => {
  it.live("signs in through the printed URL, reuses the stored token, and auth logout forgets it", () =>
    Effect.gen(function*() {
      const server = yield* oauthServer
      const home = yield* tempConfigHome
      const port = yield* freePort()
      const redirectUrl = `http://127.0.0.1:${port}/callback`
      const env = { XDG_CONFIG_HOME: home, BROWSER: "none" }
      const tokenFile = path.join(home, "mcp-effect", "tokens.json")
      const args = ["--url", server.mcpUrl, "--callback-port", String(port)]
      const visited: Array<string> = []

      const first = yield* run(["call", "whoami", ...args], { env, started: browser(redirectUrl, visited) })
      assert.strictEqual(first.code, 0, first.stderr)
      assert.strictEqual(first.stdout, "hello demo-user\n")
      assert.lengthOf(visited, 1)
      assert.include(first.stderr, "asks you to sign in")
      assert.include(first.stderr, visited[0] ?? "?")
      assert.strictEqual(server.counts.authorizations, 1)
      assert.strictEqual(server.counts.registrations, 1)
      const stat = yield* Effect.promise(() => fs.stat(tokenFile))
      assert.strictEqual(stat.mode & 0o777, 0o600)
      const stored = yield* readTokens(tokenFile)
      assert.deepStrictEqual(Object.values(stored).map((entry) => entry.server), [server.mcpUrl])
      const accessToken = Object.values(stored)[0]?.tokens?.accessToken ?? ""
      assert.isAbove(accessToken.length, 0)
      assert.notInclude(first.stdout + first.stderr, accessToken)

      // The second run uses the stored token: no sign-in, nothing printed, no new registration.
      const second = yield* run(["call", "whoami", "--json", ...args], { env, started: browser(redirectUrl, visited) })
      assert.strictEqual(second.code, 0, second.stderr)
      assert.strictEqual(second.stderr, "")
      assert.include(second.stdout, "hello demo-user")
      assert.lengthOf(visited, 1)
      assert.strictEqual(server.counts.authorizations, 1)
      assert.strictEqual(server.counts.registrations, 1)

      const logout = yield* run(["auth", "logout", "--url", server.mcpUrl], { env })
      assert.strictEqual(logout.code, 0, logout.stderr)
      assert.match(logout.stdout, /^signed out of http:\/\/127\.0\.0\.1:\d+\/mcp \(1 removed from /)
      assert.deepStrictEqual(yield* readTokens(tokenFile), {})
      const again = yield* run(["auth", "logout", "--url", server.mcpUrl], { env })
      assert.match(again.stdout, /^no stored sign-in for /)

      // auth login signs in again (a new registration: the stored one went with the logout) and keeps the tokens.
      const login = yield* run(["auth", "login", ...args], { env, started: browser(redirectUrl, visited) })
      assert.strictEqual(login.code, 0, login.stderr)
      assert.match(login.stdout, /^signed in to http:\/\/127\.0\.0\.1:\d+\/mcp \(tokens kept in /)
      assert.lengthOf(visited, 2)
      assert.strictEqual(server.counts.authorizations, 2)
      const third = yield* run(["call", "whoami", ...args], { env })
      assert.strictEqual(third.stdout, "hello demo-user\n")
      assert.strictEqual(third.stderr, "")

      // A `url` entry of an mcpServers file is the same server: the same stored sign-in.
      const configFile = path.join(home, "servers.json")
      yield* Effect.promise(() => fs.writeFile(configFile, JSON.stringify({ mcpServers: { secured: { url: server.mcpUrl } } })))
      const fromConfig = yield* run(["call", "whoami", "--config", configFile, "--callback-port", String(port)], { env })
      assert.strictEqual(fromConfig.code, 0, fromConfig.stderr)
      assert.strictEqual(fromConfig.stdout, "hello demo-user\n")
      assert.strictEqual(server.counts.authorizations, 2)

      const all = yield* run(["auth", "logout"], { env })
      assert.match(all.stdout, /^signed out of every server \(1 removed/)

      // A sign-in whose callback port is taken: a usable message, exit 3, nothing left waiting.
      const busy = yield* busyPort
      const blocked = yield* run(["call", "whoami", "--url", server.mcpUrl, "--callback-port", String(busy)], { env })
      assert.strictEqual(blocked.code, 3)
      assert.include(blocked.stderr, `cannot receive the sign-in redirect on 127.0.0.1:${busy}`)
      assert.include(blocked.stderr, "--callback-port")
    }))

  it.live("auth login with a person who takes 8 s in the browser (more than the probe's 5 s) signs in", () =>
    Effect.gen(function*() {
      const server = yield* oauthServer
      const home = yield* tempConfigHome
      const port = yield* freePort()
      const visited: Array<string> = []
      const env = { XDG_CONFIG_HOME: home, BROWSER: "none" }
      const login = yield* run(
        ["auth", "login", "--url", server.mcpUrl, "--callback-port", String(port), "--timeout", "3"],
        { env, started: slowBrowser(`http://127.0.0.1:${port}/callback`, visited, 8000) }
      )
      assert.strictEqual(login.code, 0, login.stderr)
      assert.match(login.stdout, /^signed in to /)
      assert.lengthOf(visited, 1)
      assert.strictEqual(server.counts.authorizations, 1)
    }), 40_000)

  it.live("two auth login runs at once, to two servers, keep both sign-ins", () =>
    Effect.gen(function*() {
      const servers = [yield* oauthServer, yield* oauthServer]
      const home = yield* tempConfigHome
      const env = { XDG_CONFIG_HOME: home, BROWSER: "none" }
      const tokenFile = path.join(home, "mcp-effect", "tokens.json")
      for (let round = 0; round < 2; round++) {
        const logins = yield* Effect.all(servers.map((server) =>
          Effect.flatMap(freePort(), (port) => {
            const visited: Array<string> = []
            return run(["auth", "login", "--url", server.mcpUrl, "--callback-port", String(port)], {
              env,
              started: browser(`http://127.0.0.1:${port}/callback`, visited)
            })
          })
        ), { concurrency: "unbounded" })
        for (const login of logins) assert.strictEqual(login.code, 0, login.stderr)
        const stored = yield* readTokens(tokenFile)
        assert.sameMembers(Object.values(stored).map((entry) => entry.server), servers.map((server) => server.mcpUrl))
        yield* run(["auth", "logout"], { env })
      }
    }), 90_000)

  it.live("a server that needs no sign-in: no prompt, no listener, no token file", () =>
    Effect.gen(function*() {
      const home = yield* tempConfigHome
      // The callback port is taken by someone else: the command must not need it when nobody signs in.
      const port = yield* busyPort
      const url = yield* launch([official, "--http", "--port", "0"])
      const env = { XDG_CONFIG_HOME: home, BROWSER: "none" }
      const tools = yield* run(["tools", "--url", url, "--callback-port", String(port)], { env })
      assert.strictEqual(tools.code, 0)
      assert.strictEqual(tools.stderr, "")
      assert.match(tools.stdout, /^add\s/m)
      assert.isFalse(existsSync(path.join(home, "mcp-effect")))
      const login = yield* run(["auth", "login", "--url", url, "--callback-port", String(port)], { env })
      assert.strictEqual(login.stdout, `${url} did not ask for a sign-in\n`)
      const bad = yield* run(["tools", "--url", url, "--callback-port", "70000"], { env })
      assert.strictEqual(bad.code, 2)
    }))
})
