/**
 * Types shared by the dispatcher and the era-specific handlers of the scripted server.
 */
import type { JsonObject, RequestId } from "./scripted-json.js"

export const NO_ANSWER: unique symbol = Symbol("no answer")
/** A handler's outcome: the result to send, or `NO_ANSWER` to never answer the request. */
export type Outcome = JsonObject | typeof NO_ANSWER

export interface RequestContext {
  readonly id: RequestId
  readonly method: string
  readonly params: JsonObject
  /** Aborts when the client cancels the request (`notifications/cancelled`). */
  readonly signal: AbortSignal
  /** Runs `fn` right after the response to this request has been written (or skipped). */
  readonly after: (fn: () => void) => void
}

export type Handler = (context: RequestContext) => Outcome | Promise<Outcome>

/** The error a legacy client sent back for one of our server-to-client requests. */
export class ClientError extends Error {
  readonly code: number
  constructor(code: number, message: string) {
    super(message)
    this.code = code
  }
}

export type ListKind = "tools" | "prompts" | "resources"

export const log = (message: string): void => {
  process.stderr.write(`[scripted] ${message}\n`)
}

