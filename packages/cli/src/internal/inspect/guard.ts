/**
 * The inspector's lock: which requests its local server answers. Every request is checked before anything
 * else happens (before a process is spawned or a byte is forwarded):
 *
 * - `Host` must name the inspector itself (`127.0.0.1`, `localhost` or `[::1]` with its port, or the `--host`
 *   given with `--allow-remote`): a page on another site whose name was rebound to 127.0.0.1 sends its own
 *   name, and is refused (403).
 * - `Origin`, when there is one, must be the inspector's own origin (403): no other page may drive it.
 * - A token in the query string is refused (400): a URL ends up in histories, logs and `Referer`s. The token
 *   travels in the page's fragment (never sent to a server) and then in the `X-Inspector-Token` header.
 * - Every path but the page's and its script's needs that header with this launch's token (401 without or
 *   with another), whatever form the request target takes. The page and its script carry no secret and are
 *   served without it: a browser's navigation cannot send a header.
 */
import { randomBytes, timingSafeEqual } from "node:crypto"

/** The header that carries the token. */
export const TOKEN_HEADER = "x-inspector-token"

/** A fresh per-launch token: 32 random bytes, base64url. */
export const newToken = (): string => randomBytes(32).toString("base64url")

/** The names this server answers to, with its port: `127.0.0.1:PORT`, `localhost:PORT`, `[::1]:PORT`, the `--host`. */
export const allowedHosts = (host: string, port: number): ReadonlySet<string> => {
  const names = ["127.0.0.1", "localhost", "[::1]", host.includes(":") && !host.startsWith("[") ? `[${host}]` : host]
  return new Set(names.map((name) => `${name.toLowerCase()}:${port}`))
}

/** The paths served without the token: the page (and its sign-in redirect) and its script, which hold no secret. */
const PUBLIC_PATHS: ReadonlySet<string> = new Set(["/", "/index.html", "/oauth/callback", "/inspector.js"])

/** What the guard decided: let through, or refuse with this status and reason. */
export type Verdict = { readonly ok: true } | { readonly ok: false; readonly status: number; readonly reason: string }

/** The parts of a request the guard looks at. */
export interface GuardedRequest {
  readonly url: string
  readonly headers: Readonly<Record<string, string | ReadonlyArray<string> | undefined>>
}

const one = (value: string | ReadonlyArray<string> | undefined): string | undefined =>
  typeof value === "string" ? value : value?.[0]

const sameSecret = (given: string, token: string): boolean => {
  const a = Buffer.from(given)
  const b = Buffer.from(token)
  return a.length === b.length && timingSafeEqual(a, b)
}

const refuse = (status: number, reason: string): Verdict => ({ ok: false, status, reason })

/** Check one request against the launch's token and names. */
export const check = (request: GuardedRequest, token: string, hosts: ReadonlySet<string>): Verdict => {
  const host = one(request.headers["host"])?.toLowerCase()
  if (host === undefined || !hosts.has(host)) return refuse(403, "this inspector does not answer to that Host")
  const origin = one(request.headers["origin"])
  if (origin !== undefined) {
    const parsed = URL.canParse(origin) ? new URL(origin) : undefined
    if (parsed === undefined || parsed.protocol !== "http:" || !hosts.has(parsed.host.toLowerCase())) {
      return refuse(403, "requests from another origin are refused")
    }
  }
  const query = request.url.indexOf("?")
  if (query !== -1 && /token/i.test(request.url.slice(query))) {
    return refuse(400, "the token goes in the X-Inspector-Token header, never in a URL")
  }
  // The page and its script are public (they hold no secret); every other path, whatever its form, needs the token.
  if (PUBLIC_PATHS.has(request.url.split("?")[0] ?? "")) return { ok: true }
  const given = one(request.headers[TOKEN_HEADER])
  if (given === undefined || !sameSecret(given, token)) return refuse(401, "a valid X-Inspector-Token is required")
  return { ok: true }
}

/** Whether a host name is a loopback one (others need `--allow-remote`). */
export const isLoopback = (host: string): boolean =>
  host === "localhost" || host === "::1" || host === "[::1]" || /^127(\.\d{1,3}){3}$/.test(host)
