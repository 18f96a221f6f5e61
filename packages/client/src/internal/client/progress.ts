/**
 * Progress tokens: a fresh token per request (never the JSON-RPC id, which a retried round changes), forgotten
 * the moment the request is answered, so a late report, or one quoting a token nobody holds, is dropped.
 * Reports go to `onProgress`, and restart the deadline of a request whose timeout progress resets.
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { ProgressReport } from "../../McpClient.js"
import { McpDiagnostic } from "../../McpDiagnostic.js"
import type { JsonObject, RequestId } from "../../McpSchema.js"
import { runLeaf } from "../hooks.js"
import type * as Peer from "../transport/peer.js"
import type { ClientContext } from "./context.js"
import { decodeProgress } from "./decode.js"

/** One request's progress token. @internal */
export interface Ticket {
  readonly key: string
  readonly token: RequestId
  /** `false` for a caller's own token: its reports go to `notifications` only. */
  readonly ours: boolean
  readonly toolCallId: string | undefined
  requestId: RequestId | undefined
  peer: Peer.Peer | undefined
}

/** @internal */
export interface Progress {
  /** Whether requests carry a token of ours at all. */
  readonly wanted: boolean
  /** A token for a request about to be sent (`undefined`: none). */
  readonly begin: (progressToken: RequestId | undefined, toolCallId: string | undefined) => Ticket | undefined
  /** The request got its id (each round of a call gets a new one). */
  readonly bind: (ticket: Ticket, id: RequestId, peer: Peer.Peer) => void
  /** The request is over: forget the token. */
  readonly end: (ticket: Ticket) => void
  /** The answer to request `id` arrived: its token is forgotten before the caller resumes. */
  readonly onAnswered: (id: RequestId) => void
  readonly onNotification: (params: JsonObject | undefined) => Effect.Effect<void>
}

/** @internal */
export const tokenKey = (token: RequestId) => `${typeof token}:${token}`

/** @internal */
export const make = (context: ClientContext): Progress => {
  const { options } = context
  const tickets = new Map<string, Ticket>()
  const byRequest = new Map<RequestId, Ticket>()
  let nextToken = 0

  const begin = (progressToken: RequestId | undefined, toolCallId: string | undefined): Ticket | undefined => {
    if (progressToken !== undefined) {
      const ticket: Ticket = { key: tokenKey(progressToken), token: progressToken, ours: false, toolCallId, requestId: undefined, peer: undefined }
      tickets.set(ticket.key, ticket)
      return ticket
    }
    if (options.onProgress === undefined && options.resetTimeoutOnProgress !== true) return undefined
    const token = `mcp-effect-${context.instanceId}-${++nextToken}`
    const ticket: Ticket = { key: tokenKey(token), token, ours: true, toolCallId, requestId: undefined, peer: undefined }
    tickets.set(ticket.key, ticket)
    return ticket
  }

  const forget = (ticket: Ticket) => {
    if (ticket.requestId !== undefined) byRequest.delete(ticket.requestId)
    tickets.delete(ticket.key)
  }

  const bind = (ticket: Ticket, id: RequestId, peer: Peer.Peer) => {
    if (ticket.requestId !== undefined) byRequest.delete(ticket.requestId)
    ticket.requestId = id
    ticket.peer = peer
    if (ticket.ours) byRequest.set(id, ticket)
  }

  const onAnswered = (id: RequestId) => {
    const ticket = byRequest.get(id)
    if (ticket !== undefined) forget(ticket)
  }

  const onNotification = (params: JsonObject | undefined) =>
    Effect.suspend(() => {
      const decoded = decodeProgress(params)
      if (Option.isNone(decoded)) {
        return context.report(
          McpDiagnostic.DroppedNotification({ method: "notifications/progress", reason: "malformed params" })
        )
      }
      const { message, progress, progressToken, total } = decoded.value
      const ticket = tickets.get(tokenKey(progressToken))
      if (ticket === undefined) {
        return context.report(McpDiagnostic.DroppedNotification({
          method: "notifications/progress",
          reason: `no request in flight holds progress token ${JSON.stringify(progressToken)}`
        }))
      }
      if (!ticket.ours) return Effect.void
      if (ticket.requestId !== undefined) ticket.peer?.progressed(ticket.requestId)
      if (options.onProgress === undefined) return Effect.void
      const payload: { -readonly [K in keyof ProgressReport]: ProgressReport[K] } = { progress }
      if (ticket.toolCallId !== undefined) payload.toolCallId = ticket.toolCallId
      if (total !== undefined) payload.total = total
      if (message !== undefined) payload.message = message
      return runLeaf(context.hookFibers, "onProgress", options.onProgress, payload, context.report)
    })

  return {
    wanted: options.onProgress !== undefined || options.resetTimeoutOnProgress === true,
    begin,
    bind,
    end: forget,
    onAnswered,
    onNotification
  }
}
