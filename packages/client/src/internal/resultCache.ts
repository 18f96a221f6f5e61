/**
 * The result cache's implementation. A cold key is fetched once, on a fiber of its own, however many callers
 * ask at the same moment: each caller waits for it under its own timeout and interruption (the fetch stops
 * only when every caller waiting for it has gone).
 */
import * as Clock from "effect/Clock"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import type * as Fiber from "effect/Fiber"
import type { Cacheable, CacheKey, Invalidation, Options, Service } from "../ResultCache.js"

interface Stored {
  readonly key: CacheKey
  readonly value: unknown
  readonly expiresAt: number
  readonly scope: "public" | "private"
  readonly authContext: string
}

/** One fetch in flight, shared by the callers waiting for it. */
interface Flight {
  readonly answer: Deferred.Deferred<unknown, unknown>
  waiters: number
  fiber: Fiber.Fiber<unknown, never> | undefined
}

const storeKey = (key: { readonly namespace: string; readonly method: string; readonly params: string }) =>
  JSON.stringify([key.namespace, key.method, key.params])

const generationKey = (key: { readonly namespace: string; readonly method: string }) =>
  JSON.stringify([key.namespace, key.method])

const freshFor = (entry: Stored, key: CacheKey, now: number) =>
  now < entry.expiresAt && (entry.scope === "public" || entry.authContext === key.authContext)

/** @internal */
export const make = (options: Options = {}): Effect.Effect<Service> =>
  Effect.sync(() => {
    const capacity = options.capacity ?? 1000
    const maxTtl = Duration.toMillis(Duration.fromInputUnsafe(options.maxTtl ?? "1 hour"))
    // Insertion-ordered: the first entry is the oldest.
    const stored = new Map<string, Stored>()
    const inFlight = new Map<string, Flight>()
    // Bumped by an invalidation of a method, so that an answer fetched before it is not stored after it.
    const generations = new Map<string, number>()

    const store = (id: string, key: CacheKey, result: Cacheable<unknown>, now: number) => {
      const ttl = Math.min(result.ttlMs ?? 0, maxTtl)
      if (!(ttl > 0)) return
      stored.delete(id)
      stored.set(id, {
        key,
        value: result.value,
        expiresAt: now + ttl,
        scope: result.cacheScope ?? "private",
        authContext: key.authContext
      })
      while (stored.size > capacity) {
        const oldest = stored.keys().next()
        if (oldest.done === true) break
        stored.delete(oldest.value)
      }
    }

    const leave = (flightId: string, flight: Flight) =>
      Effect.suspend(() => {
        flight.waiters--
        if (flight.waiters > 0 || flight.fiber === undefined) return Effect.void
        if (inFlight.get(flightId) === flight) inFlight.delete(flightId)
        // Not awaited: the last caller leaves at once, the fetch stops on its own fiber.
        flight.fiber.interruptUnsafe()
        return Effect.void
      })

    const start = <A, E, R>(id: string, flightId: string, key: CacheKey, fetch: Effect.Effect<Cacheable<A>, E, R>) =>
      Effect.gen(function*() {
        const flight: Flight = { answer: Deferred.makeUnsafe(), waiters: 0, fiber: undefined }
        inFlight.set(flightId, flight)
        const generation = generations.get(generationKey(key)) ?? 0
        flight.fiber = yield* fetch.pipe(
          Effect.onExit((exit) =>
            Effect.gen(function*() {
              if (inFlight.get(flightId) === flight) inFlight.delete(flightId)
              if (Exit.isSuccess(exit) && (generations.get(generationKey(key)) ?? 0) === generation) {
                store(id, key, exit.value, yield* Clock.currentTimeMillis)
              }
              yield* Deferred.done(flight.answer, Exit.map(exit, (result): unknown => result.value))
            })
          ),
          Effect.ignore,
          Effect.forkDetach
        )
        return flight
      })

    const get: Service["get"] = <A, E, R>(
      key: CacheKey,
      fetch: Effect.Effect<Cacheable<A>, E, R>,
      getOptions?: { readonly refresh?: boolean | undefined }
    ) =>
      Effect.gen(function*() {
        const id = storeKey(key)
        const flightId = `${id}\u0000${key.authContext}`
        if (getOptions?.refresh !== true) {
          const entry = stored.get(id)
          // The time is read into a variable of its own: terser (webpack's minifier) inlines `freshFor` with a
          // `yield*` argument into an arrow function, which is a syntax error in the bundle.
          const now = yield* Clock.currentTimeMillis
          if (entry !== undefined && freshFor(entry, key, now)) return entry.value as A
        }
        const existing = getOptions?.refresh === true ? undefined : inFlight.get(flightId)
        const flight = existing ?? (yield* start(id, flightId, key, fetch))
        return (yield* Effect.acquireUseRelease(
          Effect.sync(() => {
            flight.waiters++
          }),
          () => Deferred.await(flight.answer),
          () => leave(flightId, flight)
        )) as A
      }) as Effect.Effect<A, E, R>

    const invalidate = (invalidation: Invalidation) =>
      Effect.sync(() => {
        for (const [id, entry] of stored) {
          if (
            entry.key.namespace === invalidation.namespace && entry.key.method === invalidation.method &&
            (invalidation.params === undefined || invalidation.params === entry.key.params)
          ) {
            stored.delete(id)
          }
        }
        const generation = generationKey(invalidation)
        generations.set(generation, (generations.get(generation) ?? 0) + 1)
      })

    return { get, invalidate, size: Effect.sync(() => stored.size) }
  })
