/**
 * The portable pin stores: in memory, and on Effect's `KeyValueStore` (one key per scope, its value the JSON
 * array of the scope's records). Also the store-level operations `McpPinning` offers (`list`, `approve`).
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import type * as KeyValueStore from "effect/persistence/KeyValueStore"
import { describeChange } from "./diff.js"
import { decodeRecord, McpPinStoreError, type PinRecord, type PinStore } from "./model.js"

/** The largest scope value read: 8 MiB of JSON (a record takes a few hundred bytes, a large schema a few KiB). */
export const MAX_SCOPE_CHARS = 8 * 1024 * 1024

/** `records` with `writes` in place of the records of the same names (appended when new). */
export const merged = (records: ReadonlyArray<PinRecord>, writes: ReadonlyArray<PinRecord>): ReadonlyArray<PinRecord> => {
  const byName = new Map(records.map((record) => [record.name, record] as const))
  for (const record of writes) byName.set(record.name, record)
  return [...byName.values()]
}

/**
 * A scope's stored text as records: a JSON array whose items that are not records are left out. Text that is
 * not a JSON array, or too long, is an error, never "no pins": read as empty, every changed tool would be
 * pinned again as if seen for the first time.
 */
export const parseScope = (label: string, text: string | undefined): Effect.Effect<ReadonlyArray<PinRecord>, McpPinStoreError> =>
  Effect.suspend(() => {
    if (text === undefined) return Effect.succeed([])
    const refuse = (detail: string) => Effect.fail(new McpPinStoreError({ store: label, operation: "read", detail }))
    if (text.length > MAX_SCOPE_CHARS) return refuse(`a scope's pins are larger than ${MAX_SCOPE_CHARS} characters`)
    let parsed: unknown
    try {
      parsed = JSON.parse(text)
    } catch {
      return refuse("the stored pins are not JSON")
    }
    if (!Array.isArray(parsed)) return refuse("the stored pins are not a JSON array")
    return Effect.succeed(parsed.flatMap((item) => {
      const record = decodeRecord(item)
      return record === undefined ? [] : [record]
    }))
  })

/** @internal */
export const memory = (): PinStore => {
  const scopes = new Map<string, ReadonlyArray<PinRecord>>()
  return {
    label: "memory",
    load: (scope) => Effect.sync(() => scopes.get(scope) ?? []),
    save: (scope, writes) => Effect.sync(() => void scopes.set(scope, merged(scopes.get(scope) ?? [], writes)))
  }
}

/** The prefix of the keys written (`mcp-effect/pins/<scope>`). @internal */
export const KEY_PREFIX = "mcp-effect/pins/"

const failure = (label: string, operation: "read" | "write") => (error: unknown) =>
  new McpPinStoreError({ store: label, operation, detail: error instanceof Error ? error.message : String(error) })

/**
 * A store on a `KeyValueStore`. A save reads the scope's value and writes it back with the records merged in:
 * two writers of one scope at the same instant may lose one's record, which the next listing writes again.
 *
 * @internal
 */
export const keyValue = (store: KeyValueStore.KeyValueStore, prefix: string = KEY_PREFIX): PinStore => {
  const label = "KeyValueStore"
  const read = (scope: string) =>
    store.get(`${prefix}${scope}`).pipe(
      Effect.mapError(failure(label, "read")),
      Effect.flatMap((text) => parseScope(label, text))
    )
  return {
    label,
    load: read,
    save: (scope, writes) =>
      read(scope).pipe(
        Effect.mapError((error) => new McpPinStoreError({ store: error.store, operation: "write", detail: error.detail })),
        Effect.flatMap((records) =>
          store.set(`${prefix}${scope}`, JSON.stringify(merged(records, writes))).pipe(Effect.mapError(failure(label, "write")))
        )
      )
  }
}

/**
 * A tool's standing in a store: `pinned`, or `quarantined` while a definition nobody approved is pending (with
 * its digest and what changed).
 *
 * @internal
 */
export interface PinStatus {
  readonly name: string
  readonly status: "pinned" | "quarantined"
  readonly hash: string
  readonly pinnedAt: number
  readonly pendingHash?: string | undefined
  readonly changes?: ReadonlyArray<string> | undefined
}

const statusOf = (record: PinRecord): PinStatus =>
  record.pending === undefined
    ? { name: record.name, status: "pinned", hash: record.pinned.hash, pinnedAt: record.pinnedAt }
    : {
      name: record.name,
      status: "quarantined",
      hash: record.pinned.hash,
      pinnedAt: record.pinnedAt,
      pendingHash: record.pending.fingerprint.hash,
      changes: describeChange(record.pinned, record.pending.fingerprint)
    }

/** @internal */
export const list = (store: PinStore, scope: string): Effect.Effect<ReadonlyArray<PinStatus>, McpPinStoreError> =>
  Effect.map(store.load(scope), (records) => records.map(statusOf))

/**
 * Approve the pending definition of `name`: it becomes the pinned one. The status after, `undefined` when the
 * scope has no record of that name; a tool with nothing pending is left as it is.
 *
 * @internal
 */
export const approve = (
  store: PinStore,
  scope: string,
  name: string,
  now: number
): Effect.Effect<PinStatus | undefined, McpPinStoreError> =>
  Effect.gen(function*() {
    const records = yield* store.load(scope)
    const record = records.find((candidate) => candidate.name === name)
    if (record === undefined) return undefined
    if (record.pending === undefined) return statusOf(record)
    const approved: PinRecord = { name, pinned: record.pending.fingerprint, pinnedAt: now }
    yield* store.save(scope, [approved])
    return statusOf(approved)
  })
