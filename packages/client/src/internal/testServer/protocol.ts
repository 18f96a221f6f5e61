/** Test server, the JSON-RPC pieces its parts share: the outbound port, the error answer, the params readers. */
import type * as Effect from "effect/Effect"
import { isRecord, type JsonObject, type LoggingLevel } from "../../McpSchema.js"

/** What the server sends through (the transport adapter supplies it). @internal */
export interface Outbound {
  readonly send: (message: JsonObject) => Effect.Effect<void>
}

/** A request's JSON-RPC error answer. @internal */
export class RpcFailure {
  readonly _tag = "RpcFailure"
  constructor(readonly code: number, readonly message: string) {}
}

/** The logging levels, least severe first. @internal */
export const LEVELS: ReadonlyArray<LoggingLevel> = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"]

/** @internal */
export const paramsOf = (message: JsonObject): JsonObject => isRecord(message["params"]) ? message["params"] : {}

/** @internal */
export const metaOf = (params: JsonObject): JsonObject => isRecord(params["_meta"]) ? params["_meta"] : {}
