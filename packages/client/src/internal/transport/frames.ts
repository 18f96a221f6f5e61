/**
 * The one parse of what a server sends: a frame of JSON text becomes messages handed to the `Receiver`.
 */
import type { MessageMeta, Receiver } from "../../McpTransport.js"
import { cleanErrorResponse } from "../redact.js"

/**
 * Parse one frame and hand its messages over (a batch, legal in 2025-03-26, message by message). Returns the
 * parsed value (`undefined` for a frame that is not JSON, reported as malformed).
 *
 * @internal
 */
export const deliverFrame = (text: string, receiver: Receiver, meta?: MessageMeta): unknown => {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (e) {
    receiver.malformed(text, `not JSON: ${String(e)}`)
    return undefined
  }
  if (Array.isArray(value)) {
    for (const message of value) receiver.message(message, meta)
  } else {
    receiver.message(value, meta)
  }
  return value
}

/**
 * `receiver` with every error response (message and data) and every frame that is not JSON cleaned by `clean`
 * first: a server may quote the secrets it was started with (`StdioOptions.secrets`). As it is without one.
 *
 * @internal
 */
export const cleaningReceiver = (receiver: Receiver, clean: ((text: string) => string) | undefined): Receiver =>
  clean === undefined ? receiver : {
    message: (message, meta) => receiver.message(cleanErrorResponse(message, clean), meta),
    malformed: (frame, reason) => receiver.malformed(clean(frame), clean(reason)),
    failed: receiver.failed
  }
