/**
 * `McpConfig.clientLayer`'s own wiring (issue 38, item 4): the sign-in of an HTTP entry (`auth`), and a connect
 * timeout (`connectTimeout`) whose error carries what a silent stdio server wrote on stderr.
 */
import { McpConfig } from "@mcp-effect/client/node"
import { McpTimeoutError } from "@mcp-effect/client"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import { TestClock } from "effect/testing"
import { followAuthorization, startOAuthProtected } from "@mcp-effect/test-servers/oauth-protected"
import { existsSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { createRequire } from "node:module"
import { textOf } from "./fixtures/util.js"

const REDIRECT = "http://127.0.0.1:8979/callback"
const scripted = createRequire(import.meta.url).resolve("@mcp-effect/test-servers/scripted")

/** Wait (real time, at most 10 s) for the file a server writes once it is up. */
const written = (file: string) =>
  Effect.promise(async () => {
    for (let i = 0; i < 1000 && !existsSync(file); i++) await new Promise((resolve) => setTimeout(resolve, 10))
    // The server wrote its stderr before the file: let the pipe be read.
    await new Promise((resolve) => setTimeout(resolve, 200))
  })

/** A server that says why it cannot start on stderr, then reads its stdin and never answers (stdout kept open). */
const silentEntry = (folder: string, secret: string) =>
  McpConfig.parseEntry("silent", {
    command: "sh",
    args: ["-c", `echo "npm error code ECONNREFUSED (token \${TOKEN})" >&2; touch ${folder}/up; exec 3>&1; exec cat > /dev/null`]
  }, { env: { TOKEN: secret } })

describe("McpConfig.clientLayer", () => {
  it.effect("connectTimeout: a server that writes nothing on stdout fails the layer with McpTimeoutError, its stderr quoted, its secret not (TestClock)", () =>
    Effect.gen(function*() {
      const folder = mkdtempSync(path.join(tmpdir(), "mcp-connect-"))
      yield* Effect.addFinalizer(() => Effect.sync(() => rmSync(folder, { recursive: true, force: true })))
      const secret = "s3cr3t-value-123"
      const entry = yield* silentEntry(folder, secret)
      const fiber = yield* Effect.forkChild(
        Effect.scoped(McpConfig.connect(entry, { connectTimeout: "20 seconds", shutdownTimeout: "100 millis" }))
      )
      yield* written(path.join(folder, "up"))
      yield* TestClock.adjust("19 seconds")
      assert.isUndefined(fiber.pollUnsafe(), "still connecting before the connect timeout")
      yield* TestClock.adjust("1 second")
      const error = yield* Effect.flip(Fiber.join(fiber))
      assert.instanceOf(error, McpTimeoutError)
      if (!(error instanceof McpTimeoutError)) return
      assert.strictEqual(error.method, "connect")
      assert.strictEqual(error.limit, "overall")
      assert.strictEqual(error.timeoutMillis, 20_000)
      assert.include(error.silentServer ?? "", "npm error code ECONNREFUSED")
      assert.notInclude(error.silentServer ?? "", secret)
      assert.include(error.message, "the server wrote nothing on stdout")
    }))

  it.effect("connectTimeout: a server that answers in time is connected when the layer is built (its era known)", () =>
    Effect.gen(function*() {
      const entry = yield* McpConfig.parseEntry("scripted", { command: process.execPath, args: [scripted, "--mode", "modern"] })
      const client = yield* McpConfig.connect(entry, { connectTimeout: "20 seconds" })
      assert.strictEqual(yield* client.era, "modern")
    }).pipe(Effect.scoped))

  it.effect("connectTimeout that is not a duration: McpConfigError naming the entry and the field", () =>
    Effect.gen(function*() {
      const entry = yield* McpConfig.parseEntry("scripted", { command: process.execPath, args: [scripted] })
      const connectTimeout = JSON.parse(`"2 fortnights"`) as McpConfig.EntryClientOptions["connectTimeout"]
      const error = yield* Effect.flip(Effect.scoped(McpConfig.connect(entry, { connectTimeout })))
      assert.instanceOf(error, McpConfig.McpConfigError)
      assert.include(error.message, `entry "scripted", field "connectTimeout": not a duration`)
    }))

  it.live("auth: an HTTP entry signs in (OAuth) through the options given, and calls as the signed-in user", () =>
    Effect.gen(function*() {
      const server = yield* Effect.acquireRelease(Effect.promise(() => startOAuthProtected()), (s) => Effect.promise(() => s.close()))
      const entry = yield* McpConfig.parseEntry("remote", { url: server.mcpUrl })
      const auth = { clientName: "mcp-effect config test", redirectUrl: REDIRECT, onAuthorize: (url: URL) => followAuthorization(url, REDIRECT) }
      const refused = yield* Effect.flip(Effect.scoped(Effect.flatMap(McpConfig.connect(entry), (client) => client.callTool("whoami"))))
      // Without `auth` the server's 401 is the answer.
      assert.strictEqual(refused._tag, "McpTransportError")
      assert.include(refused.message, "401")
      const client = yield* McpConfig.connect(entry, { auth })
      assert.match(textOf(yield* client.callTool("whoami")), /^hello /)
    }).pipe(Effect.scoped))
})
