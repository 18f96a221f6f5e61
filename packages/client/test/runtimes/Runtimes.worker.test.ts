/**
 * The packed client in Cloudflare's workerd, through `wrangler dev --local` (wrangler's own bundler builds each
 * Worker from the installed tarball; `compatibility_flags = ["nodejs_compat"]`). Two Workers, the Effect API
 * on the Worker's `fetch` and the Promise API's `connectHttp`; each runs the scenario against the official
 * demo server of the era its request names (workerd reaches 127.0.0.1 directly).
 */
import { spawn } from "node:child_process"
import type { ChildProcess } from "node:child_process"
import { writeFileSync } from "node:fs"
import { createServer } from "node:net"
import * as path from "node:path"
import { createInterface } from "node:readline"
import { afterAll, beforeAll, describe } from "vitest"
import { capabilityTests } from "./fixtures/capabilities.js"
import { officialHttp, once, packedProject, repo } from "./fixtures/project.js"
import type { Era, PackedProject, Report, RunningServer, ScriptRun } from "./fixtures/project.js"

const workers = { "Effect API, fetch": "worker-effect", "Promise connectHttp": "worker-promise" } as const
type WorkerName = keyof typeof workers

/** The workerd release's date (wrangler 4.164 carries workerd 1.20261117). */
const COMPATIBILITY_DATE = "2026-11-01"

let project: PackedProject | undefined
const servers = new Map<Era, RunningServer>()
const running: Array<ChildProcess> = []
/** Each Worker's address, or why it did not start (wrangler's bundling error, say). */
const started = new Map<WorkerName, { readonly url: string } | { readonly error: string }>()

/** A free port on 127.0.0.1 (wrangler wants one named). */
const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const probe = createServer()
    probe.once("error", reject)
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      probe.close(() => resolve(port))
    })
  })

// Node 22 first on PATH (wrangler needs 22.12+); no `Request.cf` fetch from the internet, no metrics.
const env = {
  ...process.env,
  PATH: `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH ?? ""}`,
  CLOUDFLARE_CF_FETCH_ENABLED: "false",
  WRANGLER_SEND_METRICS: "false"
}

/**
 * Starts `wrangler dev --local` for one Worker and waits for "Ready on <url>", or for its build error (wrangler
 * then stays up, waiting for a change, so its output is the only sign).
 */
const startWorker = async (dir: string, name: WorkerName): Promise<void> => {
  const entry = workers[name]
  const config = path.join(dir, `${entry}.toml`)
  writeFileSync(
    config,
    `name = "${entry}"\nmain = "${entry}.mjs"\ncompatibility_date = "${COMPATIBILITY_DATE}"\ncompatibility_flags = ["nodejs_compat"]\n`
  )
  const port = await freePort()
  // Each wrangler gets its own inspector port: two on their defaults collide ("Address already in use").
  const inspectorPort = await freePort()
  const child = spawn(
    path.join(repo, "node_modules/.bin/wrangler"),
    [
      "dev",
      "-c",
      config,
      "--local",
      "--ip",
      "127.0.0.1",
      "--port",
      String(port),
      "--inspector-port",
      String(inspectorPort),
      "--show-interactive-dev-session=false"
    ],
    { cwd: dir, env, stdio: ["ignore", "pipe", "pipe"], detached: true }
  )
  running.push(child)
  const output: Array<string> = []
  const outcome = await new Promise<{ readonly url: string } | { readonly error: string }>((resolve) => {
    for (const stream of [child.stdout, child.stderr]) {
      createInterface({ input: stream }).on("line", (line) => {
        output.push(line)
        const ready = /Ready on (http:\/\/\S+)/.exec(line)
        if (ready?.[1] !== undefined) resolve({ url: ready[1] })
        // wrangler prints the build error's details after this line: keep reading a moment.
        if (/Build failed|\[ERROR\]/.test(line)) setTimeout(() => resolve({ error: output.join("\n") }), 1_000)
      })
    }
    child.once("exit", (code) => resolve({ error: `wrangler exited (${code}):\n${output.join("\n")}` }))
  })
  started.set(name, outcome)
}

beforeAll(async () => {
  const installed = packedProject()
  project = installed
  const [modern, legacy] = await Promise.all([officialHttp("modern"), officialHttp("legacy")])
  servers.set("modern", modern)
  servers.set("legacy", legacy)
  // One after the other: wrangler's start-up is CPU-heavy, and CI has two cores.
  for (const name of Object.keys(workers) as Array<WorkerName>) await startWorker(installed.dir, name)
}, 240_000)

/** Stops wrangler and the workerd it started (its own process group). */
const stopGroup = (child: ChildProcess): Promise<void> =>
  child.exitCode !== null || child.pid === undefined
    ? Promise.resolve()
    : new Promise((resolve) => {
        child.once("exit", () => resolve())
        process.kill(-(child.pid ?? 0), "SIGTERM")
      })

afterAll(async () => {
  await Promise.all(running.map(stopGroup))
  await Promise.all([...servers.values()].map((server) => server.stop()))
  project?.remove()
})

/** Asks a Worker to run the scenario against one era's server. */
const runWorker = async (name: WorkerName, era: Era): Promise<ScriptRun> => {
  const worker = started.get(name)
  const server = servers.get(era)
  if (worker === undefined || server === undefined) throw new Error("not started")
  if ("error" in worker) return { code: null, stderr: worker.error.slice(-3000), report: undefined }
  const response = await fetch(`${worker.url}/?url=${encodeURIComponent(server.url)}`)
  const body = await response.text()
  return response.ok
    ? { code: 0, stderr: "", report: JSON.parse(body) as Report }
    : { code: response.status, stderr: body.slice(0, 3000), report: undefined }
}

const eras: ReadonlyArray<Era> = ["modern", "legacy"]

for (const api of Object.keys(workers) as Array<WorkerName>) {
  for (const era of eras) {
    describe(`workerd × ${era} × ${api}`, () => {
      const run = once(() => runWorker(api, era))

      capabilityTests({
        runtime: "workerd",
        era,
        api,
        run,
        cancelledBy: api === "Promise connectHttp" ? "reason" : "interruption",
        timeout: 60_000
      })
    })
  }
}
