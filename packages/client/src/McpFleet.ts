/**
 * Many workers, one fleet: what MCP clients in different processes (on different machines) can share through
 * Redis, opt-in through layers. The in-memory and file stores stay the defaults.
 *
 * - A shared token store (`layerTokenStore`): tokens per authorization server, MCP server and a subject the
 *   caller names (a user id), sealed at rest with AES-256-GCM under a key the caller provides (the key never
 *   goes to Redis). A refresh is single-flight across processes: one process holds a short Redis lock (with an
 *   expiry, so a crashed holder cannot block the rest), the others wait for it and take the new tokens; a
 *   refresh refused with `invalid_grant` after another process rotated the token takes the stored tokens.
 * - A shared result cache (`layerResultCache`): the entries the single-process cache keeps (`ttlMs`, never
 *   legacy), keyed by server identity, method, params and, unless `public`, the auth context; a `list_changed`
 *   in one process reaches all of them (pub/sub).
 * - A shared per-server rate limit (`withRateLimit`, `fleet.rateLimit`), holding in any window of its length
 *   (a sliding window by default): over it a call waits for its turn before its timeout starts; an answer the
 *   fleet's cache gives takes no turn.
 * - Tasks that outlive a worker (`layerHttp`, `resumeTask`, `FleetClient.resumeTask`): each task a client starts
 *   is recorded (sealed, per subject and server, for the server's `ttl`); any process of the same subject and
 *   server resumes it by id and polls it as the client does.
 * - Redis down or slow: each round trip has a deadline; the process then works alone (its own memory), with
 *   one warning when it loses Redis and one when it is back. A refresh waits for the lock (Redis unreachable
 *   included) up to its lifetime rather than spend a refresh token another process may spend too; after a
 *   restart the refreshing process takes its lock back and writes its tokens again. The connection's start and
 *   close are bounded. A stored value that does not open (corrupted, another key), or is too long, is deleted.
 *
 * ```ts
 * const client = await McpFleet.connectHttp({
 *   url: "https://mcp.example.com/mcp",
 *   auth: { redirectUrl, onAuthorize },
 *   fleet: { url: "redis://127.0.0.1:6379", subject: userId, key: tokenKey }
 * })
 * ```
 *
 * @since 0.2.0
 */
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redis from "effect/persistence/Redis"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import * as EraResolver from "./EraResolver.js"
import * as InputFulfiller from "./InputFulfiller.js"
import * as connection_ from "./internal/fleet/connection.js"
import * as Health from "./internal/fleet/health.js"
import * as redisCache from "./internal/fleet/redisCache.js"
import * as pinStore_ from "./internal/fleet/pinStore.js"
import * as rateLimit from "./internal/fleet/rateLimit.js"
import * as taskStore from "./internal/fleet/taskStore.js"
import { decodeCallToolResult } from "./internal/client/decode.js"
import * as redisStore from "./internal/fleet/redisStore.js"
import { digest, keyBytes, sealer } from "./internal/fleet/seal.js"
import { TokenStore } from "./McpAuth.js"
import * as McpClient from "./McpClient.js"
import type { McpClientError } from "./McpError.js"
import type * as McpPinning from "./McpPinning.js"
import type { CallToolResult } from "./McpSchema.js"
import * as NodeMcpClient from "./NodeMcpClient.js"
import { ResultCache } from "./ResultCache.js"

/**
 * A fleet layer that could not be built: a key that is not 32 bytes, Redis unreachable at start, a setting
 * that is not valid (`Options`: a rate limit's `window` or `timeout` that is not a duration); or a task
 * that cannot be resumed (`Task`: unknown, expired, another subject's or another server's; `Redis`: the record
 * could not be read). It never carries the key or a token.
 *
 * @since 0.2.0
 * @category errors
 */
export class McpFleetError extends Schema.TaggedError<McpFleetError>()("McpFleetError", {
  reason: Schema.Literals(["Key", "Redis", "Task", "Options"]),
  detail: Schema.String
}) {
  override get message(): string {
    return `mcp fleet: ${this.detail}`
  }
}

/**
 * @since 0.2.0
 * @category models
 */
export interface TokenStoreOptions {
  /** Whose tokens these are (a user id). Every key carries it (hashed). */
  readonly subject: string
  /** The 32-byte AES-256-GCM key: bytes, or base64 / hex text, possibly `Redacted`. */
  readonly key: Uint8Array | string | Redacted.Redacted<string>
  /** Key prefix in Redis (default `mcp-effect`). */
  readonly prefix?: string | undefined
  /**
   * The refresh lock's lifetime (default 10 seconds): how long a crashed holder can block the others, and how
   * long a refresh waits for the lock while Redis does not answer before it goes alone.
   */
  readonly lockTtl?: Duration.Input | undefined
  /** The deadline of one Redis round trip before falling back to local memory (default 1 second). */
  readonly timeout?: Duration.Input | undefined
  /** Called on every Redis round trip (figures, tests). */
  readonly onRoundTrip?: (() => void) | undefined
}

const openKey = (key: TokenStoreOptions["key"]) =>
  Effect.suspend(() => {
    const bytes = keyBytes(Redacted.isRedacted(key) ? Redacted.value(key) : key)
    return bytes === undefined
      ? Effect.fail(new McpFleetError({ reason: "Key", detail: "the token key must be 32 bytes (raw, base64 or hex)" }))
      : Effect.succeed(bytes)
  })

/**
 * The token store on a `Redis` service (e.g. `NodeRedis.layer` from `@effect/platform-node`).
 *
 * @since 0.2.0
 * @category layers
 */
export const layerTokenStore = (
  options: TokenStoreOptions
): Layer.Layer<TokenStore, McpFleetError, Redis.Redis> =>
  Layer.effect(
    TokenStore,
    Effect.gen(function*() {
      const redis = yield* Redis.Redis
      const key = yield* openKey(options.key)
      return TokenStore.of(redisStore.make({
        redis,
        health: yield* Health.current,
        sealer: sealer(key),
        subject: options.subject,
        prefix: options.prefix ?? "mcp-effect",
        lockTtl: yield* durationOf("lockTtl", options.lockTtl ?? "10 seconds"),
        timeout: yield* durationOf("timeout", options.timeout ?? "1 second"),
        onRoundTrip: options.onRoundTrip
      }))
    })
  )

/**
 * @since 0.2.0
 * @category models
 */
export interface ResultCacheOptions {
  /** The key shared entries are sealed with (the token key may serve). */
  readonly key: TokenStoreOptions["key"]
  readonly prefix?: string | undefined
  readonly timeout?: Duration.Input | undefined
  /** Most entries each process keeps in front of Redis (default 1000). */
  readonly capacity?: number | undefined
  /** The longest a result is reused, whatever the server says (default 1 hour). */
  readonly maxTtl?: Duration.Input | undefined
  readonly onRoundTrip?: (() => void) | undefined
  /** Called when an answer comes from Redis (stored by this or another process). */
  readonly onRedisHit?: (() => void) | undefined
  /**
   * The longest entry shared, sealed (default 8 MiB): a longer answer stays in this process; a longer value
   * found at an entry's key is deleted without being read.
   */
  readonly maxEntryBytes?: number | undefined
}

/**
 * The result cache shared through Redis: the entries the single-process cache keeps (a modern server's
 * `ttlMs`, never legacy), keyed by the client's `cacheNamespace` (give the server's identity, e.g. its URL),
 * method and params, and by its `authContext` for anything not `public`; each process keeps its own copies in
 * front. An invalidation (`list_changed`) reaches every process (Redis pub/sub).
 *
 * @since 0.2.0
 * @category layers
 */
export const layerResultCache = (
  options: ResultCacheOptions
): Layer.Layer<ResultCache, McpFleetError, Redis.Redis> =>
  Layer.effect(
    ResultCache,
    Effect.gen(function*() {
      const redis = yield* Redis.Redis
      const key = yield* openKey(options.key)
      return yield* redisCache.make({
        redis,
        sealer: sealer(key),
        prefix: options.prefix ?? "mcp-effect",
        timeout: yield* durationOf("timeout", options.timeout ?? "1 second"),
        capacity: options.capacity,
        maxTtl: options.maxTtl === undefined ? undefined : yield* durationOf("maxTtl", options.maxTtl),
        onRoundTrip: options.onRoundTrip,
        onRedisHit: options.onRedisHit,
        maxEntryBytes: options.maxEntryBytes ?? 8 * 2 ** 20,
        health: yield* Health.current
      })
    })
  )

/**
 * @since 0.2.0
 * @category models
 */
export interface RateLimitOptions {
  /** Requests per `window` to this server, across every process of the fleet. */
  readonly limit: number
  readonly window: Duration.Input
  /**
   * `sliding-window` (default): at most `limit` requests in any `window`, wherever it starts. `fixed-window`
   * (counts per window: up to twice the limit across a window's edge) and `token-bucket` (a burst of `limit`,
   * then `limit` per `window`) on request.
   */
  readonly algorithm?: "sliding-window" | "fixed-window" | "token-bucket" | undefined
  /** The server's identity in the shared key (default: the client's URL). */
  readonly key?: string | undefined
  readonly prefix?: string | undefined
  readonly timeout?: Duration.Input | undefined
  /** Called with how long a call waited for its turn. */
  readonly onWait?: ((millis: number) => void) | undefined
}

/** A duration from a caller's settings, parsed (not thrown: it may be text that is not one). */
const durationOf = (name: string, input: Duration.Input): Effect.Effect<Duration.Duration, McpFleetError> =>
  Option.match(Duration.fromInput(input), {
    onNone: () => Effect.fail(new McpFleetError({ reason: "Options", detail: `${name} is not a duration, got ${String(input)}` })),
    onSome: Effect.succeed
  })

const gateOf = (options: RateLimitOptions & { readonly key: string }) =>
  Effect.gen(function*() {
    const window = yield* durationOf("rateLimit.window", options.window)
    const timeout = yield* durationOf("rateLimit.timeout", options.timeout ?? "1 second")
    return yield* rateLimit.gate({
      limit: options.limit,
      window,
      algorithm: options.algorithm ?? "sliding-window",
      key: digest(options.key),
      prefix: options.prefix ?? "mcp-effect",
      timeout,
      health: yield* Health.current,
      onWait: options.onWait
    })
  })

/**
 * A per-server rate limit shared by the fleet, put in front of the `McpClient` of `self`: each operation
 * holds a turn in Redis while it runs and, over the limit, waits for one before it is sent (its timeout
 * starts then: the wait is logged and traced as a wait, never a timeout). The sliding window holds as the
 * server counts, from the first call and however late a request reaches the wire: a turn counts from its
 * start until a window after its operation ended. An operation that sends more than one request (a listing
 * of many pages, a retry after a header mismatch, input rounds) holds one turn for all of them. Here every operation takes a turn, a cached answer
 * too; `layerHttp`'s `fleet.rateLimit` spends turns only on what goes to the server.
 *
 * @since 0.2.0
 * @category layers
 */
export const withRateLimit = (options: RateLimitOptions & { readonly key: string }) =>
<E, R>(self: Layer.Layer<McpClient.McpClient, E, R>): Layer.Layer<McpClient.McpClient, E | McpFleetError, R | Redis.Redis> =>
  Layer.effect(
    McpClient.McpClient,
    Effect.gen(function*() {
      const client = yield* McpClient.McpClient
      return rateLimit.limitClient(client, yield* gateOf(options))
    })
  ).pipe(Layer.provide(self))

/**
 * @since 0.2.0
 * @category models
 */
export interface RedisOptions extends TokenStoreOptions {
  readonly onRedisHit?: (() => void) | undefined
  /** The longest result-cache entry shared, sealed (default 8 MiB; see `ResultCacheOptions`). */
  readonly maxEntryBytes?: number | undefined
  /** A rate limit for this server shared by the fleet (none by default). */
  readonly rateLimit?: RateLimitOptions | undefined
  /** `redis://host:port` (node-redis URL syntax). */
  readonly url: string
  /** How long connecting may take at start (default 2 seconds). */
  readonly connectTimeout?: Duration.Input | undefined
  /** How long a task record lives when the server gave no `ttl`, and at most (default 24 hours). */
  readonly taskTtl?: Duration.Input | undefined
}

/**
 * Tasks that outlive a worker: the tasks a fleet client started (a legacy task-augmented `tools/call` or a
 * modern server's task), recorded in Redis for its subject and server until the server's `ttl`.
 *
 * @since 0.2.0
 * @category services
 */
export class FleetTasks extends Context.Service<FleetTasks, {
  /** Follow a recorded task to its result, in any process of the fleet serving the same subject and server. */
  readonly resume: (taskId: string) => Effect.Effect<CallToolResult, McpClientError | McpFleetError>
}>()("@mcp-effect/client/McpFleet/FleetTasks") {}

/**
 * Resume a task another process of the fleet started (it may have died): read its record (this subject's
 * only, for this client's server), poll it as the client does (`tasks/get`, then `tasks/result`) and return
 * its result. Fails with `McpFleetError` (`Task`) when there is no such record: unknown, expired with the
 * server's `ttl`, or another subject's.
 *
 * @since 0.2.0
 * @category tasks
 */
export const resumeTask = (taskId: string): Effect.Effect<CallToolResult, McpClientError | McpFleetError, FleetTasks> =>
  Effect.flatMap(FleetTasks, (tasks) => tasks.resume(taskId))

const makeTasks = (store: taskStore.TaskStore, server: string, client: McpClient.McpClient["Service"]) =>
  FleetTasks.of({
    resume: (taskId) =>
      Effect.gen(function*() {
        const record = yield* store.read(taskId).pipe(
          Effect.mapError((error) =>
            new McpFleetError({
              reason: "Redis",
              detail: `the record of task ${taskId} could not be read (${error === "timeout" ? "timed out" : error.message})`
            })
          )
        )
        if (record === undefined || record.server !== server) {
          return yield* new McpFleetError({
            reason: "Task",
            detail: `no task ${taskId} to resume here (unknown, expired, or another subject's or server's)`
          })
        }
        const raw = yield* taskStore.follow(record, (method, params) => client.request(method, params))
        return yield* decodeCallToolResult(raw)
      })
  })

/** The fleet's task records on the `Redis` service, for `layerHttp`. */
const openTaskStore = (fleet: RedisOptions) =>
  Effect.gen(function*() {
    const redis = yield* Redis.Redis
    const key = yield* openKey(fleet.key)
    return taskStore.make({
      redis,
      sealer: sealer(key),
      subject: fleet.subject,
      prefix: fleet.prefix ?? "mcp-effect",
      timeout: yield* durationOf("timeout", fleet.timeout ?? "1 second"),
      maxTtl: yield* durationOf("taskTtl", fleet.taskTtl ?? "24 hours"),
      onRoundTrip: fleet.onRoundTrip
    })
  })

/** The connection and the pieces on it, with the `Health` of the context they are built in. */
const layerRedisParts = (
  options: RedisOptions
): Layer.Layer<TokenStore | ResultCache | Redis.Redis, McpFleetError> => {
  const connection = Layer.effect(
    Redis.Redis,
    Effect.gen(function*() {
      // Every duration of the settings is checked before connecting: a bad one is named, not a Redis failure.
      yield* durationOf("lockTtl", options.lockTtl ?? "10 seconds")
      yield* durationOf("taskTtl", options.taskTtl ?? "24 hours")
      const connectTimeout = yield* durationOf("connectTimeout", options.connectTimeout ?? "2 seconds")
      const timeout = yield* durationOf("timeout", options.timeout ?? "1 second")
      return yield* connection_.make({ url: options.url, connectTimeout, timeout, health: yield* Health.current })
    })
  ).pipe(
    Layer.catchTag("RedisError", (error) =>
      Layer.effect(
        Redis.Redis,
        Effect.fail(new McpFleetError({ reason: "Redis", detail: `could not connect to Redis (${Health.reason(error)})` }))
      )
    )
  )
  return Layer.provideMerge(Layer.merge(layerTokenStore(options), layerResultCache(options)), connection)
}

/** One `Health` for the connection and every piece on it: one warning per outage for the connection. */
const layerHealth = () => Layer.sync(Health.FleetHealth, Health.make)

/**
 * Everything the fleet shares, on one node-redis connection (`redis` must be installed; the fleet's own
 * connection, every step of it bounded: see "When Redis misbehaves" in the README): the token store (for
 * `McpAuth.layer`) and the result cache (for `McpClient.layerWithoutDependencies`; `layerHttp` below
 * assembles both).
 *
 * @since 0.2.0
 * @category layers
 */
export const layerRedis = (
  options: RedisOptions
): Layer.Layer<TokenStore | ResultCache | Redis.Redis, McpFleetError> =>
  layerRedisParts(options).pipe(Layer.provide(layerHealth()))

/**
 * An HTTP client (as `NodeMcpClient.layerHttp`) whose tokens and cached results are the fleet's. Its cache
 * namespace defaults to the server URL and its auth context to the fleet's `subject`, so that processes
 * serving the same user share entries.
 *
 * @since 0.2.0
 * @category layers
 */
export const layerHttp = (
  options: McpClient.HttpClientOptions & { readonly fleet: RedisOptions }
): Layer.Layer<McpClient.McpClient | FleetTasks, McpClientError | McpFleetError> => {
  const { fleet, ...given } = options
  const server = given.cacheNamespace ?? String(given.url)
  const assembled = Layer.unwrap(Effect.gen(function*() {
    const store = yield* openTaskStore(fleet)
    const limit = fleet.rateLimit
    const before = limit === undefined ? undefined : yield* gateOf({ ...limit, key: limit.key ?? String(given.url) })
    const http: McpClient.HttpClientOptions = {
      ...given,
      cacheNamespace: server,
      authContext: given.authContext ?? `subject:${fleet.subject}`,
      // Every task this client starts is recorded before it is polled: another worker can resume it.
      onTaskCreated: (task) => Effect.andThen(store.record(server, task), given.onTaskCreated?.(task) ?? Effect.void)
    }
    // With a rate limit, what the cache answers takes no turn: the cache's fetches take it.
    const base = McpClient.layerWithoutDependencies(http).pipe(
      Layer.provide(EraResolver.layer),
      Layer.provide(InputFulfiller.layer(http)),
      Layer.provide(NodeMcpClient.layerHttpTransport(http))
    )
    const client = before === undefined
      ? base
      : base.pipe(Layer.provide(Layer.effect(ResultCache, Effect.map(ResultCache, (cache) => rateLimit.gateCache(cache, before)))))
    const limited = before === undefined ? client : Layer.effect(
      McpClient.McpClient,
      Effect.map(McpClient.McpClient, (c) => rateLimit.limitClient(c, before, true))
    ).pipe(Layer.provide(client))
    const tasks = Layer.effect(FleetTasks, Effect.map(McpClient.McpClient, (c) => makeTasks(store, server, c)))
    return Layer.provideMerge(tasks, limited)
  }))
  return assembled.pipe(Layer.provide(layerRedisParts(fleet)), Layer.provide(layerHealth()))
}

/**
 * Tool pinning's store on the fleet's Redis (`McpClient` option `pinning: { store }`): one hash per scope, one
 * field per tool, so that an approval reaches every worker. Pins are not secret and are kept unsealed; whoever
 * can write this Redis can approve a tool anyway. Every round trip has a deadline (`timeout`).
 *
 * @since 0.3.0
 * @category constructors
 */
export const pinStore = (
  options?: { readonly prefix?: string | undefined; readonly timeout?: Duration.Input | undefined }
): Effect.Effect<McpPinning.PinStore, McpFleetError, Redis.Redis> =>
  Effect.flatMap(
    durationOf("timeout", options?.timeout ?? "1 second"),
    (timeout) => pinStore_.fromContext({ ...options, timeout })
  )
