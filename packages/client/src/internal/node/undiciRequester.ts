/**
 * The `Requester` on Node: undici's dispatcher with a handler, so a response reaches the transport as
 * callbacks (no `Readable`, no `AbortController`, no stream or fiber per request).
 */
import * as Effect from "effect/Effect"
import type { Dispatcher } from "undici"
import type { Handler, Requester } from "../transport/httpRequester.js"
import { flattenHeaders } from "../transport/httpRequester.js"

class Aborted extends Error {
  constructor() {
    super("aborted by the client")
    this.name = "AbortError"
  }
}

/** One request's handler: undici's callbacks, passed on until the request is aborted. */
class Exchange implements Dispatcher.DispatchHandler {
  controller: Dispatcher.DispatchController | undefined = undefined
  stopped = false
  constructor(readonly handler: Handler) {}

  abort() {
    if (this.stopped) return
    this.stopped = true
    if (this.controller !== undefined && !this.controller.aborted) this.controller.abort(new Aborted())
  }
  onRequestStart(controller: Dispatcher.DispatchController) {
    this.controller = controller
    if (this.stopped) controller.abort(new Aborted())
  }
  onResponseStart(
    controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: Readonly<Record<string, string | ReadonlyArray<string> | undefined>>
  ) {
    this.controller = controller
    if (!this.stopped) this.handler.onHead(statusCode, flattenHeaders(headers))
  }
  onResponseData(_controller: Dispatcher.DispatchController, chunk: Uint8Array) {
    if (!this.stopped) this.handler.onData(chunk)
  }
  onResponseEnd() {
    if (this.stopped) return
    this.stopped = true
    this.handler.onEnd()
  }
  onResponseError(_controller: Dispatcher.DispatchController, error: Error) {
    if (this.stopped) return
    this.stopped = true
    this.handler.onError(error)
  }
}

/** A requester on `dispatcher`. @internal */
export const make = (dispatcher: Dispatcher): Requester => ({
  start: (exchange, handler) => {
    const running = new Exchange(handler)
    dispatcher.dispatch({
      origin: exchange.url.origin,
      path: exchange.url.pathname + exchange.url.search,
      method: exchange.method,
      headers: exchange.headers,
      body: exchange.body ?? null,
      // Timeouts are the client's (its deadlines, `fetchTimeout`); a stream may stay quiet for long.
      headersTimeout: 0,
      bodyTimeout: 0
    }, running)
    return () => running.abort()
  }
})

/**
 * A requester on an undici `Agent` of its own, destroyed with the scope (its sockets with it). undici is loaded
 * here, on first use, not with the package: it is about a hundred modules, which a stdio client never needs.
 *
 * @internal
 */
export const scoped = Effect.map(
  Effect.acquireRelease(
    // Through `default` (the CommonJS `module.exports`): a bundle that splits undici into a chunk of its own
    // (the CLI's, esbuild) exports only `default`.
    Effect.promise(() => import("undici")).pipe(Effect.map((undici) => new undici.default.Agent())),
    (agent) => Effect.promise(() => agent.destroy())
  ),
  make
)
