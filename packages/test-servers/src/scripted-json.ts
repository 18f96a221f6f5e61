/**
 * JSON values, JSON-RPC shapes and small guards shared by the scripted server.
 */

export type Json = null | boolean | number | string | Array<Json> | JsonObject
export interface JsonObject {
  [key: string]: Json
}

export type RequestId = string | number

export const ErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  ResourceNotFound: -32002,
  UnsupportedProtocolVersion: -32022,
  UrlElicitationRequired: -32042
} as const

/** A JSON-RPC error a handler throws; the dispatcher turns it into an error response. */
export class RpcError extends Error {
  readonly code: number
  readonly data: Json | undefined
  constructor(code: number, message: string, data?: Json) {
    super(message)
    this.code = code
    this.data = data
  }
}

export const isObject = (value: Json | undefined): value is JsonObject =>
  typeof value === "object" && value !== null && !Array.isArray(value)

export const isRequestId = (value: Json | undefined): value is RequestId =>
  typeof value === "string" || (typeof value === "number" && Number.isFinite(value))

/** Map key for an id that keeps its JSON type apart: `1` and `"1"` are different ids. */
export const idKey = (id: RequestId): string => `${typeof id}:${String(id)}`

export const getString = (object: JsonObject | undefined, key: string): string | undefined => {
  const value = object?.[key]
  return typeof value === "string" ? value : undefined
}

export const getNumber = (object: JsonObject | undefined, key: string): number | undefined => {
  const value = object?.[key]
  return typeof value === "number" ? value : undefined
}

export const getObject = (object: JsonObject | undefined, key: string): JsonObject | undefined => {
  const value = object?.[key]
  return isObject(value) ? value : undefined
}

/** A non-negative integer argument, or the fallback when absent; anything else is `-32602`. */
export const getCount = (object: JsonObject | undefined, key: string, fallback: number): number => {
  const value = object?.[key]
  if (value === undefined) return fallback
  if (typeof value === "number" && Number.isInteger(value) && value >= 0) return value
  throw new RpcError(ErrorCode.InvalidParams, `Argument "${key}" must be a non-negative integer`)
}

/** The kinds of message that can arrive on stdin. */
export type Incoming =
  | { readonly kind: "request"; readonly id: RequestId; readonly method: string; readonly params: JsonObject }
  | { readonly kind: "notification"; readonly method: string; readonly params: JsonObject }
  | {
      readonly kind: "response"
      readonly id: RequestId
      readonly result: Json | undefined
      readonly error: JsonObject | undefined
    }
  | { readonly kind: "invalid"; readonly id: RequestId | undefined; readonly reason: string }

export const classify = (message: Json): Incoming => {
  if (!isObject(message)) return { kind: "invalid", id: undefined, reason: "not a JSON object" }
  const rawId = message["id"]
  const id = isRequestId(rawId) ? rawId : undefined
  if (message["jsonrpc"] !== "2.0") return { kind: "invalid", id, reason: 'missing jsonrpc: "2.0"' }
  const method = message["method"]
  const rawParams = message["params"]
  if (typeof method === "string") {
    if (rawParams !== undefined && !isObject(rawParams)) return { kind: "invalid", id, reason: "params must be an object" }
    const params = rawParams ?? {}
    if (rawId === undefined) return { kind: "notification", method, params }
    if (id === undefined) return { kind: "invalid", id: undefined, reason: "id must be a string or a number" }
    return { kind: "request", id, method, params }
  }
  if (id !== undefined && ("result" in message || "error" in message)) {
    const error = message["error"]
    return { kind: "response", id, result: message["result"], error: isObject(error) ? error : undefined }
  }
  return { kind: "invalid", id, reason: "neither a request, a notification nor a response" }
}

export const LOG_LEVELS = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"] as const
export type LogLevel = (typeof LOG_LEVELS)[number]

export const asLogLevel = (value: Json | undefined): LogLevel | undefined =>
  LOG_LEVELS.find((level) => level === value)

export const atOrAbove = (level: LogLevel, threshold: LogLevel): boolean =>
  LOG_LEVELS.indexOf(level) >= LOG_LEVELS.indexOf(threshold)

/** Resolves after `ms`, or rejects as soon as `signal` aborts. */
export const sleep = (ms: number, signal?: AbortSignal): Promise<void> =>
  new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new Error("aborted"))
    const onAbort = () => {
      clearTimeout(timer)
      reject(new Error("aborted"))
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort)
      resolve()
    }, ms)
    signal?.addEventListener("abort", onAbort, { once: true })
  })
