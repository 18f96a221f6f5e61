/**
 * How a replay compares what a client sends with what was recorded, and how `verify` compares a live answer
 * with the recorded one: both sides in a comparable form (volatile values out: the client's identity and
 * capabilities, trace fields, progress tokens, an empty `_meta`; absent params are `{}`), then the first place
 * they differ, said as a path with both values in short.
 *
 * @internal
 */
import { isRecord, type JsonObject, MetaKey } from "../../McpSchema.js"
import { MAX_DEPTH, measure } from "../outputSchema.js"
import { TRACE_KEYS } from "./normalise.js"

const CLIENT_META: ReadonlyArray<string> = [MetaKey.clientInfo, MetaKey.clientCapabilities, "progressToken", ...TRACE_KEYS]

/** The params of a client request as compared (the handshake's client fields do not count). @internal */
export const comparableParams = (method: string, params: unknown): JsonObject => {
  const base: JsonObject = isRecord(params) ? params : {}
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(base)) {
    if (method === "initialize" && (key === "clientInfo" || key === "capabilities" || key === "protocolVersion")) continue
    if (key === "_meta" && isRecord(value)) {
      const meta = Object.fromEntries(Object.entries(value).filter(([k]) => !CLIENT_META.includes(k)))
      if (Object.keys(meta).length > 0) out[key] = meta
      continue
    }
    out[key] = value
  }
  return out
}

/**
 * Whether a value nests deeper than `MAX_DEPTH` (a hostile client's params may nest without end, and
 * `JSON.stringify` of such a value overflows the stack): measured first, without recursion.
 *
 * @internal
 */
export const tooDeep = (value: unknown): boolean => measure(value, Number.POSITIVE_INFINITY) === "too-deep"

const DEEP = `a value nested deeper than ${MAX_DEPTH} levels`

/** A value in short, for a message (at most `max` characters). @internal */
export const short = (value: unknown, max = 120): string => {
  const text = value === undefined ? "nothing" : tooDeep(value) ? DEEP : JSON.stringify(value) ?? String(value)
  return text.length > max ? `${text.slice(0, max - 1)}…` : text
}

const at = (path: string, key: string | number) =>
  typeof key === "number" ? `${path}[${key}]` : path === "" ? key : `${path}.${key}`

/**
 * The first places (at most `max`) where `recorded` and `actual` differ, as `path: recorded → actual`; none
 * when they are the same. Keys are compared whatever their order.
 *
 * @internal
 */
export const differences = (recorded: unknown, actual: unknown, path = "", max = 5): Array<string> => {
  const out: Array<string> = []
  const walk = (a: unknown, b: unknown, where: string, depth: number): void => {
    if (out.length >= max) return
    const leaf = () => out.push(`${where || "value"}: ${short(a, 60)} recorded, ${short(b, 60)} now`)
    if (depth >= MAX_DEPTH && (tooDeep(a) || tooDeep(b))) {
      // Past the depth a cassette is read to, a value is not compared further: deeper is a difference by itself.
      return void leaf()
    }
    if (Array.isArray(a) && Array.isArray(b)) {
      if (a.length !== b.length) {
        out.push(`${where || "value"}: ${a.length} items recorded, ${b.length} now`)
        return
      }
      a.forEach((item, i) => walk(item, b[i], at(where, i), depth + 1))
      return
    }
    if (isRecord(a) && isRecord(b) && !Array.isArray(a) && !Array.isArray(b)) {
      for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) walk(a[key], b[key], at(where, key), depth + 1)
      return
    }
    if (tooDeep(a) || tooDeep(b) || JSON.stringify(a) !== JSON.stringify(b)) leaf()
  }
  walk(recorded, actual, path, 0)
  return out
}
