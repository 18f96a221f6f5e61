/**
 * The fleet soak (`npm run soak:fleet`; `npm run soak` runs it after the main soak): workers sharing tokens,
 * refreshes and a result cache through Redis (`McpFleet`) for `SOAK_SECONDS` (default 60) against the
 * OAuth-protected server with 2-second access tokens and rotating single-use refresh tokens. Uses `REDIS_URL`,
 * else a `redis-server` of its own on a free port; without either it says so and exits 0.
 *
 * Halfway through, Redis is paused for `--pause` seconds (default 3; SIGSTOP: it accepts connections and
 * commands but answers nothing), when the soak runs its own: the fleet must carry on through it without a
 * failed call, a second sign-in or a refresh token spent twice.
 *
 * It reports calls, sign-ins, refreshes, refused refreshes, Redis round trips per call, failures, the longest call, the heap in
 * use after a full collection at the start and every quarter of the run (the leak check: RSS alone also counts
 * what V8 keeps reserved, and the in-process servers), and RSS and open file descriptors before and after; it exits non-zero on any failed call, a second sign-in, a refused
 * refresh, or descriptors not back where they were.
 *
 *   npm run soak:fleet [-- --seconds 60 --workers 4 --pause 3]
 */
import { connectFleet } from "@mcp-effect/client/node"
import { followAuthorization, startOAuthProtected } from "@mcp-effect/test-servers/oauth-protected"
import { execFileSync, spawn } from "node:child_process"
import { randomBytes } from "node:crypto"
import * as fs from "node:fs"
import * as net from "node:net"
import * as os from "node:os"
import * as path from "node:path"

const arg = (name: string, fallback: number) => {
  const at = process.argv.indexOf(name)
  const value = at >= 0 ? Number(process.argv[at + 1]) : Number.NaN
  return Number.isFinite(value) && value > 0 ? value : fallback
}
const seconds = arg("--seconds", Number(process.env["SOAK_SECONDS"] ?? 60))
const workers = arg("--workers", 4)
const pauseSeconds = arg("--pause", 3)
const say = (line: string) => process.stdout.write(`${line}\n`)
const openFds = () => fs.readdirSync("/proc/self/fd").length
/** The heap in use after a full collection (MiB), when the run has `--expose-gc`; before it otherwise. */
const heapAfterGc = () => {
  const gc = (globalThis as { gc?: () => void }).gc
  if (gc !== undefined) gc()
  return Math.round(process.memoryUsage().heapUsed / 2 ** 20)
}

const haveRedisServer = () => {
  try {
    execFileSync("sh", ["-c", "command -v redis-server"], { stdio: "ignore" })
    return true
  } catch {
    return false
  }
}

const ownRedis = async () => {
  const port = await new Promise<number>((resolve) => {
    const probe = net.createServer().listen(0, "127.0.0.1", () => {
      const address = probe.address()
      probe.close(() => resolve(typeof address === "object" && address !== null ? address.port : 0))
    })
  })
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mcp-soak-fleet-"))
  const child = spawn("redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--dir", dir, "--save", ""], {
    stdio: "ignore"
  })
  await new Promise((r) => setTimeout(r, 300))
  return {
    url: `redis://127.0.0.1:${port}`,
    pause: () => void child.kill("SIGSTOP"),
    resume: () => void child.kill("SIGCONT"),
    stop: () => {
      child.kill("SIGCONT")
      child.kill()
      fs.rmSync(dir, { recursive: true, force: true })
    }
  }
}

const main = async () => {
  if (process.env["REDIS_URL"] === undefined && !haveRedisServer()) {
    say("fleet soak skipped: no REDIS_URL and no redis-server on this machine")
    return 0
  }
  const redis = process.env["REDIS_URL"] === undefined ? await ownRedis() : undefined
  const server = await startOAuthProtected({ accessTokenTtl: 2, rotateRefreshTokens: true })
  const redirectUrl = "http://127.0.0.1:8975/callback"
  let roundTrips = 0
  const fleet = {
    url: process.env["REDIS_URL"] ?? redis?.url ?? "",
    subject: "demo-user",
    key: randomBytes(32),
    prefix: `soak-${process.pid}`,
    onRoundTrip: () => void roundTrips++
  }
  const fdsBefore = openFds()
  const rssBefore = process.memoryUsage().rss
  const failures: Array<string> = []
  let calls = 0
  let longestCallMs = 0
  let paused = 0
  const heapSamples: Array<number> = [heapAfterGc()]
  try {
    const clients = await Promise.all(Array.from({ length: workers }, (_, i) =>
      connectFleet({
        url: server.mcpUrl,
        auth: {
          clientName: `fleet soak ${i}`,
          redirectUrl,
          onAuthorize: (url) => followAuthorization(url, redirectUrl)
        },
        fleet
      })
    ))
    const until = Date.now() + seconds * 1000
    const sampler = setInterval(() => heapSamples.push(heapAfterGc()), (seconds * 1000) / 4)
    // Halfway: Redis paused (its own only), then resumed.
    const pause = redis === undefined ? undefined : setTimeout(() => {
      redis.pause()
      paused = pauseSeconds
      setTimeout(() => redis.resume(), pauseSeconds * 1000)
    }, (seconds * 1000) / 2)
    await Promise.all(clients.map(async (client) => {
      while (Date.now() < until) {
        const started = Date.now()
        try {
          await client.callTool("whoami")
          calls++
        } catch (error) {
          failures.push(error instanceof Error ? error.message : String(error))
        }
        longestCallMs = Math.max(longestCallMs, Date.now() - started)
      }
    }))
    clearInterval(sampler)
    clearTimeout(pause)
    await Promise.all(clients.map((client) => client.close()))
  } finally {
    await server.close()
    redis?.stop()
  }
  await new Promise((r) => setTimeout(r, 500))
  const fdsAfter = openFds()
  const figures = {
    seconds,
    workers,
    calls,
    failures: failures.length,
    redisPausedSeconds: paused,
    longestCallMs,
    signIns: server.counts.authorizations,
    refreshes: server.counts.grants["refresh_token"] ?? 0,
    refusedRefreshes: server.counts.refusedRefreshes,
    redisRoundTripsPerCall: Number((roundTrips / Math.max(1, calls)).toFixed(4)),
    heapAfterGcMb: heapSamples,
    rssMb: { before: Math.round(rssBefore / 2 ** 20), after: Math.round(process.memoryUsage().rss / 2 ** 20) },
    fds: { before: fdsBefore, after: fdsAfter }
  }
  say(`fleet soak: ${JSON.stringify(figures)}`)
  for (const failure of [...new Set(failures)].slice(0, 5)) say(`  failure: ${failure}`)
  const ok = failures.length === 0 && figures.signIns === 1 && figures.refusedRefreshes === 0 && fdsAfter <= fdsBefore
  return ok ? 0 : 1
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`fleet soak failed: ${error instanceof Error ? error.message : String(error)}\n`)
    process.exit(1)
  }
)
