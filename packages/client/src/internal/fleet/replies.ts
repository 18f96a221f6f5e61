/**
 * Reading Redis replies the same way whatever the protocol version the connection speaks.
 *
 * @internal
 */

/** A Redis reply as a field/value list: RESP2 gives a flat array, RESP3 a map. @internal */
export const pairs = (reply: unknown): Array<readonly [string, string]> => {
  if (Array.isArray(reply)) {
    const out: Array<readonly [string, string]> = []
    for (let i = 0; i + 1 < reply.length; i += 2) out.push([String(reply[i]), String(reply[i + 1])])
    return out
  }
  if (reply instanceof Map) return [...reply].map(([k, v]) => [String(k), String(v)] as const)
  if (typeof reply === "object" && reply !== null) return Object.entries(reply).map(([k, v]) => [k, String(v)] as const)
  return []
}
