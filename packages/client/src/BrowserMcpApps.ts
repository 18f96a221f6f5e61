/**
 * MCP Apps in a web page: `mount` renders a tool's App in the spec's double iframe (the outer sandbox page on
 * another origin, the App in an inner frame with `allow-scripts` and never `allow-same-origin`, under a CSP
 * built from its declared domains), calls the tool, and hands the App its input and result. The App lives as
 * long as the scope: when it closes the App is torn down (its answer awaited, bounded) and its frame removed.
 *
 * ```ts
 * import { Effect } from "effect"
 * import { BrowserMcpApps } from "@mcp-effect/client"
 *
 * // with an McpClient (apps: true) in context, inside Effect.scoped
 * export const showTime = (container: BrowserMcpApps.Container) =>
 *   BrowserMcpApps.mount(container, {
 *     tool: "get-time",
 *     sandboxUrl: "https://sandbox.example.com/apps-sandbox.html",
 *     approveToolCall: (call) => confirm(`Let the App call ${call.name}?`)
 *   })
 * declare const confirm: (question: string) => boolean
 * ```
 *
 * The sandbox page is `@mcp-effect/client/apps-sandbox.html` (or `McpApps.sandboxHtml`): serve it from an origin
 * that is not the page's (the spec's MUST; the same origin fails with `McpAppsError` `sandbox`).
 *
 * @since 0.3.0
 */
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import * as McpClient from "./McpClient.js"
import type { McpClientError } from "./McpError.js"
import type * as dom from "./internal/apps/dom.js"
import type { McpAppsError, McpAppsLimitError } from "./internal/apps/errors.js"
import * as internal from "./internal/apps/mount.js"

/**
 * The element the App's frame is appended to (a `<div>` of the page).
 *
 * @since 0.3.0
 * @category models
 */
export type Container = dom.ContainerLike

/**
 * @since 0.3.0
 * @category models
 */
export type MountOptions = internal.MountOptions

/**
 * @since 0.3.0
 * @category models
 */
export type MountedApp = internal.MountedApp

/**
 * Renders the tool's App in `container` with the `McpClient` in context (which should declare `apps: true`).
 *
 * @since 0.3.0
 * @category constructors
 */
export const mount = (
  container: Container,
  options: MountOptions
): Effect.Effect<MountedApp, McpAppsError | McpAppsLimitError | McpClientError, McpClient.McpClient | Scope.Scope> =>
  Effect.flatMap(McpClient.McpClient, (client) => internal.mount(client, container, options))
