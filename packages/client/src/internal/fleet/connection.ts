/**
 * The fleet's Redis connection (node-redis, loaded when a fleet starts), every step of it bounded:
 *
 * - start: connecting (and node-redis's own first commands) within `connectTimeout`, then a `PING` within
 *   `timeout`; a Redis that accepts connections but does not answer fails the start instead of holding it;
 * - commands are never queued while the connection is down (they fail at once and the fleet works from its
 *   own memory), and a command whose caller gave up before it was written is dropped;
 * - close: a graceful close gets `timeout` (at most a second), then the sockets are destroyed, whatever Redis
 *   does;
 * - reconnection: exponential backoff up to 2 s; what it meets goes to `Health` (one warning when lost, one
 *   when back), never a warning per attempt.
 *
 * @internal
 */
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Redis from "effect/persistence/Redis"
import type * as Scope from "effect/Scope"
import type { createClient } from "redis"
import { type Health, reason } from "./health.js"

type Client = ReturnType<typeof createClient>

/** @internal */
export interface ConnectionOptions {
  /** `redis://host:port` (node-redis URL syntax). */
  readonly url: string
  readonly connectTimeout: Duration.Duration
  readonly timeout: Duration.Duration
  readonly health: Health
}

const timedOut = (what: string, ms: number) => new Redis.RedisError({ cause: new Error(`${what} timed out after ${ms} ms`) })

const destroy = (client: Client) => {
  try {
    if (client.isOpen) client.destroy()
  } catch {
    // already closed
  }
}

/** A client's `connect`, bounded: a client still connecting at the deadline is destroyed. */
const connectWithin = (client: Client, ms: number) =>
  Effect.tryPromise({ try: () => client.connect(), catch: (cause) => new Redis.RedisError({ cause }) }).pipe(
    Effect.timeoutOrElse({ duration: Duration.millis(ms), orElse: () => Effect.fail(timedOut("connecting to Redis", ms)) }),
    Effect.tapError(() => Effect.sync(() => destroy(client))),
    Effect.asVoid
  )

/** Close gracefully within `ms`, then destroy (a paused or vanished Redis never answers the close). */
const closeWithin = (client: Client, ms: number) =>
  Effect.promise(() =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms)
      Promise.resolve().then(() => client.close()).catch(() => undefined).finally(() => {
        clearTimeout(timer)
        resolve()
      })
    })
  ).pipe(Effect.ensuring(Effect.sync(() => destroy(client))))

/** @internal */
export const make = (options: ConnectionOptions): Effect.Effect<Redis.Redis["Service"], Redis.RedisError, Scope.Scope> =>
  Effect.gen(function*() {
    const { createClient } = yield* Effect.promise(() => import("redis"))
    const connectMs = Math.max(1, Duration.toMillis(options.connectTimeout))
    const timeoutMs = Math.max(1, Duration.toMillis(options.timeout))
    const closeMs = Math.min(timeoutMs, 1000)
    const runSync = Effect.runSyncWith(yield* Effect.context<never>())
    const report = (cause: unknown) => runSync(options.health.failed("connection", reason(cause)))
    let ready = false
    const client: Client = createClient({
      url: options.url,
      disableOfflineQueue: true,
      socket: {
        connectTimeout: connectMs,
        // Before the first `ready` a failure ends the start; after it, reconnect with backoff up to 2 s.
        reconnectStrategy: (retries, cause) => ready ? Math.min(2 ** retries * 50, 2000) + Math.floor(Math.random() * 100) : cause
      }
    })
    client.on("error", report)
    client.on("ready", () => {
      if (ready) runSync(options.health.answered)
      ready = true
    })
    yield* Effect.addFinalizer(() => closeWithin(client, closeMs))
    yield* connectWithin(client, connectMs)

    const sendWith = (target: Client) => <A = unknown>(command: string, ...args: ReadonlyArray<string>) =>
      Effect.tryPromise({
        // Aborted (its caller gave up) before it was written: it is never sent.
        try: (signal) => target.sendCommand([command, ...args], { abortSignal: signal }) as Promise<A>,
        catch: (cause) => new Redis.RedisError({ cause })
      })
    const send = sendWith(client)
    yield* send("PING").pipe(
      Effect.timeoutOrElse({ duration: Duration.millis(timeoutMs), orElse: () => Effect.fail(timedOut("Redis PING", timeoutMs)) })
    )

    return yield* Redis.make({
      send,
      connect: Effect.gen(function*() {
        const connection = client.duplicate({ socket: { connectTimeout: connectMs, reconnectStrategy: false } })
        connection.on("error", report)
        yield* connectWithin(connection, connectMs)
        return { send: sendWith(connection), close: Effect.sync(() => destroy(connection)) }
      }),
      subscribe: (channel, onMessage) =>
        Effect.gen(function*() {
          const terminal = yield* Deferred.make<void, Redis.RedisError>()
          const subscriber = client.duplicate()
          subscriber.on("error", (cause) => {
            report(cause)
            if (!subscriber.isOpen) runSync(Deferred.fail(terminal, new Redis.RedisError({ cause })))
          })
          yield* Effect.addFinalizer(() => Effect.sync(() => destroy(subscriber)))
          yield* connectWithin(subscriber, connectMs)
          yield* Effect.tryPromise({
            try: () => subscriber.subscribe(channel, (message, from) => onMessage({ channel: from, message })),
            catch: (cause) => new Redis.RedisError({ cause })
          }).pipe(
            Effect.timeoutOrElse({ duration: Duration.millis(timeoutMs), orElse: () => Effect.fail(timedOut("SUBSCRIBE", timeoutMs)) })
          )
          return Deferred.await(terminal)
        })
    })
  })
