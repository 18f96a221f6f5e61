/**
 * The token file shared by programs (issue 17.4): concurrent saves in one process and across two processes
 * lose nothing; an unreadable file is kept aside, entries of the wrong shape are not used, the temporary file
 * is not a planted link's; and a program whose refresh is refused because another one rotated the token
 * takes the live token from the file instead of asking the person again.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Logger from "effect/Logger"
import { TestClock } from "effect/testing"
import { spawn } from "node:child_process"
import * as fs from "node:fs/promises"
import * as os from "node:os"
import * as path from "node:path"
import * as engine from "../src/internal/auth/engine.js"
import * as store from "../src/internal/node/tokenFile.js"
import { scriptedAs, unauthorized } from "./fixtures/oauthScripted.js"

const SAVER = path.join(import.meta.dirname, "fixtures/tokenSaver.ts")

const tempDir = Effect.acquireRelease(
  Effect.promise(() => fs.mkdtemp(path.join(os.tmpdir(), "mcp-tokens-"))),
  (dir) => Effect.promise(() => fs.rm(dir, { recursive: true, force: true }))
)

const entry = (server: string, accessToken: string): store.StoredEntry => ({
  server,
  issuer: "https://as.example",
  tokens: { accessToken, tokenType: "bearer", issuedAt: 1 }
})

const saveMany = (tokens: store.Store, prefix: string, count: number) =>
  Effect.all(
    Array.from({ length: count }, (_, i) => tokens.save(entry(`https://${prefix}-${i}.example/mcp`, `${prefix}-${i}`))),
    { concurrency: "unbounded", discard: true }
  )

const keys = (file: string) => Effect.promise(async () => Object.keys(JSON.parse(await fs.readFile(file, "utf8")) as object))

/** The other program: `count` saves at once once it is ready; resolves when it is done. */
const otherProgram = (file: string, count: number, prefix: string) =>
  Effect.callback<{ readonly ready: Promise<void>; readonly done: Promise<number | null> }>((resume) => {
    const child = spawn(process.execPath, ["--import", "tsx", SAVER, file, String(count), prefix], { stdio: ["ignore", "pipe", "inherit"] })
    let out = ""
    let markReady: () => void = () => undefined
    const ready = new Promise<void>((resolve) => (markReady = resolve))
    const done = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)))
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString()
      if (out.includes("ready")) markReady()
    })
    void done.then(() => markReady())
    resume(Effect.succeed({ ready, done }))
    return Effect.sync(() => child.kill("SIGKILL"))
  })

/** Warnings logged while `effect` runs. */
const warnings = <A, E>(effect: Effect.Effect<A, E>) =>
  Effect.gen(function*() {
    const logged: Array<string> = []
    const logger = Logger.make(({ message }) => void logged.push(Array.isArray(message) ? message.join(" ") : String(message)))
    const value = yield* Effect.provide(effect, Logger.layer([logger]))
    return { value, logged }
  })

describe("the token file", () => {
  it.live("40 saves at once from two stores of one process: all 40 kept, nothing left beside the file", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const file = path.join(dir, "tokens.json")
      yield* Effect.all([saveMany(store.file(file), "a", 20), saveMany(store.file(file), "b", 20)], { concurrency: 2 })
      assert.lengthOf(yield* keys(file), 40)
      assert.deepStrictEqual(yield* Effect.promise(() => fs.readdir(dir)), ["tokens.json"])
      const mode = (yield* Effect.promise(() => fs.stat(file))).mode & 0o777
      assert.strictEqual(mode, 0o600)
    }).pipe(Effect.timeout("20 seconds")))

  it.live("two processes saving 40 each at the same time: all 80 kept", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const file = path.join(dir, "tokens.json")
      const other = yield* otherProgram(file, 40, "child")
      yield* Effect.promise(() => other.ready)
      yield* saveMany(store.file(file), "parent", 40)
      assert.strictEqual(yield* Effect.promise(() => other.done), 0)
      assert.lengthOf(yield* keys(file), 80)
      assert.deepStrictEqual(yield* Effect.promise(() => fs.readdir(dir)), ["tokens.json"])
    }).pipe(Effect.timeout("60 seconds")))

  it.live("a lock left by a process that is gone is taken over; a live one is waited for", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const file = path.join(dir, "tokens.json")
      const lock = `${file}.lock`
      // A crashed holder: a pid that no longer runs.
      const dead = spawn(process.execPath, ["-e", ""])
      const deadPid = yield* Effect.promise(() => new Promise<number>((resolve) => dead.once("exit", () => resolve(dead.pid ?? 0))))
      yield* Effect.promise(() => fs.writeFile(lock, JSON.stringify({ pid: deadPid, at: Date.now() })))
      yield* store.file(file).save(entry("https://one.example/mcp", "one"))
      assert.lengthOf(yield* keys(file), 1)
      // A live holder (this process, as another program would be): the save waits until the lock is gone.
      yield* Effect.promise(() => fs.writeFile(lock, JSON.stringify({ pid: process.pid, at: Date.now() })))
      const waiting = yield* Effect.forkChild(store.file(file).save(entry("https://two.example/mcp", "two")))
      yield* Effect.sleep("300 millis")
      assert.lengthOf(yield* keys(file), 1)
      yield* Effect.promise(() => fs.rm(lock))
      yield* Fiber.join(waiting)
      assert.lengthOf(yield* keys(file), 2)
    }).pipe(Effect.timeout("20 seconds")))

  it.live("a truncated file holding another server's sign-in is kept aside, and the warning says where", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const file = path.join(dir, "tokens.json")
      const truncated = JSON.stringify({ other: entry("https://other.example/mcp", "precious") }).slice(0, 60)
      yield* Effect.promise(() => fs.writeFile(file, truncated, { mode: 0o600 }))
      const loaded = yield* warnings(store.file(file).load("https://other.example/mcp"))
      assert.deepStrictEqual(loaded.value, [])
      assert.match(loaded.logged.join("\n"), /unreadable/)
      const saved = yield* warnings(store.file(file).save(entry("https://new.example/mcp", "new")))
      const files = yield* Effect.promise(() => fs.readdir(dir))
      const aside = files.find((name) => name.startsWith("tokens.json.corrupt-"))
      assert.isDefined(aside)
      assert.strictEqual(yield* Effect.promise(() => fs.readFile(path.join(dir, aside ?? ""), "utf8")), truncated)
      assert.include(saved.logged.join("\n"), aside ?? "?")
      assert.lengthOf(yield* keys(file), 1)
    }))

  it.effect("entries of the wrong shape are not used: no `Bearer [object Object]`", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const file = path.join(dir, "tokens.json")
      const as = yield* scriptedAs
      const bad = {
        server: as.mcpUrl,
        issuer: as.origin,
        tokens: { accessToken: { not: "a string" }, tokenType: "bearer", issuedAt: "yesterday" }
      }
      yield* Effect.promise(() => fs.writeFile(file, JSON.stringify({ bad }), { mode: 0o600 }))
      assert.deepStrictEqual(yield* store.file(file).load(as.mcpUrl), [])
      const auth = yield* engine.make(new URL(as.mcpUrl), {}, store.file(file))
      assert.deepStrictEqual(yield* auth.headers("POST", new URL(as.mcpUrl)), {})
    }))

  it.live("the temporary file is created afresh under a random name: a link planted at the old name gets nothing", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const file = path.join(dir, "tokens.json")
      const stolen = path.join(dir, "stolen")
      yield* Effect.promise(() => fs.symlink(stolen, `${file}.${process.pid}.tmp`))
      yield* store.file(file).save({ ...entry("https://one.example/mcp", "one"), client: { clientId: "c", clientSecret: "the-client-secret", authMethod: "client_secret_basic" } })
      const exists = yield* Effect.promise(() => fs.access(stolen).then(() => true, () => false))
      assert.isFalse(exists)
      assert.include(yield* Effect.promise(() => fs.readFile(file, "utf8")), "the-client-secret")
    }))

  it.effect("two programs, one file, a rotating authorization server: the one whose refresh is refused takes the live token from the file", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const file = path.join(dir, "tokens.json")
      const as = yield* scriptedAs
      as.switches.rotate = true
      const opened: Array<string> = []
      const onAuthorize = async (url: URL) => {
        opened.push(url.href)
        const response = await fetch(url, { redirect: "manual" })
        await response.body?.cancel()
        return response.headers.get("location") ?? ""
      }
      const options = { redirectUrl: "http://127.0.0.1:9/callback", onAuthorize }
      const first = yield* engine.make(new URL(as.mcpUrl), options, store.file(file))
      yield* first.onChallenge({}, 401, unauthorized(as.origin))
      const second = yield* engine.make(new URL(as.mcpUrl), options, store.file(file))
      assert.deepStrictEqual(yield* second.headers("POST", new URL(as.mcpUrl)), { authorization: "Bearer access-1" })
      yield* TestClock.adjust("3585 seconds")
      // The first program refreshes (refresh-1 is spent), then the second tries with refresh-1.
      assert.deepStrictEqual(yield* first.headers("POST", new URL(as.mcpUrl)), { authorization: "Bearer access-2" })
      assert.deepStrictEqual(yield* second.headers("POST", new URL(as.mcpUrl)), { authorization: "Bearer access-2" })
      assert.lengthOf(opened, 1)
      // The file still holds the live sign-in.
      const stored = yield* store.file(file).load(as.mcpUrl)
      assert.strictEqual(stored[0]?.tokens?.accessToken, "access-2")
    }))
})
