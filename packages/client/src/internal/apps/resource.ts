/**
 * Finding and reading a tool's App: the `ui://` URI in the tool's `_meta`, the resource read with
 * `resources/read` (bounded, media type checked), and its `_meta.ui` merged from the listing and the content.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import type * as McpClient from "../../McpClient.js"
import type { McpClientError } from "../../McpError.js"
import type { JsonObject, Resource, ResourceContents, Tool } from "../../McpSchema.js"
import { MIME_TYPE } from "./capability.js"
import { McpAppsError } from "./errors.js"

/** The resource's `_meta.ui` as the host reads it. @internal */
export interface ResourceUi {
  readonly csp?: {
    readonly connectDomains?: ReadonlyArray<string> | undefined
    readonly resourceDomains?: ReadonlyArray<string> | undefined
    readonly frameDomains?: ReadonlyArray<string> | undefined
    readonly baseUriDomains?: ReadonlyArray<string> | undefined
  } | undefined
  readonly permissions?: {
    readonly camera?: object | undefined
    readonly microphone?: object | undefined
    readonly geolocation?: object | undefined
    readonly clipboardWrite?: object | undefined
  } | undefined
  readonly domain?: string | undefined
  readonly prefersBorder?: boolean | undefined
  /** A `sandbox` value the server asks for (never widened past the host's allow-list). */
  readonly sandbox?: string | undefined
}

/** A tool's App, read and checked. @internal */
export interface AppResource {
  readonly uri: string
  readonly html: string
  readonly ui: ResourceUi
}

/** @internal */
export interface ReadOptions {
  /** The largest App document accepted, in UTF-8 bytes (default 5 MiB). */
  readonly maxResourceBytes?: number | undefined
}

/** @internal */
export const DEFAULT_MAX_RESOURCE_BYTES = 5 * 1024 * 1024

const MAX_URI_LENGTH = 2048

const isObject = (u: unknown): u is Readonly<Record<string, unknown>> =>
  typeof u === "object" && u !== null && !Array.isArray(u)

/**
 * The UI resource URI a tool names: `_meta.ui.resourceUri`, else the deprecated flat `_meta["ui/resourceUri"]`;
 * `undefined` when it names none. The URI is not checked here (`checkUiUri`).
 *
 * @internal
 */
export const resourceUriOf = (tool: { readonly _meta?: unknown }): string | undefined => {
  const meta = isObject(tool._meta) ? tool._meta : undefined
  const ui = isObject(meta?.["ui"]) ? meta["ui"] : undefined
  const nested = ui?.["resourceUri"]
  if (typeof nested === "string") return nested
  const flat = meta?.["ui/resourceUri"]
  return typeof flat === "string" ? flat : undefined
}

/**
 * Whether a `ui://` URI is plain: the scheme, a host, a path without `.`/`..` segments (raw or percent-encoded),
 * without backslashes, encoded separators, whitespace or control characters. A server that maps the path onto
 * its files cannot be walked out of its folder by a URI the host passed on. Returns why not, or `undefined`.
 *
 * @internal
 */
export const uiUriProblem = (uri: string): string | undefined => {
  if (!uri.startsWith("ui://")) return "not a ui:// URI"
  if (uri.length > MAX_URI_LENGTH) return `longer than ${MAX_URI_LENGTH} characters`
  if (/[\u0000-\u0020\u007f\\]/.test(uri)) return "whitespace, a control character or a backslash"
  if (/%(2e|2f|5c|00)/i.test(uri)) return "a percent-encoded dot, slash, backslash or NUL"
  const rest = uri.slice("ui://".length).split(/[?#]/)[0] ?? ""
  const [host, ...segments] = rest.split("/")
  if (host === undefined || host.length === 0) return "no host"
  if (host === "." || host === "..") return "a dot segment"
  if (segments.some((segment) => segment === "." || segment === "..")) return "a dot segment"
  return undefined
}

/**
 * The tool's UI URI, checked; fails with `no-ui` or `invalid-uri`.
 *
 * @internal
 */
export const checkedUri = (tool: Tool): Effect.Effect<string, McpAppsError> => {
  const uri = resourceUriOf(tool)
  if (uri === undefined) {
    return Effect.fail(new McpAppsError({ reason: "no-ui", detail: "the tool names no UI resource", subject: tool.name }))
  }
  const problem = uiUriProblem(uri)
  return problem === undefined
    ? Effect.succeed(uri)
    : Effect.fail(new McpAppsError({ reason: "invalid-uri", detail: `${JSON.stringify(uri)}: ${problem}`, subject: tool.name }))
}

/** Whether a media type is the App's (`text/html;profile=mcp-app`, parameters' spacing and case aside). @internal */
export const isAppMediaType = (mimeType: string | undefined): boolean => {
  if (mimeType === undefined) return false
  const [type, ...params] = mimeType.split(";").map((part) => part.trim().toLowerCase())
  return type === "text/html" && params.length === 1 && params[0]?.replace(/\s*=\s*/, "=") === "profile=mcp-app"
}

/** A record's `_meta.ui`, when it is an object. */
const uiMetaOf = (item: { readonly _meta?: unknown } | undefined): JsonObject => {
  const meta = isObject(item?._meta) ? item._meta : undefined
  const ui = meta?.["ui"]
  return isObject(ui) ? (ui as JsonObject) : {}
}

/**
 * The resource's `_meta.ui`: the listing's, with the content item's fields over it (the spec: the content item
 * wins; the host checks both).
 *
 * @internal
 */
export const mergeUi = (listed: { readonly _meta?: unknown } | undefined, content: { readonly _meta?: unknown }): ResourceUi =>
  ({ ...uiMetaOf(listed), ...uiMetaOf(content) }) as ResourceUi

/** The HTML of the content item, within the bound; fails with `too-large` or `invalid-resource`. */
const htmlOf = (item: ResourceContents, uri: string, maxBytes: number): Effect.Effect<string, McpAppsError> => {
  const tooLarge = (size: number) =>
    new McpAppsError({ reason: "too-large", detail: `${size} bytes, past maxResourceBytes (${maxBytes})`, subject: uri })
  if ("text" in item && typeof item.text === "string") {
    // The cheap bound first: a string longer than the budget in UTF-16 units is past it in UTF-8 bytes too.
    if (item.text.length > maxBytes) return Effect.fail(tooLarge(item.text.length))
    // n UTF-16 units take at most 3n UTF-8 bytes: only a string that could be past the budget is measured.
    const size = item.text.length * 3 <= maxBytes ? item.text.length : new TextEncoder().encode(item.text).byteLength
    return size > maxBytes ? Effect.fail(tooLarge(size)) : Effect.succeed(item.text)
  }
  const blob: unknown = Reflect.get(item, "blob")
  if (typeof blob === "string") {
    const size = Math.floor((blob.length * 3) / 4)
    if (size > maxBytes) return Effect.fail(tooLarge(size))
    return Effect.try({
      try: () => {
        const binary = atob(blob)
        const bytes = new Uint8Array(binary.length)
        for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i)
        return new TextDecoder("utf-8", { fatal: true }).decode(bytes)
      },
      catch: () => new McpAppsError({ reason: "invalid-resource", detail: "the blob is not base64 UTF-8 text", subject: uri })
    })
  }
  return Effect.fail(new McpAppsError({ reason: "invalid-resource", detail: "the content has no text", subject: uri }))
}

/**
 * Reads the tool's App: the URI checked, `resources/read`, the one content item of that URI with the App media
 * type, its HTML within `maxResourceBytes`, and `_meta.ui` merged with the `resources/list` entry's (a server
 * whose list cannot be read is taken at the content item's word).
 *
 * @internal
 */
export const readApp = (
  client: McpClient.Service,
  tool: Tool,
  options: ReadOptions = {}
): Effect.Effect<AppResource, McpAppsError | McpClientError> =>
  Effect.gen(function*() {
    const uri = yield* checkedUri(tool)
    const maxBytes = options.maxResourceBytes ?? DEFAULT_MAX_RESOURCE_BYTES
    const read = yield* client.readResource(uri)
    const item = read.contents.find((content) => content.uri === uri)
    if (item === undefined) {
      return yield* new McpAppsError({ reason: "invalid-resource", detail: "resources/read gave no content of this URI", subject: uri })
    }
    if (!isAppMediaType(item.mimeType)) {
      return yield* new McpAppsError({
        reason: "invalid-resource",
        detail: `media type ${JSON.stringify(item.mimeType ?? null)}, not ${MIME_TYPE}`,
        subject: uri
      })
    }
    const html = yield* htmlOf(item, uri, maxBytes)
    const listed: Resource | undefined = yield* client.listResources().pipe(
      Effect.map((resources) => resources.find((resource) => resource.uri === uri)),
      Effect.orElseSucceed(() => undefined)
    )
    return { uri, html, ui: mergeUi(listed, item) }
  })
