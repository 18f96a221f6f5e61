/**
 * A person's sign-in from a web page, and tokens kept where the page says. The OAuth flow is `McpAuth`'s (the
 * authorization code with PKCE, DPoP keys made as non-extractable WebCrypto keys, a Client ID Metadata Document
 * as the natural registration of a web app); this module gives it a page's parts:
 *
 * - `popup()`: `onAuthorize` that opens the authorization URL in a popup and takes the redirect URL its page
 *   posts back (same origin only); the page keeps running, so nothing of the flow is stored;
 * - `completeSignIn()`: what the redirect page runs;
 * - `tokenStorage: localStorage` in the auth options (the Promise API), or `layerKeyValueStore` /
 *   `layerWebStorage` as the `TokenStore` (the Effect API): tokens that outlive the page.
 *
 * ```ts
 * import { BrowserMcpAuth, connectHttp } from "@mcp-effect/client"
 *
 * const client = await connectHttp({
 *   url: "https://mcp.example.com/mcp",
 *   auth: {
 *     clientMetadataUrl: "https://app.example.com/oauth/client.json",
 *     redirectUrl: "https://app.example.com/",  // this page: it runs BrowserMcpAuth.completeSignIn() first
 *     onAuthorize: BrowserMcpAuth.popup(),
 *     tokenStorage: localStorage
 *   }
 * })
 * ```
 *
 * @since 0.3.0
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as KeyValueStore from "effect/persistence/KeyValueStore"
import * as keyValueStore from "./internal/auth/keyValueStore.js"
import * as popupFlow from "./internal/auth/popup.js"
import * as McpAuth from "./McpAuth.js"

export type { PopupOptions } from "./internal/auth/popup.js"

/**
 * `onAuthorize` for a page: open the authorization URL in a popup (`window.open`) and resolve with the URL its
 * redirect page posts back. Rejects when the popup is blocked (start the sign-in from a click, or allow popups)
 * or closed by the person before the sign-in ended; `signInTimeout` bounds the wait.
 *
 * @since 0.3.0
 * @category constructors
 */
export const popup: (options?: popupFlow.PopupOptions) => (authorizationUrl: URL) => Promise<string> = popupFlow.popup

/**
 * Run on the redirect page (`redirectUrl`): post the URL it was reached at to the page that opened the popup,
 * on this origin only, then close the popup. `false` (nothing done) when nothing opened it or the URL is no
 * authorization response (`state` with `code` or `error`): so the redirect page may be the app's own page,
 * which calls this first at every start and goes on when it returns `false` (no page of its own to build).
 *
 * @since 0.3.0
 * @category utils
 */
export const completeSignIn: () => boolean = popupFlow.complete

/**
 * Tokens and registrations in Effect's `KeyValueStore` from context (a page's `localStorage` through
 * `KeyValueStore.layerStorage`, IndexedDB, a file, SQL): one key per MCP server, `mcp-effect/tokens/<server URL>`.
 *
 * @since 0.3.0
 * @category layers
 */
export const layerKeyValueStore: Layer.Layer<McpAuth.TokenStore, never, KeyValueStore.KeyValueStore> = Layer.effect(
  McpAuth.TokenStore,
  // `effect/persistence` is loaded when the layer is built, not by every importer of the client.
  Effect.promise(() => import("effect/persistence/KeyValueStore")).pipe(
    Effect.flatMap(({ KeyValueStore: Tag }) => Effect.service(Tag)),
    Effect.map((store) => McpAuth.TokenStore.of(keyValueStore.fromKeyValueStore(store)))
  )
)

/**
 * Tokens and registrations in a Web Storage object (`localStorage`, `sessionStorage`), as `tokenStorage` does.
 *
 * @since 0.3.0
 * @category layers
 */
export const layerWebStorage = (storage: McpAuth.WebStorage): Layer.Layer<McpAuth.TokenStore> =>
  Layer.succeed(McpAuth.TokenStore, McpAuth.TokenStore.of(keyValueStore.fromWebStorage(storage)))
