/**
 * What a careless caller may pass (plain JavaScript, a model's reply) checked before anything is sent: a name
 * or URI must be a non-empty string, arguments absent or a plain object. A refusal is `McpTransportError`
 * (`Write`): the message was not written.
 */
import { McpTransportError } from "../../McpError.js"

const describe = (value: unknown): string =>
  value === null ? "null" : Array.isArray(value) ? "an array" : typeof value === "string" ? "a string" : typeof value

/** @internal */
export const notSent = (method: string, reason: string): McpTransportError =>
  new McpTransportError({ reason: "Write", detail: `${method} was not sent: ${reason}` })

/** Why a call with this name and these arguments cannot be sent, or undefined. @internal */
export const invalidCall = (method: string, what: string, name: unknown, args: unknown): McpTransportError | undefined =>
  typeof name !== "string" || name === ""
    ? notSent(method, `the ${what} must be a non-empty string, not ${describe(name)}`)
    : args !== undefined && (typeof args !== "object" || args === null || Array.isArray(args))
    ? notSent(method, `the arguments must be an object, not ${describe(args)}`)
    : undefined
