/**
 * A loopback redirect receiver for command-line and desktop programs (RFC 8252 §7.3): an HTTP listener on
 * 127.0.0.1 that takes one redirect per authorization and shows the user a short page.
 *
 * @internal
 */
import * as http from "node:http"

/** @internal */
export interface LoopbackOptions {
  /** The port (default: any free one; an authorization server that pins ports needs a fixed one). */
  readonly port?: number | undefined
  /** The callback path (default `/callback`). */
  readonly path?: string | undefined
  /** Open the authorization URL for the user, e.g. in a browser (default: print it to stderr). */
  readonly open?: ((authorizationUrl: URL) => void | PromiseLike<void>) | undefined
  /** How long to wait for the browser (default 5 minutes). */
  readonly timeoutMs?: number | undefined
}

/** @internal */
export interface LoopbackReceiver {
  readonly redirectUrl: string
  /**
   * Hand the URL to `open` and resolve with the URL the browser was redirected to: the one with the `state` of
   * `authorizationUrl` (a callback with another or none is answered 400 and the wait goes on, to `timeoutMs`).
   */
  readonly onAuthorize: (authorizationUrl: URL) => Promise<string>
  readonly close: () => Promise<void>
}

const PAGE = "<!doctype html><meta charset=utf-8><title>Signed in</title><p>You can close this window.</p>"

/** @internal */
export const start = (options: LoopbackOptions = {}): Promise<LoopbackReceiver> =>
  new Promise((resolve, reject) => {
    const path = options.path ?? "/callback"
    let waiting: ((url: string) => void) | undefined
    /** The `state` of the authorization request being waited for (`null`: it had none, any is taken). */
    let expected: string | null = null
    const server = http.createServer((request, response) => {
      const url = new URL(request.url ?? "/", "http://127.0.0.1")
      if (request.method !== "GET" || url.pathname !== path || waiting === undefined) {
        response.writeHead(404, { "content-type": "text/plain" }).end("not found")
        return
      }
      // A forged or stale callback (wrong or missing state) is turned away; the real one is still waited for.
      if (expected !== null && url.searchParams.get("state") !== expected) {
        response.writeHead(400, { "content-type": "text/plain", "cache-control": "no-store" })
          .end("this is not the sign-in being waited for")
        return
      }
      response.writeHead(200, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" }).end(PAGE)
      const deliver = waiting
      waiting = undefined
      deliver(`${redirectUrl}${url.search}`)
    })
    let redirectUrl = ""
    server.once("error", reject)
    server.listen(options.port ?? 0, "127.0.0.1", () => {
      const address = server.address()
      const port = typeof address === "object" && address !== null ? address.port : options.port ?? 0
      redirectUrl = `http://127.0.0.1:${port}${path}`
      resolve({
        redirectUrl,
        onAuthorize: (authorizationUrl) =>
          new Promise<string>((done, fail) => {
            expected = authorizationUrl.searchParams.get("state")
            const timer = setTimeout(() => {
              waiting = undefined
              fail(new Error("no redirect reached the loopback receiver in time"))
            }, options.timeoutMs ?? 300_000)
            waiting = (url) => {
              clearTimeout(timer)
              done(url)
            }
            const opened = options.open === undefined
              ? void process.stderr.write(`Open this URL to sign in:\n${authorizationUrl.href}\n`)
              : options.open(authorizationUrl)
            Promise.resolve(opened).catch((error: unknown) => {
              clearTimeout(timer)
              waiting = undefined
              fail(error)
            })
          }),
        close: () => new Promise<void>((done) => server.close(() => done()))
      })
    })
  })
