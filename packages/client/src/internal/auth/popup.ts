/**
 * A person's sign-in from a web page: the authorization URL opened in a popup, and the redirect page posting
 * the URL it was reached at back to the page that opened it (same origin only). The page keeps running, so the
 * PKCE verifier and `state` the client made stay in memory: nothing of the flow is written anywhere.
 *
 * @internal
 */

/** The message the redirect page posts to its opener. @internal */
export const MESSAGE_TYPE = "mcp-effect/authorization-response"

/** @internal */
export interface PopupOptions {
  /** `window.open`'s features (default: a 520×680 popup). */
  readonly features?: string | undefined
  /** The popup window's name (default `mcp-effect-sign-in`). */
  readonly name?: string | undefined
  /** How often to look whether the person closed the popup, in milliseconds (default 500). */
  readonly closedPollMs?: number | undefined
}

interface Opened {
  readonly closed: boolean
  readonly close: () => void
}

/** The part of `window` used, so that the module needs no DOM types. */
interface PageWindow {
  readonly location: { readonly origin: string; readonly href: string }
  readonly opener: { readonly postMessage: (message: unknown, targetOrigin: string) => void } | null
  readonly open: (url: string, target: string, features: string) => Opened | null
  readonly close: () => void
  readonly addEventListener: (type: "message", listener: (event: MessageLike) => void) => void
  readonly removeEventListener: (type: "message", listener: (event: MessageLike) => void) => void
}

interface MessageLike {
  readonly origin: string
  readonly data: unknown
  readonly source: unknown
}

const pageWindow = (): PageWindow => {
  const candidate: unknown = Reflect.get(globalThis, "window")
  if (typeof candidate !== "object" || candidate === null || !("open" in candidate)) {
    throw new Error("a popup sign-in needs a browser page (no window here)")
  }
  return candidate as PageWindow
}

const isResponse = (data: unknown): data is { readonly type: string; readonly url: string } =>
  typeof data === "object" && data !== null && Reflect.get(data, "type") === MESSAGE_TYPE &&
  typeof Reflect.get(data, "url") === "string"

/**
 * `onAuthorize` for a page: open the authorization URL in a popup and resolve with the redirect URL its page
 * posts back. Rejects when the popup is blocked (call it from a click, or allow popups) or closed before the
 * sign-in ended. The sign-in's budget is the client's `signInTimeout`.
 *
 * @internal
 */
export const popup = (options: PopupOptions = {}) => (authorizationUrl: URL): Promise<string> =>
  new Promise<string>((resolve, reject) => {
    const page = pageWindow()
    const opened = page.open(
      authorizationUrl.href,
      options.name ?? "mcp-effect-sign-in",
      options.features ?? "popup,width=520,height=680"
    )
    if (opened === null) {
      reject(new Error("the sign-in popup was blocked: open it from a click, or allow popups for this page"))
      return
    }
    const finish = () => {
      page.removeEventListener("message", onMessage)
      clearInterval(watch)
    }
    const onMessage = (event: MessageLike) => {
      // Only this origin's redirect page, and only from the popup this call opened.
      if (event.origin !== page.location.origin || event.source !== opened || !isResponse(event.data)) return
      finish()
      opened.close()
      resolve(event.data.url)
    }
    const watch = setInterval(() => {
      if (!opened.closed) return
      finish()
      reject(new Error("the sign-in window was closed before the sign-in ended"))
    }, options.closedPollMs ?? 500)
    page.addEventListener("message", onMessage)
  })

/** Whether `href` is an authorization response: `state` with a `code` or an `error` (RFC 6749 §4.1.2). */
const isAuthorizationResponse = (href: string): boolean => {
  const query = new URL(href).searchParams
  return query.has("state") && (query.has("code") || query.has("error"))
}

/**
 * On the redirect page: post the URL it was reached at (`code`, `state`, `iss`) to the page that opened the
 * popup, on this origin only, and close the popup. `false`, nothing posted and the page left open, when there is
 * no opener (the page was opened by hand) or the URL is no authorization response: the redirect page may then be
 * the app's own page (one page, as a Vite build has by default), which calls this first at every start.
 *
 * @internal
 */
export const complete = (): boolean => {
  const page = pageWindow()
  if (page.opener === null || !isAuthorizationResponse(page.location.href)) return false
  page.opener.postMessage({ type: MESSAGE_TYPE, url: page.location.href }, page.location.origin)
  page.close()
  return true
}
