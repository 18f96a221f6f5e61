/** Test server, the handler context: progress, logs, notifications, and input (elicit, sample, roots) in either era. */
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Ref from "effect/Ref"
import { type InputRequest, isRecord, type JsonObject, type LoggingLevel, MetaKey } from "../../McpSchema.js"
import type { HandlerContext, InputResponse } from "../../McpTestServer.js"
import { LEVELS, metaOf, paramsOf, RpcFailure } from "./protocol.js"
import type { ConnectionState } from "./state.js"

/** Raised inside a modern handler when it needs input the client has not given yet. */
class NeedsInput {
  readonly _tag = "NeedsInput"
  constructor(readonly key: string, readonly request: InputRequest) {}
}

/** A legacy server-to-client request, awaiting the client's answer. */
const askLegacy = (conn: ConnectionState, method: string, params: JsonObject) =>
  Effect.gen(function*() {
    const id = `test-server-${++conn.nextServerId}`
    const answer = yield* Deferred.make<unknown>()
    conn.pending.set(id, answer)
    yield* conn.out.send({ jsonrpc: "2.0", id, method, params })
    return yield* Deferred.await(answer).pipe(Effect.ensuring(Effect.sync(() => conn.pending.delete(id))))
  })

/** A message without a method: the client's answer to one of our requests (legacy input). @internal */
export const answerPending = (conn: ConnectionState, message: JsonObject): Effect.Effect<void> => {
  const id = message["id"]
  const answer = typeof id === "string" ? conn.pending.get(id) : undefined
  if (answer === undefined) return Effect.void
  return Deferred.succeed(answer, "result" in message ? message["result"] : { error: message["error"] }).pipe(
    Effect.asVoid
  )
}

/** `notifications/message`, if the level reaches the threshold: the request's (modern) or `logging/setLevel`'s. */
const logAt = (conn: ConnectionState, modernLevel: unknown) => (level: LoggingLevel, data: unknown) =>
  Effect.gen(function*() {
    const threshold = conn.era === "modern"
      ? (typeof modernLevel === "string" ? modernLevel : undefined)
      : (yield* Ref.get(conn.legacyLevel)) ?? "debug"
    if (threshold === undefined) return
    if (LEVELS.indexOf(level) < LEVELS.findIndex((l) => l === threshold)) return
    yield* conn.out.send({ jsonrpc: "2.0", method: "notifications/message", params: { level, data } })
  })

/** The context one handler run sees; modern input is read from `responses`, or raised as `NeedsInput`. @internal */
export const contextFor = (
  conn: ConnectionState,
  message: JsonObject,
  responses: Record<string, unknown>
): HandlerContext => {
  const params = paramsOf(message)
  const meta = metaOf(params)
  const token = meta["progressToken"]
  const modernLevel = meta[MetaKey.logLevel]
  let asked = 0
  const input = (method: string, inputParams: JsonObject): Effect.Effect<InputResponse> => {
    const key = `input_${++asked}`
    if (conn.era === "legacy") {
      return Effect.map(askLegacy(conn, method, inputParams), (answer) => isRecord(answer) ? answer : {})
    }
    const answer = responses[key]
    if (key in responses) return Effect.succeed(isRecord(answer) ? answer : {})
    return Effect.die(new NeedsInput(key, { method, params: inputParams }))
  }
  return {
    era: conn.era,
    arguments: isRecord(params["arguments"]) ? params["arguments"] : {},
    progress: (progress, options) =>
      token === undefined ? Effect.void : conn.out.send({
        jsonrpc: "2.0",
        method: "notifications/progress",
        params: { progressToken: token, progress, ...options }
      }),
    log: logAt(conn, modernLevel),
    notify: (method, notificationParams) =>
      conn.out.send({ jsonrpc: "2.0", method, ...(notificationParams === undefined ? {} : { params: notificationParams }) }),
    elicit: (elicitParams) => input("elicitation/create", { mode: "form", ...elicitParams }),
    sample: (sampleParams) => input("sampling/createMessage", sampleParams),
    listRoots: Effect.suspend(() => input("roots/list", {}))
  }
}

/** The answers a `requestState` of ours carries (none without one); `undefined` when it is not one of ours. */
const carriedState = (requestState: unknown): Record<string, unknown> | undefined => {
  if (requestState === undefined) return {}
  if (typeof requestState !== "string") return undefined
  try {
    const value: unknown = JSON.parse(requestState)
    return isRecord(value) ? value : undefined
  } catch {
    return undefined
  }
}

/** Run a handler in the era's input model: modern rounds through `input_required`, legacy through requests. @internal */
export const runWithInput = <A>(
  conn: ConnectionState,
  message: JsonObject,
  run: (context: HandlerContext) => Effect.Effect<A, unknown>,
  done: (value: A) => JsonObject
): Effect.Effect<JsonObject, RpcFailure> => {
  const params = paramsOf(message)
  const carried = carriedState(params["requestState"])
  if (carried === undefined) return Effect.fail(new RpcFailure(-32602, "requestState is not one this server issued"))
  const fresh = isRecord(params["inputResponses"]) ? params["inputResponses"] : {}
  const responses = { ...carried, ...fresh }
  return Effect.suspend(() => run(contextFor(conn, message, responses))).pipe(
    Effect.map(done),
    Effect.catchDefect((defect) =>
      defect instanceof NeedsInput
        ? Effect.succeed<JsonObject>({
          resultType: "input_required",
          inputRequests: { [defect.key]: defect.request },
          requestState: JSON.stringify(responses)
        })
        : Effect.fail(new RpcFailure(-32603, `the handler died: ${String(defect)}`))
    ),
    Effect.catch((error) =>
      error instanceof RpcFailure ? Effect.fail(error) : Effect.fail(new RpcFailure(-32603, String(error)))
    )
  )
}
