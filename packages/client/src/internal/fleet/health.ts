/**
 * What the fleet says about Redis: one warning when a connection loses it (the first round trip that fails or
 * times out, or the connection dropping), one when it is back (with how long it was gone and how many round
 * trips failed meanwhile), nothing in between. Every piece of the fleet (token store, cache, task records,
 * rate limit, the connection itself) reports to one `Health` per connection, through Effect's logger.
 *
 * @internal
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"

/** @internal */
export interface Health {
  /** A round trip failed (`what`: the operation; `cause`: a short reason, never a value or a secret). */
  readonly failed: (what: string, cause: string) => Effect.Effect<void>
  /** A round trip answered. */
  readonly answered: Effect.Effect<void>
  /** Whether the last round trip failed (Redis is taken as unreachable until one answers). */
  readonly down: () => boolean
}

/** @internal */
export const make = (): Health => {
  let lostAt: number | undefined
  let failures = 0
  return {
    failed: (what, cause) =>
      Effect.suspend(() => {
        failures++
        if (lostAt !== undefined) return Effect.void
        lostAt = Date.now()
        return Effect.logWarning(
          `mcp fleet: Redis unavailable (${what}: ${cause}); this process works from its own memory until it is back`
        )
      }),
    answered: Effect.suspend(() => {
      if (lostAt === undefined) return Effect.void
      const gone = Date.now() - lostAt
      const failed = failures
      lostAt = undefined
      failures = 0
      return Effect.logWarning(
        `mcp fleet: Redis is back after ${(gone / 1000).toFixed(1)} s (${failed} round trips failed meanwhile)`
      )
    }),
    down: () => lostAt !== undefined
  }
}

/** A short reason for a failed round trip: the error's class and first line, no stack. @internal */
export const reason = (error: unknown): string => {
  if (error === "timeout") return "timed out"
  const cause = typeof error === "object" && error !== null && "cause" in error ? error.cause : error
  const text = cause instanceof Error ? `${cause.name}: ${cause.message}` : String(cause)
  // Credentials in a Redis URL never reach a message.
  return (text.split("\n")[0] ?? "").replace(/\/\/[^@/\s]*@/g, "//***@").slice(0, 200)
}

/**
 * The `Health` of the fleet's connection, for the pieces built on it (`McpFleet.layerRedis` provides it; a
 * piece on a `Redis` of the caller's makes its own).
 *
 * @internal
 */
export class FleetHealth extends Context.Service<FleetHealth, Health>()("@mcp-effect/client/McpFleet/FleetHealth") {}

/** The connection's `Health`, or a new one. @internal */
export const current: Effect.Effect<Health> = Effect.map(Effect.serviceOption(FleetHealth), (found) =>
  Option.getOrElse(found, make))
