/**
 * The `ui/*` messages as the host accepts them from an App: JSON-RPC 2.0 envelopes and the params of each
 * method, as `Schema`s. Anything that does not decode is dropped (a request is answered `-32602`/`-32600`).
 *
 * @internal
 */
import * as Schema from "effect/Schema"

const Params = Schema.Record(Schema.String, Schema.Unknown)
const Id = Schema.Union([Schema.String, Schema.Number])

/** An App's request. @internal */
export const Request = Schema.Struct({
  jsonrpc: Schema.Literal("2.0"),
  id: Id,
  method: Schema.String,
  params: Schema.optional(Params)
})

/** An App's notification. @internal */
export const Notification = Schema.Struct({
  jsonrpc: Schema.Literal("2.0"),
  method: Schema.String,
  params: Schema.optional(Params)
})

/** An App's answer to one of the host's requests. @internal */
export const Response = Schema.Struct({
  jsonrpc: Schema.Literal("2.0"),
  id: Id,
  result: Schema.optional(Params),
  error: Schema.optional(Schema.Struct({ code: Schema.Number, message: Schema.String }))
})

/** Any message, by shape. @internal */
export const Message = Schema.Union([Request, Notification, Response])

/** @internal */
export type Message = typeof Message.Type

/** @internal */
export const DisplayMode = Schema.Literals(["inline", "fullscreen", "pip"])

/** @internal */
export type DisplayMode = typeof DisplayMode.Type

const Implementation = Schema.Struct({ name: Schema.String, version: Schema.String })

/** `ui/initialize`. @internal */
export const InitializeParams = Schema.Struct({
  appInfo: Implementation,
  appCapabilities: Schema.Struct({
    tools: Schema.optional(Params),
    availableDisplayModes: Schema.optional(Schema.Array(DisplayMode))
  }),
  protocolVersion: Schema.String
})

/** `tools/call`. @internal */
export const CallToolParams = Schema.Struct({ name: Schema.String, arguments: Schema.optional(Params) })

/** `resources/read`. @internal */
export const ReadResourceParams = Schema.Struct({ uri: Schema.String })

/** `ui/open-link`. @internal */
export const OpenLinkParams = Schema.Struct({ url: Schema.String })

/** `ui/download-file`. @internal */
export const DownloadFileParams = Schema.Struct({ contents: Schema.Array(Params) })

/** `ui/message`. @internal */
export const MessageParams = Schema.Struct({ role: Schema.Literal("user"), content: Schema.Array(Params) })

/** `ui/update-model-context`. @internal */
export const UpdateModelContextParams = Schema.Struct({
  content: Schema.optional(Schema.Array(Params)),
  structuredContent: Schema.optional(Params)
})

/** `ui/request-display-mode`. @internal */
export const RequestDisplayModeParams = Schema.Struct({ mode: DisplayMode })

/** `ui/notifications/size-changed`. @internal */
export const SizeChangedParams = Schema.Struct({
  width: Schema.optional(Schema.Number),
  height: Schema.optional(Schema.Number)
})

/** The protocol versions the host speaks, newest first. @internal */
export const PROTOCOL_VERSIONS: ReadonlyArray<string> = ["2026-01-26", "2025-11-21"]

/** JSON-RPC error codes the host answers with. @internal */
export const ErrorCode = {
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internal: -32603,
  /** The host refused the request (visibility, approval, a limit). */
  refused: -32000
} as const

/** @internal */
export const decodeInitialize = Schema.decodeUnknownEffect(InitializeParams)

/** @internal */
export const decodeSize = (params: unknown) => Schema.decodeUnknownEffect(SizeChangedParams)(params ?? {})
