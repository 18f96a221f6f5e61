/**
 * The portable pin stores: in memory, and on Effect's `KeyValueStore` (one key per scope, its value the JSON
 * array of the scope's records). Also the store-level operations `McpPinning` offers (`list`, `approve`).
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import type * as KeyValueStore from "effect/persistence/KeyValueStore"
import { describeChange } from "./diff.js"
import { cut } from "./fingerprint.js"
import {
  decodeStored,
  type DamagedRecord,
  isDamaged,
  McpPinStoreError,
  type PinRecord,
  type PinStore,
  type StoredRecord
} from "./model.js"

/**
 * What a store keeps, at most: a record of 1 MiB of JSON (a fingerprint is bounded: at most 128 properties,
 * names and values cut short, so a record with a pending definition stays well under it) and a scope of 8 MiB.
 * A write past either is refused (`McpPinStoreError`, the store left as it was): a store is never written
 * into a state it refuses to read back.
 */
export const MAX_RECORD_CHARS = 1024 * 1024

/** The largest scope value read or written: 8 MiB of JSON. */
export const MAX_SCOPE_CHARS = 8 * 1024 * 1024

/** What is written of a stored item: a record as it is, a damaged one as it was read. */
export const toJson = (record: StoredRecord): unknown => isDamaged(record) ? record.raw : record

/**
 * `records` with `writes` in place of the records of the same names (appended when new): every item of a
 * written name, damaged or not, is replaced by the one record written; any other damaged item is kept as it was.
 */
export const merged = (
  records: ReadonlyArray<StoredRecord>,
  writes: ReadonlyArray<PinRecord>
): ReadonlyArray<StoredRecord> => {
  const written = new Map(writes.map((record) => [record.name, record] as const))
  const placed = new Set<string>()
  const out: Array<StoredRecord> = []
  for (const record of records) {
    const replacement = record.name === undefined ? undefined : written.get(record.name)
    if (replacement === undefined) out.push(record)
    else if (!placed.has(replacement.name)) {
      placed.add(replacement.name)
      out.push(replacement)
    }
  }
  return [...out, ...writes.filter((record) => !placed.has(record.name) && written.get(record.name) === record)]
}

/** The JSON text of a scope's records, or the bound it would break. */
export const scopeText = (
  label: string,
  records: ReadonlyArray<StoredRecord>
): Effect.Effect<string, McpPinStoreError> =>
  Effect.suspend(() => {
    const refuse = (detail: string) => Effect.fail(new McpPinStoreError({ store: label, operation: "write", detail }))
    return Effect.flatMap(Effect.forEach(records, (record) => stringified(label, toJson(record))), (texts) => {
      let total = 2
      for (const [index, text] of texts.entries()) {
        if (text.length > MAX_RECORD_CHARS) {
          const name = records[index]?.name ?? "?"
          return refuse(`the pin of ${JSON.stringify(cut(name, 100))} is larger than ${MAX_RECORD_CHARS} characters`)
        }
        total += text.length + 1
        if (total > MAX_SCOPE_CHARS) return refuse(`a scope's pins would be larger than ${MAX_SCOPE_CHARS} characters`)
      }
      return Effect.succeed(`[${texts.join(",")}]`)
    })
  })

/**
 * A scope's stored text as records: a JSON array, each item a record or a `DamagedRecord`. Text that is not a
 * JSON array, or too long, is an error, never "no pins": read as empty, every changed tool would be pinned again
 * as if seen for the first time.
 */
export const parseScope = (label: string, text: string | undefined): Effect.Effect<ReadonlyArray<StoredRecord>, McpPinStoreError> =>
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
    return scopeRecords(label, parsed, "read")
  })

/** A scope's parsed value as records: a JSON array, each item a record or a `DamagedRecord`. */
export const scopeRecords = (
  label: string,
  value: unknown,
  operation: "read" | "write"
): Effect.Effect<ReadonlyArray<StoredRecord>, McpPinStoreError> =>
  Array.isArray(value)
    ? Effect.succeed(value.map((item) => decodeStored(item)))
    : Effect.fail(new McpPinStoreError({ store: label, operation, detail: "the stored pins are not a JSON array" }))

/**
 * `JSON.stringify`, or why not: a stored item read back as it was (a damaged one) may nest deeper than the
 * stack allows; writing it is refused, never a defect.
 */
export const stringified = (label: string, value: unknown, indent?: number): Effect.Effect<string, McpPinStoreError> =>
  Effect.try({
    try: () => JSON.stringify(value, null, indent) ?? "null",
    catch: () =>
      new McpPinStoreError({
        store: label,
        operation: "write",
        detail: "a stored item cannot be written back (nested too deep): repair or remove it"
      })
  })

/** @internal */
export const memory = (): PinStore => {
  const scopes = new Map<string, ReadonlyArray<StoredRecord>>()
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
        Effect.flatMap((records) => scopeText(label, merged(records, writes))),
        Effect.flatMap((text) => store.set(`${prefix}${scope}`, text).pipe(Effect.mapError(failure(label, "write"))))
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
  /** `damaged`: the stored item is no record (the tool stays quarantined until a definition is approved). */
  readonly status: "pinned" | "quarantined" | "damaged"
  readonly hash: string
  readonly pinnedAt: number
  readonly pendingHash?: string | undefined
  readonly changes?: ReadonlyArray<string> | undefined
}

/** The digest a record stands on when it replaced a damaged one: no definition was pinned. */
export const DAMAGED_HASH = "damaged"

const statusOf = (record: PinRecord): PinStatus =>
  record.pending === undefined
    ? { name: record.name, status: "pinned", hash: record.pinned.hash, pinnedAt: record.pinnedAt }
    : {
      name: record.name,
      status: "quarantined",
      hash: record.pinned.hash,
      pinnedAt: record.pinnedAt,
      pendingHash: record.pending.fingerprint.hash,
      changes: record.pinned.hash === DAMAGED_HASH
        ? ["its stored pin was damaged: approve to pin the definition offered now"]
        : describeChange(record.pinned, record.pending.fingerprint)
    }

const damagedStatus = (record: DamagedRecord, index: number): PinStatus => ({
  name: record.name ?? `#${index}`,
  status: "damaged",
  hash: "",
  pinnedAt: 0,
  changes: [record.reason]
})

const statusOfStored = (record: StoredRecord, index: number): PinStatus =>
  isDamaged(record) ? damagedStatus(record, index) : statusOf(record)

/** @internal */
export const list = (store: PinStore, scope: string): Effect.Effect<ReadonlyArray<PinStatus>, McpPinStoreError> =>
  Effect.map(store.load(scope), (records) => records.map(statusOfStored))

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
    const index = records.findIndex((candidate) => candidate.name === name)
    const record = records[index]
    if (record === undefined) return undefined
    // A damaged record is replaced by a client's listing (it writes what it was offered as pending), not here.
    if (isDamaged(record)) return damagedStatus(record, index)
    if (record.pending === undefined) return statusOf(record)
    const approved: PinRecord = { name, pinned: record.pending.fingerprint, pinnedAt: now }
    yield* store.save(scope, [approved])
    return statusOf(approved)
  })
