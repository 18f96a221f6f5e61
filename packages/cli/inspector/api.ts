/**
 * The page's side of the inspector's local server: the per-launch token (taken from the URL's fragment, which
 * is never sent to a server, then kept in this tab's session storage and removed from the address bar), and
 * fetch with that token in the `X-Inspector-Token` header (never in a URL).
 */

const KEY = "mcp-effect-inspector-token"

const fromFragment = (): string | undefined => {
  const match = /(?:^#|&)token=([A-Za-z0-9_-]+)/.exec(location.hash)
  return match?.[1]
}

/** This launch's token: from the fragment on first load, then from the tab's session storage. */
export const token: string = (() => {
  const given = fromFragment()
  if (given !== undefined) {
    sessionStorage.setItem(KEY, given)
    history.replaceState(null, "", location.pathname)
    return given
  }
  return sessionStorage.getItem(KEY) ?? ""
})()

/** `fetch` to the inspector's own server, with the token. */
export const api = (path: string, init: RequestInit = {}): Promise<Response> =>
  fetch(path, { ...init, headers: { ...init.headers as Record<string, string>, "x-inspector-token": token } })

/** A target of the command line or the configuration (as the server describes it). */
export interface Target {
  readonly id: string
  readonly name: string
  readonly kind: "stdio" | "http"
  readonly label: string
  readonly url?: string
  readonly relayOnly?: boolean
}

/** What the inspector offers: its targets, and where its MCP Apps sandbox page is (another origin). */
export interface Offer {
  readonly targets: ReadonlyArray<Target>
  readonly sandboxUrl: string
}

export const offer = async (): Promise<Offer> => {
  const response = await api("/api/targets")
  if (!response.ok) throw new Error(`the inspector answered ${response.status}`)
  return await response.json() as Offer
}
