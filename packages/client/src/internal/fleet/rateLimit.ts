/**
 * A per-server rate limit shared by the fleet (`effect/persistence/RateLimiter` on its Redis store). Every
 * operation of the client first takes a token; when the fleet is over the limit the call waits for its turn
 * before it is sent, so its own timeout starts only then: a call that waits shows as waiting (a debug log and
 * the `McpFleet.rateLimit` span), never as a timeout. Redis down or slow: the call goes on unlimited, with a
 * logged warning.
 *
 * @internal
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as RateLimiter from "effect/persistence/RateLimiter"
import type * as McpClient from "../../McpClient.js"

/** @internal */
export interface RateLimitOptions {
  /** Operations (requests) per `window`, across every process sharing the key. */
  readonly limit: number
  readonly window: Duration.Input
  /** The shared key (the server's identity). */
  readonly key: string
  readonly timeout: Duration.Duration
  /** Called with the time a call waited (figures, tests). */
  readonly onWait?: ((millis: number) => void) | undefined
}

/** @internal */
export const gate = (limiter: RateLimiter.RateLimiter, options: RateLimitOptions): Effect.Effect<void> =>
  limiter.consume({ key: options.key, limit: options.limit, window: options.window, onExceeded: "delay" }).pipe(
    Effect.timeoutOrElse({ duration: options.timeout, orElse: () => Effect.fail("timeout" as const) }),
    Effect.matchEffect({
      onFailure: () => Effect.logWarning("mcp fleet: the shared rate limit is unavailable; this call goes unlimited"),
      onSuccess: (result) => {
        const millis = Duration.toMillis(result.delay)
        if (!(millis > 0)) return Effect.void
        options.onWait?.(millis)
        return Effect.logDebug(`mcp fleet: waiting ${millis} ms for the fleet's rate limit`).pipe(
          Effect.andThen(Effect.sleep(result.delay)),
          Effect.withSpan("McpFleet.rateLimit", { attributes: { "mcp.fleet.wait_ms": millis } })
        )
      }
    })
  )

/**
 * The client with every operation behind `gate`: functions returning an Effect get the gate in front; other
 * members are as they are.
 *
 * @internal
 */
export const limitClient = (client: McpClient.Service, before: Effect.Effect<void>): McpClient.Service => {
  const wrapped: Record<string, unknown> = {}
  for (const [name, member] of Object.entries(client)) {
    wrapped[name] = typeof member === "function"
      ? (...args: ReadonlyArray<unknown>) => {
        const out: unknown = Reflect.apply(member, client, args)
        return Effect.isEffect(out) ? Effect.andThen(before, out) : out
      }
      : member
  }
  return wrapped as unknown as McpClient.Service
}
