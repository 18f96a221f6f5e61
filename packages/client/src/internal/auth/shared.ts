/**
 * Tokens shared with other processes through the store: before refreshing (under the store's cross-process
 * lock) and after a refused refresh, the engine takes what another process has stored since, rather than
 * spending a refresh token that has already been rotated.
 *
 * @internal
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import type { McpAuthError } from "../../McpAuthError.js"
import { activate } from "./identity.js"
import type * as S from "./session.js"
import type { StoredClient } from "./tokens.js"

/**
 * Take the stored tokens of the same authorization server when they are not the ones held (another process
 * refreshed or signed in): `true` when taken.
 *
 * @internal
 */
export const adoptNewer = (session: S.Session, held: S.Tokens | undefined): Effect.Effect<boolean, McpAuthError> =>
  Effect.map(session.store.load(session.server.href), (entries) => {
    const issuer = held?.issuer ?? session.state.tokens?.issuer
    const stored = entries
      .filter((entry) => (issuer === undefined || entry.issuer === issuer) && entry.tokens !== undefined)
      .sort((a, b) => (b.tokens?.issuedAt ?? 0) - (a.tokens?.issuedAt ?? 0))[0]
    const tokens = stored?.tokens
    if (stored === undefined || tokens === undefined || tokens.tokenType === "dpop") return false
    if (held !== undefined && (tokens.accessToken === held.accessToken || tokens.issuedAt < held.issuedAt)) return false
    session.state.tokens = { ...tokens, issuer: stored.issuer }
    adoptRegistration(session, stored.issuer, stored.client)
    return true
  })

/**
 * The tokens taken from the store go with the registration they were issued to (another process may have
 * registered): it becomes the session's client.
 *
 * @internal
 */
export const adoptRegistration = (session: S.Session, issuer: string, client: StoredClient | undefined): void => {
  if (client !== undefined && session.state.client?.stored.clientId !== client.clientId) {
    session.state.client = activate(issuer, client, "stored")
  }
}

/**
 * `refresh` under the store's cross-process lock, when it has one: inside it, tokens another process stored
 * meanwhile are taken instead (and refreshed only if they are about to expire too).
 *
 * @internal
 */
export const singleFlight = (
  session: S.Session,
  usable: (tokens: S.Tokens) => Effect.Effect<boolean>,
  refresh: Effect.Effect<boolean, McpAuthError>,
  keepLive: boolean
) => {
  const exclusive = session.store.exclusive
  if (exclusive === undefined) return refresh
  const taken = Effect.gen(function*() {
    if (yield* adoptNewer(session, session.state.tokens)) {
      const tokens = session.state.tokens
      if (tokens !== undefined && (yield* usable(tokens))) return true
    }
    return yield* refresh
  })
  // Without the lock (it could not be had within its lifetime: the store unreachable), a refresh ahead of
  // expiry keeps the access token while it lives and tries again on a later request, rather than spend a
  // refresh token another process may be spending too (a rotating authorization server would end the grant).
  const alone = keepLive
    ? Effect.flatMap(Clock.currentTimeMillis, (now) => {
      const expiresAt = session.state.tokens?.expiresAt
      return expiresAt !== undefined && expiresAt > now ? Effect.succeed(true) : taken
    })
    : taken
  return exclusive(session.server.href, taken, alone)
}

/**
 * A sign-in (the configured grant) under the store's cross-process lock, when it has one: tokens another
 * process obtained meanwhile are taken instead, so that processes starting together ask the user once. The
 * lock's lifetime bounds the wait (a sign-in that takes longer lets the next process ask too).
 *
 * @internal
 */
export const signInOnce = (session: S.Session, held: S.Tokens | undefined, signIn: Effect.Effect<void, McpAuthError>) => {
  const exclusive = session.store.exclusive
  if (exclusive === undefined) return signIn
  return exclusive(
    session.server.href,
    Effect.flatMap(adoptNewer(session, held), (adopted) => adopted ? Effect.void : signIn)
  )
}
