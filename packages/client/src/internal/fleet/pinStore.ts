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
import { decodeStored, McpPinStoreError, type PinRecord, type PinStore, type StoredRecord } from "../pinning/model.js"
import { MAX_RECORD_CHARS } from "../pinning/stores.js"
import { digest } from "./seal.js"
import { pairs } from "./replies.js"

/** @internal */
export interface PinStoreOptions {
  /** The prefix of the fleet's keys (default `"mcp"`). */
  readonly prefix?: string | undefined
  /** The deadline of one Redis round trip (default 1 s). */
  readonly timeout?: Duration.Input | undefined
}

const damaged = (field: string, reason: string): StoredRecord => ({ _tag: "DamagedRecord", name: field, reason, raw: undefined })

/**
 * A field's value as its tool's record; anything else (too long, not JSON, not a record, another tool's) is a
 * damaged record of the field's tool, which stays quarantined until a definition is approved.
 */
const recordOf = (field: string, text: string): StoredRecord => {
  if (text.length > MAX_RECORD_CHARS) return damaged(field, `its stored pin is larger than ${MAX_RECORD_CHARS} characters`)
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    return damaged(field, "its stored pin is not JSON")
  }
  const record = decodeStored(parsed, "its stored pin does not decode as a pin record")
  if ("_tag" in record) return { ...record, name: field, raw: undefined }
  return record.name === field ? record : damaged(field, "its stored pin names another tool")
}

const tooLarge = (records: ReadonlyArray<PinRecord>) =>
  records.find((record) => JSON.stringify(record).length > MAX_RECORD_CHARS)

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
        pairs(reply).map(([field, text]) => recordOf(field, text))),
    save: (scope, records) => {
      const large = tooLarge(records)
      if (large !== undefined) {
        return Effect.fail(
          new McpPinStoreError({ store: label, operation: "write", detail: `a pin is larger than ${MAX_RECORD_CHARS} characters` })
        )
      }
      return records.length === 0
        ? Effect.void
        : Effect.asVoid(
          trip("write", redis.send("HSET", keyOf(scope), ...records.flatMap((record) => [record.name, JSON.stringify(record)])))
        )
    }
  }
}

/** The store on the fleet's Redis connection (`McpFleet.layerRedis` provides it). @internal */
export const fromContext = (options: PinStoreOptions = {}): Effect.Effect<PinStore, never, Redis.Redis> =>
  Effect.gen(function*() {
    return make(yield* Redis.Redis, options)
  })
