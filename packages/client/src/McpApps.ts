/**
 * MCP Apps (extension `io.modelcontextprotocol/ui`, spec 2026-01-26), the host's side, on any runtime: find a
 * tool's App, read it, and speak the `ui/*` protocol with it over a port, with the spec's security rules built
 * in. `BrowserMcpApps.mount` renders it in a page (the double iframe); `McpPromise.mountApp` is the same from
 * Promise code.
 *
 * ```ts
 * import { Effect } from "effect"
 * import { McpApps, McpClient } from "@mcp-effect/client"
 *
 * // with `apps: true` on the client, servers offer their UI tools
 * export const firstApp = Effect.gen(function*() {
 *   const client = yield* McpClient.McpClient
 *   const tool = (yield* client.listTools()).find((t) => McpApps.resourceUri(t) !== undefined)
 *   return tool === undefined ? undefined : yield* McpApps.read(tool)
 * })
 * ```
 *
 * - **Declaring.** `apps: true` (or `{ mimeTypes }`) on the client declares the extension in both eras.
 * - **Visibility.** A tool whose `_meta.ui.visibility` leaves out `"model"` is never offered to a model
 *   (`LlmBridge`, `Toolkit`, `ToolRegistry`, `@mcp-effect/ai`); an App's `tools/call` of a tool whose visibility
 *   leaves out `"app"` is refused and nothing is sent to the server.
 * - **Reading.** Only plain `ui://` URIs (no dot segments, encoded separators, whitespace); the content item of
 *   that URI with the media type `text/html;profile=mcp-app`, at most `maxResourceBytes`; `_meta.ui` from the
 *   `resources/list` entry with the content item's fields over it.
 * - **The bridge.** Nothing is sent to the App before `ui/notifications/initialized`; `tool-input` once. Every
 *   message is validated with `Schema`; one from another window, malformed or past a limit (size, rate,
 *   pending requests) is dropped and reported to `onRejected`. Every App request is an `onAppRequest` event and
 *   a span (`McpApps.appRequest`), naming the App instance.
 *
 * @since 0.3.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Scope from "effect/Scope"
import * as McpClient from "./McpClient.js"
import type { McpClientError } from "./McpError.js"
import type { Tool } from "./McpSchema.js"
import * as bridge from "./internal/apps/bridge.js"
import * as capability from "./internal/apps/capability.js"
import * as csp from "./internal/apps/csp.js"
import * as errors from "./internal/apps/errors.js"
import type * as hooks from "./internal/apps/hooks.js"
import type * as inbound from "./internal/apps/inbound.js"
import * as port from "./internal/apps/port.js"
import type * as protocol from "./internal/apps/protocol.js"
import * as requests from "./internal/apps/requests.js"
import * as resource from "./internal/apps/resource.js"
import * as sandboxPage from "./internal/apps/sandboxPage.js"
import * as visibility from "./internal/apps/visibility.js"

/**
 * The extension's identifier, the key under `capabilities.extensions`.
 *
 * @since 0.3.0
 * @category constants
 */
export const EXTENSION_ID: string = capability.EXTENSION_ID

/**
 * The media type of an App's HTML resource.
 *
 * @since 0.3.0
 * @category constants
 */
export const MIME_TYPE: string = capability.MIME_TYPE

/**
 * @since 0.3.0
 * @category errors
 */
export const McpAppsError = errors.McpAppsError

/**
 * @since 0.3.0
 * @category errors
 */
export type McpAppsError = errors.McpAppsError

/**
 * @since 0.3.0
 * @category errors
 */
export const McpAppsLimitError = errors.McpAppsLimitError

/**
 * @since 0.3.0
 * @category errors
 */
export type McpAppsLimitError = errors.McpAppsLimitError

// -----------------------------------------------------------------------------
// Discovering and reading
// -----------------------------------------------------------------------------

/**
 * @since 0.3.0
 * @category models
 */
export type Visibility = "model" | "app"

/**
 * @since 0.3.0
 * @category models
 */
export type ResourceUi = resource.ResourceUi

/**
 * @since 0.3.0
 * @category models
 */
export type AppResource = resource.AppResource

/**
 * @since 0.3.0
 * @category models
 */
export type ReadOptions = resource.ReadOptions

/**
 * The UI resource a tool names (`_meta.ui.resourceUri`, or the deprecated flat `_meta["ui/resourceUri"]`),
 * unchecked; `undefined` when none.
 *
 * @since 0.3.0
 * @category getters
 */
export const resourceUri: (tool: Tool) => string | undefined = resource.resourceUriOf

/**
 * Why a `ui://` URI is refused (another scheme, a dot segment, encoded separators, whitespace), or `undefined`.
 *
 * @since 0.3.0
 * @category guards
 */
export const uriProblem: (uri: string) => string | undefined = resource.uiUriProblem

/**
 * Who may see the tool: `["model", "app"]` when it says nothing.
 *
 * @since 0.3.0
 * @category getters
 */
export const visibilityOf: (tool: Tool) => ReadonlyArray<Visibility> = visibility.visibilityOf

/**
 * @since 0.3.0
 * @category guards
 */
export const isModelVisible: (tool: Tool) => boolean = visibility.modelVisible

/**
 * @since 0.3.0
 * @category guards
 */
export const isAppVisible: (tool: Tool) => boolean = visibility.appVisible

/**
 * The resource's `_meta.ui` as the host applies it: the `resources/list` entry's, the content item's fields
 * winning.
 *
 * @since 0.3.0
 * @category combinators
 */
export const mergeUi: (listed: { readonly _meta?: unknown } | undefined, content: { readonly _meta?: unknown }) => ResourceUi =
  resource.mergeUi

/**
 * Reads the tool's App with the `McpClient` in context (see the module's notes for what is checked).
 *
 * @since 0.3.0
 * @category constructors
 */
export const read = (
  tool: Tool,
  options?: ReadOptions
): Effect.Effect<AppResource, McpAppsError | McpClientError, McpClient.McpClient> =>
  Effect.flatMap(McpClient.McpClient, (client) => resource.readApp(client, tool, options))

// -----------------------------------------------------------------------------
// The sandbox's policy
// -----------------------------------------------------------------------------

/**
 * @since 0.3.0
 * @category models
 */
export type Permission = csp.Permission

/**
 * The App document's Content Security Policy from its declared domains (the spec's restrictive default when
 * none); a source with `;`, quotes, `<`, `>`, whitespace (or a bare `*` or scheme) fails with `invalid-csp`
 * naming it.
 *
 * @since 0.3.0
 * @category constructors
 */
export const contentSecurityPolicy: (ui: ResourceUi, subject: string) => Effect.Effect<string, McpAppsError> = csp.buildCsp

/**
 * The inner frame's `sandbox`: `allow-scripts` plus the allowed tokens of the server's value; never
 * `allow-same-origin`.
 *
 * @since 0.3.0
 * @category constructors
 */
export const sandboxAttribute: (requested: string | undefined) => string = csp.sandboxTokens

/**
 * A file name made safe to save under (`ui/download-file`).
 *
 * @since 0.3.0
 * @category constructors
 */
export const sanitizeFilename: (raw: string) => string = requests.sanitizeFilename

/**
 * The sandbox page (the outer frame), to be served from an origin other than the host page's. The same file
 * ships as `@mcp-effect/client/apps-sandbox.html`.
 *
 * @since 0.3.0
 * @category constants
 */
export const sandboxHtml: string = sandboxPage.html

// -----------------------------------------------------------------------------
// The bridge
// -----------------------------------------------------------------------------

/**
 * @since 0.3.0
 * @category models
 */
export type DisplayMode = protocol.DisplayMode

/**
 * @since 0.3.0
 * @category models
 */
export type Hooks = hooks.AppHooks

/**
 * @since 0.3.0
 * @category models
 */
export type ToolCallRequest = hooks.ToolCallRequest

/**
 * @since 0.3.0
 * @category models
 */
export type DownloadFile = hooks.DownloadFile

/**
 * @since 0.3.0
 * @category models
 */
export type AppRequestEvent = hooks.AppRequestEvent

/**
 * @since 0.3.0
 * @category models
 */
export type RejectedMessage = hooks.RejectedMessage

/**
 * @since 0.3.0
 * @category models
 */
export type Limits = inbound.Limits

/**
 * @since 0.3.0
 * @category models
 */
export type BridgeOptions = bridge.BridgeOptions

/**
 * What arrives on a port: the message, and whether it came from the App's own window.
 *
 * @since 0.3.0
 * @category models
 */
export type Incoming = port.Incoming

/**
 * @since 0.3.0
 * @category models
 */
export type Port = port.Port

/**
 * The port the bridge speaks over: `postMessage` in a page (`BrowserMcpApps`), `memoryPort` in tests.
 *
 * @since 0.3.0
 * @category services
 */
export class AppPort extends Context.Service<AppPort, Port>()("@mcp-effect/client/McpApps/AppPort") {}

/**
 * @since 0.3.0
 * @category models
 */
export type MemoryApp = port.MemoryApp

/**
 * An in-memory port and its App end (`post`, `received`), for tests.
 *
 * @since 0.3.0
 * @category constructors
 */
export const memoryPort: Effect.Effect<{ readonly port: Port; readonly app: MemoryApp }> = port.memory

/**
 * @since 0.3.0
 * @category models
 */
export type Bridge = bridge.Bridge

/**
 * One of an App's own tools (`Bridge.listAppTools`), named `app:<name>`.
 *
 * @since 0.3.0
 * @category models
 */
export type AppTool = bridge.AppTool

/**
 * The host's end of one App's protocol.
 *
 * @since 0.3.0
 * @category services
 */
export class AppBridge extends Context.Service<AppBridge, Bridge>()("@mcp-effect/client/McpApps/AppBridge") {}

/**
 * The bridge over the port in context, with the `McpClient` in context serving the App's server requests. It
 * lives as long as the scope (tear it down first with `teardown`).
 *
 * @since 0.3.0
 * @category constructors
 */
export const makeBridge = (
  options: BridgeOptions
): Effect.Effect<Bridge, never, McpClient.McpClient | AppPort | Scope.Scope> =>
  Effect.gen(function*() {
    return yield* bridge.make(yield* McpClient.McpClient, yield* AppPort, options)
  })

/**
 * @since 0.3.0
 * @category layers
 */
export const layerBridge = (options: BridgeOptions): Layer.Layer<AppBridge, never, McpClient.McpClient | AppPort> =>
  Layer.effect(AppBridge, makeBridge(options))
