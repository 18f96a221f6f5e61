/**
 * A part of the client that is loaded and made on first use (tool pinning's guard, the skills methods): the
 * modules behind it stay out of a program, and out of a page's first load, until something needs them.
 *
 * @internal
 */
import * as Effect from "effect/Effect"

/**
 * `make`'s value, made by the first run and kept: later runs give it at once. Two first runs at the same time
 * may both make one; the first made is kept.
 *
 * @internal
 */
export const onFirstUse = <A, E>(make: Effect.Effect<A, E>): Effect.Effect<A, E> => {
  let made: { readonly value: A } | undefined
  return Effect.suspend(() =>
    made !== undefined
      ? Effect.succeed(made.value)
      : Effect.map(make, (value) => (made ??= { value }).value)
  )
}
