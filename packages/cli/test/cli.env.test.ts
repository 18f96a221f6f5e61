/**
 * `--env KEY=VALUE` (`-e`, repeatable) and `--env-all`: what a stdio server is started with, seen by a real
 * server that reports its environment in a tool result, the CLI run as a real process.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { run } from "./fixtures/run.js"

const server = path.join(import.meta.dirname, "../../client/test/fixtures/envServer.mjs")
const stdio = ["--", process.execPath, server]

/** The environment the server reported to `call env --json`. */
const reported = (stdout: string): Record<string, string> => {
  const parsed: unknown = JSON.parse(stdout)
  const structured = typeof parsed === "object" && parsed !== null && "structuredContent" in parsed
    ? parsed.structuredContent
    : undefined
  return typeof structured === "object" && structured !== null ? structured as Record<string, string> : {}
}

describe("mcp-effect --env and --env-all", () => {
  it.live("--env KEY=VALUE and -e give the server variables (a value may hold '='); the rest of the shell does not reach it", () =>
    Effect.gen(function*() {
      const ran = yield* run(
        ["call", "env", "--json", "--env", "MEMORY_FILE_PATH=/tmp/memory.json", "-e", "QUERY=a=b", ...stdio],
        { env: { MYVAR: "from-the-shell" } }
      )
      assert.strictEqual(ran.code, 0, ran.stderr)
      const env = reported(ran.stdout)
      assert.strictEqual(env["MEMORY_FILE_PATH"], "/tmp/memory.json")
      assert.strictEqual(env["QUERY"], "a=b")
      assert.isUndefined(env["MYVAR"])
    }))

  it.live("without flags, the shell's proxy and certificate variables reach the server; a proxy's password is kept out of errors", () =>
    Effect.gen(function*() {
      const password = "Pr0xy-Passw0rd-99"
      const shell = {
        HTTPS_PROXY: `http://carol:${password}@proxy.example:3128`,
        no_proxy: "localhost",
        SSL_CERT_FILE: "/etc/ssl/cert.pem",
        SSL_CERT_DIR: "/etc/ssl/certs",
        npm_config_registry: "https://registry.example/"
      }
      const ran = yield* run(["call", "env", "--json", ...stdio], { env: shell })
      assert.strictEqual(ran.code, 0, ran.stderr)
      const env = reported(ran.stdout)
      for (const [key, value] of Object.entries(shell)) assert.strictEqual(env[key], value, key)
      const failed = yield* run(["call", "fail", ...stdio], { env: shell })
      assert.strictEqual(failed.code, 3)
      assert.include(failed.stderr, "cannot reach http://carol:[redacted]@proxy.example:3128")
      assert.notInclude(failed.stderr + failed.stdout, password)
    }))

  it.live("--env-all passes the whole environment of the command, --env over it", () =>
    Effect.gen(function*() {
      const ran = yield* run(
        ["call", "env", "--json", "--env-all", "--env", "OVERRIDDEN=by-flag", ...stdio],
        { env: { MYVAR: "from-the-shell", OVERRIDDEN: "from-the-shell" } }
      )
      assert.strictEqual(ran.code, 0, ran.stderr)
      const env = reported(ran.stdout)
      assert.strictEqual(env["MYVAR"], "from-the-shell")
      assert.strictEqual(env["OVERRIDDEN"], "by-flag")
    }))

  it.live("--env on a configuration's entry: merged over the entry's env", () =>
    Effect.gen(function*() {
      const dir = mkdtempSync(path.join(tmpdir(), "mcp-effect-env-"))
      try {
        const config = path.join(dir, "mcp.json")
        writeFileSync(config, JSON.stringify({
          mcpServers: { envy: { command: process.execPath, args: [server], env: { FROM_ENTRY: "entry", BOTH: "entry" } } }
        }))
        const ran = yield* run(["call", "env", "--json", "--config", config, "--env", "BOTH=flag"])
        assert.strictEqual(ran.code, 0, ran.stderr)
        const env = reported(ran.stdout)
        assert.strictEqual(env["FROM_ENTRY"], "entry")
        assert.strictEqual(env["BOTH"], "flag")
      } finally {
        rmSync(dir, { recursive: true, force: true })
      }
    }))

  it.live("a value given with --env is a secret: kept out of the errors the command prints", () =>
    Effect.gen(function*() {
      const key = "sk-live-Zq81xLm0"
      const ran = yield* run(["call", "fail", "--env", `API_KEY=${key}`, ...stdio])
      assert.strictEqual(ran.code, 3)
      assert.include(ran.stderr, "with the key [redacted]")
      assert.notInclude(ran.stderr + ran.stdout, key)
    }))

  it.live("a malformed --env, or --env with an HTTP server: a usage error that says why", () =>
    Effect.gen(function*() {
      const malformed = yield* run(["tools", "--env", "NOVALUE", ...stdio])
      assert.strictEqual(malformed.code, 2)
      assert.include(malformed.stderr, "--env expects KEY=VALUE")
      const http = yield* run(["tools", "--env", "A=1", "--url", "http://127.0.0.1:9/mcp"])
      assert.strictEqual(http.code, 2)
      assert.include(http.stderr, "--env and --env-all go with a stdio server")
    }))

  it.live("a server that writes nothing before the connect timeout: the error says so, with its stderr and the usual causes", () =>
    Effect.gen(function*() {
      const ran = yield* run(["tools", "--connect-timeout", "1", "--", process.execPath, server, "--silent", "npm error code ECONNREFUSED"])
      assert.notStrictEqual(ran.code, 0)
      assert.include(ran.stderr, "connect timeout of 1 s")
      assert.include(ran.stderr, "the server wrote nothing on stdout")
      assert.include(ran.stderr, "npm error code ECONNREFUSED")
      const json = yield* run(["tools", "--json", "--connect-timeout", "1", "--", process.execPath, server, "--silent", "stuck"])
      assert.include(json.stdout, "wrote nothing on stdout")
    }))
})
