/**
 * The Node wing's one writer of private files (`internal/node/privateFile.ts`), which the token file, the pin
 * file and the CLI write with: a new file 0600 in a folder created 0700, whatever the umask; a link at the target
 * replaced, never written through; a write that fails midway (a real `EFBIG`, under `ulimit -f` in a process of
 * its own) or before its rename leaves the old file as it was and no temporary file.
 */
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterEach, assert, describe, it } from "vitest"
import { writePrivateFile } from "../src/internal/node/privateFile.js"

const source = path.resolve(import.meta.dirname, "../src/internal/node/privateFile.ts")

const folders: Array<string> = []
const temp = () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mcp-private-file-"))
  folders.push(dir)
  return dir
}
afterEach(() => {
  for (const dir of folders.splice(0)) fs.rmSync(dir, { recursive: true, force: true })
})

const modeOf = (file: string) => fs.statSync(file).mode & 0o777

/**
 * Run `writePrivateFile(file, content, options)` in a Node of its own under `sh` (the writer's source, by Node's
 * type stripping), after `setup` (`umask 077`, `ulimit -f 8`): what it rejected with (`code`), or `"written"`.
 */
const writeInProcess = (setup: string, file: string, content: string, options: object = {}) => {
  const script = `
    const { writePrivateFile } = await import(${JSON.stringify(source)})
    const outcome = await writePrivateFile(${JSON.stringify(file)}, ${JSON.stringify(content)}, ${JSON.stringify(options)})
      .then(() => "written", (error) => error.code ?? String(error))
    process.stdout.write(outcome)
  `
  const quoted = `'${script.replaceAll("'", "'\\''")}'`
  const result = spawnSync("sh", ["-c", `${setup} && exec '${process.execPath}' --input-type=module -e ${quoted}`], {
    encoding: "utf8",
    timeout: 30_000
  })
  assert.strictEqual(result.status, 0, result.stderr)
  return result.stdout
}

describe("writePrivateFile", () => {
  it("a new file is 0600, its missing folders created 0700, the content exact", async () => {
    const dir = temp()
    const file = path.join(dir, "a", "b", "secret.json")
    await writePrivateFile(file, "{\"token\":\"x\"}")
    assert.strictEqual(fs.readFileSync(file, "utf8"), "{\"token\":\"x\"}")
    assert.strictEqual(modeOf(file), 0o600)
    assert.strictEqual(modeOf(path.join(dir, "a")), 0o700)
    assert.strictEqual(modeOf(path.join(dir, "a", "b")), 0o700)
    assert.deepStrictEqual(fs.readdirSync(path.join(dir, "a", "b")), ["secret.json"])
  })

  it("replacing: an existing file left 0644 becomes 0600, unless its mode is asked for, whatever the umask", () => {
    const dir = temp()
    const file = path.join(dir, "pins.json")
    fs.writeFileSync(file, "old", { mode: 0o644 })
    assert.strictEqual(writeInProcess("umask 000", file, "new"), "written")
    assert.strictEqual(fs.readFileSync(file, "utf8"), "new")
    assert.strictEqual(modeOf(file), 0o600)
    assert.strictEqual(writeInProcess("umask 077", file, "kept", { mode: 0o644 }), "written")
    assert.strictEqual(fs.readFileSync(file, "utf8"), "kept")
    assert.strictEqual(modeOf(file), 0o644)
    assert.deepStrictEqual(fs.readdirSync(dir), ["pins.json"])
  })

  it("a symbolic link at the target is replaced, never written through; a hard link keeps what it had", async () => {
    const dir = temp()
    const precious = path.join(dir, "precious.txt")
    fs.writeFileSync(precious, "keep me")
    const linked = path.join(dir, "tokens.json")
    fs.symlinkSync(precious, linked)
    await writePrivateFile(linked, "tokens")
    assert.strictEqual(fs.readFileSync(precious, "utf8"), "keep me")
    assert.isFalse(fs.lstatSync(linked).isSymbolicLink())
    assert.strictEqual(fs.readFileSync(linked, "utf8"), "tokens")

    const hard = path.join(dir, "hard.json")
    fs.linkSync(precious, hard)
    await writePrivateFile(hard, "replaced")
    assert.strictEqual(fs.readFileSync(precious, "utf8"), "keep me")
    assert.strictEqual(fs.readFileSync(hard, "utf8"), "replaced")
  })

  it("a write that fails midway (EFBIG past `ulimit -f`) leaves the old file as it was, and no temporary file", () => {
    const dir = temp()
    const file = path.join(dir, "tokens.json")
    fs.writeFileSync(file, "the old sign-ins", { mode: 0o600 })
    // 8 blocks (4 KiB with dash's 512-byte blocks, 8 KiB with bash's): 64 KiB is past either.
    assert.strictEqual(writeInProcess("ulimit -f 8", file, "x".repeat(64 * 1024)), "EFBIG")
    assert.strictEqual(fs.readFileSync(file, "utf8"), "the old sign-ins")
    assert.deepStrictEqual(fs.readdirSync(dir), ["tokens.json"])
  })

  it("a write whose rename fails (a folder at the target) leaves the target as it was, and no temporary file", async () => {
    const dir = temp()
    const target = path.join(dir, "pins.json")
    fs.mkdirSync(target)
    fs.writeFileSync(path.join(target, "inside"), "untouched")
    const failed = await writePrivateFile(target, "pins").then(() => undefined, (error: NodeJS.ErrnoException) => error.code)
    assert.oneOf(failed, ["EISDIR", "ENOTEMPTY", "EEXIST"])
    assert.deepStrictEqual(fs.readdirSync(dir), ["pins.json"])
    assert.deepStrictEqual(fs.readdirSync(target), ["inside"])
  })

  it("createFolder: false: a missing folder is ENOENT, and nothing is created", async () => {
    const dir = temp()
    const file = path.join(dir, "missing", "out.json")
    const failed = await writePrivateFile(file, "x", { createFolder: false }).then(
      () => undefined,
      (error: NodeJS.ErrnoException) => error.code
    )
    assert.strictEqual(failed, "ENOENT")
    assert.deepStrictEqual(fs.readdirSync(dir), [])
  })
})
