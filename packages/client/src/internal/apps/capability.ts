/**
 * The MCP Apps extension's declaration in the client's capabilities, both eras (legacy `initialize`, modern
 * per-request `_meta`): the fulfiller's capabilities are what every envelope and `initialize` declare.
 *
 * @internal
 */
import type * as InputFulfiller from "../../InputFulfiller.js"
import type { JsonObject } from "../../McpSchema.js"

/** The extension's identifier, the key under `capabilities.extensions`. @internal */
export const EXTENSION_ID = "io.modelcontextprotocol/ui"

/** The media type of an App's HTML resource. @internal */
export const MIME_TYPE = "text/html;profile=mcp-app"

/** What `apps` takes on the client: `true`, or the media types to declare. @internal */
export type AppsOption = boolean | { readonly mimeTypes?: ReadonlyArray<string> | undefined } | undefined

/** The extension's settings as declared, or `undefined` when the client does not host Apps. @internal */
export const declaration = (option: AppsOption): JsonObject | undefined => {
  if (option === undefined || option === false) return undefined
  const mimeTypes = option === true || option.mimeTypes === undefined ? [MIME_TYPE] : [...option.mimeTypes]
  return { mimeTypes }
}

/** The fulfiller, whose capabilities also declare the extension when `apps` is on. @internal */
export const declare = (fulfiller: InputFulfiller.Service, option: AppsOption): InputFulfiller.Service => {
  const settings = declaration(option)
  if (settings === undefined) return fulfiller
  return {
    ...fulfiller,
    capabilities: (era) => {
      const base = fulfiller.capabilities(era)
      return { ...base, extensions: { ...base.extensions, [EXTENSION_ID]: settings } }
    }
  }
}
