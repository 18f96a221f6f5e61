/**
 * The token file is read as a regular file only, and bounded (issue 25, item 4): a FIFO at its path must not
 * hold a program (or `mcp-effect auth login`), and a file far larger than any sign-in is not read whole. Each
 * is an error naming the file; the file is left as it is (never kept aside, never written over).
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Logger from "effect/Logger"
import { execFileSync } from "node:child_process"
import { constants } from "node:fs"
import * as fs from "node:fs/promises"
import * as os from "node:os"
import * as path from "node:path"
import * as engine from "../src/internal/auth/engine.js"
import * as store from "../src/internal/node/tokenFile.js"
import * as NodeMcpAuth from "../src/NodeMcpAuth.js"

const SERVER = "https://mcp.example/mcp"

/** A FIFO in a fresh folder; at the end, whatever still waits on it is let go (a writer opens and closes it). */
const fifoDir = Effect.acquireRelease(
  Effect.promise(async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), "mcp-tokens-fifo-"))
    const file = path.join(dir, "tokens.json")
    execFileSync("mkfifo", [file])
    return { dir, file }
  }),
  ({ dir, file }) =>
    Effect.promise(async () => {
      await fs.open(file, constants.O_WRONLY | constants.O_NONBLOCK).then((handle) => handle.close(), () => undefined)
      await fs.rm(dir, { recursive: true, force: true })
    })
)

const tempDir = Effect.acquireRelease(
  Effect.promise(() => fs.mkdtemp(path.join(os.tmpdir(), "mcp-tokens-big-"))),
  (dir) => Effect.promise(() => fs.rm(dir, { recursive: true, force: true }))
)

/** Warnings logged while `effect` runs. */
const warnings = <A, E>(effect: Effect.Effect<A, E>) =>
  Effect.gen(function*() {
    const logged: Array<string> = []
    const logger = Logger.make(({ message }) => void logged.push(Array.isArray(message) ? message.join(" ") : String(message)))
    const value = yield* Effect.provide(effect, Logger.layer([logger]))
    return { value, logged }
  })

const entry: store.StoredEntry = {
  server: SERVER,
  issuer: "https://as.example",
  tokens: { accessToken: "the-access-token", tokenType: "bearer", issuedAt: 1 }
}

/** Fails the test (rather than hanging it) when `effect` does not end within a few seconds. */
const within = <A, E>(effect: Effect.Effect<A, E>) =>
  effect.pipe(Effect.timeoutOrElse({ duration: "5 seconds", orElse: () => Effect.die("it hung") }))

describe("the token file, bounded", () => {
  it.live("a FIFO at the token file: loading, signing in and forgetting each end with an error naming it; it stays a FIFO", () =>
    Effect.gen(function*() {
      const { dir, file } = yield* fifoDir
      const loaded = yield* within(Effect.flip(store.file(file).load(SERVER)))
      assert.strictEqual(loaded._tag, "McpAuthError")
      assert.include(loaded.detail, file)
      assert.match(loaded.detail, /not a regular file \(a FIFO\)/)

      const auth = yield* engine.make(new URL(SERVER), {}, store.file(file))
      const refused = yield* within(Effect.flip(auth.headers("POST", new URL(SERVER))))
      assert.match(refused.detail, /not a regular file \(a FIFO\)/)
      // And again on the next request: the file is not taken for an empty one once it has been refused.
      const again = yield* within(Effect.flip(auth.headers("POST", new URL(SERVER))))
      assert.match(again.detail, /not a regular file \(a FIFO\)/)

      const forgotten = yield* within(Effect.flip(NodeMcpAuth.forgetStored(file)))
      assert.match(forgotten.message, /not a regular file \(a FIFO\)/)

      const saved = yield* within(warnings(store.file(file).save(entry)))
      assert.match(saved.logged.join("\n"), /could not write the token file .*not a regular file \(a FIFO\)/)
      assert.isFalse(saved.logged.join("\n").includes("the-access-token"))
      assert.isTrue((yield* Effect.promise(() => fs.lstat(file))).isFIFO())
      assert.deepStrictEqual(yield* Effect.promise(() => fs.readdir(dir)), ["tokens.json"])
    }))

  it.live("a token file over 1 MiB is refused without being read whole, and left as it is", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const file = path.join(dir, "tokens.json")
      // A well-formed file with a usable entry, padded past the bound.
      const text = JSON.stringify({ entry, padding: "x".repeat(1024 * 1024) })
      yield* Effect.promise(() => fs.writeFile(file, text, { mode: 0o600 }))
      const loaded = yield* within(Effect.flip(store.file(file).load(SERVER)))
      assert.strictEqual(loaded._tag, "McpAuthError")
      assert.include(loaded.detail, file)
      assert.match(loaded.detail, /larger than 1 MiB/)

      const saved = yield* within(warnings(store.file(file).save({ ...entry, server: "https://other.example/mcp" })))
      assert.match(saved.logged.join("\n"), /could not write the token file .*larger than 1 MiB/)
      assert.strictEqual(yield* Effect.promise(() => fs.readFile(file, "utf8")), text)
      assert.deepStrictEqual(yield* Effect.promise(() => fs.readdir(dir)), ["tokens.json"])

      const forgotten = yield* within(Effect.flip(NodeMcpAuth.forgetStored(file)))
      assert.match(forgotten.message, /larger than 1 MiB/)
      assert.strictEqual(yield* Effect.promise(() => fs.readFile(file, "utf8")), text)
    }))

  it.live("a token file of exactly 1 MiB is read as before", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const file = path.join(dir, "tokens.json")
      const head = JSON.stringify({ entry, padding: "" })
      const text = JSON.stringify({ entry, padding: "x".repeat(1024 * 1024 - head.length) })
      assert.strictEqual(Buffer.byteLength(text), 1024 * 1024)
      yield* Effect.promise(() => fs.writeFile(file, text, { mode: 0o600 }))
      const loaded = yield* within(store.file(file).load(SERVER))
      assert.deepStrictEqual(loaded, [entry])
    }))
})
