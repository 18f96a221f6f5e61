/**
 * Tasks that outlive a worker, on a real `redis-server` (started here on a free loopback port) and a scripted
 * legacy server over HTTP whose tasks live in the server, not in a connection. Each worker is its own Node
 * process (bundled with esbuild), sharing Redis:
 * - worker A calls a long task and is SIGKILLed while it polls; worker B (same subject) resumes the task by
 *   its id and gets the result;
 * - a worker of another subject cannot resume it (no record under its key), nor one on another server;
 * - a task nobody resumes expires with the server's `ttl` (its record is gone from Redis);
 * - a resumed modern task is followed with `tasks/get` to its result; one that asks for input fails.
 */
import * as NodeRedis from "@effect/platform-node/NodeRedis"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Redis from "effect/persistence/Redis"
import { type ChildProcess, spawn } from "node:child_process"
import { randomBytes } from "node:crypto"
import { afterAll, assert, beforeAll, describe, it } from "vitest"
import * as taskStore from "../src/internal/fleet/taskStore.js"
import { type LegacyTaskServer, startLegacyTaskServer } from "./fixtures/legacyTaskServer.js"
import { bundleWorker } from "./fixtures/bundleWorker.js"
import { type RedisServer, redisServerPath, startRedis } from "./fixtures/redisServer.js"

const haveRedis = redisServerPath() !== undefined
if (!haveRedis) console.log("McpFleet task tests skipped: no redis-server on this machine (.ci/run installs it)")

const KEY = randomBytes(32).toString("base64")

let redis: RedisServer | undefined
let script = ""
beforeAll(async () => {
  if (!haveRedis) return
  redis = await startRedis()
  script = await bundleWorker("fleetTaskWorker.ts", "task-worker")
}, 60_000)
afterAll(async () => {
  await redis?.stop()
})

interface Line {
  readonly created?: string
  readonly ttl?: number
  readonly result?: string
  readonly error?: string
  readonly reason?: string
  readonly message?: string
}

const worker = (env: Record<string, string>) => {
  if (redis === undefined) throw new Error("no redis")
  const child: ChildProcess = spawn(process.execPath, [script], {
    env: { ...process.env, FLEET_REDIS_URL: redis.url, FLEET_KEY: KEY, MCP_FLEET_PREFIX: "tasks", ...env },
    stdio: ["ignore", "pipe", "pipe"]
  })
  const lines: Array<Line> = []
  let buffer = ""
  let err = ""
  const listeners = new Set<() => void>()
  child.stdout?.on("data", (data: Buffer) => {
    buffer += data.toString()
    const parts = buffer.split("\n")
    buffer = parts.pop() ?? ""
    for (const part of parts) if (part.trim() !== "") lines.push(JSON.parse(part) as Line)
    for (const f of listeners) f()
  })
  child.stderr?.on("data", (data: Buffer) => void (err += data.toString()))
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)))
  /** The first line that satisfies `test` (rejects if the worker exits first). */
  const line = (test: (line: Line) => boolean) =>
    new Promise<Line>((resolve, reject) => {
      const check = () => {
        const found = lines.find(test)
        if (found !== undefined) {
          listeners.delete(check)
          resolve(found)
        }
      }
      listeners.add(check)
      check()
      void exited.then((code) => {
        check()
        reject(new Error(`worker exited ${code} without the line: ${err}`))
      })
    })
  return { child, line, exited, stderr: () => err }
}

/** One Redis command on a connection of its own. */
const redisSend = <A>(command: string, ...args: Array<string>) =>
  Effect.runPromise(
    Effect.flatMap(Redis.Redis, (client) => client.send<A>(command, ...args)).pipe(
      Effect.provide(NodeRedis.layer({ url: redis?.url ?? "" }))
    )
  )
const redisKeys = (pattern: string) => redisSend<Array<string>>("KEYS", pattern)

const until = async (condition: () => boolean | Promise<boolean>, ms: number) => {
  const deadline = Date.now() + ms
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error("condition not met in time")
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

describe.skipIf(!haveRedis)("McpFleet tasks that outlive a worker", () => {
  let server: LegacyTaskServer | undefined
  afterAll(async () => {
    await server?.close()
  })

  it("a worker killed during a long task: another worker resumes it and gets the result; another subject cannot", async () => {
    server = await startLegacyTaskServer({ taskMs: 2500, ttlMs: 60_000, pollMs: 100 })
    const a = worker({ TASK_MCP_URL: server.url, TASK_MODE: "call", TASK_TEXT: "survived", FLEET_SUBJECT: "alice" })
    const created = await a.line((line) => line.created !== undefined)
    const taskId = created.created ?? ""
    assert.strictEqual(created.ttl, 60_000)
    const task = server.tasks.get(taskId)
    assert.isDefined(task)
    // A polls (at least one tasks/get), then dies mid-task, with no chance to clean up.
    await until(() => (task?.gets ?? 0) >= 1, 10_000)
    a.child.kill("SIGKILL")
    await a.exited
    assert.strictEqual(task?.status, "working")
    assert.strictEqual(task?.results, 0)

    const mallory = worker({ TASK_MCP_URL: server.url, TASK_MODE: "resume", TASK_ID: taskId, FLEET_SUBJECT: "mallory" })
    const refused = await mallory.line((line) => line.error !== undefined || line.result !== undefined)
    assert.strictEqual(refused.error, "McpFleetError", mallory.stderr())
    assert.strictEqual(refused.reason, "Task")
    assert.strictEqual(task?.results, 0)

    // The same subject on another server does not find it either (a record names its server).
    const other = await startLegacyTaskServer()
    try {
      const elsewhere = worker({ TASK_MCP_URL: other.url, TASK_MODE: "resume", TASK_ID: taskId, FLEET_SUBJECT: "alice" })
      const wrong = await elsewhere.line((line) => line.error !== undefined || line.result !== undefined)
      assert.strictEqual(wrong.error, "McpFleetError", elsewhere.stderr())
      assert.strictEqual(wrong.reason, "Task")
    } finally {
      await other.close()
    }

    const b = worker({ TASK_MCP_URL: server.url, TASK_MODE: "resume", TASK_ID: taskId, FLEET_SUBJECT: "alice" })
    const resumed = await b.line((line) => line.error !== undefined || line.result !== undefined)
    assert.deepStrictEqual(resumed, { result: "done: survived" }, b.stderr())
    assert.strictEqual(await b.exited, 0)
    assert.strictEqual(task?.status, "completed")
    assert.strictEqual(task?.results, 1)
  }, 60_000)

  it("a task nobody resumes expires with the server's ttl", async () => {
    await redisSend("FLUSHALL")
    const short = await startLegacyTaskServer({ taskMs: 10_000, ttlMs: 1500, pollMs: 100 })
    try {
      const a = worker({ TASK_MCP_URL: short.url, TASK_MODE: "call", TASK_TEXT: "forgotten", FLEET_SUBJECT: "alice" })
      const created = await a.line((line) => line.created !== undefined)
      const taskId = created.created ?? ""
      assert.strictEqual(created.ttl, 1500)
      a.child.kill("SIGKILL")
      await a.exited
      // The record lives the server's ttl in Redis (sealed: the id is not in clear), then is gone.
      const keys = await redisKeys("tasks:task:*")
      assert.strictEqual(keys.length, 1)
      const pttl = Number(await redisSend<number>("PTTL", keys[0] ?? ""))
      assert.isAbove(pttl, 0)
      assert.isAtMost(pttl, 1500)
      assert.notInclude(String(await redisSend<string>("GET", keys[0] ?? "")), taskId)
      const gets = short.tasks.get(taskId)?.gets ?? 0
      await until(async () => (await redisKeys("tasks:task:*")).length === 0, 5000)
      const b = worker({ TASK_MCP_URL: short.url, TASK_MODE: "resume", TASK_ID: taskId, FLEET_SUBJECT: "alice" })
      const late = await b.line((line) => line.error !== undefined || line.result !== undefined)
      assert.strictEqual(late.error, "McpFleetError", b.stderr())
      assert.strictEqual(late.reason, "Task")
      assert.include(late.message ?? "", "expired")
      // B never reached the server about it.
      assert.strictEqual(short.tasks.get(taskId)?.gets ?? 0, gets)
    } finally {
      await short.close()
    }
  }, 60_000)
})

describe("McpFleet: following a resumed modern task", () => {
  const record = (): taskStore.TaskRecord => ({
    taskId: "m-1",
    server: "https://mcp.example/modern",
    era: "modern",
    method: "tools/call",
    createdAt: Date.now()
  })

  it("polls tasks/get until the task completes and returns its result", async () => {
    const asked: Array<string> = []
    const statuses = ["working", "completed"]
    const result = await Effect.runPromise(taskStore.follow(record(), (method, params) =>
      Effect.sync(() => {
        asked.push(`${method} ${String(params["taskId"])}`)
        const status = statuses.shift() ?? "completed"
        return { taskId: "m-1", status, ...(status === "completed" ? { result: { content: [] } } : {}) }
      })))
    assert.deepStrictEqual(result, { content: [] })
    assert.deepStrictEqual(asked, ["tasks/get m-1", "tasks/get m-1"])
  })

  it("a resumed modern task that asks for input fails (its hooks are in the process that started it)", async () => {
    const exit = await Effect.runPromiseExit(taskStore.follow(record(), () =>
      Effect.succeed({
        taskId: "m-1",
        status: "input_required",
        inputRequests: { a: { method: "elicitation/create", params: { message: "?", requestedSchema: { type: "object" } } } }
      })))
    assert.isTrue(Exit.isFailure(exit))
    const error = Exit.isFailure(exit) ? Cause.squash(exit.cause) : undefined
    assert.include(String((error as { readonly message?: string } | undefined)?.message), "asks for input")
  })
})
