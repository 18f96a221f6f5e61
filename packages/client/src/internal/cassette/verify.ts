/**
 * Verify: the recorded client side sent to a live server, and what changed in its answers. Each recorded
 * client request is sent in order (as recorded: the normalised ids are valid ids; the client's identity is
 * `mcp-effect-verify`), each answer is awaited (`timeout`) and compared with the recorded one without its
 * volatile parts (`_meta`, and what the cassette normalised); a `tools/list` answer is compared tool by tool
 * (added, removed, and which field of which tool changed). A request of the server is answered with the
 * client's recorded answer to the same kind of request, else refused. Notifications are not compared.
 *
 * @internal
 */
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Queue from "effect/Queue"
import * as Scope from "effect/Scope"
import type { McpClosedError, McpServerGoneError, McpTransportError } from "../../McpError.js"
import type { McpAuthError } from "../../McpAuthError.js"
import { isRecord, type JsonObject, MetaKey, type OutboundMessage } from "../../McpSchema.js"
import { McpTransport, type SendContext } from "../../McpTransport.js"
import { CLIENT_VERSION } from "../client/context.js"
import { differences, short } from "./compare.js"
import type { Cassette, Entry } from "./model.js"
import { NORMALISED, Normaliser } from "./normalise.js"

/** One difference between the recording and the live server. @internal */
export interface Change {
  /** The recorded request (`tools/call echo`), and its line in the cassette. */
  readonly request: string
  readonly line: number
  readonly kind: "tool-added" | "tool-removed" | "tool-changed" | "answer-changed" | "no-answer"
  readonly tool?: string | undefined
  /** Where the answer differs (`inputSchema.properties.text.type`). */
  readonly field?: string | undefined
  readonly detail: string
}

/** @internal */
export interface Report {
  readonly same: boolean
  readonly requests: number
  readonly changes: ReadonlyArray<Change>
}

/** @internal */
export interface VerifyOptions {
  /** How long each answer may take (default 30 s). */
  readonly timeout?: Duration.Input | undefined
}

const VERIFY_CLIENT = { name: "mcp-effect-verify", version: CLIENT_VERSION }

/** A recorded client message as it is sent again: the client's identity where it was normalised away. */
const resend = (message: JsonObject): JsonObject => {
  const params = message["params"]
  if (!isRecord(params)) return message
  let out: JsonObject = params
  if (out["clientInfo"] !== undefined) out = { ...out, clientInfo: VERIFY_CLIENT }
  const meta = out["_meta"]
  if (isRecord(meta) && meta[MetaKey.clientInfo] === NORMALISED) {
    out = { ...out, _meta: { ...meta, [MetaKey.clientInfo]: VERIFY_CLIENT } }
  }
  return { ...message, params: out }
}

/** The comparable part of an answer: its result or error without `_meta` at the top. */
const answerOf = (message: JsonObject): unknown => {
  if ("error" in message) return { error: message["error"] }
  const result = message["result"]
  if (!isRecord(result)) return { result }
  const { _meta: _, ...rest } = result
  return { result: rest }
}

const toolsOf = (answer: unknown): Map<string, JsonObject> => {
  const tools = isRecord(answer) && isRecord(answer["result"]) ? answer["result"]["tools"] : undefined
  const out = new Map<string, JsonObject>()
  if (Array.isArray(tools)) for (const tool of tools) if (isRecord(tool)) out.set(String(tool["name"]), tool)
  return out
}

const toolChanges = (request: string, line: number, recorded: unknown, live: unknown): Array<Change> => {
  const before = toolsOf(recorded)
  const after = toolsOf(live)
  const changes: Array<Change> = []
  for (const [name, tool] of after) {
    const old = before.get(name)
    if (old === undefined) {
      changes.push({ request, line, kind: "tool-added", tool: name, detail: `tool ${name} added` })
      continue
    }
    for (const difference of differences(old, tool, "", 10)) {
      const field = difference.slice(0, difference.indexOf(":"))
      changes.push({ request, line, kind: "tool-changed", tool: name, field, detail: `tool ${name} changed: ${difference}` })
    }
  }
  for (const name of before.keys()) {
    if (!after.has(name)) changes.push({ request, line, kind: "tool-removed", tool: name, detail: `tool ${name} removed` })
  }
  return changes
}

const compareAnswer = (entry: Entry, line: number, recorded: unknown, live: unknown): Array<Change> => {
  const method = String(entry.message["method"])
  const params = entry.message["params"]
  const name = isRecord(params) && typeof params["name"] === "string" ? ` ${params["name"]}` : ""
  const request = `${method}${name}`
  if (method === "tools/list") return toolChanges(request, line, recorded, live)
  return differences(recorded, live, "", 10).map((difference) => ({
    request,
    line,
    kind: "answer-changed" as const,
    ...(name === "" ? {} : { tool: name.trim() }),
    field: difference.slice(0, difference.indexOf(":")),
    detail: `${request}: ${difference}`
  }))
}

type VerifyError = McpTransportError | McpAuthError | McpServerGoneError | McpClosedError

const HANDSHAKE: ReadonlySet<string> = new Set(["initialize", "server/discover"])

/**
 * Run the cassette's client side against the server of the `McpTransport`. Each recorded session (a handshake
 * after other requests starts one) gets a connection of its own, the previous one closed first.
 *
 * @internal
 */
export const verify = (
  cassette: Cassette,
  options?: VerifyOptions
): Effect.Effect<Report, VerifyError, McpTransport | Scope.Scope> =>
  Effect.gen(function*() {
    const transport = yield* McpTransport
    const entries = cassette.entries
    const normaliser = new Normaliser({ timestamps: cassette.header.normalised.includes("timestamps") })
    const context: SendContext = {
      era: cassette.header.era ?? undefined,
      protocolVersion: cassette.header.protocolVersion ?? undefined
    }
    const timeout = Duration.fromInputUnsafe(options?.timeout ?? "30 seconds")
    const answerServer = serverAnswers(entries)
    let session = yield* open(transport, answerServer, context)
    let inSession = false
    const changes: Array<Change> = []
    let requests = 0
    for (const [index, entry] of entries.entries()) {
      const method = entry.message["method"]
      if (entry.from !== "client" || typeof method !== "string") continue
      if (HANDSHAKE.has(method) && inSession) {
        yield* Scope.close(session.scope, Exit.void)
        session = yield* open(transport, answerServer, context)
      }
      inSession = !HANDSHAKE.has(method) && method !== "notifications/initialized"
      const message = resend(entry.message) as OutboundMessage
      if (!("id" in message)) {
        yield* session.connection.send(message, context)
        continue
      }
      requests++
      const live = yield* session.exchange(message, timeout)
      const line = index + 2
      if (live === undefined) {
        changes.push({ request: method, line, kind: "no-answer", detail: `${method}: no answer within ${Duration.format(timeout)}` })
        continue
      }
      const recorded = entries.find((e) => e.from === "server" && !("method" in e.message) && e.message["id"] === message.id)
      if (recorded === undefined) continue
      changes.push(...compareAnswer(entry, line, answerOf(recorded.message), answerOf(normaliser.message("server", live))))
    }
    yield* Scope.close(session.scope, Exit.void)
    return { same: changes.length === 0, requests, changes }
  })

/** One connection of a verification, in a scope of its own: `exchange` sends a request and awaits its answer. */
const open = (
  transport: McpTransport["Service"],
  answerServer: (request: JsonObject) => OutboundMessage,
  context: SendContext
) =>
  Effect.gen(function*() {
    const scope = yield* Scope.make()
    const connection = yield* Scope.provide(transport.connect, scope)
    const waiting = new Map<string, Deferred.Deferred<JsonObject>>()
    const replies = yield* Queue.unbounded<OutboundMessage>()
    yield* Scope.provide(connection.receive({
      message: (message) => {
        if (!isRecord(message)) return
        if (typeof message["method"] === "string" && message["id"] !== undefined) {
          Queue.offerUnsafe(replies, answerServer(message))
          return
        }
        const deferred = waiting.get(JSON.stringify(message["id"]))
        if (deferred !== undefined && !("method" in message)) Deferred.doneUnsafe(deferred, Effect.succeed(message))
      },
      malformed: () => {},
      failed: () => {}
    }), scope)
    // The server's own requests are answered as they come, while the request that caused them waits.
    yield* Queue.take(replies).pipe(
      Effect.flatMap((reply) => Effect.ignore(connection.send(reply, context))),
      Effect.forever,
      Effect.forkIn(scope)
    )
    const exchange = (message: OutboundMessage & { readonly id: unknown }, timeout: Duration.Duration) =>
      Effect.gen(function*() {
        const deferred = yield* Deferred.make<JsonObject>()
        waiting.set(JSON.stringify(message.id), deferred)
        yield* connection.send(message, context)
        return yield* Deferred.await(deferred).pipe(
          Effect.raceFirst(Effect.as(Effect.sleep(timeout), undefined)),
          Effect.raceFirst(Effect.flatMap(connection.ended, Effect.fail))
        )
      })
    return { scope, connection, exchange }
  })

/** The recorded client answer to a server request like `request` (by method, in order), or a refusal. */
const serverAnswers = (entries: ReadonlyArray<Entry>) => {
  const used = new Set<Entry>()
  return (request: JsonObject): OutboundMessage => {
    const recorded = entries.find((e) => e.from === "server" && e.message["method"] === request["method"] && "id" in e.message && !used.has(e))
    const answer = recorded === undefined ? undefined : entries.find((e) =>
      e.from === "client" && !("method" in e.message) && e.message["id"] === recorded.message["id"]
    )
    if (recorded !== undefined) used.add(recorded)
    const id = request["id"] as string | number
    if (answer !== undefined && "result" in answer.message) return { jsonrpc: "2.0", id, result: answer.message["result"] }
    return { jsonrpc: "2.0", id, error: { code: -32601, message: `not in the cassette: ${short(request["method"])}` } }
  }
}
