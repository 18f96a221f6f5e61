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
  /** How long a call of one of the App's own tools may take (default 30 seconds, the spec's advice). */
  readonly appToolTimeout?: Duration.Input | undefined
  /** The largest result of one of the App's own tools, in bytes of JSON (default 10 MiB, the spec's advice). */
  readonly maxAppToolResultBytes?: number | undefined
}

/** One of the App's own tools, its name namespaced (`app:<name>`) so it cannot pass for a server's. @internal */
export interface AppTool {
  readonly name: string
  /** The name the App knows it by. */
  readonly appName: string
  readonly description?: string | undefined
  readonly inputSchema?: JsonObject | undefined
  readonly annotations?: JsonObject | undefined
}

/** At most this many of an App's own tools are taken (the spec's advice). @internal */
export const MAX_APP_TOOLS = 50

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
  /**
   * The App's own tools (`tools/list` to the App; only when it declared `tools`), at most 50, each named
   * `app:<name>`.
   */
  readonly listAppTools: Effect.Effect<ReadonlyArray<AppTool>, McpAppsError | McpAppsLimitError>
  /** Calls one of the App's tools (by its `app:` name), bounded by `appToolTimeout` and `maxAppToolResultBytes`. */
  readonly callAppTool: (name: string, args?: JsonObject) => Effect.Effect<CallToolResult, McpAppsError | McpAppsLimitError>
  /** `ui/resource-teardown`, its answer awaited up to `teardownTimeout`; afterwards nothing more is sent. */
  readonly teardown: Effect.Effect<void>
}

let instances = 0

/** One App's session: what every part of the bridge shares. */
interface Session {
  readonly client: McpClient.Service
  readonly port: Port
  readonly options: BridgeOptions
  readonly instance: string
  /** Done at `ui/notifications/initialized`, with the App's `ui/initialize` params. */
  readonly initialized: Deferred.Deferred<JsonObject>
  readonly initializeParams: Ref.Ref<JsonObject | undefined>
  readonly closed: Ref.Ref<boolean>
  readonly inputSent: Ref.Ref<boolean>
  readonly hostContext: Ref.Ref<JsonObject>
  readonly context: RequestContext
  /** The host's own requests waiting for the App's answer, by id. */
  readonly pending: Map<string, Deferred.Deferred<JsonObject, McpAppsError | McpAppsLimitError>>
  readonly nextId: { value: number }
  readonly requests: FiberSet.FiberSet
  readonly limiter: ReturnType<typeof makeLimiter>
  readonly inFlight: Ref.Ref<number>
}

type RejectReason = "foreign" | "malformed" | "unexpected" | "limit"

const reject = (session: Session, reason: RejectReason, detail: string, limit?: McpAppsLimitError) =>
  runLeaf(() => session.options.onRejected?.({ instance: session.instance, reason, detail, limit }))

const audit = (
  session: Session,
  method: string,
  params: JsonObject | undefined,
  outcome: "answered" | "refused" | "failed",
  detail?: string
) =>
  runLeaf(() =>
    session.options.onAppRequest?.({ instance: session.instance, tool: session.options.tool.name, method, params, outcome, detail })
  )

const answer = (session: Session, id: string | number, body: { readonly result: unknown } | { readonly error: JsonObject }) =>
  session.port.send({ jsonrpc: "2.0", id, ...body } as JsonObject)

/** A host notification: held until the App is initialized, refused once it is closed. */
const notify = (session: Session, method: string, params: JsonObject) =>
  Effect.gen(function*() {
    yield* Deferred.await(session.initialized)
    if (yield* Ref.get(session.closed)) {
      return yield* new McpAppsError({ reason: "closed", detail: `the App is closed; ${method} not sent`, subject: session.instance })
    }
    yield* session.port.send({ jsonrpc: "2.0", method, params })
  })

/** What the host offers the App: exactly what its hooks serve. */
const capabilities = (options: BridgeOptions): JsonObject => ({
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

/** `ui/initialize`: the one request answered before `initialized`, once. */
const initialize = (session: Session, id: string | number, params: JsonObject | undefined) =>
  Effect.gen(function*() {
    const decoded = yield* Effect.option(Protocol.decodeInitialize(params))
    if (decoded._tag === "None") {
      return yield* answer(session, id, { error: { code: Protocol.ErrorCode.invalidParams, message: "invalid params of ui/initialize" } })
    }
    if ((yield* Ref.get(session.initializeParams)) !== undefined) {
      return yield* answer(session, id, { error: { code: Protocol.ErrorCode.invalidRequest, message: "ui/initialize was already answered" } })
    }
    yield* Ref.set(session.initializeParams, params ?? {})
    const value = decoded.value
    yield* Ref.set(session.context.appModes, value.appCapabilities.availableDisplayModes ?? [])
    // The App's version when the host speaks it, else the newest the host speaks (the App decides whether to go on).
    const version = Protocol.PROTOCOL_VERSIONS.includes(value.protocolVersion) ? value.protocolVersion : Protocol.PROTOCOL_VERSIONS[0]
    yield* answer(session, id, {
      result: {
        protocolVersion: version,
        hostInfo: session.options.hostInfo ?? { name: "mcp-effect", version: "1" },
        hostCapabilities: capabilities(session.options),
        hostContext: { ...(yield* Ref.get(session.hostContext)), displayMode: yield* Ref.get(session.context.displayMode) }
      }
    })
  })

/** One App request: bounded in flight, traced (`McpApps.appRequest`), audited (`onAppRequest`), answered. */
const serve = (session: Session, id: string | number, method: string, params: JsonObject | undefined) =>
  Effect.gen(function*() {
    const count = yield* Ref.updateAndGet(session.inFlight, (n) => n + 1)
    const max = session.limiter.maxPending
    if (count > max) {
      const limit = new McpAppsLimitError({ limit: "pending", maximum: max, actual: count, instance: session.instance })
      yield* reject(session, "limit", `${method} refused: ${limit.message}`, limit)
      yield* audit(session, method, params, "refused", limit.message)
      return yield* answer(session, id, { error: { code: Protocol.ErrorCode.refused, message: limit.message } })
    }
    const outcome = yield* Effect.result(handle(session.context, method, params)).pipe(
      Effect.withSpan("McpApps.appRequest", {
        kind: "server",
        attributes: { "mcp.app.instance": session.instance, "mcp.method.name": method, "mcp.app.tool": session.options.tool.name }
      })
    )
    if (outcome._tag === "Success") {
      yield* audit(session, method, params, "answered")
      return yield* answer(session, id, { result: outcome.success })
    }
    yield* audit(session, method, params, outcome.failure.refused ? "refused" : "failed", outcome.failure.message)
    yield* answer(session, id, { error: { code: outcome.failure.code, message: outcome.failure.message } })
  }).pipe(Effect.ensuring(Ref.update(session.inFlight, (n) => n - 1)))

const onNotification = (session: Session, method: string, params: JsonObject | undefined) =>
  Effect.gen(function*() {
    const options = session.options
    switch (method) {
      case "ui/notifications/initialized": {
        const said = yield* Ref.get(session.initializeParams)
        if (said === undefined) return yield* reject(session, "unexpected", "initialized before ui/initialize")
        yield* Deferred.succeed(session.initialized, said)
        return
      }
      case "ui/notifications/size-changed": {
        const size = yield* Effect.option(Protocol.decodeSize(params))
        if (size._tag === "None") return yield* reject(session, "malformed", "invalid params of ui/notifications/size-changed")
        return yield* runLeaf(() => options.onSizeChanged?.(size.value))
      }
      case "ui/notifications/request-teardown":
        return yield* runLeaf(() => options.onRequestTeardown?.())
      case "notifications/message":
        return yield* runLeaf(() => options.onLog?.(params ?? {}))
      default:
        return yield* reject(session, "unexpected", `notification ${method} is not one the host takes`)
    }
  })

const onResponse = (session: Session, id: string | number, body: JsonObject) =>
  Effect.gen(function*() {
    const waiting = session.pending.get(String(id))
    if (waiting === undefined) {
      return yield* reject(session, "unexpected", `an answer to ${JSON.stringify(id)}, which the host never asked`)
    }
    session.pending.delete(String(id))
    yield* Deferred.succeed(waiting, body)
  })

/** One arrival: another window's dropped, the limits applied, then validated and dispatched by shape. */
const receive = (session: Session, arrival: Incoming) =>
  Effect.gen(function*() {
    if (!arrival.fromApp) return yield* reject(session, "foreign", `a message from ${arrival.origin ?? "another window"} dropped`)
    const checked = session.limiter.admit(arrival.data, yield* Clock.currentTimeMillis, session.instance)
    if (checked._tag === "Limited") {
      if (checked.report) yield* reject(session, "limit", checked.error.message, checked.error)
      const answered = checked.responseId === undefined ? undefined : session.pending.get(String(checked.responseId))
      if (answered !== undefined) {
        session.pending.delete(String(checked.responseId))
        yield* Deferred.fail(answered, checked.error)
      }
      if (checked.requestId !== undefined) {
        yield* answer(session, checked.requestId, { error: { code: Protocol.ErrorCode.refused, message: checked.error.message } })
      }
      return
    }
    const message = classify(arrival.data)
    // Once torn down, the App is heard only for its answers (the teardown's among them).
    if (message._tag !== "Response" && (yield* Ref.get(session.closed))) return
    switch (message._tag) {
      case "Malformed":
        yield* reject(session, "malformed", message.detail)
        if (message.id === undefined) return
        return yield* answer(session, message.id, { error: { code: Protocol.ErrorCode.invalidRequest, message: message.detail } })
      case "Request":
        if (message.method === "ui/initialize") return yield* initialize(session, message.id, message.params)
        if (!(yield* Deferred.isDone(session.initialized))) {
          yield* reject(session, "unexpected", `${message.method} before the handshake`)
          return yield* answer(session, message.id, { error: { code: Protocol.ErrorCode.invalidRequest, message: "not initialized" } })
        }
        return yield* Effect.asVoid(FiberSet.run(session.requests, serve(session, message.id, message.method, message.params)))
      case "Notification":
        return yield* onNotification(session, message.method, message.params)
      case "Response":
        return yield* onResponse(session, message.id, message.body)
    }
  })

/**
 * A request of the host's to the App: its answer (`result` or `error`), or `timeout` past the budget; the App's
 * answer too large fails it with the limit.
 */
const requestApp = (session: Session, method: string, params: JsonObject, timeout: Duration.Input) =>
  Effect.gen(function*() {
    const id = `host-${++session.nextId.value}`
    const answered = yield* Deferred.make<JsonObject, McpAppsError | McpAppsLimitError>()
    session.pending.set(id, answered)
    yield* session.port.send({ jsonrpc: "2.0", id, method, params })
    return yield* Deferred.await(answered).pipe(
      Effect.timeoutOrElse({
        duration: Duration.fromInputUnsafe(timeout),
        orElse: () =>
          Effect.fail(new McpAppsError({ reason: "timeout", detail: `no answer to ${method} in ${Duration.format(Duration.fromInputUnsafe(timeout))}`, subject: session.instance }))
      }),
      Effect.ensuring(Effect.sync(() => session.pending.delete(id)))
    )
  })

/** The result of an answer, or its error as a `protocol` failure. */
const resultOf = (session: Session, method: string, body: JsonObject): Effect.Effect<JsonObject, McpAppsError> => {
  const error = body["error"]
  const result = body["result"]
  if (error !== undefined || typeof result !== "object" || result === null) {
    const message = typeof error === "object" && error !== null ? String(Reflect.get(error, "message")) : "no result"
    return Effect.fail(new McpAppsError({ reason: "protocol", detail: `the App refused ${method}: ${message}`, subject: session.instance }))
  }
  return Effect.succeed(result as JsonObject)
}

/** Fails unless the App is initialized, open and declared its own tools. */
const withAppTools = (session: Session) =>
  Effect.gen(function*() {
    const said = yield* Ref.get(session.initializeParams)
    const declared = yield* Effect.option(Protocol.decodeInitialize(said))
    if (!(yield* Deferred.isDone(session.initialized)) || declared._tag === "None" || declared.value.appCapabilities.tools === undefined) {
      return yield* new McpAppsError({ reason: "protocol", detail: "the App offers no tools", subject: session.instance })
    }
    if (yield* Ref.get(session.closed)) {
      return yield* new McpAppsError({ reason: "closed", detail: "the App is closed", subject: session.instance })
    }
  })

const toAppTool = (tool: unknown): AppTool | undefined => {
  if (typeof tool !== "object" || tool === null) return undefined
  const name: unknown = Reflect.get(tool, "name")
  if (typeof name !== "string" || name.length === 0 || name.length > 128) return undefined
  const field = (key: string): JsonObject | undefined => {
    const value: unknown = Reflect.get(tool, key)
    return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as JsonObject) : undefined
  }
  const description: unknown = Reflect.get(tool, "description")
  return {
    name: `app:${name}`,
    appName: name,
    description: typeof description === "string" ? description : undefined,
    inputSchema: field("inputSchema"),
    annotations: field("annotations")
  }
}

const listAppTools = (session: Session) =>
  Effect.gen(function*() {
    yield* withAppTools(session)
    const timeout = session.options.appToolTimeout ?? "30 seconds"
    const body = yield* requestApp(session, "tools/list", {}, timeout)
    const listed: unknown = (yield* resultOf(session, "tools/list", body))["tools"]
    const tools = (Array.isArray(listed) ? listed : []).flatMap((tool) => toAppTool(tool) ?? [])
    if (tools.length > MAX_APP_TOOLS) {
      const limit = new McpAppsLimitError({ limit: "app-tools", maximum: MAX_APP_TOOLS, actual: tools.length, instance: session.instance })
      yield* reject(session, "limit", `the App's tools past the ${MAX_APP_TOOLS} taken are left out`, limit)
    }
    return tools.slice(0, MAX_APP_TOOLS)
  })

const callAppTool = (session: Session, name: string, args: JsonObject) =>
  Effect.gen(function*() {
    yield* withAppTools(session)
    const appName = name.startsWith("app:") ? name.slice("app:".length) : name
    const body = yield* requestApp(session, "tools/call", { name: appName, arguments: args }, session.options.appToolTimeout ?? "30 seconds")
    const result = yield* resultOf(session, "tools/call", body)
    const max = session.options.maxAppToolResultBytes ?? 10 * 1024 * 1024
    // The App's answer came through structured clone: it may hold what JSON cannot (a BigInt), which counts as
    // past any size.
    const size = yield* Effect.try({ try: () => JSON.stringify(result).length, catch: () => undefined }).pipe(
      Effect.orElseSucceed(() => Number.POSITIVE_INFINITY)
    )
    if (size > max) {
      return yield* new McpAppsLimitError({ limit: "message-size", maximum: max, actual: size, instance: session.instance })
    }
    return result as CallToolResult
  })

/** `ui/resource-teardown` (only to an initialized App), its answer awaited up to the timeout; then closed. */
const teardown = (session: Session) =>
  Effect.gen(function*() {
    if (yield* Ref.getAndSet(session.closed, true)) return
    if (!(yield* Deferred.isDone(session.initialized))) return
    yield* Effect.ignore(requestApp(session, "ui/resource-teardown", {}, session.options.teardownTimeout ?? "3 seconds"))
    // Whatever else the host was waiting for, the App will not answer now.
    const closed = new McpAppsError({ reason: "closed", detail: "the App was torn down", subject: session.instance })
    for (const waiting of session.pending.values()) yield* Deferred.fail(waiting, closed)
    session.pending.clear()
  })

const makeSession = (client: McpClient.Service, port: Port, options: BridgeOptions) =>
  Effect.gen(function*() {
    const instance = options.instance ?? `app-${++instances}`
    const session: Session = {
      client,
      port,
      options,
      instance,
      initialized: yield* Deferred.make<JsonObject>(),
      initializeParams: yield* Ref.make<JsonObject | undefined>(undefined),
      closed: yield* Ref.make(false),
      inputSent: yield* Ref.make(false),
      hostContext: yield* Ref.make<JsonObject>({
        toolInfo: { tool: options.tool },
        displayMode: "inline",
        availableDisplayModes: [...(options.displayModes ?? ["inline"])],
        platform: "web",
        ...options.hostContext
      }),
      context: {
        client,
        instance,
        hooks: options,
        sampler: options.onSample === undefined ? undefined : InputFulfiller.make({ onSample: options.onSample }),
        hostModes: options.displayModes ?? ["inline"],
        appModes: yield* Ref.make<ReadonlyArray<Protocol.DisplayMode>>([]),
        displayMode: yield* Ref.make<Protocol.DisplayMode>("inline")
      },
      pending: new Map(),
      nextId: { value: 0 },
      requests: yield* FiberSet.make(),
      limiter: makeLimiter(options.limits),
      inFlight: yield* Ref.make(0)
    }
    return session
  })

/** @internal */
export const make = (
  client: McpClient.Service,
  port: Port,
  options: BridgeOptions
): Effect.Effect<Bridge, never, Scope.Scope> =>
  Effect.gen(function*() {
    const session = yield* makeSession(client, port, options)
    // One message that breaks an assumption of the host's code is dropped and reported; the reader goes on.
    const handleOne = (arrival: Incoming) =>
      receive(session, arrival).pipe(
        Effect.catchDefect((defect) => reject(session, "malformed", `the message could not be handled: ${String(defect)}`))
      )
    yield* Queue.take(port.incoming).pipe(Effect.flatMap(handleOne), Effect.forever, Effect.forkScoped)
    return {
      instance: session.instance,
      initialized: Deferred.await(session.initialized),
      sendToolInput: (args) =>
        Effect.gen(function*() {
          if (yield* Ref.getAndSet(session.inputSent, true)) {
            return yield* new McpAppsError({ reason: "protocol", detail: "tool-input was already sent", subject: session.instance })
          }
          yield* notify(session, "ui/notifications/tool-input", { arguments: args })
        }),
      sendToolInputPartial: (args) => notify(session, "ui/notifications/tool-input-partial", { arguments: args }),
      sendToolResult: (result) => notify(session, "ui/notifications/tool-result", result as JsonObject),
      sendToolCancelled: (reason) => notify(session, "ui/notifications/tool-cancelled", reason === undefined ? {} : { reason }),
      setHostContext: (change) =>
        Effect.andThen(
          Ref.update(session.hostContext, (current) => ({ ...current, ...change })),
          notify(session, "ui/notifications/host-context-changed", change)
        ),
      listAppTools: listAppTools(session),
      callAppTool: (name, args) => callAppTool(session, name, args ?? {}),
      teardown: teardown(session)
    }
  })
