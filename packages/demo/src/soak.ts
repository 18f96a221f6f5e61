/**
 * The soak run (`npm run soak`, not part of `npm test`): a few minutes of mixed concurrent calls,
 * notifications, cancellations, timeouts and server restarts over stdio (hostile servers of both eras) and
 * loopback HTTP (hostile HTTP servers of both eras, restarted on the same port), through the Promise API.
 * It reports the calls made, the errors by tag, RSS at the start, its peak and at the end, and the open file
 * descriptors and child processes before and after; it exits non-zero when those are not back where they were
 * (the starting census is taken after libuv's one-time reserve fd is open: see `openLibuvReserveFd`).
 *
 *   npm run soak [-- --seconds 180 --workers 12]
 */
import { connectHttp, connectStdio, type McpPromise } from "@mcp-effect/client/node"
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import { createRequire } from "node:module"

const require = createRequire(import.meta.url)
const HOSTILE = require.resolve("@mcp-effect/test-servers/hostile")
const HOSTILE_HTTP = require.resolve("@mcp-effect/test-servers/hostile-http")

const arg = (name: string, fallback: number) => {
  const at = process.argv.indexOf(name)
  const value = at >= 0 ? Number(process.argv[at + 1]) : Number.NaN
  return Number.isFinite(value) && value > 0 ? value : fallback
}
const seconds = arg("--seconds", Number(process.env["SOAK_SECONDS"] ?? 180))
const workers = arg("--workers", 12)
const tag = `soak-${process.pid}-${Date.now()}`

// --- census -------------------------------------------------------------------------------------------------

const fdTargets = () =>
  fs.readdirSync("/proc/self/fd").map((fd) => {
    try {
      return fs.readlinkSync(`/proc/self/fd/${fd}`)
    } catch {
      return "(gone)"
    }
  })
const openFds = () => fdTargets().length

const stateOf = (pid: string) => {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8")
    const rest = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
    return { state: rest[0] ?? "", ppid: Number(rest[1]) }
  } catch {
    return undefined
  }
}

/** Live descendants of this process, plus any process carrying this run's tag wherever it was reparented. */
const processes = (): Array<number> => {
  const children = new Map<number, Array<number>>()
  const found = new Set<number>()
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue
    const info = stateOf(entry)
    if (info === undefined || info.state === "Z") continue
    const list = children.get(info.ppid) ?? []
    list.push(Number(entry))
    children.set(info.ppid, list)
    try {
      if (fs.readFileSync(`/proc/${entry}/cmdline`, "utf8").includes(tag)) found.add(Number(entry))
    } catch {
      // gone
    }
  }
  const queue = [process.pid]
  while (queue.length > 0) {
    for (const child of children.get(queue.pop() ?? 0) ?? []) {
      found.add(child)
      queue.push(child)
    }
  }
  return [...found]
}

const mib = (bytes: number) => Math.round(bytes / (1 << 20))
const sleep = (millis: number) => new Promise<void>((resolve) => setTimeout(resolve, millis))

// --- servers ------------------------------------------------------------------------------------------------

interface HttpServer {
  url: string
  stop: () => Promise<void>
}

const startHttp = (era: string, port = 0): Promise<HttpServer> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [HOSTILE_HTTP, "--era", era, "--port", String(port), tag], {
      stdio: ["ignore", "pipe", "ignore"]
    })
    let out = ""
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString()
      const match = /listening (http:\/\/\S+)/.exec(out)
      if (match?.[1] !== undefined) {
        resolve({
          url: match[1],
          stop: () =>
            new Promise<void>((done) => {
              if (child.exitCode !== null || child.signalCode !== null) return done()
              child.once("exit", () => done())
              child.kill("SIGTERM")
            })
        })
      }
    })
    child.once("exit", (code) => reject(new Error(`hostile-http exited with ${code}`)))
  })

// --- the run ------------------------------------------------------------------------------------------------

const stats = { calls: 0, ok: 0, notifications: 0, restarts: 0, errors: new Map<string, number>() }
/**
 * A call cancelled through its AbortSignal rejects with the signal's reason (as `fetch` does: a `DOMException`
 * named `AbortError` for a bare `abort()`); it is counted as such only when it is that very object.
 */
const tagOf = (error: unknown, signal?: AbortSignal) =>
  signal?.aborted === true && error === signal.reason
    ? "AbortError (the caller's signal)"
    : typeof error === "object" && error !== null && "_tag" in error
    ? String(error._tag)
    : `untagged ${String(error)}`

const count = async (promise: Promise<unknown>, signal?: AbortSignal) => {
  stats.calls++
  try {
    await promise
    stats.ok++
  } catch (error) {
    const name = tagOf(error, signal)
    stats.errors.set(name, (stats.errors.get(name) ?? 0) + 1)
  }
}

const pick = <A>(items: ReadonlyArray<A>): A => items[Math.floor(Math.random() * items.length)] as A

/**
 * Open libuv's one-time reserve descriptor before the starting census, with plain Node (no code of ours).
 * The first pipe, socket or TTY stream of an event loop makes libuv open `/dev/null` (`loop->emfile_fd`, in
 * `uv__stream_init`), kept until the loop closes: libuv closes it to accept and drop a connection when the
 * process is out of descriptors. Without this, the census counted that fd (20 before, 21 after) against
 * whatever created the run's first stream (here the HTTP server's stdout pipe). Spawning one `node -e ""`
 * with piped stdio and waiting for it to close opens it, and leaves nothing else behind.
 */
const openLibuvReserveFd = () =>
  new Promise<void>((resolve, reject) => {
    const child = spawn(process.execPath, ["-e", ""], { stdio: ["pipe", "pipe", "pipe"] })
    child.once("error", reject)
    child.once("close", () => resolve())
  })

const main = async () => {
  await openLibuvReserveFd()
  // Let start-up finish opening what it opens lazily before the census (it varied by 1-2 fds at 200 ms).
  await sleep(1500)
  const before = { rss: process.memoryUsage().rss, fds: openFds(), processes: processes().length }
  const fdsBefore = fdTargets()
  let peak = before.rss
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss)
  }, 100)

  const modernHttp = await startHttp("modern")
  let legacyHttp = await startHttp("legacy")
  const legacyPort = Number(new URL(legacyHttp.url).port)
  const clients: Array<{ readonly name: string; readonly client: McpPromise.PromiseClient; readonly stdio: boolean }> = [
    {
      name: "stdio-modern",
      stdio: true,
      client: await connectStdio({ command: process.execPath, args: [HOSTILE, "--tag", tag], requestTimeout: "5 seconds" })
    },
    {
      name: "stdio-legacy",
      stdio: true,
      client: await connectStdio({
        command: process.execPath,
        args: [HOSTILE, "--era", "legacy", "--tag", tag, "--children", "1"],
        requestTimeout: "5 seconds",
        onSample: () => ({ role: "assistant", content: { type: "text", text: "ok" }, model: "soak" })
      })
    },
    { name: "http-modern", stdio: false, client: await connectHttp({ url: modernHttp.url, requestTimeout: "5 seconds" }) },
    {
      name: "http-legacy",
      stdio: false,
      client: await connectHttp({ url: legacyHttp.url, requestTimeout: "5 seconds", reconnectDelay: "200 millis" })
    }
  ]
  const unlisten = clients.map(({ client }) => client.onNotification(() => stats.notifications++))

  const deadline = Date.now() + seconds * 1000
  const operations: ReadonlyArray<(c: (typeof clients)[number]) => Promise<void>> = [
    ({ client }) => count(client.callTool("echo", { text: "soak ".repeat(Math.floor(Math.random() * 200)) })),
    ({ client }) => count(client.callTool("echo", { text: "again" })),
    ({ client }) => count(client.listTools()),
    ({ client, stdio }) => count(stdio ? client.callTool("notify", { count: 5 }) : client.callTool("echo", { text: "n" })),
    ({ client }) => {
      // Cancelled by the caller part-way.
      const controller = new AbortController()
      setTimeout(() => controller.abort(), Math.random() * 50)
      return count(client.callTool("slow", { ms: 200 }, { signal: controller.signal }), controller.signal)
    },
    ({ client }) => count(client.callTool("slow", { ms: 300 }, { timeout: "100 millis" })),
    ({ client, name }) => count(name === "stdio-legacy" ? client.callTool("sample_flood", { count: 20 }) : client.callTool("echo", {})),
    ({ client, stdio }) => {
      if (!stdio || Math.random() > 0.05) return count(client.callTool("echo", { text: "rarely die" }))
      stats.restarts++
      return count(client.callTool("die", { code: 3 }))
    }
  ]

  const restartLegacyHttp = async () => {
    while (Date.now() < deadline - 5000) {
      await sleep(15_000)
      await legacyHttp.stop()
      await sleep(500)
      legacyHttp = await startHttp("legacy", legacyPort)
      stats.restarts++
    }
  }

  const report = setInterval(() => {
    console.log(
      `${Math.round((deadline - Date.now()) / 1000)} s left: ${stats.calls} calls, ${stats.ok} ok, ` +
        `${stats.notifications} notifications, RSS ${mib(process.memoryUsage().rss)} MiB`
    )
  }, 15_000)

  const worker = async () => {
    while (Date.now() < deadline) await pick(operations)(pick(clients))
  }
  await Promise.all([...Array.from({ length: workers }, worker), restartLegacyHttp()])
  clearInterval(report)

  for (const stop of unlisten) stop()
  await Promise.all(clients.map(({ client }) => client.close()))
  await Promise.all([modernHttp.stop(), legacyHttp.stop()])
  await sleep(1000)
  clearInterval(sampler)
  const gc = (globalThis as { gc?: () => void }).gc
  if (gc !== undefined) gc()
  const after = { rss: process.memoryUsage().rss, fds: openFds(), processes: processes().length }
  const heap = process.memoryUsage().heapUsed

  console.log(`\nsoak: ${seconds} s, ${workers} workers, ${clients.length} clients (stdio and HTTP, both eras)`)
  console.log(`calls ${stats.calls}, ok ${stats.ok}, notifications ${stats.notifications}, server restarts ${stats.restarts}`)
  console.log("errors by tag:", Object.fromEntries([...stats.errors].sort(([a], [b]) => a.localeCompare(b))))
  console.log(`RSS start ${mib(before.rss)} MiB, peak ${mib(peak)} MiB, end ${mib(after.rss)} MiB (heap in use ${mib(heap)} MiB)`)
  console.log(`open fds before ${before.fds}, after ${after.fds}`)
  const left = [...fdsBefore]
  const added = fdTargets().filter((target) => {
    const at = left.indexOf(target)
    if (at < 0) return true
    left.splice(at, 1)
    return false
  })
  if (added.length > 0) console.log("fds opened during the run and still open:", added)
  console.log(`child processes before ${before.processes}, after ${after.processes}`)
  const untagged = [...stats.errors.keys()].filter((key) => key.startsWith("untagged"))
  const clean = after.fds <= before.fds && added.length === 0 && after.processes <= before.processes && untagged.length === 0
  console.log(clean ? "back where it started" : "NOT back where it started")
  process.exitCode = clean ? 0 : 1
}

main().catch((error: unknown) => {
  console.error(error)
  process.exitCode = 1
})
