/**
 * The first look at each arrival from an App: its size and rate against the limits, then its shape (a
 * request, a notification, an answer, or malformed), each validated with the protocol's `Schema`s.
 *
 * @internal
 */
import * as Schema from "effect/Schema"
import type { JsonObject } from "../../McpSchema.js"
import { McpAppsLimitError } from "./errors.js"
import * as Protocol from "./protocol.js"

/** @internal */
export interface Limits {
  /** The largest message an App may send, in bytes of JSON (default 10 MiB, the spec's bound of a tool result). */
  readonly maxMessageBytes?: number | undefined
  /** How many messages an App may send in one second (default 100); more are dropped. */
  readonly maxMessagesPerSecond?: number | undefined
  /** How many of an App's requests may be in flight at once (default 16); more are refused. */
  readonly maxPendingRequests?: number | undefined
}

/** @internal */
export type Admission =
  | { readonly _tag: "Admitted" }
  | {
    readonly _tag: "Limited"
    readonly error: McpAppsLimitError
    /** Whether to report it (a flood is reported once a second, not once a message). */
    readonly report: boolean
    /** The id of a request, to answer it with the error. */
    readonly requestId: string | number | undefined
    /** The id of an answer, to fail the host's request it answers with the error. */
    readonly responseId: string | number | undefined
  }

const isObject = (u: unknown): u is Readonly<Record<string, unknown>> =>
  typeof u === "object" && u !== null && !Array.isArray(u)

/** The id of a message that could be a request (it has a `method`), to answer it even when it is refused. */
const idOf = (data: unknown): string | number | undefined => {
  if (!isObject(data) || !("method" in data)) return undefined
  const id = data["id"]
  return typeof id === "string" || typeof id === "number" ? id : undefined
}

/** The id of a message that could be an answer (an id, no `method`). */
const answerIdOf = (data: unknown): string | number | undefined => {
  if (!isObject(data) || "method" in data) return undefined
  const id = data["id"]
  return typeof id === "string" || typeof id === "number" ? id : undefined
}

/** The JSON size of a message, or `Infinity` when it is not JSON (a cycle, a function, a `BigInt`). */
const sizeOf = (data: unknown): number => {
  const text = (() => {
    try {
      return JSON.stringify(data)
    } catch {
      return undefined
    }
  })()
  return text === undefined ? Number.POSITIVE_INFINITY : text.length
}

/** The limits of one App: a fixed one-second window for the rate. @internal */
export const makeLimiter = (limits: Limits = {}) => {
  const maxBytes = limits.maxMessageBytes ?? 10 * 1024 * 1024
  const maxRate = limits.maxMessagesPerSecond ?? 100
  let windowStart = Number.NEGATIVE_INFINITY
  let inWindow = 0
  let reportedWindow = Number.NEGATIVE_INFINITY
  return {
    maxPending: limits.maxPendingRequests ?? 16,
    admit: (data: unknown, now: number, instance: string): Admission => {
      if (now - windowStart >= 1000) {
        windowStart = now
        inWindow = 0
      }
      inWindow++
      if (inWindow > maxRate) {
        const report = reportedWindow !== windowStart
        reportedWindow = windowStart
        const error = new McpAppsLimitError({ limit: "rate", maximum: maxRate, actual: inWindow, instance })
        return { _tag: "Limited", error, report, requestId: undefined, responseId: undefined }
      }
      const size = sizeOf(data)
      if (size > maxBytes) {
        const error = new McpAppsLimitError({ limit: "message-size", maximum: maxBytes, actual: size, instance })
        return { _tag: "Limited", error, report: true, requestId: idOf(data), responseId: answerIdOf(data) }
      }
      return { _tag: "Admitted" }
    }
  }
}

/** @internal */
export type Classified =
  | { readonly _tag: "Request"; readonly id: string | number; readonly method: string; readonly params: JsonObject | undefined }
  | { readonly _tag: "Notification"; readonly method: string; readonly params: JsonObject | undefined }
  | { readonly _tag: "Response"; readonly id: string | number; readonly body: JsonObject }
  | { readonly _tag: "Malformed"; readonly detail: string; readonly id: string | number | undefined }

const decodeRequest = Schema.decodeUnknownOption(Protocol.Request)
const decodeNotification = Schema.decodeUnknownOption(Protocol.Notification)
const decodeResponse = Schema.decodeUnknownOption(Protocol.Response)

/** What an arrival is, by the JSON-RPC shape it decodes to. @internal */
export const classify = (data: unknown): Classified => {
  if (!isObject(data)) return { _tag: "Malformed", detail: "not a JSON-RPC object", id: undefined }
  const hasMethod = "method" in data
  const hasId = "id" in data
  if (hasMethod && hasId) {
    const request = decodeRequest(data)
    return request._tag === "Some"
      ? { _tag: "Request", id: request.value.id, method: request.value.method, params: request.value.params as JsonObject | undefined }
      : { _tag: "Malformed", detail: "not a valid JSON-RPC request", id: idOf(data) }
  }
  if (hasMethod) {
    const notification = decodeNotification(data)
    return notification._tag === "Some"
      ? { _tag: "Notification", method: notification.value.method, params: notification.value.params as JsonObject | undefined }
      : { _tag: "Malformed", detail: "not a valid JSON-RPC notification", id: undefined }
  }
  if (hasId) {
    const response = decodeResponse(data)
    return response._tag === "Some"
      ? { _tag: "Response", id: response.value.id, body: data as JsonObject }
      : { _tag: "Malformed", detail: "not a valid JSON-RPC answer", id: undefined }
  }
  return { _tag: "Malformed", detail: "neither a request, a notification nor an answer", id: undefined }
}
