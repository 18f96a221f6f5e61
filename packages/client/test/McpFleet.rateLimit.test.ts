/**
 * The fleet's shared rate limit on a real `redis-server`: two clients, each on a Redis connection of its own
 * (as two workers), share one per-server limit; calls over it wait for their turn and then answer, even with a
 * request timeout far shorter than the wait (the wait is not part of the call's timeout).
 */
import * as NodeRedis from "@effect/platform-node/NodeRedis"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { afterAll, assert, beforeAll, describe, it } from "vitest"
import * as McpClient from "../src/McpClient.js"
import * as McpFleet from "../src/McpFleet.js"
import * as McpTestServer from "../src/McpTestServer.js"
import { type RedisServer, redisServerPath, startRedis } from "./fixtures/redisServer.js"

const haveRedis = redisServerPath() !== undefined
if (!haveRedis) console.log("McpFleet rate limit tests skipped: no redis-server on this machine (.ci/run installs it)")

let redis: RedisServer | undefined
beforeAll(async () => {
  if (haveRedis) redis = await startRedis()
})
afterAll(async () => {
  await redis?.stop()
})

const server = McpTestServer.make({
  era: "modern",
  tools: [McpTestServer.tool({ name: "ping", handler: () => Effect.succeed("pong") })]
})

describe.skipIf(!haveRedis)("McpFleet shared rate limit", () => {
  it("two workers share one limit: calls over it wait, then answer (the wait is not a timeout)", async () => {
    const waits: Array<number> = []
    const worker = McpFleet.withRateLimit({
      limit: 4,
      window: "1 second",
      key: "http://mcp.example/mcp",
      prefix: "rl",
      onWait: (ms) => void waits.push(ms)
    })(server.layer({ requestTimeout: "200 millis" })).pipe(Layer.provide(NodeRedis.layer({ url: redis?.url ?? "" })))
    const calls = (n: number) =>
      Effect.forEach(
        Array.from({ length: n }),
        () => Effect.map(McpClient.callTool("ping", {}), (result) => result.content[0]),
        { concurrency: "unbounded" }
      ).pipe(Effect.provide(worker))
    const started = Date.now()
    const [a, b] = await Effect.runPromise(Effect.all([calls(5), calls(5)], { concurrency: 2 }))
    const took = Date.now() - started
    assert.deepStrictEqual([...a, ...b].map((block) => block?.type === "text" ? block.text : ""), Array(10).fill("pong"))
    // 10 calls at 4 a second across both: at least two windows' wait, and some calls waited longer than
    // their 200 ms request timeout.
    assert.isAtLeast(took, 1000)
    assert.isAtLeast(waits.length, 6)
    assert.isAbove(Math.max(...waits), 200)
  })
})
