/**
 * The host's side of the `ui/*` protocol for one App over a port: the handshake, the host's notifications
 * (held until the App says `ui/notifications/initialized`), the App's requests (validated, limited, audited,
 * traced), and the teardown.
 *
 * @internal
 */
import * as Clock from "effect/Clock"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as FiberSet from "effect/FiberSet"
import * as Queue from "effect/Queue"
import * as Ref from "effect/Ref"
import type * as Scope from "effect/Scope"
import * as InputFulfiller from "../../InputFulfiller.js"
import type * as McpClient from "../../McpClient.js"
import type { CallToolResult, Implementation, JsonObject, Tool } from "../../McpSchema.js"
import { McpAppsError, McpAppsLimitError } from "./errors.js"
import { type AppHooks, runLeaf } from "./hooks.js"
import type { Incoming, Port } from "./port.js"
import * as Protocol from "./protocol.js"
import { handle, type RequestContext } from "./requests.js"
import { classify, type Limits, makeLimiter } from "./inbound.js"

/** @internal */
export interface BridgeOptions extends AppHooks {
  /** The tool whose App this is (told to the App as `hostContext.toolInfo`). */
  readonly tool: Tool
  /** A name for this App instance in audit events and spans (default `app-N`). */
  readonly instance?: string | undefined
  readonly hostInfo?: Implementation | undefined
  /** Context the App starts with (theme, locale, container dimensions, ...). */
  readonly hostContext?: JsonObject | undefined
  /** The display modes the host offers (default `["inline"]`). */
  readonly displayModes?: ReadonlyArray<Protocol.DisplayMode> | undefined
  /** What the sandbox granted (`hostCapabilities.sandbox`): the permissions and CSP in force. */
  readonly sandbox?: JsonObject | undefined
  readonly limits?: Limits | undefined
  /** How long `teardown` waits for the App's answer (default 3 seconds). */
  readonly teardownTimeout?: Duration.Input | undefined
}

/** @internal */
export interface Bridge {
  readonly instance: string
  /** Succeeds once the App sent `ui/notifications/initialized`, with what it said in `ui/initialize`. */
  readonly initialized: Effect.Effect<JsonObject>
  /** `ui/notifications/tool-input`: at most once (a second fails with `protocol`). */
  readonly sendToolInput: (args: JsonObject) => Effect.Effect<void, McpAppsError>
  readonly sendToolInputPartial: (args: JsonObject) => Effect.Effect<void, McpAppsError>
  readonly sendToolResult: (result: CallToolResult) => Effect.Effect<void, McpAppsError>
  readonly sendToolCancelled: (reason?: string) => Effect.Effect<void, McpAppsError>
  /** Merges the change into the host context and sends it (`ui/notifications/host-context-changed`). */
  readonly setHostContext: (change: JsonObject) => Effect.Effect<void, McpAppsError>
  /** `ui/resource-teardown`, its answer awaited up to `teardownTimeout`; afterwards nothing more is sent. */
  readonly teardown: Effect.Effect<void>
}

let instances = 0

/** @internal */
export const make = (
  client: McpClient.Service,
  port: Port,
  options: BridgeOptions
): Effect.Effect<Bridge, never, Scope.Scope> =>
  Effect.gen(function*() {
    const instance = options.instance ?? `app-${++instances}`
    const initialized = yield* Deferred.make<JsonObject>()
    const initializeParams = yield* Ref.make<JsonObject | undefined>(undefined)
    const closed = yield* Ref.make(false)
    const inputSent = yield* Ref.make(false)
    const hostContext = yield* Ref.make<JsonObject>({
      toolInfo: { tool: options.tool },
      displayMode: "inline",
      availableDisplayModes: [...(options.displayModes ?? ["inline"])],
      platform: "web",
      ...options.hostContext
    })
    const context: RequestContext = {
      client,
      instance,
      hooks: options,
      sampler: options.onSample === undefined ? undefined : InputFulfiller.make({ onSample: options.onSample }),
      hostModes: options.displayModes ?? ["inline"],
      appModes: yield* Ref.make<ReadonlyArray<Protocol.DisplayMode>>([]),
      displayMode: yield* Ref.make<Protocol.DisplayMode>("inline")
    }
    const pending = new Map<string, Deferred.Deferred<JsonObject>>()
    let nextId = 0
    const requests = yield* FiberSet.make()
    const limiter = makeLimiter(options.limits)
    const inFlight = yield* Ref.make(0)

    const reject = (reason: "foreign" | "malformed" | "unexpected" | "limit", detail: string, limit?: McpAppsLimitError) =>
      runLeaf(() => options.onRejected?.({ instance, reason, detail, limit }))

    const notify = (method: string, params: JsonObject) =>
      Effect.gen(function*() {
        yield* Deferred.await(initialized)
        if (yield* Ref.get(closed)) {
          return yield* new McpAppsError({ reason: "closed", detail: `the App is closed; ${method} not sent`, subject: instance })
        }
        yield* port.send({ jsonrpc: "2.0", method, params })
      })

    const capabilities = (): JsonObject => ({
      serverTools: {},
      serverResources: {},
      logging: {},
      ...(options.onOpenLink === undefined ? {} : { openLinks: {} }),
      ...(options.onDownloadFile === undefined ? {} : { downloadFile: {} }),
      ...(options.onMessage === undefined ? {} : { message: { text: {}, image: {}, resource: {}, resourceLink: {} } }),
      ...(options.onUpdateModelContext === undefined ? {} : { updateModelContext: { text: {}, structuredContent: {} } }),
      ...(options.onSample === undefined ? {} : { sampling: {} }),
      ...(options.sandbox === undefined ? {} : { sandbox: options.sandbox })
    })

    const answer = (id: string | number, body: { readonly result: unknown } | { readonly error: JsonObject }) =>
      port.send({ jsonrpc: "2.0", id, ...body } as JsonObject)

    /** `ui/initialize`: the one request answered before `initialized`, once. */
    const initialize = (id: string | number, params: JsonObject | undefined) =>
      Effect.gen(function*() {
        const decoded = yield* Effect.option(Protocol.decodeInitialize(params))
        if (decoded._tag === "None") {
          return yield* answer(id, { error: { code: Protocol.ErrorCode.invalidParams, message: "invalid params of ui/initialize" } })
        }
        if ((yield* Ref.get(initializeParams)) !== undefined) {
          return yield* answer(id, { error: { code: Protocol.ErrorCode.invalidRequest, message: "ui/initialize was already answered" } })
        }
        yield* Ref.set(initializeParams, params ?? {})
        const value = decoded.value
        yield* Ref.set(context.appModes, value.appCapabilities.availableDisplayModes ?? [])
        const version = Protocol.PROTOCOL_VERSIONS.includes(value.protocolVersion)
          ? value.protocolVersion
          : Protocol.PROTOCOL_VERSIONS[0]
        yield* answer(id, {
          result: {
            protocolVersion: version,
            hostInfo: options.hostInfo ?? { name: "mcp-effect", version: "1" },
            hostCapabilities: capabilities(),
            hostContext: { ...(yield* Ref.get(hostContext)), displayMode: yield* Ref.get(context.displayMode) }
          }
        })
      })

    /** One App request: limited, audited (`onAppRequest`), traced, answered. */
    const serve = (id: string | number, method: string, params: JsonObject | undefined) =>
      Effect.gen(function*() {
        const count = yield* Ref.updateAndGet(inFlight, (n) => n + 1)
        const max = limiter.maxPending
        if (count > max) {
          const limit = new McpAppsLimitError({ limit: "pending", maximum: max, actual: count, instance })
          yield* reject("limit", `${method} refused: ${limit.message}`, limit)
          yield* audit(method, params, "refused", limit.message)
          return yield* answer(id, { error: { code: Protocol.ErrorCode.refused, message: limit.message } })
        }
        const outcome = yield* Effect.result(handle(context, method, params)).pipe(
          Effect.withSpan("McpApps.appRequest", {
            kind: "server",
            attributes: { "mcp.app.instance": instance, "mcp.method.name": method, "mcp.app.tool": options.tool.name }
          })
        )
        if (outcome._tag === "Success") {
          yield* audit(method, params, "answered")
          yield* answer(id, { result: outcome.success })
        } else {
          yield* audit(method, params, outcome.failure.refused ? "refused" : "failed", outcome.failure.message)
          yield* answer(id, { error: { code: outcome.failure.code, message: outcome.failure.message } })
        }
      }).pipe(Effect.ensuring(Ref.update(inFlight, (n) => n - 1)))

    const audit = (method: string, params: JsonObject | undefined, outcome: "answered" | "refused" | "failed", detail?: string) =>
      runLeaf(() => options.onAppRequest?.({ instance, tool: options.tool.name, method, params, outcome, detail }))

    const onNotification = (method: string, params: JsonObject | undefined) =>
      Effect.gen(function*() {
        switch (method) {
          case "ui/notifications/initialized": {
            const said = yield* Ref.get(initializeParams)
            if (said === undefined) return yield* reject("unexpected", "initialized before ui/initialize")
            yield* Deferred.succeed(initialized, said)
            return
          }
          case "ui/notifications/size-changed": {
            const size = yield* Effect.option(Protocol.decodeSize(params))
            if (size._tag === "None") return yield* reject("malformed", "invalid params of ui/notifications/size-changed")
            return yield* runLeaf(() => options.onSizeChanged?.(size.value))
          }
          case "ui/notifications/request-teardown":
            return yield* runLeaf(() => options.onRequestTeardown?.())
          case "notifications/message":
            return yield* runLeaf(() => options.onLog?.(params ?? {}))
          default:
            return yield* reject("unexpected", `notification ${method} is not one the host takes`)
        }
      })

    const onResponse = (id: string | number, body: JsonObject) =>
      Effect.gen(function*() {
        const waiting = pending.get(String(id))
        if (waiting === undefined) return yield* reject("unexpected", `an answer to ${JSON.stringify(id)}, which the host never asked`)
        pending.delete(String(id))
        yield* Deferred.succeed(waiting, body)
      })

    const receive = (arrival: Incoming) =>
      Effect.gen(function*() {
        if (!arrival.fromApp) return yield* reject("foreign", `a message from ${arrival.origin ?? "another window"} dropped`)
        const now = yield* Clock.currentTimeMillis
        const checked = limiter.admit(arrival.data, now, instance)
        if (checked._tag === "Limited") {
          if (checked.report) yield* reject("limit", checked.error.message, checked.error)
          if (checked.requestId !== undefined) {
            yield* answer(checked.requestId, { error: { code: Protocol.ErrorCode.refused, message: checked.error.message } })
          }
          return
        }
        const message = classify(arrival.data)
        // Once torn down, the App is heard only for its answers (the teardown's among them).
        if (message._tag !== "Response" && (yield* Ref.get(closed))) return
        switch (message._tag) {
          case "Malformed":
            yield* reject("malformed", message.detail)
            if (message.id !== undefined) {
              yield* answer(message.id, { error: { code: Protocol.ErrorCode.invalidRequest, message: message.detail } })
            }
            return
          case "Request":
            if (message.method === "ui/initialize") return yield* initialize(message.id, message.params)
            if (!(yield* Deferred.isDone(initialized))) {
              yield* reject("unexpected", `${message.method} before the handshake`)
              return yield* answer(message.id, { error: { code: Protocol.ErrorCode.invalidRequest, message: "not initialized" } })
            }
            return yield* FiberSet.run(requests, serve(message.id, message.method, message.params)).pipe(Effect.asVoid)
          case "Notification":
            return yield* onNotification(message.method, message.params)
          case "Response":
            return yield* onResponse(message.id, message.body)
        }
      })

    yield* Queue.take(port.incoming).pipe(Effect.flatMap(receive), Effect.forever, Effect.forkScoped)

    const teardown = Effect.gen(function*() {
      if (yield* Ref.getAndSet(closed, true)) return
      if (!(yield* Deferred.isDone(initialized))) return
      const id = `host-${++nextId}`
      const answered = yield* Deferred.make<JsonObject>()
      pending.set(id, answered)
      yield* port.send({ jsonrpc: "2.0", id, method: "ui/resource-teardown", params: {} })
      yield* Deferred.await(answered).pipe(
        Effect.timeoutOption(Duration.fromInputUnsafe(options.teardownTimeout ?? "3 seconds"))
      )
      pending.delete(id)
    })

    return {
      instance,
      initialized: Deferred.await(initialized),
      sendToolInput: (args) =>
        Effect.gen(function*() {
          if (yield* Ref.getAndSet(inputSent, true)) {
            return yield* new McpAppsError({ reason: "protocol", detail: "tool-input was already sent", subject: instance })
          }
          yield* notify("ui/notifications/tool-input", { arguments: args })
        }),
      sendToolInputPartial: (args) => notify("ui/notifications/tool-input-partial", { arguments: args }),
      sendToolResult: (result) => notify("ui/notifications/tool-result", result as JsonObject),
      sendToolCancelled: (reason) => notify("ui/notifications/tool-cancelled", reason === undefined ? {} : { reason }),
      setHostContext: (change) =>
        Effect.andThen(Ref.update(hostContext, (current) => ({ ...current, ...change })), notify("ui/notifications/host-context-changed", change)),
      teardown
    }
  })
