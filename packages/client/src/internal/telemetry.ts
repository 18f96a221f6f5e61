/**
 * Opt-in tracing and metrics following the OpenTelemetry semantic conventions for MCP: one client span per
 * operation (`{mcp.method.name} {target}`), a child span per request on the wire (each input round, each
 * retry), the era probe and each input request served as children too, and the operation's duration in the
 * `mcp.client.operation.duration` histogram. Built only when the caller turns it on: the client holds
 * `undefined` otherwise and its request path makes no call into this module.
 *
 * @internal
 */
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Metric from "effect/Metric"
import * as Option from "effect/Option"
import { isRecord, type JsonObject, type RequestId } from "../McpSchema.js"

/** The histogram of operation durations, in seconds (the semantic conventions' name and unit). @internal */
export const operationDuration = Metric.histogram("mcp.client.operation.duration", {
  description: "Duration of MCP client operations, in seconds",
  boundaries: Metric.boundariesFromIterable([0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300])
})

/** `error.type`: the JSON-RPC code of a protocol error, `tool_error` for an `isError` result, else the tag. @internal */
export const errorType = (error: unknown): string => {
  if (isRecord(error) && error["_tag"] === "McpProtocolError" && typeof error["code"] === "number") {
    return String(error["code"])
  }
  return isRecord(error) && typeof error["_tag"] === "string" ? error["_tag"] : "_OTHER"
}

const targetAttributes = (method: string, params: JsonObject | undefined): Record<string, string> => {
  const name = params?.["name"]
  const uri = params?.["uri"]
  switch (method) {
    case "tools/call":
      return typeof name === "string" ? { "gen_ai.tool.name": name, "gen_ai.operation.name": "execute_tool" } : {}
    case "prompts/get":
      return typeof name === "string" ? { "gen_ai.prompt.name": name } : {}
    case "resources/read":
    case "resources/subscribe":
    case "resources/unsubscribe":
      return typeof uri === "string" ? { "mcp.resource.uri": uri } : {}
    default:
      return {}
  }
}

const spanName = (method: string, params: JsonObject | undefined): string => {
  const target = method === "resources/read" ? params?.["uri"] : params?.["name"]
  return typeof target === "string" && method !== "initialize" ? `${method} ${target}` : method
}

const NETWORK_TRANSPORT: Record<string, string> = { stdio: "pipe", http: "tcp", memory: "inproc" }

/** @internal */
export interface Telemetry {
  /** The operation's span and its duration; `isToolError` marks an `isError` result (`error.type` `tool_error`). */
  readonly operation: <A, E, R>(
    method: string,
    params: JsonObject | undefined,
    effect: Effect.Effect<A, E, R>,
    isToolError?: (a: A) => boolean
  ) => Effect.Effect<A, E, R>
  /** Once the session is known: `effect`, with protocol version and transport on the current (operation) span. */
  readonly inSession: <A, E, R>(protocolVersion: string, transport: string, effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  /** One request on the wire (round `round` of an operation). */
  readonly round: <A, E, R>(method: string, round: number, effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  /** A request whose JSON-RPC id goes on the current (round) span once known: `request` is given where to note it. */
  readonly withRequestId: <A, E, R>(
    request: (noteId: (id: RequestId) => void) => Effect.Effect<A, E, R>
  ) => Effect.Effect<A, E, R>
  readonly probe: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  readonly input: <A, E, R>(inputMethod: string, key: string, effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  readonly retry: <A, E, R>(method: string, reason: string, effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
}

const failureType = <A, E>(exit: Exit.Failure<A, E>): string =>
  Exit.hasInterrupts(exit) ? "cancelled" : errorType(Option.getOrUndefined(Cause.findErrorOption(exit.cause)))

const markFailure = <A, E>(exit: Exit.Exit<A, E>) =>
  Exit.isFailure(exit) ? Effect.annotateCurrentSpan("error.type", failureType(exit)) : Effect.void

/** @internal */
export const make = (): Telemetry => ({
  operation: (method, params, effect, isToolError) => {
    const base = { "mcp.method.name": method, ...targetAttributes(method, params) }
    const measured = Effect.flatMap(Clock.currentTimeNanos, (start) =>
      effect.pipe(
        Effect.tap((value) =>
          isToolError !== undefined && isToolError(value) ? Effect.annotateCurrentSpan("error.type", "tool_error") : Effect.void
        ),
        Effect.onExit((exit) =>
          Effect.andThen(
            markFailure(exit),
            Effect.flatMap(Clock.currentTimeNanos, (end) => {
              const metric = Metric.withAttributes(
                operationDuration,
                Exit.isFailure(exit)
                  ? { "mcp.method.name": method, "error.type": failureType(exit) }
                  : { "mcp.method.name": method }
              )
              return Metric.update(metric, Number(end - start) / 1e9)
            })
          )
        )
      ))
    return Effect.withSpan(measured, spanName(method, params), { kind: "client", attributes: base })
  },
  inSession: (protocolVersion, transport, effect) =>
    Effect.andThen(
      Effect.annotateCurrentSpan({
        "mcp.protocol.version": protocolVersion,
        "network.transport": NETWORK_TRANSPORT[transport] ?? transport,
        ...(transport === "http" ? { "network.protocol.name": "http" } : {})
      }),
      effect
    ),
  round: (method, round, effect) =>
    Effect.withSpan(effect.pipe(Effect.onExit(markFailure)), `${method} request`, {
      kind: "client",
      attributes: { "mcp.method.name": method, "mcp.input.round": round }
    }),
  withRequestId: (request) =>
    Effect.suspend(() => {
      let known: RequestId | undefined
      // The id goes on the request's span once it is known (after the answer, on the same span).
      return Effect.ensuring(
        request((id) => {
          known = id
        }),
        Effect.suspend(() => known === undefined ? Effect.void : Effect.annotateCurrentSpan("jsonrpc.request.id", String(known)))
      )
    }),
  probe: (effect) => Effect.withSpan(effect.pipe(Effect.onExit(markFailure)), "mcp.era_probe", { kind: "client" }),
  input: (inputMethod, key, effect) =>
    Effect.withSpan(effect.pipe(Effect.onExit(markFailure)), `${inputMethod} input`, {
      attributes: { "mcp.method.name": inputMethod, "mcp.input.key": key }
    }),
  retry: (method, reason, effect) =>
    Effect.withSpan(effect.pipe(Effect.onExit(markFailure)), `${method} retry`, {
      kind: "client",
      attributes: { "mcp.method.name": method, "mcp.retry.reason": reason }
    })
})

const noteNothing = (_id: RequestId): void => {}

/** Tracing off: each wrapper hands its effect back as it is (no span, no metric, no annotation). @internal */
export const none: Telemetry = {
  operation: (_method, _params, effect) => effect,
  inSession: (_protocolVersion, _transport, effect) => effect,
  round: (_method, _round, effect) => effect,
  withRequestId: (request) => request(noteNothing),
  probe: (effect) => effect,
  input: (_inputMethod, _key, effect) => effect,
  retry: (_method, _reason, effect) => effect
}
