/**
 * The client's side of pinning: every listing (fresh or cached) is checked against the store. A tool seen for
 * the first time is pinned (trust on first use); a tool whose definition differs from its pin is quarantined
 * (left out of the listing, refused by `callTool`) unless `onChanged` approves it or the store has the new
 * definition approved. Listings are checked one at a time, and each fact is reported once per client.
 *
 * A store that cannot be read leaves the tools usable (the client cannot tell a change from a first sight) and
 * is reported once per outage (`PinStoreUnavailable`); the client then checks against what it last read, so a
 * change it has seen stays quarantined, and it writes no first-sight pin it could not check (an outage never
 * approves a change). A store that cannot be written is reported the same way; the decisions stand in memory.
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
import { cut, type Fingerprint, fingerprint } from "./fingerprint.js"
import {
  type Decision,
  type McpPinStoreError,
  type PinningOptions,
  type PinRecord,
  type ToolChange
} from "./model.js"

/** A name or a scope in an error or a diagnostic is cut to this many characters (a server chose it). */
const MAX_NAME = 200

/** The longest tool name pinned (a record is keyed by the whole name; real names are a few dozen characters). */
const MAX_PINNED_NAME = 512

/** @internal */
export interface Guard {
  /** The listed tools that may be used (in their order); pins, reports and asks `onChanged` on the way. */
  readonly check: (scope: string, tools: ReadonlyArray<Tool>) => Effect.Effect<ReadonlyArray<Tool>>
  /** Fails when the tool is quarantined (as of the last listing). */
  readonly admit: (name: string) => Effect.Effect<void, McpToolQuarantinedError>
}

const describe = (e: unknown): string => e instanceof Error ? e.message : String(e)

const isPromiseLike = (u: unknown): u is PromiseLike<unknown> =>
  typeof u === "object" && u !== null && "then" in u && typeof u.then === "function"

const isDecision = (u: unknown): u is Decision => u === "approve" || u === "quarantine"

/** A record pinning `print`, without any pending definition. */
const pin = (name: string, print: Fingerprint, now: number): PinRecord => ({ name, pinned: print, pinnedAt: now })

/** `onChanged`'s answer: a value, a Promise or an Effect; anything else, or a failure, quarantines (reported). */
const askHook = (
  hook: PinningOptions["onChanged"],
  change: ToolChange,
  report: (diagnostic: McpDiagnostic) => Effect.Effect<void>
): Effect.Effect<Decision> => {
  if (hook === undefined) return Effect.succeed("quarantine")
  const failed = (reason: string) =>
    Effect.as(report(McpDiagnostic.HookFailed({ hook: "pinning.onChanged", reason: cut(reason, 300) })), "quarantine" as const)
  return Effect.try({ try: () => hook(change), catch: (e) => e }).pipe(
    Effect.flatMap((out): Effect.Effect<unknown, unknown> =>
      Effect.isEffect(out)
        ? out
        : isPromiseLike(out)
        ? Effect.tryPromise({ try: () => Promise.resolve(out), catch: (e) => e })
        : Effect.succeed(out)
    ),
    Effect.flatMap((answer) =>
      isDecision(answer) ? Effect.succeed(answer) : failed(`answered ${cut(String(answer), 60)}, not "approve" or "quarantine"`)
    ),
    Effect.catch((e) => failed(describe(e)))
  )
}

/** Facts told once per client (a change, an addition, a removal, an outage); `forget` lets one be told again. */
const reporter = (report: (diagnostic: McpDiagnostic) => Effect.Effect<void>) => {
  const reported = new Set<string>()
  /** `warning` is logged with the diagnostic (a quarantine or an outage deserves a warning). */
  const once = (key: string, diagnostic: McpDiagnostic, warning?: string) =>
    Effect.suspend(() => {
      if (reported.has(key)) return Effect.void
      reported.add(key)
      return warning === undefined ? report(diagnostic) : Effect.andThen(Effect.logWarning(warning), report(diagnostic))
    })
  return { once, forget: (key: string) => void reported.delete(key) }
}

/** @internal */
export const make = (
  options: PinningOptions,
  report: (diagnostic: McpDiagnostic) => Effect.Effect<void>
): Guard => {
  const lock = Semaphore.makeUnsafe(1)
  /** The error each quarantined tool is refused with. */
  const quarantined = new Map<string, McpToolQuarantinedError>()
  /** Per scope, the records as last read (and written since): what a store outage is checked against. */
  const lastKnown = new Map<string, Map<string, PinRecord>>()
  /** `onChanged`'s answer per tool and definition: it is asked once per client. */
  const decisions = new Map<string, Decision>()
  const facts = reporter(report)
  const reportOnce = facts.once

  /** An outage is reported, and logged, once until the store answers again. */
  const unavailable = (scope: string, error: McpPinStoreError) =>
    reportOnce(
      `unavailable:${error.operation}`,
      McpDiagnostic.PinStoreUnavailable({
        scope: cut(scope, MAX_NAME),
        operation: error.operation,
        reason: cut(error.detail, 300)
      }),
      `mcp pinning: ${cut(error.message, 400)}`
    )

  const decide = (change: ToolChange): Effect.Effect<Decision> =>
    Effect.suspend(() => {
      const key = `${change.name}\u0000${change.hash}`
      const known = decisions.get(key)
      if (known !== undefined) return Effect.succeed(known)
      return Effect.tap(
        askHook(options.onChanged, change, report),
        (decision) => Effect.sync(() => void decisions.set(key, decision))
      )
    })

  /** The scope's records: the store's, or (when it cannot be read) what this client last knew of them. */
  const recordsOf = (scope: string) =>
    Effect.gen(function*() {
      const loaded = yield* Effect.result(options.store.load(scope))
      if (Result.isFailure(loaded)) {
        yield* unavailable(scope, loaded.failure)
        return { records: new Map(lastKnown.get(scope)), read: false }
      }
      facts.forget("unavailable:read")
      const records = new Map(loaded.success.map((record) => [record.name, record] as const))
      lastKnown.set(scope, records)
      return { records: new Map(records), read: true }
    })

  /** One listed tool against its record: whether it may be used, and the record to write, if any. */
  const checkTool = (scope: string, tool: Tool, print: Fingerprint, record: PinRecord, now: number) =>
    Effect.gen(function*() {
      const name = tool.name
      if (record.pinned.hash === print.hash) {
        quarantined.delete(name)
        // The server went back to the approved definition: the pending one is forgotten.
        return { usable: true, write: record.pending === undefined ? undefined : pin(name, record.pinned, record.pinnedAt) }
      }
      const changes = describeChange(record.pinned, print)
      const decision = yield* decide({ scope, name, changes, pinnedHash: record.pinned.hash, hash: print.hash, tool })
      yield* reportOnce(
        `changed:${name}\u0000${print.hash}`,
        McpDiagnostic.ToolChanged({ scope: cut(scope, MAX_NAME), name: cut(name, MAX_NAME), changes, decision }),
        decision === "quarantine"
          ? `mcp pinning: tool ${cut(name, MAX_NAME)} (${cut(scope, MAX_NAME)}) quarantined: ${changes.join("; ")}`
          : undefined
      )
      if (decision === "approve") {
        quarantined.delete(name)
        return { usable: true, write: pin(name, print, now) }
      }
      quarantined.set(name, new McpToolQuarantinedError({ tool: cut(name, MAX_NAME), scope: cut(scope, MAX_NAME), changes }))
      const write: PinRecord | undefined = record.pending?.fingerprint.hash === print.hash
        ? undefined
        : { ...record, pending: { fingerprint: print, seenAt: now } }
      return { usable: false, write }
    })

  const check = (scope: string, tools: ReadonlyArray<Tool>): Effect.Effect<ReadonlyArray<Tool>> =>
    Effect.gen(function*() {
      const prints = yield* Effect.forEach(tools, fingerprint, { concurrency: 4 })
      return yield* lock.withPermits(1)(checkAll(scope, tools, prints))
    })

  const checkAll = (scope: string, tools: ReadonlyArray<Tool>, prints: ReadonlyArray<Fingerprint>) =>
    Effect.gen(function*() {
      const { records, read } = yield* recordsOf(scope)
      // Nothing pinned for this scope yet: this listing is the first sight of every tool, none is "added".
      const firstSight = records.size === 0
      const now = yield* Clock.currentTimeMillis
      const writes: Array<PinRecord> = []
      const usable: Array<Tool> = []
      for (const [index, tool] of tools.entries()) {
        const print = prints[index]
        if (print === undefined) continue
        // A name too long to keep is no name a pin can stand for: the tool is left out.
        if (tool.name.length > MAX_PINNED_NAME) {
          yield* reportOnce(
            `long:${cut(tool.name, MAX_NAME)}`,
            McpDiagnostic.InvalidTool({
              name: cut(tool.name, MAX_NAME),
              reason: `a name longer than ${MAX_PINNED_NAME} characters cannot be pinned`
            })
          )
          continue
        }
        const record = records.get(tool.name)
        if (record === undefined) {
          quarantined.delete(tool.name)
          usable.push(tool)
          // Unread store: the tool may be pinned there with another definition; no pin is written blind.
          if (!read) continue
          if (!firstSight) {
            const added = McpDiagnostic.ToolAdded({ scope: cut(scope, MAX_NAME), name: cut(tool.name, MAX_NAME) })
            yield* reportOnce(`added:${tool.name}`, added)
          }
          const pinned = pin(tool.name, print, now)
          records.set(tool.name, pinned)
          writes.push(pinned)
          continue
        }
        const checked = yield* checkTool(scope, tool, print, record, now)
        if (checked.usable) usable.push(tool)
        if (checked.write !== undefined) {
          records.set(tool.name, checked.write)
          writes.push(checked.write)
        }
      }
      const listed = new Set(tools.map((tool) => tool.name))
      for (const name of records.keys()) {
        if (listed.has(name)) facts.forget(`removed:${name}`)
        else {
          yield* reportOnce(`removed:${name}`, McpDiagnostic.ToolRemoved({ scope: cut(scope, MAX_NAME), name: cut(name, MAX_NAME) }))
        }
      }
      lastKnown.set(scope, records)
      if (writes.length > 0) yield* save(scope, writes)
      return usable as ReadonlyArray<Tool>
    })

  const save = (scope: string, writes: ReadonlyArray<PinRecord>) =>
    options.store.save(scope, writes).pipe(
      Effect.andThen(Effect.sync(() => void facts.forget("unavailable:write"))),
      Effect.catch((error) => unavailable(scope, error))
    )

  const admit = (name: string): Effect.Effect<void, McpToolQuarantinedError> =>
    Effect.suspend(() => {
      const refused = quarantined.get(name)
      return refused === undefined ? Effect.void : Effect.fail(refused)
    })

  return { check, admit }
}

