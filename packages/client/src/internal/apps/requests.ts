/**
 * What the host does with each App request: `tools/call` only for tools the App may see (and, unless read-only,
 * approved), `resources/read`, the `ui/*` requests through the host's hooks, sampling through `onSample`.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as Ref from "effect/Ref"
import * as Schema from "effect/Schema"
import type * as InputFulfiller from "../../InputFulfiller.js"
import type * as McpClient from "../../McpClient.js"
import type { JsonObject } from "../../McpSchema.js"
import { type AppHooks, runHook } from "./hooks.js"
import * as Protocol from "./protocol.js"
import { appVisible } from "./visibility.js"

/** Why a request was not answered with a result: the JSON-RPC error, and whether the host refused it. @internal */
export interface Refusal {
  readonly code: number
  readonly message: string
  readonly refused: boolean
}

/** What the handlers share for one App. @internal */
export interface RequestContext {
  readonly client: McpClient.Service
  readonly instance: string
  readonly hooks: AppHooks
  /** The sampling hook wrapped as the client wraps its own (params checked, concurrency bounded). */
  readonly sampler: InputFulfiller.Service | undefined
  /** The display modes the host offers. */
  readonly hostModes: ReadonlyArray<Protocol.DisplayMode>
  /** The modes the App declared in `ui/initialize`. */
  readonly appModes: Ref.Ref<ReadonlyArray<Protocol.DisplayMode>>
  readonly displayMode: Ref.Ref<Protocol.DisplayMode>
}

const refuse = (message: string): Refusal => ({ code: Protocol.ErrorCode.refused, message, refused: true })
const failed = (message: string): Refusal => ({ code: Protocol.ErrorCode.internal, message, refused: false })

const decode = <S extends Schema.Decoder<unknown>>(schema: S, params: JsonObject | undefined, method: string) =>
  Schema.decodeUnknownEffect(schema)(params ?? {}).pipe(
    Effect.mapError((error): Refusal => ({
      code: Protocol.ErrorCode.invalidParams,
      message: `invalid params of ${method}: ${error.message}`,
      refused: true
    }))
  )

const clientFailure = (error: { readonly message: string }): Refusal => failed(error.message)

/**
 * An App's `tools/call`: refused, with nothing sent to the server, unless the listed tool's visibility includes
 * `"app"` (the spec's MUST); a tool not marked `readOnlyHint` goes through `approveToolCall` first.
 */
const callTool = (context: RequestContext, params: JsonObject | undefined) =>
  Effect.gen(function*() {
    const call = yield* decode(Protocol.CallToolParams, params, "tools/call")
    const tools = yield* Effect.mapError(context.client.listTools(), clientFailure)
    const tool = tools.find((candidate) => candidate.name === call.name)
    if (tool === undefined || !appVisible(tool)) {
      return yield* Effect.fail(refuse(`tool ${JSON.stringify(call.name)} is not available to this App`))
    }
    const args = call.arguments ?? {}
    const readOnly = tool.annotations?.readOnlyHint === true
    const approve = context.hooks.approveToolCall
    if (!readOnly && approve !== undefined) {
      const approved = yield* runHook(() => approve({ instance: context.instance, name: tool.name, arguments: args, readOnly }))
        .pipe(Effect.mapError(refuse))
      if (approved !== true) return yield* Effect.fail(refuse(`the call of ${tool.name} was not approved`))
    }
    return yield* Effect.mapError(context.client.callTool(tool.name, args as JsonObject), clientFailure)
  })

/** The tools an App may see (`tools/list`): the app-visible ones only. */
const listTools = (context: RequestContext) =>
  context.client.listTools().pipe(
    Effect.map((tools): JsonObject => ({ tools: tools.filter(appVisible) as unknown as Array<JsonObject> })),
    Effect.mapError(clientFailure)
  )

/** A boolean-or-void hook's answer as the `ui/*` result: `isError` unless it went through. */
const hookResult = (answer: boolean | void): JsonObject => (answer === false ? { isError: true } : {})

const openLink = (context: RequestContext, params: JsonObject | undefined) =>
  Effect.gen(function*() {
    const { url } = yield* decode(Protocol.OpenLinkParams, params, "ui/open-link")
    const parsed = URL.canParse(url) ? new URL(url) : undefined
    if (parsed === undefined || (parsed.protocol !== "https:" && parsed.protocol !== "http:")) {
      return yield* Effect.fail(refuse("only http and https links can be opened"))
    }
    const hook = context.hooks.onOpenLink
    if (hook === undefined) return { isError: true }
    return hookResult(yield* runHook(() => hook({ instance: context.instance, url: parsed.href })).pipe(Effect.mapError(refuse)))
  })

/**
 * A file name safe to save under: the last path segment, without control characters, bidirectional overrides
 * (which make `exe.txt` read as `txt.exe`), separators, reserved characters, leading dots or trailing dots and
 * spaces, at most 128 characters; `download` when nothing is left or a device name (`CON`, `NUL`, ...) is.
 *
 * @internal
 */
export const sanitizeFilename = (raw: string): string => {
  const last = raw.split(/[/\\]/).pop() ?? ""
  const cleaned = last
    .replace(/[\u0000-\u001f\u007f<>:"|?*]/g, "_")
    .replace(/[\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, "")
    .replace(/^[.\s]+/, "")
    .replace(/[.\s]+$/, "")
    .slice(0, 128)
  return cleaned.length === 0 || /^(con|prn|aux|nul|com\d|lpt\d)(\..*)?$/i.test(cleaned) ? "download" : cleaned
}

/** A path's last segment, percent-decoded when it decodes (a decoded separator is split off by the sanitizer). */
const lastSegment = (path: string): string => {
  const segment = path.split("/").pop() ?? ""
  try {
    return decodeURIComponent(segment)
  } catch {
    return segment
  }
}

const fileOf = (instance: string, item: JsonObject) => {
  const resource = typeof item["resource"] === "object" && item["resource"] !== null ? (item["resource"] as JsonObject) : item
  const uri = typeof resource["uri"] === "string" ? resource["uri"] : undefined
  const named = typeof item["name"] === "string" ? item["name"] : undefined
  const fromUri = uri === undefined ? "" : lastSegment(URL.canParse(uri) ? new URL(uri).pathname : uri)
  return {
    instance,
    filename: sanitizeFilename(named ?? fromUri),
    mimeType: typeof resource["mimeType"] === "string" ? resource["mimeType"] : undefined,
    text: typeof resource["text"] === "string" ? resource["text"] : undefined,
    blob: typeof resource["blob"] === "string" ? resource["blob"] : undefined,
    uri
  }
}

const downloadFile = (context: RequestContext, params: JsonObject | undefined) =>
  Effect.gen(function*() {
    const { contents } = yield* decode(Protocol.DownloadFileParams, params, "ui/download-file")
    const hook = context.hooks.onDownloadFile
    if (hook === undefined) return { isError: true }
    let refusedAny = false
    for (const item of contents) {
      const answer = yield* runHook(() => hook(fileOf(context.instance, item))).pipe(Effect.mapError(refuse))
      if (answer === false) refusedAny = true
    }
    return refusedAny ? { isError: true } : {}
  })

const message = (context: RequestContext, params: JsonObject | undefined) =>
  Effect.gen(function*() {
    const decoded = yield* decode(Protocol.MessageParams, params, "ui/message")
    const hook = context.hooks.onMessage
    if (hook === undefined) return { isError: true }
    return hookResult(
      yield* runHook(() => hook({ instance: context.instance, role: decoded.role, content: decoded.content })).pipe(
        Effect.mapError(refuse)
      )
    )
  })

const updateModelContext = (context: RequestContext, params: JsonObject | undefined) =>
  Effect.gen(function*() {
    const decoded = yield* decode(Protocol.UpdateModelContextParams, params, "ui/update-model-context")
    const hook = context.hooks.onUpdateModelContext
    if (hook === undefined) return yield* Effect.fail(refuse("the host takes no model context"))
    yield* runHook(() => hook({ instance: context.instance, ...decoded })).pipe(Effect.mapError(refuse))
    return {}
  })

/** The mode after the request: the one asked for only when both sides declared it and the host's hook agrees. */
const requestDisplayMode = (context: RequestContext, params: JsonObject | undefined) =>
  Effect.gen(function*() {
    const { mode } = yield* decode(Protocol.RequestDisplayModeParams, params, "ui/request-display-mode")
    const appModes = yield* Ref.get(context.appModes)
    const hook = context.hooks.onRequestDisplayMode
    if (context.hostModes.includes(mode) && appModes.includes(mode)) {
      const granted = hook === undefined ? true : yield* runHook(() => hook({ instance: context.instance, mode })).pipe(
        Effect.orElseSucceed(() => false)
      )
      if (granted === true) yield* Ref.set(context.displayMode, mode)
    }
    return { mode: yield* Ref.get(context.displayMode) }
  })

const sample = (context: RequestContext, params: JsonObject | undefined) =>
  context.sampler === undefined
    ? Effect.fail(refuse("the host offers no sampling"))
    : context.sampler.fulfil({ method: "sampling/createMessage", params: params ?? {} }, "legacy").pipe(
      Effect.mapError((error) => refuse(error.message))
    )

/**
 * The answer to one App request (other than `ui/initialize`, which the bridge answers itself).
 *
 * @internal
 */
export const handle = (
  context: RequestContext,
  method: string,
  params: JsonObject | undefined
): Effect.Effect<unknown, Refusal> => {
  switch (method) {
    case "tools/call":
      return callTool(context, params)
    case "tools/list":
      return listTools(context)
    case "resources/read":
      return Effect.flatMap(
        decode(Protocol.ReadResourceParams, params, method),
        ({ uri }) => Effect.mapError(context.client.readResource(uri), clientFailure)
      )
    case "resources/list":
      return Effect.map(Effect.mapError(context.client.listResources(), clientFailure), (resources) => ({ resources }))
    case "resources/templates/list":
      return Effect.map(
        Effect.mapError(context.client.listResourceTemplates(), clientFailure),
        (resourceTemplates) => ({ resourceTemplates })
      )
    case "ui/open-link":
      return openLink(context, params)
    case "ui/download-file":
      return downloadFile(context, params)
    case "ui/message":
      return message(context, params)
    case "ui/update-model-context":
      return updateModelContext(context, params)
    case "ui/request-display-mode":
      return requestDisplayMode(context, params)
    case "sampling/createMessage":
      return sample(context, params)
    case "ping":
      return Effect.succeed({})
    default:
      return Effect.fail({ code: Protocol.ErrorCode.methodNotFound, message: `method not found: ${method}`, refused: true })
  }
}
