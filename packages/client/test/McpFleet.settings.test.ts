/**
 * A fleet's durations as they come from an untyped setting (a JSON file, a plain JavaScript caller): one that is
 * not a duration is an `McpFleetError` (`Options`) naming the setting, before any connection is tried, never a
 * thrown defect. No Redis is needed: nothing is connected to.
 */
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redis from "effect/persistence/Redis"
import { randomBytes } from "node:crypto"
import { assert, describe, it } from "vitest"
import * as McpFleet from "../src/McpFleet.js"

const KEY = randomBytes(32)
/** Nothing listens there: a setting checked after connecting would fail with `Redis` instead. */
const NOWHERE = "redis://127.0.0.1:1"
const notADuration = JSON.parse(`"soon"`) as Duration.Input

const failureOf = <A, E>(layer: Layer.Layer<A, E>) => Effect.runPromise(Effect.scoped(Effect.flip(Layer.build(layer))))

/** A Redis that counts what it is asked and answers nothing. */
const unusedRedis = (asked: Array<string>) => {
  const refuse = (command: string) =>
    Effect.suspend(() => {
      asked.push(command)
      return Effect.fail(new Redis.RedisError({ cause: "not to be used" }))
    })
  return Redis.make({
    send: refuse,
    subscribe: (channel) => refuse(`SUBSCRIBE ${channel}`),
    connect: refuse("CONNECT")
  })
}

describe("McpFleet settings that are not durations", () => {
  for (const setting of ["timeout", "connectTimeout", "lockTtl", "taskTtl"] as const) {
    it(`layerHttp: ${setting}`, async () => {
      const error = await failureOf(McpFleet.layerHttp({
        url: "http://127.0.0.1:1/mcp",
        fleet: { url: NOWHERE, subject: "user-1", key: KEY, [setting]: notADuration }
      }))
      assert.instanceOf(error, McpFleet.McpFleetError)
      assert.deepInclude(error, { reason: "Options", detail: `${setting} is not a duration, got soon` })
    })
  }

  it("layerResultCache: maxTtl, before Redis is asked anything", async () => {
    const asked: Array<string> = []
    const error = await failureOf(
      McpFleet.layerResultCache({ key: KEY, maxTtl: notADuration }).pipe(
        Layer.provide(Layer.effect(Redis.Redis, unusedRedis(asked)))
      )
    )
    assert.deepInclude(error, { reason: "Options", detail: "maxTtl is not a duration, got soon" })
    assert.deepStrictEqual(asked, [])
  })

  it("pinStore: timeout, before Redis is asked anything", async () => {
    const asked: Array<string> = []
    const error = await Effect.runPromise(Effect.scoped(Effect.gen(function*() {
      const redis = yield* unusedRedis(asked)
      return yield* Effect.flip(McpFleet.pinStore({ timeout: notADuration })).pipe(Effect.provideService(Redis.Redis, redis))
    })))
    assert.deepInclude(error, { reason: "Options", detail: "timeout is not a duration, got soon" })
    assert.deepStrictEqual(asked, [])
  })
})
