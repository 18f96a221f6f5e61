/**
 * The page side of the double iframe: the outer frame on the sandbox origin, the handshake with the sandbox
 * page, and the `postMessage` port (a message counts as the App's only when it comes from that frame's window
 * and the sandbox origin).
 *
 * @internal
 */
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Queue from "effect/Queue"
import type * as Scope from "effect/Scope"
import type { JsonObject } from "../../McpSchema.js"
import { appendFrame, type ContainerLike, type IFrameLike, type MessageEventLike, type WindowLike } from "./dom.js"
import { McpAppsError } from "./errors.js"
import { INBOX_CAPACITY, type Incoming, type Port } from "./port.js"

/** The outer frame, and the port to the App behind it. @internal */
export interface Frame {
  readonly iframe: IFrameLike
  readonly port: Port
  /** Hands the App's document to the sandbox page, once it said it is ready (bounded wait). */
  readonly load: (params: JsonObject, timeout: Duration.Input) => Effect.Effect<void, McpAppsError>
}

/**
 * The windows of every App frame open in this page: another App's traffic belongs to its own bridge, and is
 * neither taken nor reported as foreign by this one.
 */
const appWindows = new Set<unknown>()

const isSandboxReady = (data: unknown): boolean =>
  typeof data === "object" && data !== null && Reflect.get(data, "method") === "ui/notifications/sandbox-proxy-ready"

const looksLikeJsonRpc = (data: unknown): boolean =>
  typeof data === "object" && data !== null && Reflect.get(data, "jsonrpc") === "2.0"

/**
 * Opens the outer frame in `container` (removed when the scope closes). The sandbox page must be on another
 * origin than the page (the spec's MUST): the same origin fails with `sandbox`.
 *
 * @internal
 */
export const open = (
  container: ContainerLike,
  sandboxUrl: string,
  allow: string,
  subject: string
): Effect.Effect<Frame, McpAppsError, Scope.Scope> =>
  Effect.gen(function*() {
    const view: WindowLike | null = container.ownerDocument.defaultView
    if (view === null) return yield* new McpAppsError({ reason: "sandbox", detail: "the container is in no window", subject })
    const page = view.location
    const url = URL.canParse(sandboxUrl, page.href) ? new URL(sandboxUrl, page.href) : undefined
    if (url === undefined || (url.protocol !== "https:" && url.protocol !== "http:")) {
      return yield* new McpAppsError({ reason: "sandbox", detail: `sandboxUrl ${JSON.stringify(sandboxUrl)} is not an http(s) URL`, subject })
    }
    if (url.origin === page.origin) {
      return yield* new McpAppsError({
        reason: "sandbox",
        detail: `the sandbox page must be on another origin than the page (${page.origin})`,
        subject
      })
    }
    const sandboxOrigin = url.origin
    url.searchParams.set("host", page.origin)
    const inbox = yield* Queue.dropping<Incoming>(INBOX_CAPACITY)
    const ready = yield* Deferred.make<void>()
    const iframe = yield* Effect.acquireRelease(
      Effect.sync(() => {
        const element = container.ownerDocument.createElement("iframe")
        element.setAttribute("sandbox", "allow-scripts allow-same-origin")
        if (allow.length > 0) element.setAttribute("allow", allow)
        element.setAttribute("title", subject)
        element.style.border = "0"
        element.style.width = "100%"
        return element
      }),
      (element) => Effect.sync(() => element.remove())
    )
    const listener = (event: MessageEventLike) => {
      const fromFrame = iframe.contentWindow !== null && event.source === iframe.contentWindow &&
        event.origin === sandboxOrigin
      if (fromFrame && isSandboxReady(event.data)) {
        Deferred.doneUnsafe(ready, Effect.void)
        return
      }
      // Other windows' traffic that is not JSON-RPC (the page's own libraries), or another App's, is none of this
      // App's business.
      if (!fromFrame && (!looksLikeJsonRpc(event.data) || appWindows.has(event.source))) return
      Queue.offerUnsafe(inbox, { data: event.data, fromApp: fromFrame, origin: event.origin })
    }
    yield* Effect.acquireRelease(
      Effect.sync(() => view.addEventListener("message", listener)),
      () => Effect.sync(() => view.removeEventListener("message", listener))
    )
    iframe.src = url.href
    appendFrame(container, iframe)
    const own = iframe.contentWindow
    yield* Effect.acquireRelease(
      Effect.sync(() => appWindows.add(own)),
      () => Effect.sync(() => appWindows.delete(own))
    )
    // A frame already gone (or a value the browser cannot clone) loses the message; the bridge goes on.
    const post = (message: unknown) =>
      Effect.ignore(Effect.try({ try: () => iframe.contentWindow?.postMessage(message, sandboxOrigin), catch: () => undefined }))
    return {
      iframe,
      port: { send: post, incoming: inbox },
      load: (params, timeout) =>
        Deferred.await(ready).pipe(
          Effect.timeoutOrElse({
            duration: timeout,
            orElse: () =>
              Effect.fail(new McpAppsError({ reason: "sandbox", detail: `the sandbox page at ${sandboxOrigin} did not answer`, subject }))
          }),
          Effect.andThen(post({ jsonrpc: "2.0", method: "ui/notifications/sandbox-resource-ready", params }))
        )
    }
  })
