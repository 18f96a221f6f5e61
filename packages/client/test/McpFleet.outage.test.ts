/**
 * The fleet's promise through Redis faults, with worker processes (each its own Node, bundled with esbuild)
 * sharing one Redis of the test's own and one oidc-provider whose access tokens live 2 s and whose refresh
 * tokens rotate and are single-use (a reused one is refused and ends the grant: the user would have to sign in
 * again). In the middle of the run Redis is paused for 3 s (SIGSTOP: connections and commands accepted,
 * nothing answered), then restarted (its data lost) while a worker holds the refresh lock with its refresh
 * held at the token endpoint. Every call has a 5 s timeout.
 *
 * Asserted: no refresh refused (no refresh token spent twice), one sign-in (the first process's), every call
 * answered, none longer than its timeout plus the pause (the stated margin: a call that needs a refresh waits
 * for Redis to answer, at most the pause, plus 1 s of round trips).
 */
import * as Effect from "effect/Effect"
import * as Redis from "effect/persistence/Redis"
import { followAuthorization, type OAuthProtected, startOAuthProtected } from "@mcp-effect/test-servers/oauth-protected"
import type { ChildProcess } from "node:child_process"
import { randomBytes } from "node:crypto"
import { afterAll, assert, beforeAll, describe, it } from "vitest"
import { startWorker } from "./fixtures/fleetProcesses.js"
import * as McpFleet from "../src/McpFleet.js"
import { bundleWorker } from "./fixtures/bundleWorker.js"
import { type FleetRedis, startFleetRedis } from "./fixtures/fleetRedis.js"
import { redisServerPath } from "./fixtures/redisServer.js"
import { textOf } from "./fixtures/util.js"
import * as NodePromise from "../src/NodePromise.js"

const haveRedis = redisServerPath() !== undefined
if (!haveRedis) console.log("McpFleet outage tests skipped: no redis-server on this machine (.ci/run installs it)")

const KEY = randomBytes(32).toString("base64")
const REDIRECT = "http://127.0.0.1:8977/callback"
const CALL_TIMEOUT_MS = 5000
const PAUSE_MS = 3000

interface WorkerReport {
  readonly calls: number
  readonly failures: ReadonlyArray<string>
  readonly signIns: number
  readonly longestCallMs: number
}


const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

let redis: FleetRedis | undefined
let server: OAuthProtected | undefined
const children: Array<ChildProcess> = []
beforeAll(async () => {
  if (!haveRedis) return
  redis = await startFleetRedis()
  server = await startOAuthProtected({ accessTokenTtl: 2, rotateRefreshTokens: true })
})
afterAll(async () => {
  for (const child of children) if (child.exitCode === null) child.kill("SIGKILL")
  await server?.close()
  await redis?.stop()
})

/** The pid of the worker holding the refresh lock, once one does (polled on a connection of the test's). */
const lockHolder = (url: string) =>
  Effect.runPromise(
    Effect.gen(function*() {
      const redis = yield* Redis.Redis
      for (let i = 0; i < 300; i++) {
        const keys = yield* redis.send<Array<string>>("KEYS", "outage:lock:*")
        const holder = keys[0] === undefined ? null : yield* redis.send<string | null>("GET", keys[0])
        if (holder !== null) return Number(holder.split(".")[0])
        yield* Effect.sleep(10)
      }
      return undefined
    }).pipe(Effect.provide(McpFleet.layerRedis({ url, subject: "probe", key: KEY, prefix: "probe" })))
  )

describe.skipIf(!haveRedis)("McpFleet through Redis faults: worker processes", () => {
  it(`4 workers through a ${PAUSE_MS / 1000} s pause and a restart mid-refresh: no refresh token reused, one sign-in, every call within its timeout plus the pause`, async () => {
    if (redis === undefined || server === undefined) throw new Error("not started")
    const fleet = { url: redis.url, subject: "demo-user", key: KEY, prefix: "outage" }
    const first = await NodePromise.connectFleet({
      url: server.mcpUrl,
      auth: { clientName: "mcp-effect fleet test", redirectUrl: REDIRECT, onAuthorize: (url) => followAuthorization(url, REDIRECT) },
      fleet
    })
    assert.strictEqual(textOf(await first.callTool("whoami")), "hello demo-user")
    await first.close()

    const script = await bundleWorker("fleetWorker.ts", "worker")
    const workers = [1, 2, 3, 4].map(() =>
      startWorker<WorkerReport>(script, {
        FLEET_MCP_URL: server?.mcpUrl ?? "",
        FLEET_REDIRECT: REDIRECT,
        FLEET_REDIS_URL: fleet.url,
        FLEET_SUBJECT: fleet.subject,
        FLEET_KEY: KEY,
        MCP_FLEET_PREFIX: fleet.prefix,
        FLEET_CALL_TIMEOUT_MS: String(CALL_TIMEOUT_MS),
        FLEET_DURATION_MS: "14000"
      })
    )
    for (const worker of workers) children.push(worker.child)
    await Promise.all(workers.map((w) => w.ready))

    await sleep(2000)
    redis.pause()
    await sleep(PAUSE_MS)
    redis.resume()
    await sleep(2000)
    // A refresh held at the token endpoint; Redis restarted (empty) while a worker holds the lock for it.
    server.setTokenDelay(1500)
    const holder = await lockHolder(redis.url)
    await redis.restart(300)
    await sleep(1500)
    server.setTokenDelay(0)
    assert.isDefined(holder, "a worker took the refresh lock")

    const reports = await Promise.all(workers.map((w) => w.done))
    const figures = {
      calls: reports.reduce((n, r) => n + (r?.calls ?? 0), 0),
      signIns: server.counts.authorizations,
      refreshes: server.counts.grants["refresh_token"] ?? 0,
      refusedRefreshes: server.counts.refusedRefreshes,
      longestCallMs: Math.max(...reports.map((r) => r?.longestCallMs ?? 0))
    }
    console.log(`fleet outage figures: ${JSON.stringify(figures)}`)
    for (const [i, report] of reports.entries()) {
      assert.isDefined(report, `worker ${i} reported: ${workers[i]?.stderr()}`)
      assert.deepStrictEqual(report?.failures, [])
      assert.strictEqual(report?.signIns, 0)
    }
    assert.strictEqual(figures.refusedRefreshes, 0)
    assert.strictEqual(figures.signIns, 1)
    assert.isAtLeast(figures.refreshes, 4)
    assert.isBelow(figures.longestCallMs, CALL_TIMEOUT_MS + PAUSE_MS + 1000)
  }, 60_000)
})
