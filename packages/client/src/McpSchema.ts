/**
 * Wire types for both protocol eras: 2025-11-25 (and earlier, "legacy") and 2026-07-28 ("modern").
 *
 * Every object schema here is open (see {@link OpenStruct}): a client must pass through what it does not
 * understand (`_meta`, extension fields, JSON Schema keywords), so nothing a server sends is stripped, at any
 * depth. A content block of an unknown type is kept too ({@link OtherContent}). Apart from that block and the
 * default of `CallToolResult.content`, the schemas have no transformations, so `Type` and `Encoded` are the
 * same JSON shape.
 *
 * @since 0.1.0
 */
import type * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as SchemaGetter from "effect/SchemaGetter"
import * as SchemaTransformation from "effect/SchemaTransformation"

// -----------------------------------------------------------------------------
// Versions and reserved keys
// -----------------------------------------------------------------------------

/**
 * The modern protocol revision: stateless, `server/discover`, per-request `_meta`.
 *
 * @since 0.1.0
 * @category constants
 */
export const MODERN_VERSION = "2026-07-28"

/**
 * Legacy protocol revisions this client speaks, newest first. They open with `initialize`.
 *
 * @since 0.1.0
 * @category constants
 */
export const LEGACY_VERSIONS: ReadonlyArray<string> = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"]

/**
 * Modern revisions this client speaks, newest first.
 *
 * @since 0.1.0
 * @category constants
 */
export const MODERN_VERSIONS: ReadonlyArray<string> = [MODERN_VERSION]

/**
 * Reserved `_meta` keys of the modern envelope.
 *
 * @since 0.1.0
 * @category constants
 */
export const MetaKey = {
  protocolVersion: "io.modelcontextprotocol/protocolVersion",
  clientInfo: "io.modelcontextprotocol/clientInfo",
  clientCapabilities: "io.modelcontextprotocol/clientCapabilities",
  logLevel: "io.modelcontextprotocol/logLevel",
  serverInfo: "io.modelcontextprotocol/serverInfo",
  subscriptionId: "io.modelcontextprotocol/subscriptionId"
} as const

/**
 * JSON-RPC and MCP error codes the client recognises.
 *
 * @since 0.1.0
 * @category constants
 */
export const ErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  ResourceNotFoundLegacy: -32002,
  UrlElicitationRequired: -32042,
  HeaderMismatch: -32020,
  MissingRequiredClientCapability: -32021,
  UnsupportedProtocolVersion: -32022
} as const

// -----------------------------------------------------------------------------
// Building blocks
// -----------------------------------------------------------------------------

/**
 * Any JSON object, kept as it is.
 *
 * @since 0.1.0
 * @category schemas
 */
export const JsonObject = Schema.Record(Schema.String, Schema.Unknown)

/**
 * @since 0.1.0
 * @category models
 */
export type JsonObject = typeof JsonObject.Type

/**
 * The rest of an open struct: any other key, with any value.
 *
 * @since 0.1.0
 * @category schemas
 */
export type OpenRest = readonly [typeof JsonObject]

/**
 * @since 0.1.0
 * @category schemas
 */
export interface OpenStruct<Fields extends Schema.Struct.Fields>
  extends Schema.StructWithRest<Schema.Struct<Fields>, OpenRest>
{}

const openRest: OpenRest = [JsonObject]

/**
 * An open struct: the declared fields are checked, every other key is kept as it came (Effect 4 strips the keys
 * a plain `Schema.Struct` does not name). Its type is the fields plus `readonly [x: string]: unknown`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const OpenStruct = <const Fields extends Schema.Struct.Fields>(fields: Fields): OpenStruct<Fields> =>
  Schema.StructWithRest(Schema.Struct(fields), openRest)

/**
 * @since 0.1.0
 * @category schemas
 */
export const RequestId = Schema.Union([Schema.String, Schema.Number])

/**
 * @since 0.1.0
 * @category models
 */
export type RequestId = typeof RequestId.Type

/**
 * @since 0.1.0
 * @category schemas
 */
export const Meta = Schema.optional(JsonObject)

/**
 * @since 0.1.0
 * @category schemas
 */
export const Icon = OpenStruct({
  src: Schema.String,
  mimeType: Schema.optional(Schema.String),
  sizes: Schema.optional(Schema.Array(Schema.String)),
  theme: Schema.optional(Schema.String)
})

/**
 * Who a client or a server says it is. Self-reported: for display and logs only.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Implementation = OpenStruct({
  name: Schema.String,
  version: Schema.String,
  title: Schema.optional(Schema.String),
  description: Schema.optional(Schema.String),
  websiteUrl: Schema.optional(Schema.String),
  icons: Schema.optional(Schema.Array(Icon))
})

/**
 * @since 0.1.0
 * @category models
 */
export type Implementation = typeof Implementation.Type

/**
 * Capabilities a server advertises (union of both eras' fields; unknown fields are kept).
 *
 * @since 0.1.0
 * @category schemas
 */
export const ServerCapabilities = OpenStruct({
  experimental: Schema.optional(JsonObject),
  logging: Schema.optional(JsonObject),
  completions: Schema.optional(JsonObject),
  prompts: Schema.optional(OpenStruct({ listChanged: Schema.optional(Schema.Boolean) })),
  resources: Schema.optional(
    OpenStruct({ subscribe: Schema.optional(Schema.Boolean), listChanged: Schema.optional(Schema.Boolean) })
  ),
  tools: Schema.optional(OpenStruct({ listChanged: Schema.optional(Schema.Boolean) })),
  tasks: Schema.optional(JsonObject),
  extensions: Schema.optional(JsonObject)
})

/**
 * @since 0.1.0
 * @category models
 */
export type ServerCapabilities = typeof ServerCapabilities.Type

/**
 * Capabilities the client declares: exactly the hooks the caller set.
 *
 * @since 0.1.0
 * @category models
 */
export interface ClientCapabilities {
  readonly experimental?: JsonObject
  readonly roots?: { readonly listChanged?: boolean }
  readonly sampling?: { readonly context?: JsonObject; readonly tools?: JsonObject }
  readonly elicitation?: { readonly form?: JsonObject; readonly url?: JsonObject }
  readonly extensions?: JsonObject
}

/**
 * @since 0.1.0
 * @category schemas
 */
export const CacheScope = Schema.Literals(["public", "private"])

/**
 * @since 0.1.0
 * @category schemas
 */
export const ResultType = Schema.String

// -----------------------------------------------------------------------------
// Content
// -----------------------------------------------------------------------------

/**
 * @since 0.1.0
 * @category schemas
 */
export const Annotations = OpenStruct({
  audience: Schema.optional(Schema.Array(Schema.String)),
  priority: Schema.optional(Schema.Number),
  lastModified: Schema.optional(Schema.String)
})

/**
 * @since 0.1.0
 * @category schemas
 */
export const TextContent = OpenStruct({
  type: Schema.Literal("text"),
  text: Schema.String,
  annotations: Schema.optional(Annotations),
  _meta: Meta
})

/**
 * @since 0.1.0
 * @category schemas
 */
export const ImageContent = OpenStruct({
  type: Schema.Literal("image"),
  data: Schema.String,
  mimeType: Schema.String,
  annotations: Schema.optional(Annotations),
  _meta: Meta
})

/**
 * @since 0.1.0
 * @category schemas
 */
export const AudioContent = OpenStruct({
  type: Schema.Literal("audio"),
  data: Schema.String,
  mimeType: Schema.String,
  annotations: Schema.optional(Annotations),
  _meta: Meta
})

/**
 * @since 0.1.0
 * @category schemas
 */
export const TextResourceContents = OpenStruct({
  uri: Schema.String,
  mimeType: Schema.optional(Schema.String),
  text: Schema.String,
  _meta: Meta
})

/**
 * @since 0.1.0
 * @category schemas
 */
export const BlobResourceContents = OpenStruct({
  uri: Schema.String,
  mimeType: Schema.optional(Schema.String),
  blob: Schema.String,
  _meta: Meta
})

/**
 * @since 0.1.0
 * @category schemas
 */
export const ResourceContents = Schema.Union([TextResourceContents, BlobResourceContents])

/**
 * @since 0.1.0
 * @category models
 */
export type ResourceContents = typeof ResourceContents.Type

/**
 * @since 0.1.0
 * @category schemas
 */
export const ResourceLink = OpenStruct({
  type: Schema.Literal("resource_link"),
  uri: Schema.String,
  name: Schema.String,
  title: Schema.optional(Schema.String),
  description: Schema.optional(Schema.String),
  mimeType: Schema.optional(Schema.String),
  size: Schema.optional(Schema.Number),
  annotations: Schema.optional(Annotations),
  _meta: Meta
})

/**
 * @since 0.1.0
 * @category schemas
 */
export const EmbeddedResource = OpenStruct({
  type: Schema.Literal("resource"),
  resource: ResourceContents,
  annotations: Schema.optional(Annotations),
  _meta: Meta
})

const AnyBlock = OpenStruct({ type: Schema.String })

const UnknownBlock = Schema.Struct({
  type: Schema.Literal("unknown"),
  originalType: Schema.String,
  block: JsonObject
})

/**
 * A content block of a type this client does not know (a later revision or an extension), or a known type
 * with fields missing: kept, not rejected. It is decoded as `{ type: "unknown", originalType, block }` (the
 * block as it came), so that the known types stay a discriminated union: `block.type === "text"` narrows a
 * `ContentBlock` to `TextContent`. Encoding gives the original block back.
 *
 * @since 0.1.0
 * @category schemas
 */
export const OtherContent = AnyBlock.pipe(
  Schema.decodeTo(
    UnknownBlock,
    SchemaTransformation.transform<typeof UnknownBlock.Encoded, typeof AnyBlock.Type>({
      decode: (block) => ({ type: "unknown" as const, originalType: block.type, block }),
      encode: (unknown) => ({ ...unknown.block, type: unknown.originalType })
    })
  )
)

/**
 * @since 0.1.0
 * @category models
 */
export type OtherContent = typeof OtherContent.Type

/**
 * @since 0.1.0
 * @category schemas
 */
export const ContentBlock = Schema.Union([
  TextContent,
  ImageContent,
  AudioContent,
  ResourceLink,
  EmbeddedResource,
  OtherContent
])

/**
 * @since 0.1.0
 * @category models
 */
export type ContentBlock = typeof ContentBlock.Type

// -----------------------------------------------------------------------------
// Tools, prompts, resources
// -----------------------------------------------------------------------------

/**
 * Hints only: from an untrusted server they are claims, not guarantees. Unset stays unset (no defaults are
 * filled in), so "the server said nothing" and "the server said false" remain different.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ToolAnnotations = OpenStruct({
  title: Schema.optional(Schema.String),
  readOnlyHint: Schema.optional(Schema.Boolean),
  destructiveHint: Schema.optional(Schema.Boolean),
  idempotentHint: Schema.optional(Schema.Boolean),
  openWorldHint: Schema.optional(Schema.Boolean)
})

/**
 * @since 0.1.0
 * @category models
 */
export type ToolAnnotations = typeof ToolAnnotations.Type

/**
 * @since 0.1.0
 * @category schemas
 */
export const Tool = OpenStruct({
  name: Schema.String,
  title: Schema.optional(Schema.String),
  description: Schema.optional(Schema.String),
  inputSchema: JsonObject,
  outputSchema: Schema.optional(Schema.Unknown),
  annotations: Schema.optional(ToolAnnotations),
  execution: Schema.optional(JsonObject),
  icons: Schema.optional(Schema.Array(Icon)),
  _meta: Meta
})

/**
 * @since 0.1.0
 * @category models
 */
export type Tool = typeof Tool.Type

const noContent: ReadonlyArray<ContentBlock> = []

/**
 * `content`, `[]` when absent. The blocks are decoded once, by the encoded side; the decoded side only checks it
 * got the array (`Schema.withDecodingDefaultKey` would decode them twice: twice the cost on the request path).
 */
const ContentWithDefault = Schema.optionalKey(Schema.Array(ContentBlock)).pipe(
  Schema.decodeTo(Schema.declare((u): u is ReadonlyArray<ContentBlock> => Array.isArray(u)), {
    decode: SchemaGetter.transformOptional((content) => Option.some(Option.getOrElse(content, () => noContent))),
    encode: SchemaGetter.passthrough()
  })
)

/**
 * @since 0.1.0
 * @category schemas
 */
export const CallToolResult = OpenStruct({
  content: ContentWithDefault,
  structuredContent: Schema.optional(Schema.Unknown),
  isError: Schema.optional(Schema.Boolean),
  _meta: Meta
})

/**
 * @since 0.1.0
 * @category models
 */
export type CallToolResult = typeof CallToolResult.Type

/**
 * @since 0.1.0
 * @category schemas
 */
export const PromptArgument = OpenStruct({
  name: Schema.String,
  title: Schema.optional(Schema.String),
  description: Schema.optional(Schema.String),
  required: Schema.optional(Schema.Boolean)
})

/**
 * @since 0.1.0
 * @category schemas
 */
export const Prompt = OpenStruct({
  name: Schema.String,
  title: Schema.optional(Schema.String),
  description: Schema.optional(Schema.String),
  arguments: Schema.optional(Schema.Array(PromptArgument)),
  icons: Schema.optional(Schema.Array(Icon)),
  _meta: Meta
})

/**
 * @since 0.1.0
 * @category models
 */
export type Prompt = typeof Prompt.Type

/**
 * @since 0.1.0
 * @category schemas
 */
export const PromptMessage = OpenStruct({
  role: Schema.String,
  content: ContentBlock
})

/**
 * @since 0.1.0
 * @category schemas
 */
export const GetPromptResult = OpenStruct({
  description: Schema.optional(Schema.String),
  messages: Schema.Array(PromptMessage),
  _meta: Meta
})

/**
 * @since 0.1.0
 * @category models
 */
export type GetPromptResult = typeof GetPromptResult.Type

/**
 * @since 0.1.0
 * @category schemas
 */
export const Resource = OpenStruct({
  uri: Schema.String,
  name: Schema.String,
  title: Schema.optional(Schema.String),
  description: Schema.optional(Schema.String),
  mimeType: Schema.optional(Schema.String),
  size: Schema.optional(Schema.Number),
  annotations: Schema.optional(Annotations),
  icons: Schema.optional(Schema.Array(Icon)),
  _meta: Meta
})

/**
 * @since 0.1.0
 * @category models
 */
export type Resource = typeof Resource.Type

/**
 * @since 0.1.0
 * @category schemas
 */
export const ResourceTemplate = OpenStruct({
  uriTemplate: Schema.String,
  name: Schema.String,
  title: Schema.optional(Schema.String),
  description: Schema.optional(Schema.String),
  mimeType: Schema.optional(Schema.String),
  annotations: Schema.optional(Annotations),
  icons: Schema.optional(Schema.Array(Icon)),
  _meta: Meta
})

/**
 * @since 0.1.0
 * @category models
 */
export type ResourceTemplate = typeof ResourceTemplate.Type

/**
 * @since 0.1.0
 * @category schemas
 */
export const ReadResourceResult = OpenStruct({
  contents: Schema.Array(ResourceContents),
  ttlMs: Schema.optional(Schema.Number),
  cacheScope: Schema.optional(CacheScope),
  _meta: Meta
})

/**
 * @since 0.1.0
 * @category models
 */
export type ReadResourceResult = typeof ReadResourceResult.Type

/**
 * @since 0.1.0
 * @category schemas
 */
export const CompleteResult = OpenStruct({
  completion: OpenStruct({
    values: Schema.Array(Schema.String),
    total: Schema.optional(Schema.Number),
    hasMore: Schema.optional(Schema.Boolean)
  }),
  _meta: Meta
})

/**
 * @since 0.1.0
 * @category models
 */
export type CompleteResult = typeof CompleteResult.Type

/**
 * What `completion/complete` completes: an argument of a prompt or of a resource template.
 *
 * @since 0.1.0
 * @category models
 */
export type CompletionReference =
  | { readonly type: "ref/prompt"; readonly name: string }
  | { readonly type: "ref/resource"; readonly uri: string }

const pageFields = {
  nextCursor: Schema.optional(Schema.String),
  ttlMs: Schema.optional(Schema.Number),
  cacheScope: Schema.optional(CacheScope),
  _meta: Meta
}

/**
 * @since 0.1.0
 * @category schemas
 */
export const ListToolsResult = OpenStruct({ ...pageFields, tools: Schema.Array(Tool) })

/**
 * @since 0.1.0
 * @category schemas
 */
export const ListPromptsResult = OpenStruct({ ...pageFields, prompts: Schema.Array(Prompt) })

/**
 * @since 0.1.0
 * @category schemas
 */
export const ListResourcesResult = OpenStruct({ ...pageFields, resources: Schema.Array(Resource) })

/**
 * @since 0.1.0
 * @category schemas
 */
export const ListResourceTemplatesResult = OpenStruct({
  ...pageFields,
  resourceTemplates: Schema.Array(ResourceTemplate)
})

// -----------------------------------------------------------------------------
// Lifecycle
// -----------------------------------------------------------------------------

/**
 * @since 0.1.0
 * @category schemas
 */
export const InitializeResult = OpenStruct({
  protocolVersion: Schema.String,
  capabilities: ServerCapabilities,
  serverInfo: Implementation,
  instructions: Schema.optional(Schema.String),
  _meta: Meta
})

/**
 * @since 0.1.0
 * @category models
 */
export type InitializeResult = typeof InitializeResult.Type

/**
 * @since 0.1.0
 * @category schemas
 */
export const DiscoverResult = OpenStruct({
  supportedVersions: Schema.Array(Schema.String),
  capabilities: ServerCapabilities,
  instructions: Schema.optional(Schema.String),
  ttlMs: Schema.optional(Schema.Number),
  cacheScope: Schema.optional(CacheScope),
  _meta: Meta
})

/**
 * @since 0.1.0
 * @category models
 */
export type DiscoverResult = typeof DiscoverResult.Type

/**
 * The `data` of a `-32022` UnsupportedProtocolVersion error.
 *
 * @since 0.1.0
 * @category schemas
 */
export const UnsupportedVersionData = OpenStruct({
  supported: Schema.Array(Schema.String),
  requested: Schema.optional(Schema.String)
})

// -----------------------------------------------------------------------------
// Multi round-trip requests
// -----------------------------------------------------------------------------

/**
 * One thing a modern server asks of the client inside an `input_required` result (no `jsonrpc`, no `id`).
 *
 * @since 0.1.0
 * @category schemas
 */
export const InputRequest = OpenStruct({
  method: Schema.String,
  params: Schema.optional(JsonObject)
})

/**
 * @since 0.1.0
 * @category models
 */
export type InputRequest = typeof InputRequest.Type

/**
 * @since 0.1.0
 * @category schemas
 */
export const InputRequiredResult = OpenStruct({
  resultType: Schema.Literal("input_required"),
  inputRequests: Schema.optional(Schema.Record(Schema.String, InputRequest)),
  requestState: Schema.optional(Schema.String),
  _meta: Meta
})

/**
 * @since 0.1.0
 * @category models
 */
export type InputRequiredResult = typeof InputRequiredResult.Type

// -----------------------------------------------------------------------------
// Notifications
// -----------------------------------------------------------------------------

/**
 * A notification as the server sent it.
 *
 * @since 0.1.0
 * @category models
 */
export interface Notification {
  readonly method: string
  readonly params?: JsonObject | undefined
}

/**
 * @since 0.1.0
 * @category schemas
 */
export const LoggingLevel = Schema.Literals([
  "debug",
  "info",
  "notice",
  "warning",
  "error",
  "critical",
  "alert",
  "emergency"
])

/**
 * @since 0.1.0
 * @category models
 */
export type LoggingLevel = typeof LoggingLevel.Type

/**
 * @since 0.1.0
 * @category schemas
 */
export const LoggingMessageParams = OpenStruct({
  level: LoggingLevel,
  logger: Schema.optional(Schema.String),
  data: Schema.Unknown
})

/**
 * @since 0.1.0
 * @category schemas
 */
export const ProgressParams = OpenStruct({
  progressToken: RequestId,
  progress: Schema.Number,
  total: Schema.optional(Schema.Number),
  message: Schema.optional(Schema.String)
})

// -----------------------------------------------------------------------------
// JSON-RPC framing
// -----------------------------------------------------------------------------

/**
 * @since 0.1.0
 * @category schemas
 */
export const JsonRpcErrorObject = OpenStruct({
  code: Schema.Number,
  message: Schema.String,
  data: Schema.optional(Schema.Unknown)
})

/**
 * One inbound JSON-RPC 2.0 message, loosely typed: requests, notifications, results and errors are told apart
 * by which fields are present.
 *
 * @since 0.1.0
 * @category schemas
 */
export const JsonRpcMessage = OpenStruct({
  jsonrpc: Schema.Literal("2.0"),
  id: Schema.optional(Schema.NullOr(RequestId)),
  method: Schema.optional(Schema.String),
  params: Schema.optional(Schema.Unknown),
  result: Schema.optional(Schema.Unknown),
  error: Schema.optional(JsonRpcErrorObject)
})

/**
 * @since 0.1.0
 * @category models
 */
export type JsonRpcMessage = typeof JsonRpcMessage.Type

/**
 * An outbound message: what the client writes.
 *
 * @since 0.1.0
 * @category models
 */
export type OutboundMessage =
  | { readonly jsonrpc: "2.0"; readonly id: RequestId; readonly method: string; readonly params?: JsonObject }
  | { readonly jsonrpc: "2.0"; readonly method: string; readonly params?: JsonObject }
  | { readonly jsonrpc: "2.0"; readonly id: RequestId; readonly result: unknown }
  | {
    readonly jsonrpc: "2.0"
    readonly id: RequestId
    readonly error: { readonly code: number; readonly message: string; readonly data?: unknown }
  }

/**
 * The decoder of a wire schema: the schemas are open, so every field the schema does not name is kept. Build it
 * once (at module level) and reuse it: a synchronous decode answers with an `Exit`, no fiber work.
 *
 * @since 0.1.0
 * @category decoding
 */
export const decodeWire = <A>(schema: Schema.Decoder<A>): (value: unknown) => Effect.Effect<A, Schema.SchemaError> =>
  Schema.decodeUnknownEffect(schema, { errors: "first" })

/**
 * @since 0.1.0
 * @category decoding
 */
export const isRecord = (value: unknown): value is JsonObject =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/**
 * A JSON-RPC request id: a string or a number.
 *
 * @since 0.3.0
 * @category decoding
 */
export const isRequestId = (value: unknown): value is RequestId => typeof value === "string" || typeof value === "number"

/**
 * Read a JSON object's field, or `undefined`.
 *
 * @since 0.1.0
 * @category decoding
 */
export const field = (value: unknown, key: string): unknown => isRecord(value) ? value[key] : undefined
