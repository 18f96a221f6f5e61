/**
 * One configured entry's client (Node: `child_process` for stdio, undici for HTTP): its options, its sign-in
 * (`auth`, HTTP only), and, given a connect timeout, its connection (start-up and handshake, the era settled)
 * within that limit, or `McpTimeoutError` saying what a silent stdio server wrote on stderr.
 */
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import type * as Scope from "effect/Scope"
import type { EntryClientOptions, ServerEntry } from "../../McpConfig.js"
import { McpConfigError } from "../../McpConfigError.js"
import * as McpClient from "../../McpClient.js"
import { type McpClientError, McpTimeoutError } from "../../McpError.js"
import * as McpTransport from "../../McpTransport.js"
import * as NodeMcpClient from "../../NodeMcpClient.js"

/**
 * The entry's transport, given the client's options as `NodeMcpClient.layerHttp`/`layerStdio` give them (`auth`
 * is for an HTTP server only: a stdio server is not signed in to).
 *
 * @internal
 */
export const transportOf = (
  entry: ServerEntry,
  client: McpClient.ClientOptions,
  options: Pick<EntryClientOptions, "auth" | "shutdownTimeout">
): Layer.Layer<McpTransport.McpTransport> =>
  entry.transport === "http"
    ? NodeMcpClient.layerHttpTransport({
      ...client,
      url: entry.url,
      headers: entry.headers,
      secrets: entry.secrets,
      auth: options.auth
    })
    : NodeMcpClient.layerStdioTransport({
      ...client,
      shutdownTimeout: options.shutdownTimeout,
      command: entry.command,
      args: entry.args,
      env: entry.env,
      cwd: entry.cwd,
      description: entry.description,
      secrets: entry.secrets
    })

/**
 * The transport, each connection it opens noted in `silence` (what that connection says of a server that has
 * written nothing on stdout yet: the connect timeout's error quotes it).
 */
const watched = (
  transport: Layer.Layer<McpTransport.McpTransport>,
  silence: Ref.Ref<Effect.Effect<string | undefined>>
): Layer.Layer<McpTransport.McpTransport> =>
  Layer.effect(
    McpTransport.McpTransport,
    Effect.map(McpTransport.McpTransport, (inner) => ({
      ...inner,
      connect: Effect.tap(inner.connect, (connection) => Ref.set(silence, connection.silentStderr ?? Effect.undefined))
    }))
  ).pipe(Layer.provide(transport))

/** The connect timeout asked for, or a `McpConfigError` naming the entry when it is not a duration. */
const timeoutOf = (entry: ServerEntry, input: Duration.Input): Effect.Effect<Duration.Duration, McpConfigError> =>
  Option.match(Duration.fromInput(input), {
    onNone: () =>
      Effect.fail(new McpConfigError({ entry: entry.name, field: "connectTimeout", detail: `not a duration: ${String(input)}` })),
    onSome: Effect.succeed
  })

/**
 * The client of `layer` built and connected (`client.info`: start-up, handshake, sign-in) within `timeout`; past
 * it, `McpTimeoutError` (`method: "connect"`, `limit: "overall"`) with the tail of a silent server's stderr.
 */
const connectedWithin = (
  layer: Layer.Layer<McpClient.McpClient, McpClientError>,
  timeout: Duration.Duration,
  silence: Ref.Ref<Effect.Effect<string | undefined>>
): Effect.Effect<McpClient.Service, McpClientError, Scope.Scope> =>
  Layer.build(layer).pipe(
    Effect.map(Context.get(McpClient.McpClient)),
    Effect.tap((client) => client.info),
    Effect.timeoutOrElse({
      duration: timeout,
      orElse: () =>
        Effect.flatMap(Effect.flatten(Ref.get(silence)), (silentServer) =>
          Effect.fail(
            new McpTimeoutError({ method: "connect", limit: "overall", timeoutMillis: Duration.toMillis(timeout), silentServer })
          ))
    })
  )

/** @internal */
export const clientLayer = (
  entry: ServerEntry,
  options: EntryClientOptions
): Layer.Layer<McpClient.McpClient, McpClientError | McpConfigError> => {
  const { auth: _auth, connectTimeout, shutdownTimeout: _shutdown, ...rest } = options
  // Pins are kept under the entry's name unless the caller names a scope (see `McpPinning`).
  const pinning = rest.pinning === undefined ? undefined : { ...rest.pinning, scope: rest.pinning.scope ?? entry.name }
  const client: McpClient.ClientOptions = { cacheNamespace: entry.name, ...rest, pinning }
  if (connectTimeout === undefined) return McpClient.layer(client).pipe(Layer.provide(transportOf(entry, client, options)))
  return Layer.effect(
    McpClient.McpClient,
    Effect.gen(function*() {
      const timeout = yield* timeoutOf(entry, connectTimeout)
      const silence = yield* Ref.make<Effect.Effect<string | undefined>>(Effect.undefined)
      const layer = McpClient.layer(client).pipe(Layer.provide(watched(transportOf(entry, client, options), silence)))
      return yield* connectedWithin(layer, timeout, silence)
    })
  )
}
