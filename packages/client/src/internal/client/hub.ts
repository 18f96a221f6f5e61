/**
 * A sliding `PubSub` made on its first subscriber. A `PubSub` discards what is published while nobody is
 * subscribed, so publishing before then is a no-op here too: a client nobody listens to (most of them) holds no
 * ring buffer (`PubSub.sliding` preallocates its capacity, about 23 KiB for the two a client has).
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as PubSub from "effect/PubSub"
import * as Stream from "effect/Stream"

/** @internal */
export interface Hub<A> {
  /** Published to the current subscribers, if any; the oldest is dropped for a subscriber `capacity` behind. */
  readonly publish: (value: A) => Effect.Effect<void>
  /** Each run of it subscribes (the `PubSub` is made by the first). */
  readonly subscribe: Stream.Stream<A>
}

/** @internal */
export const sliding = <A>(capacity: number): Hub<A> => {
  let pubsub: PubSub.PubSub<A> | undefined
  const made = Effect.suspend(() =>
    pubsub !== undefined ? Effect.succeed(pubsub) : Effect.map(PubSub.sliding<A>(capacity), (made) => (pubsub ??= made))
  )
  return {
    publish: (value) => Effect.suspend(() => pubsub === undefined ? Effect.void : Effect.asVoid(PubSub.publish(pubsub, value))),
    subscribe: Stream.unwrap(Effect.map(made, Stream.fromPubSub))
  }
}
