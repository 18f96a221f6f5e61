/**
 * The fleet's pin store: one Redis hash per scope (`<prefix>:pins:<digest of the scope>`), one field per tool
 * name, its value the JSON record. A save writes its records' fields in one `HSET`, so writers of different
 * tools of one scope never overwrite each other. Every round trip has a deadline; a failure is an
 * `McpPinStoreError` (the client reports it and goes on, see `ClientOptions.pinning`).
 *
 * Records are not sealed: a pin is no secret, and whoever may write the fleet's Redis may approve a tool anyway.
 *
 * @internal
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Redis from "effect/persistence/Redis"
import { decodeRecord, McpPinStoreError, type PinRecord, type PinStore } from "../pinning/model.js"
import { digest } from "./seal.js"
import { pairs } from "./replies.js"

/** @internal */
export interface PinStoreOptions {
  /** The prefix of the fleet's keys (default `"mcp"`). */
  readonly prefix?: string | undefined
  /** The deadline of one Redis round trip (default 1 s). */
  readonly timeout?: Duration.Input | undefined
}

/** A stored record longer than this (characters of JSON) is left out: no real record comes near it. */
const MAX_RECORD_CHARS = 1024 * 1024


const recordOf = (field: string, text: string): PinRecord | undefined => {
  if (text.length > MAX_RECORD_CHARS) return undefined
  try {
    const record = decodeRecord(JSON.parse(text))
    return record?.name === field ? record : undefined
  } catch {
    return undefined
  }
}

/** @internal */
export const make = (redis: Redis.Redis["Service"], options: PinStoreOptions = {}): PinStore => {
  const prefix = options.prefix ?? "mcp"
  const timeout = Duration.fromInputUnsafe(options.timeout ?? "1 second")
  const label = "redis"
  const keyOf = (scope: string) => `${prefix}:pins:${digest(scope)}`
  const trip = <A>(operation: "read" | "write", effect: Effect.Effect<A, Redis.RedisError>) =>
    effect.pipe(
      Effect.timeoutOrElse({
        duration: timeout,
        orElse: () => Effect.fail(new McpPinStoreError({ store: label, operation, detail: "Redis did not answer in time" }))
      }),
      Effect.mapError((error) =>
        error instanceof McpPinStoreError ? error : new McpPinStoreError({ store: label, operation, detail: error.message })
      )
    )
  return {
    label,
    load: (scope) =>
      Effect.map(trip("read", redis.send<unknown>("HGETALL", keyOf(scope))), (reply) =>
        pairs(reply).flatMap(([field, text]) => {
          const record = recordOf(field, text)
          return record === undefined ? [] : [record]
        })),
    save: (scope, records) =>
      records.length === 0
        ? Effect.void
        : Effect.asVoid(
          trip("write", redis.send("HSET", keyOf(scope), ...records.flatMap((record) => [record.name, JSON.stringify(record)])))
        )
  }
}

/** The store on the fleet's Redis connection (`McpFleet.layerRedis` provides it). @internal */
export const fromContext = (options: PinStoreOptions = {}): Effect.Effect<PinStore, never, Redis.Redis> =>
  Effect.gen(function*() {
    return make(yield* Redis.Redis, options)
  })
