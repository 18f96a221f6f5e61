/**
 * `WWW-Authenticate` challenges (RFC 9110 §11.6.1): the scheme and its auth-params, as the MCP authorization
 * chapter uses them (`resource_metadata`, `scope`, `error`).
 *
 * @internal
 */

/** @internal */
export interface Challenge {
  /** Lower-cased scheme: `bearer`, `dpop`, ... */
  readonly scheme: string
  readonly params: Readonly<Record<string, string>>
}

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+/

/**
 * Every challenge in a header value. Tolerant: a malformed tail ends the parse, what was read is kept.
 *
 * @internal
 */
export const parseChallenges = (header: string | undefined): ReadonlyArray<Challenge> => {
  if (header === undefined) return []
  const out: Array<{ scheme: string; params: Record<string, string> }> = []
  let rest = header.trim()
  let current: { scheme: string; params: Record<string, string> } | undefined
  while (rest.length > 0) {
    rest = rest.replace(/^[\s,]+/, "")
    const name = TOKEN.exec(rest)?.[0]
    if (name === undefined) break
    const after = rest.slice(name.length).replace(/^\s+/, "")
    if (after.startsWith("=") && current !== undefined) {
      let value = after.slice(1).replace(/^\s+/, "")
      let parsed: string
      if (value.startsWith("\"")) {
        let i = 1
        parsed = ""
        while (i < value.length && value[i] !== "\"") {
          if (value[i] === "\\" && i + 1 < value.length) i++
          parsed += value[i]
          i++
        }
        value = value.slice(i + 1)
      } else {
        const token = /^[^\s,]*/.exec(value)?.[0] ?? ""
        parsed = token
        value = value.slice(token.length)
      }
      current.params[name.toLowerCase()] = parsed
      rest = value
      continue
    }
    // A new scheme (token68 credentials after it are not used by challenges we read).
    current = { scheme: name.toLowerCase(), params: {} }
    out.push(current)
    rest = after
  }
  return out
}

/**
 * The parameters MCP reads, from whichever challenge carries them (Bearer or DPoP).
 *
 * @internal
 */
export interface ChallengeInfo {
  readonly resourceMetadata: string | undefined
  readonly scope: ReadonlyArray<string> | undefined
  readonly error: string | undefined
  readonly errorDescription: string | undefined
  readonly schemes: ReadonlyArray<string>
}

/** @internal */
export const challengeInfo = (header: string | undefined): ChallengeInfo => {
  const challenges = parseChallenges(header)
  const pick = (key: string) => challenges.find((c) => c.params[key] !== undefined)?.params[key]
  const scope = pick("scope")
  return {
    resourceMetadata: pick("resource_metadata"),
    scope: scope === undefined ? undefined : splitScopes(scope),
    error: pick("error"),
    errorDescription: pick("error_description"),
    schemes: challenges.map((c) => c.scheme)
  }
}

/** @internal */
export const splitScopes = (scope: string): ReadonlyArray<string> => scope.split(/\s+/).filter((s) => s !== "")

/** The union of scope lists, first-seen order kept. @internal */
export const unionScopes = (...lists: ReadonlyArray<ReadonlyArray<string> | undefined>): ReadonlyArray<string> => {
  const seen = new Set<string>()
  for (const list of lists) for (const scope of list ?? []) seen.add(scope)
  return [...seen]
}
