/**
 * The client's side of pinning: every listing (fresh or cached) is checked against the store. A tool seen for
 * the first time is pinned (trust on first use); a tool whose definition differs from its pin is quarantined
 * (left out of the listing, refused by `callTool`) unless `onChanged` approves it or the store has the new
 * definition approved. Listings are checked one at a time, and each fact is reported once per client.
 *
 * Failing closed, since pinning is a trust feature:
 * - a tool this client cannot check is quarantined: the store cannot be read (or holds more than its bounds)
 *   and no pin of the tool was read before (`onStoreUnavailable: "allow"` lets such tools through instead,
 *   pinning nothing blind); the scope has a damaged item that names no tool and the tool has no pin;
 * - a tool whose stored record is damaged stays quarantined (never pinned again as if new) until a definition
 *   is approved (`onChanged`, `McpPinning.approve` once a listing has recorded the one offered as pending);
 * - a name listed twice with different definitions is quarantined, whichever copy comes first;
 * - a definition that cannot be fingerprinted (nested deeper than `MAX_DEPTH`) is quarantined, alone;
 * - no scope (a transport that does not say what it connects to, and no `pinning.scope`): every tool.
 *
 * A store that cannot be written is reported (`PinStoreUnavailable`, once per outage); the decisions stand in
 * memory.
 *
 * @internal
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import * as Semaphore from "effect/Semaphore"
import { McpDiagnostic } from "../../McpDiagnostic.js"
import { McpToolQuarantinedError } from "../../McpError.js"
import type { Tool } from "../../McpSchema.js"
import { describeChange } from "./diff.js"
import { cut, type Fingerprint, fingerprint, Unpinnable } from "./fingerprint.js"
import {
  type DamagedRecord,
  type Decision,
  isDamaged,
  type McpPinStoreError,
  type PinningOptions,
  type PinRecord,
  type ToolChange
} from "./model.js"
import { askHook, reporter } from "./report.js"
import { DAMAGED_HASH, MAX_SCOPE_CHARS, memory } from "./stores.js"

/** A name or a scope in an error or a diagnostic is cut to this many characters (a server chose it). */
const MAX_NAME = 200

/** The longest tool name pinned (a record is keyed by the whole name; real names are a few dozen characters). */
const MAX_PINNED_NAME = 512

/** @internal */
export interface Guard {
  /**
   * The listed tools that may be used (in their order); pins, reports and asks `onChanged` on the way. No
   * scope: every tool is quarantined.
   */
  readonly check: (scope: string | undefined, tools: ReadonlyArray<Tool>) => Effect.Effect<ReadonlyArray<Tool>>
  /** Fails when the tool is quarantined (as of the last listing). */
  readonly admit: (name: string) => Effect.Effect<void, McpToolQuarantinedError>
}

/** A record pinning `print`, without any pending definition. */
const pin = (name: string, print: Fingerprint, now: number): PinRecord => ({ name, pinned: print, pinnedAt: now })

/** The fingerprint a damaged record stands for: nothing was pinned, every definition differs from it. */
const DAMAGED: Fingerprint = { hash: DAMAGED_HASH, inputSchema: { hash: DAMAGED_HASH, properties: {}, required: [], truncated: false } }

/** What a listing is checked against: the scope's records by name, and what is known of the store. */
interface Known {
  readonly records: Map<string, PinRecord | DamagedRecord>
  /** The store answered (else: `records` is what this client last read). */
  readonly read: boolean
  /** Why the store did not answer. */
  readonly error: McpPinStoreError | undefined
  /** A damaged item that names no tool: any tool without a record may be the one it was of. */
  readonly orphan: DamagedRecord | undefined
}

/** A listing's copies of one name. */
interface Copies {
  readonly tool: Tool
  readonly prints: ReadonlyArray<Fingerprint | Unpinnable>
}

/** The copies by name, in the order of first appearance. */
const byName = (tools: ReadonlyArray<Tool>, prints: ReadonlyArray<Fingerprint | Unpinnable>) => {
  const groups = new Map<string, { tool: Tool; prints: Array<Fingerprint | Unpinnable> }>()
  for (const [index, tool] of tools.entries()) {
    const print = prints[index]
    if (print === undefined) continue
    const group = groups.get(tool.name)
    if (group === undefined) groups.set(tool.name, { tool, prints: [print] })
    else group.prints.push(print)
  }
  return groups as ReadonlyMap<string, Copies>
}

/** Why a name cannot be judged by its pin at all, if it cannot: too long, unpinnable, or listed twice differently. */
const unjudgeable = (name: string, prints: Copies["prints"]): string | undefined => {
  if (name.length > MAX_PINNED_NAME) return `a name longer than ${MAX_PINNED_NAME} characters cannot be pinned`
  for (const print of prints) if (print instanceof Unpinnable) return `it cannot be pinned: ${print.reason}`
  const hashes = new Set(prints.map((print) => print instanceof Unpinnable ? "" : print.hash))
  return hashes.size > 1 ? `it is listed ${prints.length} times with different definitions` : undefined
}

/** The records of a scope by name; a name with a damaged item anywhere stays damaged. */
const indexed = (stored: ReadonlyArray<PinRecord | DamagedRecord>) => {
  const records = new Map<string, PinRecord | DamagedRecord>()
  let orphan: DamagedRecord | undefined
  for (const record of stored) {
    if (record.name === undefined) {
      if (isDamaged(record)) orphan ??= record
      continue
    }
    const before = records.get(record.name)
    if (before === undefined || !isDamaged(before)) records.set(record.name, record)
  }
  return { records, orphan }
}

/** Why a tool is held back (see `McpToolQuarantinedError.held`). */
type Held = "changed" | "damaged" | "unchecked"

/** What checking one tool needs of the guard. */
interface Ctx {
  readonly hold: (scope: string, name: string, changes: ReadonlyArray<string>, held: Held) => void
  readonly release: (name: string) => void
  readonly refuse: (scope: string, name: string, reason: string) => Effect.Effect<void>
  readonly reportOnce: (key: string, diagnostic: McpDiagnostic, warning?: string) => Effect.Effect<void>
  readonly decide: (change: ToolChange) => Effect.Effect<Decision>
  readonly failClosed: boolean
}

/** One listed tool against its record: whether it may be used, and the record to write, if any. */
const checkTool = (ctx: Ctx, scope: string, tool: Tool, print: Fingerprint, stored: PinRecord | DamagedRecord, now: number) =>
  Effect.gen(function*() {
    const name = tool.name
    const record: PinRecord = isDamaged(stored) ? { name, pinned: DAMAGED, pinnedAt: 0 } : stored
    if (record.pinned.hash === print.hash) {
      ctx.release(name)
      // The server went back to the approved definition: the pending one is forgotten.
      return { usable: true, write: record.pending === undefined ? undefined : pin(name, record.pinned, record.pinnedAt) }
    }
    // A damaged record (or the record that replaced one, pending approval) is told as such: what it pinned is
    // unknown, so no difference can be drawn.
    const damage = isDamaged(stored) ? stored.reason : "replaced, pending approval"
    const damaged = isDamaged(stored) || record.pinned.hash === DAMAGED_HASH
    const changes = damaged
      ? [cut(`its stored pin is damaged (${damage}): approve to pin the definition offered now`, 300)]
      : describeChange(record.pinned, print)
    const held = damaged ? "damaged" : "changed"
    const decision = yield* ctx.decide({ scope, name, changes, pinnedHash: record.pinned.hash, hash: print.hash, tool })
    yield* ctx.reportOnce(
      `changed:${name}\u0000${print.hash}`,
      McpDiagnostic.ToolChanged({
        scope: cut(scope, MAX_NAME),
        name: cut(name, MAX_NAME),
        changes,
        decision,
        held
      }),
      decision === "quarantine"
        ? `mcp pinning: tool ${cut(name, MAX_NAME)} (${cut(scope, MAX_NAME)}) quarantined: ${changes.join("; ")}`
        : undefined
    )
    if (decision === "approve") {
      ctx.release(name)
      return { usable: true, write: pin(name, print, now) }
    }
    ctx.hold(scope, name, changes, held)
    const write: PinRecord | undefined = !isDamaged(stored) && record.pending?.fingerprint.hash === print.hash
      ? undefined
      : { ...record, pending: { fingerprint: print, seenAt: now } }
    return { usable: false, write }
  })

/** A tool without a record: pinned at first sight, unless the store cannot vouch that it has none. */
const checkNew = (ctx: Ctx, scope: string, name: string, print: Fingerprint, known: Known, firstSight: boolean, now: number) =>
  Effect.gen(function*() {
    if (known.orphan !== undefined) {
      yield* ctx.refuse(scope, name, `a stored pin of this scope is damaged and names no tool (${known.orphan.reason})`)
      return { usable: false, write: undefined }
    }
    if (!known.read) {
      // Unread store: the tool may be pinned there with another definition; no pin is written blind.
      if (!ctx.failClosed) {
        ctx.release(name)
        return { usable: true, write: undefined }
      }
      yield* ctx.refuse(scope, name, `the pin store could not be read (${cut(known.error?.detail ?? "", 200)})`)
      return { usable: false, write: undefined }
    }
    ctx.release(name)
    if (!firstSight) {
      yield* ctx.reportOnce(`added:${name}`, McpDiagnostic.ToolAdded({ scope: cut(scope, MAX_NAME), name: cut(name, MAX_NAME) }))
    }
    return { usable: true, write: pin(name, print, now) }
  })

/** The pinned tools a listing no longer has, reported once each (a tool back in a listing may be told again). */
const reportRemoved = (
  facts: ReturnType<typeof reporter>,
  scope: string,
  records: Known["records"],
  tools: ReadonlyArray<Tool>
) =>
  Effect.gen(function*() {
    const listed = new Set(tools.map((tool) => tool.name))
    for (const name of records.keys()) {
      if (listed.has(name)) facts.forget(`removed:${name}`)
      else {
        yield* facts.once(`removed:${name}`, McpDiagnostic.ToolRemoved({ scope: cut(scope, MAX_NAME), name: cut(name, MAX_NAME) }))
      }
    }
  })

/** @internal */
export const make = (
  options: PinningOptions,
  report: (diagnostic: McpDiagnostic) => Effect.Effect<void>
): Guard => {
  // Without a store, pins live in this client's memory (see `PinningOptions.store`).
  const store = options.store ?? memory()
  const failClosed = options.onStoreUnavailable !== "allow"
  const lock = Semaphore.makeUnsafe(1)
  /** The error each quarantined tool is refused with. */
  const quarantined = new Map<string, McpToolQuarantinedError>()
  /** Per scope, the records as last read (and written since): what a store outage is checked against. */
  const lastKnown = new Map<string, Known["records"]>()
  const facts = reporter(report)
  const reportOnce = facts.once
  const decide = askHook(options.onChanged, report)

  const hold = (scope: string, name: string, changes: ReadonlyArray<string>, held: Held) =>
    void quarantined.set(name, new McpToolQuarantinedError({ tool: cut(name, MAX_NAME), scope: cut(scope, MAX_NAME), changes, held }))

  /** An outage is reported, and logged, once until the store answers again. */
  const unavailable = (scope: string, error: Pick<McpPinStoreError, "operation" | "detail" | "message">) =>
    reportOnce(
      `unavailable:${error.operation}`,
      McpDiagnostic.PinStoreUnavailable({
        scope: cut(scope, MAX_NAME),
        operation: error.operation,
        reason: cut(error.detail, 300)
      }),
      `mcp pinning: ${cut(error.message, 400)}`
    )

  /** The scope's records: the store's, or (when it cannot be read) what this client last knew of them. */
  const recordsOf = (scope: string): Effect.Effect<Known> =>
    Effect.gen(function*() {
      const loaded = yield* Effect.result(store.load(scope))
      if (Result.isFailure(loaded)) {
        yield* unavailable(scope, loaded.failure)
        return { records: new Map(lastKnown.get(scope)), read: false, error: loaded.failure, orphan: undefined }
      }
      facts.forget("unavailable:read")
      const { records, orphan } = indexed(loaded.success)
      lastKnown.set(scope, records)
      return { records: new Map(records), read: true, error: undefined, orphan }
    })

  /** A tool left out with its reason: quarantined (refused by `callTool`) and reported once. */
  const refuse = (scope: string, name: string, reason: string) =>
    Effect.andThen(
      Effect.sync(() => hold(scope, name, [reason], "unchecked")),
      reportOnce(
        `invalid:${cut(name, MAX_NAME)}\u0000${reason}`,
        McpDiagnostic.InvalidTool({
          name: cut(name, MAX_NAME),
          reason: cut(`pinning: ${reason} (scope ${cut(scope, MAX_NAME)})`, 500),
          pinning: { scope: cut(scope, MAX_NAME), reason: cut(reason, 500) }
        }),
        `mcp pinning: tool ${cut(name, MAX_NAME)} (${cut(scope, MAX_NAME)}) quarantined: ${reason}`
      )
    )

  const ctx: Ctx = {
    hold,
    release: (name) => void quarantined.delete(name),
    refuse,
    reportOnce,
    decide,
    failClosed
  }

  const checkAll = (scope: string, tools: ReadonlyArray<Tool>, prints: ReadonlyArray<Fingerprint | Unpinnable>) =>
    Effect.gen(function*() {
      const known = yield* recordsOf(scope)
      const { records } = known
      // Nothing pinned for this scope yet: this listing is the first sight of every tool, none is "added".
      const firstSight = records.size === 0 && known.orphan === undefined
      const now = yield* Clock.currentTimeMillis
      const writes: Array<PinRecord> = []
      const usable = new Set<string>()
      for (const [name, copies] of byName(tools, prints)) {
        const reason = unjudgeable(name, copies.prints)
        const print = copies.prints[0]
        if (reason !== undefined || print === undefined || print instanceof Unpinnable) {
          yield* refuse(scope, name, reason ?? "it cannot be pinned")
          continue
        }
        const record = records.get(name)
        const checked = record === undefined
          ? yield* checkNew(ctx, scope, name, print, known, firstSight, now)
          : yield* checkTool(ctx, scope, copies.tool, print, record, now)
        if (checked.usable) usable.add(name)
        if (checked.write !== undefined) {
          records.set(name, checked.write)
          writes.push(checked.write)
        }
      }
      yield* reportRemoved(facts, scope, records, tools)
      lastKnown.set(scope, records)
      if (writes.length > 0) yield* save(scope, records, writes)
      return tools.filter((tool) => usable.has(tool.name))
    })

  /** The writes, unless the scope would outgrow what any store reads back (then reported, nothing written). */
  const save = (scope: string, records: Known["records"], writes: ReadonlyArray<PinRecord>) =>
    Effect.suspend(() => {
      let total = 0
      for (const record of records.values()) total += isDamaged(record) ? 0 : JSON.stringify(record).length + 1
      if (total > MAX_SCOPE_CHARS) {
        const detail = `the scope's pins would be larger than ${MAX_SCOPE_CHARS} characters: none written`
        return unavailable(scope, { operation: "write", detail, message: `the pin store (${store.label}): ${detail}` })
      }
      return store.save(scope, writes).pipe(
        Effect.andThen(Effect.sync(() => void facts.forget("unavailable:write"))),
        Effect.catch((error) => unavailable(scope, error))
      )
    })

  /** No scope: nothing can be checked, every tool is held back (reported once). */
  const noScope = (tools: ReadonlyArray<Tool>) =>
    Effect.gen(function*() {
      const reason = "no pin scope: the transport does not say what it connects to; set pinning.scope"
      for (const tool of tools) hold("(none)", tool.name, [reason], "unchecked")
      yield* reportOnce(
        "noscope",
        McpDiagnostic.PinStoreUnavailable({ scope: "(none)", operation: "read", reason }),
        `mcp pinning: ${reason}`
      )
      return [] as ReadonlyArray<Tool>
    })

  const check = (scope: string | undefined, tools: ReadonlyArray<Tool>): Effect.Effect<ReadonlyArray<Tool>> =>
    Effect.gen(function*() {
      if (scope === undefined) return yield* lock.withPermits(1)(noScope(tools))
      const prints = yield* Effect.forEach(tools, fingerprint, { concurrency: 4 })
      return yield* lock.withPermits(1)(checkAll(scope, tools, prints))
    })

  const admit = (name: string): Effect.Effect<void, McpToolQuarantinedError> =>
    Effect.suspend(() => {
      const refused = quarantined.get(name)
      return refused === undefined ? Effect.void : Effect.fail(refused)
    })

  return { check, admit }
}
