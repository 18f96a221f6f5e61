/**
 * The core of the scripted server: the wire (newline-delimited JSON-RPC on stdin/stdout),
 * the state shared by both eras, the request dispatcher (concurrent, cancellable) and the
 * delivery of change notifications. Era-specific behaviour lives in `scripted-modern.ts`
 * and `scripted-legacy.ts`.
 */
import { createLegacy } from "./scripted-legacy.js"
import { createModern, decorateModern } from "./scripted-modern.js"
import { ErrorCode, RpcError, classify, getObject, idKey } from "./scripted-json.js"
import type { Json, JsonObject, LogLevel, RequestId } from "./scripted-json.js"
import type { Options } from "./scripted-options.js"
import { ClientError, NO_ANSWER, log } from "./scripted-context.js"
import type { Handler, ListKind, Outcome, RequestContext } from "./scripted-context.js"

interface Listen {
  readonly id: RequestId
  readonly granted: JsonObject
  /** Ends the subscription from the server side. */
  readonly end: (how: "result" | "cancel" | "both") => void
}

interface LegacySession {
  /** `url_required`: the elicitation ids issued, and whether each was completed. */
  readonly urlElicitations: Map<string, boolean>
  initialized: boolean
  version: string
  capabilities: JsonObject | undefined
  logLevel: LogLevel | undefined
  readonly subscriptions: Set<string>
}

export class Core {
  readonly options: Options
  era: "modern" | "legacy"
  readonly legacy: LegacySession = {
    urlElicitations: new Map(),
    initialized: false,
    version: "",
    capabilities: undefined,
    logLevel: undefined,
    subscriptions: new Set()
  }
  /** Every JSON message received, except `scripted/history` requests. */
  readonly history: Array<Json> = []
  toolCalls = 0
  rootsChanged = 0
  extraTool = false

  private received = 0
  private nextServerId = 1
  private readonly inflight = new Map<string, AbortController>()
  private readonly listens = new Map<string, Listen>()
  private readonly pendingClient = new Map<string, { resolve: (result: Json) => void; reject: (error: Error) => void }>()
  private readonly modern: Handler
  private readonly legacyHandler: Handler

  constructor(options: Options) {
    this.options = options
    this.era = options.profile.startEra
    this.modern = createModern(this)
    this.legacyHandler = createLegacy(this)
  }

  // -------------------------------------------------------------------------
  // Wire

  send(message: JsonObject): void {
    process.stdout.write(`${JSON.stringify(message)}\n`)
  }

  private beforeResponse(): void {
    if (this.options.profile.garbage) process.stdout.write('this is not json\n{"hello":"world"}\n\n')
  }

  respond(id: RequestId, result: JsonObject): void {
    this.beforeResponse()
    this.send({ jsonrpc: "2.0", id, result })
  }

  respondError(id: RequestId | null, code: number, message: string, data?: Json): void {
    this.beforeResponse()
    this.send({ jsonrpc: "2.0", id, error: { code, message, ...(data !== undefined ? { data } : {}) } })
  }

  notify(method: string, params: JsonObject): void {
    this.send({ jsonrpc: "2.0", method, params })
  }

  /** Legacy: sends a server-to-client request and waits for the client's answer. */
  requestClient(method: string, params: JsonObject | undefined, signal: AbortSignal): Promise<Json> {
    const id = this.nextServerId++
    return new Promise<Json>((resolve, reject) => {
      const key = idKey(id)
      const onAbort = () => {
        this.pendingClient.delete(key)
        this.notify("notifications/cancelled", { requestId: id, reason: "the request that needed it was cancelled" })
        reject(new Error("aborted"))
      }
      if (signal.aborted) return reject(new Error("aborted"))
      signal.addEventListener("abort", onAbort, { once: true })
      this.pendingClient.set(key, {
        resolve: (result) => {
          signal.removeEventListener("abort", onAbort)
          resolve(result)
        },
        reject: (error) => {
          signal.removeEventListener("abort", onAbort)
          reject(error)
        }
      })
      this.send({ jsonrpc: "2.0", id, method, ...(params !== undefined ? { params } : {}) })
    })
  }

  // -------------------------------------------------------------------------
  // Incoming

  handleLine(line: string): void {
    if (line.trim() === "") return
    let message: Json
    try {
      message = JSON.parse(line) as Json
    } catch {
      log(`unparsable line: ${line.slice(0, 200)}`)
      this.respondError(null, ErrorCode.ParseError, "Parse error")
      return
    }
    const incoming = classify(message)
    const isHistory = incoming.kind === "request" && incoming.method === "scripted/history"
    if (!isHistory) {
      this.history.push(message)
      this.received++
      const limit = this.options.exitAfter
      if (limit !== undefined && this.received >= limit) {
        process.stderr.write(`exiting after ${limit} messages\n`)
        process.exit(3)
      }
    }
    switch (incoming.kind) {
      case "invalid":
        log(`invalid message (${incoming.reason}): ${line.slice(0, 200)}`)
        if (incoming.id !== undefined) {
          this.respondError(incoming.id, ErrorCode.InvalidRequest, `Invalid request: ${incoming.reason}`)
        }
        return
      case "response":
        return this.handleResponse(incoming.id, incoming.result, incoming.error)
      case "notification":
        return this.handleNotification(incoming.method, incoming.params)
      case "request":
        if (incoming.method === "tools/call") this.toolCalls++
        void this.dispatch(incoming.id, incoming.method, incoming.params)
        return
    }
  }

  private handleResponse(id: RequestId, result: Json | undefined, error: JsonObject | undefined): void {
    const key = idKey(id)
    const pending = this.pendingClient.get(key)
    if (pending === undefined) return log(`response to unknown server request ${JSON.stringify(id)}`)
    this.pendingClient.delete(key)
    if (error !== undefined) {
      const code = error["code"]
      const message = error["message"]
      pending.reject(new ClientError(typeof code === "number" ? code : 0, typeof message === "string" ? message : ""))
    } else {
      pending.resolve(result ?? null)
    }
  }

  private handleNotification(method: string, params: JsonObject): void {
    switch (method) {
      case "notifications/cancelled": {
        const requestId = params["requestId"]
        if (typeof requestId !== "string" && typeof requestId !== "number") return
        const controller = this.inflight.get(idKey(requestId))
        if (controller === undefined) return log(`cancellation of unknown request ${JSON.stringify(requestId)}`)
        log(`cancelled ${JSON.stringify(requestId)}`)
        controller.abort()
        return
      }
      case "notifications/roots/list_changed":
        this.rootsChanged++
        return
      default:
        return
    }
  }

  private async dispatch(id: RequestId, method: string, params: JsonObject): Promise<void> {
    const key = idKey(id)
    const controller = new AbortController()
    this.inflight.set(key, controller)
    const afters: Array<() => void> = []
    const context: RequestContext = { id, method, params, signal: controller.signal, after: (fn) => afters.push(fn) }
    try {
      const outcome = await this.route(context)
      if (!controller.signal.aborted && outcome !== NO_ANSWER) this.respond(id, outcome)
    } catch (error) {
      if (controller.signal.aborted) return
      if (error instanceof RpcError) this.respondError(id, error.code, error.message, error.data)
      else this.respondError(id, ErrorCode.InternalError, error instanceof Error ? error.message : String(error))
    } finally {
      if (this.inflight.get(key) === controller) this.inflight.delete(key)
      for (const fn of afters) fn()
    }
  }

  private route(context: RequestContext): Outcome | Promise<Outcome> {
    if (context.method === "scripted/history") {
      const result: JsonObject = { messages: [...this.history] }
      return this.era === "modern" ? decorateModern(result) : result
    }
    if (this.era === "modern" && context.method === "initialize" && this.options.profile.legacyVersions.length > 0) {
      log("initialize on a modern process: switching to the legacy era")
      this.era = "legacy"
    }
    return this.era === "modern" ? this.modern(context) : this.legacyHandler(context)
  }

  // -------------------------------------------------------------------------
  // Change notifications

  /** `notifications/<kind>/list_changed`: unsolicited in legacy, on matching listen streams in modern. */
  announce(kind: ListKind): number {
    const method = `notifications/${kind}/list_changed`
    if (this.era === "legacy") {
      this.notify(method, {})
      return 1
    }
    return this.deliver((granted) => granted[`${kind}ListChanged`] === true, method, {})
  }

  /** `notifications/resources/updated {uri}`: to legacy subscribers or matching listen streams. */
  touch(uri: string): number {
    if (this.era === "legacy") {
      if (!this.legacy.subscriptions.has(uri)) return 0
      this.notify("notifications/resources/updated", { uri })
      return 1
    }
    return this.deliver(
      (granted) => {
        const uris = granted["resourceSubscriptions"]
        return Array.isArray(uris) && uris.includes(uri)
      },
      "notifications/resources/updated",
      { uri }
    )
  }

  private deliver(wants: (granted: JsonObject) => boolean, method: string, params: JsonObject): number {
    let count = 0
    for (const listen of this.listens.values()) {
      if (!wants(listen.granted)) continue
      this.notify(method, { ...params, _meta: { "io.modelcontextprotocol/subscriptionId": listen.id } })
      count++
    }
    return count
  }

  /**
   * Modern `subscriptions/listen`: acknowledges the granted filter, then keeps the request
   * open until the client cancels it (no answer) or `end_listen` ends it.
   */
  listen(context: RequestContext): Promise<Outcome> {
    const requested = getObject(context.params, "notifications") ?? {}
    const granted: JsonObject = {}
    for (const field of ["toolsListChanged", "promptsListChanged", "resourcesListChanged"]) {
      if (requested[field] === true && !this.options.listenDrop.includes(field)) granted[field] = true
    }
    const uris = requested["resourceSubscriptions"]
    if (Array.isArray(uris) && !this.options.listenDrop.includes("resourceSubscriptions")) {
      granted["resourceSubscriptions"] = uris.filter((uri) => typeof uri === "string")
    }
    const key = idKey(context.id)
    const subscriptionMeta: JsonObject = { "io.modelcontextprotocol/subscriptionId": context.id }
    this.notify("notifications/subscriptions/acknowledged", { _meta: subscriptionMeta, notifications: granted })
    return new Promise<Outcome>((resolve, reject) => {
      const listen: Listen = {
        id: context.id,
        granted,
        end: (how) => {
          drop()
          if (how !== "result") {
            const cancelled = { requestId: context.id, reason: "server ended the subscription" }
            context.after(() => this.notify("notifications/cancelled", cancelled))
          }
          resolve(how === "cancel" ? NO_ANSWER : decorateModern({ _meta: subscriptionMeta }))
        }
      }
      const drop = () => {
        if (this.listens.get(key) === listen) this.listens.delete(key)
      }
      context.signal.addEventListener(
        "abort",
        () => {
          drop()
          reject(new Error("aborted"))
        },
        { once: true }
      )
      this.listens.set(key, listen)
    })
  }

  endListens(how: "result" | "cancel" | "both"): number {
    const listens = [...this.listens.values()]
    for (const listen of listens) listen.end(how)
    return listens.length
  }

  /** The tools/list, prompts/list... TTL hints (modern results only). */
  cacheHints(): JsonObject {
    return { ttlMs: this.options.ttlMs, cacheScope: this.options.ttlScope }
  }

}
