/**
 * The pinning models (records, store, hook) and errors; `McpPinning` re-exports them.
 *
 * @internal
 */
import type * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import type { Tool } from "../../McpSchema.js"

const TextPrint = Schema.Struct({
  length: Schema.Number,
  hash: Schema.String,
  preview: Schema.optional(Schema.String)
})

const SchemaPrint = Schema.Struct({
  hash: Schema.String,
  properties: Schema.Record(Schema.String, Schema.Struct({ type: Schema.String, hash: Schema.String })),
  required: Schema.Array(Schema.String),
  truncated: Schema.Boolean
})

/**
 * A tool's fingerprint: the SHA-256 of its definition and a bounded summary of each part (lengths and digests
 * of texts, the first properties of each schema with their types, the annotations' values), enough to say what
 * changed without keeping the server's text.
 *
 * @since 0.3.0
 * @category schemas
 */
export const Fingerprint = Schema.Struct({
  hash: Schema.String,
  title: Schema.optional(TextPrint),
  description: Schema.optional(TextPrint),
  inputSchema: SchemaPrint,
  outputSchema: Schema.optional(SchemaPrint),
  annotations: Schema.optional(Schema.Record(Schema.String, Schema.String))
})

/**
 * @since 0.3.0
 * @category models
 */
export type Fingerprint = typeof Fingerprint.Type

/**
 * What a store keeps of one tool of one scope: the approved fingerprint (`pinned`) and, while the server offers
 * another definition nobody approved, that one (`pending`): the tool is then quarantined.
 *
 * @since 0.3.0
 * @category schemas
 */
export const PinRecord = Schema.Struct({
  name: Schema.String,
  pinned: Fingerprint,
  /** When the approved definition was recorded (milliseconds since the epoch). */
  pinnedAt: Schema.Number,
  pending: Schema.optional(Schema.Struct({ fingerprint: Fingerprint, seenAt: Schema.Number }))
})

/**
 * @since 0.3.0
 * @category models
 */
export type PinRecord = typeof PinRecord.Type

const decodeRecordOption = Schema.decodeUnknownOption(PinRecord)

/** A stored value as a record, `undefined` when it is not one (a store's content is never trusted). @internal */
export const decodeRecord = (value: unknown): PinRecord | undefined => Option.getOrUndefined(decodeRecordOption(value))

/**
 * A stored item that is not a record (damaged, or of another version): its tool, when its `name` can be read,
 * stays quarantined until the record is replaced (approved), never pinned again as if seen for the first time.
 * A file or `KeyValueStore` keeps its `raw` value when it writes the scope back.
 *
 * @since 0.3.0
 * @category models
 */
export interface DamagedRecord {
  readonly _tag: "DamagedRecord"
  /** The tool the item was of, when it has a string `name`. */
  readonly name: string | undefined
  readonly reason: string
  /** The item as stored. */
  readonly raw: unknown
}

/**
 * What a store holds of one tool: its record, or what is left of a damaged one.
 *
 * @since 0.3.0
 * @category models
 */
export type StoredRecord = PinRecord | DamagedRecord

/** @internal */
export const isDamaged = (record: StoredRecord): record is DamagedRecord => "_tag" in record

/** The stored value as a record, or as a damaged one (a store's content is never trusted). @internal */
export const decodeStored = (value: unknown, reason = "it does not decode as a pin record"): StoredRecord => {
  const record = decodeRecord(value)
  if (record !== undefined) return record
  const name = typeof value === "object" && value !== null && "name" in value && typeof value.name === "string"
    ? value.name
    : undefined
  return { _tag: "DamagedRecord", name, reason, raw: value }
}

/**
 * A store failed: it could not be read or written. The client goes on (see `ClientOptions.pinning`); the
 * functions of `McpPinning` fail with it.
 *
 * @since 0.3.0
 * @category errors
 */
export class McpPinStoreError extends Schema.TaggedError<McpPinStoreError>()("McpPinStoreError", {
  /** Which store (`"memory"`, `"KeyValueStore"`, the file's path, `"redis"`). */
  store: Schema.String,
  operation: Schema.Literals(["read", "write"]),
  detail: Schema.String
}) {
  override get message(): string {
    return `the pin store (${this.store}) could not be ${this.operation === "read" ? "read" : "written"}: ${this.detail}`
  }
}

/**
 * Where pins are kept: the records of a scope (a server), read whole, written a few at a time (each record
 * written replaces the scope's record of the same name).
 *
 * @since 0.3.0
 * @category models
 */
export interface PinStore {
  /** What the store is, in a word or a path (for diagnostics). */
  readonly label: string
  /** The scope's records; an item that is not a record is answered as a `DamagedRecord`, never left out. */
  readonly load: (scope: string) => Effect.Effect<ReadonlyArray<StoredRecord>, McpPinStoreError>
  readonly save: (scope: string, records: ReadonlyArray<PinRecord>) => Effect.Effect<void, McpPinStoreError>
}

/**
 * A tool whose definition differs from the one pinned, as `onChanged` is asked about it.
 *
 * @since 0.3.0
 * @category models
 */
export interface ToolChange {
  readonly scope: string
  readonly name: string
  /** What changed, in short bounded lines (never a description's text). */
  readonly changes: ReadonlyArray<string>
  /** The digest pinned, and the digest of the definition the server offers now. */
  readonly pinnedHash: string
  readonly hash: string
  /** The definition the server offers now. */
  readonly tool: Tool
}

/**
 * What `onChanged` decides: use the new definition (it becomes the pinned one) or keep the tool quarantined.
 *
 * @since 0.3.0
 * @category models
 */
export type Decision = "approve" | "quarantine"

/**
 * Opt-in tool pinning (`ClientOptions.pinning`).
 *
 * @since 0.3.0
 * @category models
 */
export interface PinningOptions {
  /**
   * Where pins are kept (`McpPinning.memoryStore()`, `keyValueStore`, `NodeMcpPinning.fileStore`, the fleet's).
   * Default: a store in this client's memory (pins for the client's life: a tool rewritten while it runs is
   * caught, a rewrite between runs is not).
   */
  readonly store?: PinStore | undefined
  /**
   * Asked once per client about each changed definition; it may answer a `Decision`, a Promise of one or an
   * Effect of one. The listing waits for the answer (listings are checked one at a time, so a hook that never
   * answers holds them). Throwing, rejecting or failing keeps the tool quarantined (and is reported as
   * `HookFailed`). Without it, a changed tool stays quarantined until it is approved in the store.
   */
  readonly onChanged?: ((change: ToolChange) => Decision | PromiseLike<Decision> | Effect.Effect<Decision, unknown>) | undefined
  /**
   * Whose pins these are. Default: something the server cannot choose (never its `serverInfo.name`): a stdio
   * server's command and arguments, an HTTP endpoint's origin and path, a configuration entry's name (`McpConfig`,
   * `connectServers`, the CLI's `--server`), an `McpTestServer`'s declared name. A transport of your own that does
   * not say what it connects to (`McpTransport.Service.identity`) needs one here: without it every tool is
   * quarantined.
   */
  readonly scope?: string | undefined
  /**
   * What a store that cannot be read (or holds more than its bounds) means for the tools it cannot check (no
   * pin this client read before): `"quarantine"` (the default: a pinned client does not call a tool it cannot
   * check) or `"allow"` (they are usable, and nothing is pinned blind). Either way it is reported
   * (`PinStoreUnavailable`).
   */
  readonly onStoreUnavailable?: "quarantine" | "allow" | undefined
}
