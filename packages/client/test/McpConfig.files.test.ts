/**
 * Configuration files that are not what they seem (issue 25, item 4): a FIFO, a device, a file far larger than
 * any configuration. Only regular files are read, up to 4 MiB; anything else is an `McpConfigError` naming
 * the file, at once (nothing blocks on a FIFO nobody writes, or reads a source that never ends). Real FIFOs
 * (`mkfifo`), links and sparse files. Each read is bounded in time: a bound against hanging, not a speed
 * measurement.
 */
import { McpConfig } from "@mcp-effect/client/node"
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { type ChildProcess, execFileSync, spawn } from "node:child_process"
import { mkdtempSync, symlinkSync, truncateSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import * as path from "node:path"

const BOUND = "10 seconds"
const MiB = 1024 * 1024

const directory = () => mkdtempSync(path.join(tmpdir(), "mcp-config-files-"))

/** A FIFO at `dir/name` (nobody writes to it). */
const fifo = (dir: string, name = ".mcp.json") => {
  const file = path.join(dir, name)
  execFileSync("mkfifo", [file])
  return file
}

/** A process that writes zeros into the FIFO for as long as anyone reads it; killed with the scope. */
const endlessWriter = (file: string) =>
  Effect.acquireRelease(
    Effect.sync(() => spawn("sh", ["-c", `exec cat /dev/zero > "${file}"`], { stdio: "ignore" })),
    (child: ChildProcess) => Effect.sync(() => void child.kill("SIGKILL"))
  )

/** Every way the library reads a file, each bounded in time; the error each one fails with. */
const readEveryWay = (file: string) =>
  Effect.gen(function*() {
    const bounded = <A>(what: string, effect: Effect.Effect<A, McpConfig.McpConfigError>) =>
      effect.pipe(
        Effect.flip,
        Effect.timeoutOrElse({ duration: BOUND, orElse: () => Effect.die(new Error(`${what}: no end within ${BOUND}`)) })
      )
    return [
      yield* bounded("read", McpConfig.read(file, { env: {} })),
      yield* bounded("readEntries", McpConfig.readEntries(file, { env: {} })),
      yield* bounded("load", McpConfig.load(file, { env: {} }).pipe(Effect.provide(NodeFileSystem.layer)))
    ]
  })

const assertRefused = (errors: ReadonlyArray<McpConfig.McpConfigError>, file: string, detail: string) => {
  for (const error of errors) {
    assert.strictEqual(error._tag, "McpConfigError")
    assert.strictEqual(error.path, file)
    assert.include(error.message, file)
    assert.include(error.detail, detail)
  }
}

describe("McpConfig: configuration files that are not regular files (issue 25, item 4)", () => {
  it.live("a FIFO nobody writes to: not a regular file, at once", () =>
    Effect.gen(function*() {
      const file = fifo(directory())
      assertRefused(yield* readEveryWay(file), file, "not a regular file")
    }))

  it.live("a FIFO fed without end (cat /dev/zero): not a regular file, nothing read", () =>
    Effect.gen(function*() {
      const file = fifo(directory())
      yield* endlessWriter(file)
      assertRefused(yield* readEveryWay(file), file, "not a regular file")
    }).pipe(Effect.scoped))

  it.live("a link to a device (/dev/zero): not a regular file", () =>
    Effect.gen(function*() {
      const file = path.join(directory(), "mcp.json")
      symlinkSync("/dev/zero", file)
      assertRefused(yield* readEveryWay(file), file, "not a regular file")
    }))

  it.live("a directory: not a regular file", () =>
    Effect.gen(function*() {
      const file = directory()
      assertRefused(yield* readEveryWay(file), file, "not a regular file")
    }))
})

describe("McpConfig: configuration files past 4 MiB (issue 25, item 4)", () => {
  it.live("a 1 GiB file (sparse): larger than 4 MiB, without reading it", () =>
    Effect.gen(function*() {
      const file = path.join(directory(), "mcp.json")
      writeFileSync(file, "")
      truncateSync(file, 1024 * MiB)
      const before = process.memoryUsage().rss
      assertRefused(yield* readEveryWay(file), file, "larger than 4 MiB")
      assert.isBelow(process.memoryUsage().rss - before, 64 * MiB, "memory taken by the reads")
    }))

  it.live("exactly 4 MiB is read; one byte more is refused", () =>
    Effect.gen(function*() {
      const dir = directory()
      const text = JSON.stringify({ mcpServers: { a: { command: "srv" } } })
      const fits = path.join(dir, "fits.json")
      writeFileSync(fits, text + " ".repeat(4 * MiB - text.length))
      const config = yield* McpConfig.read(fits, { env: {} })
      assert.deepStrictEqual(config.servers.map((entry) => entry.name), ["a"])
      const over = path.join(dir, "over.json")
      writeFileSync(over, text + " ".repeat(4 * MiB - text.length + 1))
      assertRefused(yield* readEveryWay(over), over, "larger than 4 MiB")
    }))
})
