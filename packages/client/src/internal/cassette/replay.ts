/**
 * The replay of a cassette to one client: what the client sends is matched with what was recorded, in order,
 * and what the server sent after it is handed back, rewritten for this client (its request ids, its progress
 * tokens), at the recorded offsets.
 *
 * - Strict: a request must be the next recorded one by method and comparable params (`compare.ts`); anything
 *   else is an `McpCassetteMismatchError` naming the expected request and the difference. Repeated calls of
 *   the same request are answered in recorded order.
 * - The server's own requests are sent as recorded; the client's answer must match the recorded answer.
 * - Leniency where clients differ and the session does not: a client notification that was not recorded is
 *   taken and ignored, a recorded one the client does not send is skipped; a request the server refused with
 *   "method not found" (the era probe) may be skipped, and an unrecorded `server/discover` to a legacy cassette
 *   is refused as the legacy server did, so a client of either era can replay either.
 * - Pacing: the handshake's answers come at once (a test's layer builds without moving its clock); after it,
 *   each message comes at its recorded offset from the client message it follows, on the `Clock` (`TestClock`
 *   in tests), or at once with `pacing: "fast"`.
 *
 * @internal
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Queue from "effect/Queue"
import type * as Scope from "effect/Scope"
import { McpCassetteMismatchError } from "../../McpCassetteError.js"
import { isRecord, type JsonObject } from "../../McpSchema.js"
import { comparableParams, differences, short, tooDeep } from "./compare.js"
import type { Cassette, Entry } from "./model.js"

/** @internal */
export interface ReplayOptions {
  /** `"recorded"` (default): the recorded offsets; `"fast"`: no waits. */
  readonly pacing?: "recorded" | "fast" | undefined
  /**
   * `true` (default): each request must be the next recorded one. `false`: a request that is not is answered
   * with the first later recorded one it matches (each recorded request answers once), and fails only when
   * there is none.
   */
  readonly strict?: boolean | undefined
}

const METHOD_NOT_FOUND = -32601
const HANDSHAKE: ReadonlySet<string> = new Set(["initialize", "server/discover", "notifications/initialized"])

interface Batch {
  readonly entries: ReadonlyArray<Entry>
  /** The recorded offset of the client message the batch follows. */
  readonly anchor: number
  /** When that message came, on the clock. */
  readonly at: number
  readonly paced: boolean
}

const key = (id: unknown) => JSON.stringify(id)
const isRequest = (m: JsonObject) => typeof m["method"] === "string" && m["id"] !== undefined && m["id"] !== null
const isNotification = (m: JsonObject) => typeof m["method"] === "string" && !("id" in m)
const describe = (m: JsonObject): string =>
  typeof m["method"] === "string"
    ? `${m["method"]} ${short(comparableParams(m["method"], m["params"]), 100)}`
    : `an answer to ${short(m["id"])} ${short("error" in m ? { error: m["error"] } : { result: m["result"] }, 100)}`

/** The matcher of one connection. @internal */
export class ReplaySession {
  private cursor = 0
  private readonly ids = new Map<string, unknown>()
  private readonly tokens = new Map<string, unknown>()
  private readonly skipped = new Set<string>()
  /** Entries answered out of order (`strict: false`): passed over when the cursor reaches them. */
  private readonly consumed = new Set<number>()
  private carried: Array<Entry> = []
  private readonly entries: ReadonlyArray<Entry>

  constructor(private readonly cassette: Cassette, private readonly strict = true) {
    this.entries = cassette.entries
  }

  private refusedAnswer(request: Entry): boolean {
    const id = key(request.message["id"])
    const answer = this.entries.find((e, i) =>
      i > this.entries.indexOf(request) && e.from === "server" && !("method" in e.message) && key(e.message["id"]) === id
    )
    return answer !== undefined && isRecord(answer.message["error"]) &&
      answer.message["error"]["code"] === METHOD_NOT_FOUND
  }

  /** The server messages from the cursor to the next client message (the cursor moves past them). */
  private takeServerRun(): Array<Entry> {
    const run: Array<Entry> = []
    while (this.cursor < this.entries.length) {
      const entry = this.entries[this.cursor]
      if (entry === undefined || entry.from === "client") break
      if (this.consumed.has(this.cursor++)) continue
      if (!("method" in entry.message) && this.skipped.has(key(entry.message["id"]))) continue
      run.push(entry)
    }
    return run
  }

  /**
   * A client that connects again: its handshake moves the replay to the next recorded handshake of the same
   * method (a cassette of several sessions replays them in turn), or back to the first one (a client run again
   * against a cassette of one session). None recorded: the replay stays where it is.
   */
  private handshake(message: JsonObject): void {
    if (this.entries[this.cursor]?.message["method"] === message["method"]) return
    const same = (e: Entry) => e.from === "client" && e.message["method"] === message["method"]
    let at = this.entries.findIndex((e, i) => i >= this.cursor && same(e))
    if (at === -1) at = this.entries.findIndex(same)
    if (at === -1) return
    this.cursor = at
    this.carried = []
  }

  /** Skip what the client need not send before `message`: recorded notifications, refused probes. */
  private skipOptional(message: JsonObject): void {
    for (;;) {
      const next = this.entries[this.cursor]
      if (next === undefined || next.from !== "client") return
      if (this.consumed.has(this.cursor)) {
        this.cursor++
        this.takeServerRun()
        continue
      }
      const sameMethod = next.message["method"] === message["method"]
      if (isNotification(next.message) && !sameMethod) {
        this.cursor++
        this.carried.push(...this.takeServerRun())
      } else if (isRequest(next.message) && !sameMethod && this.refusedAnswer(next)) {
        this.skipped.add(key(next.message["id"]))
        this.cursor++
        this.carried.push(...this.takeServerRun())
      } else {
        return
      }
    }
  }

  private mismatch(expected: Entry | undefined, message: JsonObject, difference: string) {
    return new McpCassetteMismatchError({
      expected: expected === undefined ? "nothing more (the recorded session has ended)" : describe(expected.message),
      received: describe(message),
      difference,
      ...(expected === undefined ? {} : { line: this.entries.indexOf(expected) + 2 })
    })
  }

  /**
   * Match one client message: what to send back, from which recorded offset, and whether it is the handshake's
   * (sent at once, unpaced: a refused probe among them); or the mismatch.
   */
  match(message: JsonObject): { readonly entries: ReadonlyArray<Entry>; readonly anchor: number; readonly handshake: boolean } | McpCassetteMismatchError {
    // A cassette is read no deeper than MAX_DEPTH, so a deeper message matches nothing; refused before any
    // comparison (a hostile client's params may nest deep enough to overflow the stack).
    if (tooDeep(message)) return this.mismatch(this.entries[this.cursor], message, "the message nests deeper than a cassette is read")
    if (isNotification(message)) {
      const next = this.entries[this.cursor]
      if (next?.from !== "client" || next.message["method"] !== message["method"]) {
        return { entries: [], anchor: 0, handshake: true }
      }
      this.cursor++
      return { entries: this.takeServerRun(), anchor: next.t, handshake: HANDSHAKE.has(String(message["method"])) }
    }
    if (isRequest(message) && (message["method"] === "initialize" || message["method"] === "server/discover")) {
      this.handshake(message)
    }
    this.skipOptional(message)
    const expected = this.entries[this.cursor]
    if (isRequest(message) && message["method"] === "server/discover" && this.cassette.header.era === "legacy" &&
      expected?.message["method"] !== "server/discover") {
      const refusal: Entry = {
        t: expected?.t ?? 0,
        from: "server",
        message: { jsonrpc: "2.0", id: message["id"], error: { code: METHOD_NOT_FOUND, message: "Method not found" } }
      }
      return { entries: [refusal], anchor: refusal.t, handshake: true }
    }
    if (expected === undefined || expected.from !== "client") {
      return this.mismatch(undefined, message, "the cassette has no more client messages")
    }
    const difference = this.compare(expected.message, message)
    if (difference !== undefined) {
      const later = this.strict || !isRequest(message) ? undefined : this.later(message)
      return later ?? this.mismatch(expected, message, difference)
    }
    this.cursor++
    if (isRequest(message)) this.learn(expected.message, message)
    const entries = [...this.carried, ...this.takeServerRun()]
    this.carried = []
    return { entries, anchor: expected.t, handshake: HANDSHAKE.has(String(message["method"])) }
  }

  /** `strict: false`: the first later recorded request `message` matches, taken with the server's run after it. */
  private later(message: JsonObject) {
    const at = this.entries.findIndex((e, i) =>
      i > this.cursor && !this.consumed.has(i) && e.from === "client" && isRequest(e.message) &&
      this.compare(e.message, message) === undefined
    )
    const found = this.entries[at]
    if (found === undefined) return undefined
    this.consumed.add(at)
    this.learn(found.message, message)
    const entries: Array<Entry> = []
    for (let i = at + 1; i < this.entries.length; i++) {
      const entry = this.entries[i]
      if (entry === undefined || entry.from === "client") break
      this.consumed.add(i)
      entries.push(entry)
    }
    return { entries, anchor: found.t, handshake: false }
  }

  private compare(recorded: JsonObject, actual: JsonObject): string | undefined {
    if (isRequest(recorded) !== isRequest(actual) || recorded["method"] !== actual["method"]) {
      return isRequest(recorded) ? `another method (${String(recorded["method"])} recorded)` : "not the recorded answer"
    }
    if (typeof recorded["method"] === "string") {
      const found = differences(
        comparableParams(recorded["method"], recorded["params"]),
        comparableParams(recorded["method"], actual["params"]),
        "params"
      )
      return found.length === 0 ? undefined : found.join("; ")
    }
    // The client's answer to a recorded server request (whose id it was sent as recorded).
    if (key(recorded["id"]) !== key(actual["id"])) return `an answer to ${short(actual["id"])}, not ${short(recorded["id"])}`
    const found = differences(
      "error" in recorded ? { error: recorded["error"] } : { result: recorded["result"] },
      "error" in actual ? { error: actual["error"] } : { result: actual["result"] }
    )
    return found.length === 0 ? undefined : found.join("; ")
  }

  private learn(recorded: JsonObject, actual: JsonObject): void {
    this.ids.set(key(recorded["id"]), actual["id"])
    const recordedMeta = isRecord(recorded["params"]) ? recorded["params"]["_meta"] : undefined
    const actualMeta = isRecord(actual["params"]) ? actual["params"]["_meta"] : undefined
    if (isRecord(recordedMeta) && "progressToken" in recordedMeta && isRecord(actualMeta) && "progressToken" in actualMeta) {
      this.tokens.set(key(recordedMeta["progressToken"]), actualMeta["progressToken"])
    }
  }

  /** A recorded server message for this client: its ids and progress tokens. */
  rewrite(message: JsonObject): JsonObject {
    let out = message
    if (!("method" in out) && this.ids.has(key(out["id"]))) out = { ...out, id: this.ids.get(key(out["id"])) }
    const params = out["params"]
    if (isRecord(params) && "progressToken" in params && this.tokens.has(key(params["progressToken"]))) {
      out = { ...out, params: { ...params, progressToken: this.tokens.get(key(params["progressToken"])) } }
    }
    return out
  }
}

/**
 * A player of one connection: matches each client message (`offer`) and hands what the server answers to
 * `emit`, in order, at the recorded offsets, on a fiber of the scope.
 *
 * @internal
 */
export const makePlayer = (
  cassette: Cassette,
  emit: (message: JsonObject, entry: Entry) => Effect.Effect<void>,
  options?: ReplayOptions
): Effect.Effect<
  { readonly offer: (message: JsonObject) => Effect.Effect<void, McpCassetteMismatchError> },
  never,
  Scope.Scope
> =>
  Effect.gen(function*() {
    const session = new ReplaySession(cassette, options?.strict ?? true)
    const batches = yield* Queue.unbounded<Batch>()
    const paced = options?.pacing !== "fast"
    const play = (batch: Batch) =>
      Effect.forEach(batch.entries, (entry) =>
        Effect.gen(function*() {
          if (batch.paced) {
            const now = yield* Clock.currentTimeMillis
            const wait = batch.at + (entry.t - batch.anchor) - now
            if (wait > 0) yield* Effect.sleep(wait)
          }
          yield* emit(session.rewrite(entry.message), entry)
        }), { discard: true })
    yield* Queue.take(batches).pipe(Effect.flatMap(play), Effect.forever, Effect.forkScoped)
    const offer = (message: JsonObject) =>
      Effect.gen(function*() {
        const found = session.match(message)
        if (found instanceof McpCassetteMismatchError) return yield* found
        if (found.entries.length === 0) return
        const at = yield* Clock.currentTimeMillis
        yield* Queue.offer(batches, { entries: found.entries, anchor: found.anchor, at, paced: paced && !found.handshake })
      })
    return { offer }
  })
