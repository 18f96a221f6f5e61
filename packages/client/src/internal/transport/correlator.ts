/**
 * The one map of requests in flight: each entry is also its request's deadline timer, settled exactly once,
 * by its answer, its timeout, a transport failure or the end of the connection.
 */
import type * as Duration from "effect/Duration"
import type * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import {
  type McpClosedError,
  type McpInvalidResponseError,
  McpProtocolError,
  type McpServerGoneError,
  type McpTimeoutError,
  type McpTransportError
} from "../../McpError.js"
import type { McpAuthError } from "../../McpAuthError.js"
import { isRecord, isRequestId, type RequestId } from "../../McpSchema.js"
import type { MessageMeta, SendContext } from "../../McpTransport.js"
import type * as Deadline from "./deadline.js"
import { millisOf } from "./deadline.js"

/** @internal */
export type AnswerError =
  | McpProtocolError
  | McpServerGoneError
  | McpClosedError
  | McpTimeoutError
  | McpTransportError
  | McpAuthError
  | McpInvalidResponseError

/** @internal */
export type Ended = McpServerGoneError | McpClosedError

/** @internal */
export interface RequestOptions {
  readonly timeout: Duration.Duration
  readonly limit?: "request" | "probe" | undefined
  readonly context: SendContext
  /** `false` for `initialize`, which must never be cancelled. */
  readonly cancellable?: boolean | undefined
  /** Told the id just before the request is written (subscriptions, progress tokens). */
  readonly onId?: ((id: RequestId) => void) | undefined
  /** Progress resets the timeout (see `Peer.progressed`), up to this hard limit from the start. */
  readonly maxTotal?: Duration.Duration | undefined
}

/** One request in flight: its own deadline timer. @internal */
export class Pending implements Deadline.Timer {
  at: number
  resume: ((effect: Effect.Effect<unknown, AnswerError>) => void) | undefined = undefined
  settled: Exit.Exit<unknown, AnswerError> | undefined = undefined
  constructor(
    readonly id: RequestId,
    readonly method: string,
    readonly options: RequestOptions,
    readonly started: number,
    private readonly onExpire: (entry: Pending) => Effect.Effect<void> | void
  ) {
    this.at = started + millisOf(options.timeout)
  }
  expire(): Effect.Effect<void> | void {
    return this.onExpire(this)
  }
}

/** @internal */
export const protocolError = (
  method: string,
  code: number,
  message: string,
  data: unknown,
  httpStatus: number | undefined
) =>
  new McpProtocolError({
    method,
    code,
    message,
    ...(data === undefined ? {} : { data }),
    ...(httpStatus === undefined ? {} : { httpStatus })
  })


/** @internal */
export class Correlator {
  readonly pending = new Map<RequestId, Pending>()
  endedWith: Ended | undefined = undefined

  constructor(
    private readonly deadlines: Deadline.Deadlines,
    private readonly onAnswered: ((id: RequestId) => void) | undefined
  ) {}

  add(entry: Pending): void {
    this.pending.set(entry.id, entry)
    this.deadlines.add(entry)
  }

  forget(entry: Pending): void {
    this.pending.delete(entry.id)
    this.deadlines.remove(entry)
  }

  settle(entry: Pending, exit: Exit.Exit<unknown, AnswerError>): void {
    if (entry.settled !== undefined) return
    entry.settled = exit
    this.forget(entry)
    const resume = entry.resume
    if (resume !== undefined) {
      entry.resume = undefined
      resume(exit)
    }
  }

  /**
   * Fail everything in flight with the reason the connection ended (the first reason wins). `announce` is told
   * that reason first: a caller resumes right here, on this stack, and must already find the connection ended.
   */
  end(reason: Ended, announce: (first: Ended) => void): Ended {
    if (this.endedWith === undefined) this.endedWith = reason
    const first = this.endedWith
    announce(first)
    for (const entry of this.pending.values()) this.settle(entry, Exit.fail(first))
    return first
  }

  /** A well-formed answer to a request in flight, settled right here; `false` for anything else. */
  settleAnswer(value: unknown, meta: MessageMeta | undefined): boolean {
    if (!isRecord(value) || value["jsonrpc"] !== "2.0" || value["method"] !== undefined) return false
    const error = value["error"]
    const id = (value["id"] === undefined || value["id"] === null) && error !== undefined ? meta?.inReplyTo : value["id"]
    if (!isRequestId(id)) return false
    const entry = this.pending.get(id)
    if (entry === undefined) return false
    if (error !== undefined) {
      if (!isRecord(error)) return false
      const code = error["code"]
      const message = error["message"]
      if (typeof code !== "number" || typeof message !== "string") return false
      this.onAnswered?.(id)
      this.settle(entry, Exit.fail(protocolError(entry.method, code, message, error["data"], meta?.httpStatus)))
      return true
    }
    if (value["result"] === undefined) return false
    this.onAnswered?.(id)
    this.settle(entry, Exit.succeed(value["result"]))
    return true
  }
}
