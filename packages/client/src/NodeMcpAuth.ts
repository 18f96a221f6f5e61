/**
 * What `McpAuth` needs Node for (Bun and Deno have it too): the token file shared by programs, and the loopback
 * receiver that takes a person's sign-in back from the browser on 127.0.0.1.
 *
 * ```ts
 * import { connectHttp, NodeMcpAuth } from "@mcp-effect/client/node"
 *
 * const receiver = await NodeMcpAuth.loopbackReceiver({ open: (url) => openBrowser(url) })
 * const client = await connectHttp({
 *   url: "https://example.com/mcp",
 *   auth: { clientName: "my app", redirectUrl: receiver.redirectUrl, onAuthorize: receiver.onAuthorize, tokenFile }
 * })
 * ```
 *
 * @since 0.3.0
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import type * as loopback from "./internal/node/loopback.js"
import * as store from "./internal/node/tokenFile.js"
import * as McpAuth from "./McpAuth.js"

export type { LoopbackOptions, LoopbackReceiver } from "./internal/node/loopback.js"

/**
 * Tokens in a JSON file, created with mode 0600. Programs may share it: each save is locked across processes
 * (`<file>.lock`) and changes only its own entry; an unreadable file is kept aside as `<file>.corrupt-<time>`.
 * Only a regular file of at most 1 MiB is read: anything else there (a FIFO, a device, a huge file) is left as
 * it is, and the authorization fails with an `McpAuthError` naming it.
 *
 * @since 0.3.0
 * @category layers
 */
export const layerFileStore = (path: string): Layer.Layer<McpAuth.TokenStore> =>
  Layer.sync(McpAuth.TokenStore, () => McpAuth.TokenStore.of(store.file(path)))

/**
 * The authorization service with `options.tokenFile` as its store (when given and no `TokenStore` is provided).
 *
 * @since 0.3.0
 * @category layers
 */
export const layer = (options: McpAuth.AuthOptions): Layer.Layer<McpAuth.McpAuth> => {
  const tokenFile = options.tokenFile
  if (tokenFile === undefined) return McpAuth.layer(options)
  // A `TokenStore` in context wins, as for `McpAuth.layer`; else the file is the store.
  return Layer.unwrap(
    Effect.map(Effect.serviceOption(McpAuth.TokenStore), (provided) =>
      Option.isSome(provided)
        ? McpAuth.layer(options)
        : McpAuth.layer(options).pipe(Layer.provide(layerFileStore(tokenFile))))
  )
}

/**
 * Remove the stored sign-ins of one MCP server (its URL as the client was given it), or of every server, from
 * a token file of `layerFileStore` / `tokenFile`: under the file's lock, as saves take it, so that a sign-in
 * saved meanwhile by another program is kept. The number of entries removed.
 *
 * @since 0.3.0
 * @category utils
 */
export const forgetStored = (tokenFile: string, server?: string | undefined): Effect.Effect<number, Error> =>
  Effect.flatMap(
    Effect.try({
      try: () => server === undefined ? undefined : new URL(server).href,
      catch: () => new Error(`not a URL: ${JSON.stringify(server)}`)
    }),
    (href) => store.removeFromFile(tokenFile, href)
  )

// The loopback receiver (node:http, whose ESM facade loads Node's bundled undici, http2, tls and zlib) is
// loaded on first use: most programs never sign a person in.
let loopbackModule: Promise<typeof import("./internal/node/loopback.js")> | undefined
const loadLoopback = () => (loopbackModule ??= import("./internal/node/loopback.js"))

/**
 * Start a loopback redirect receiver on 127.0.0.1: its `redirectUrl` and `onAuthorize` go straight into the
 * options; `close()` when done.
 *
 * @since 0.3.0
 * @category constructors
 */
export const loopbackReceiver = (options?: loopback.LoopbackOptions): Promise<loopback.LoopbackReceiver> =>
  loadLoopback().then((module) => module.start(options))

/**
 * The loopback receiver as a scoped resource.
 *
 * @since 0.3.0
 * @category constructors
 */
export const loopbackReceiverScoped = (
  options?: loopback.LoopbackOptions
): Effect.Effect<loopback.LoopbackReceiver, never, Scope.Scope> =>
  Effect.acquireRelease(Effect.promise(() => loopbackReceiver(options)), (receiver) => Effect.promise(receiver.close))
