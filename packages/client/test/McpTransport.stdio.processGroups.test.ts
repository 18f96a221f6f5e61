import { assert, describe, it } from "@effect/vitest"
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as ProcessGroups from "../src/internal/transport/processGroups.js"

const procEntries = (): number => fs.readdirSync("/proc").filter((entry) => /^\d+$/.test(entry)).length

describe.runIf(process.platform === "linux")("process groups: the /proc scans of a close", () => {
  it("read every /proc/<pid>/stat without a fresh buffer per file (closing 49 servers added 25 MiB of RSS)", () => {
    const entries = procEntries()
    const before = process.memoryUsage().arrayBuffers
    // Walks every process's stat: the scan a stdio close makes while the server is alive.
    ProcessGroups.outsideDescendants(process.pid)
    const grown = process.memoryUsage().arrayBuffers - before
    // `readFileSync` took 64 KiB per file of unknown size (all of /proc): `entries` times that, until a GC.
    assert.isBelow(grown, entries * 8 * 1024, `${grown} bytes of buffers for ${entries} processes`)
  })

  it("a group is running while its member lives, and not once the member has exited and been reaped", async () => {
    const child = spawn(process.execPath, ["-e", "setTimeout(() => {}, 30000)"], { detached: true, stdio: "ignore" })
    await new Promise((resolve) => child.once("spawn", resolve))
    const pgid = child.pid ?? 0
    assert.isTrue(ProcessGroups.hasRunningMembers(pgid))
    const exited = new Promise((resolve) => child.once("exit", resolve))
    child.kill("SIGKILL")
    await exited
    assert.isFalse(ProcessGroups.hasRunningMembers(pgid))
  })
})
