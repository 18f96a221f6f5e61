/**
 * The documents of the Server Cards extension (SEP-2127), decoded with every unknown field kept: a card or a
 * catalog from a newer draft passes through whole, and only the fields below are checked.
 *
 * Required of a card: `name` and `version` (what a server's `serverInfo` also says). Everything else is optional
 * here, even where the extension's schema says "required" (`description`, `$schema`): an older draft's card still
 * decodes, and nothing is decided on those fields.
 *
 * @internal
 */
import * as Schema from "effect/Schema"
import { Icon, JsonObject, OpenStruct } from "../../McpSchema.js"

/** The media type of a Server Card, and of a catalog entry that points at one. @internal */
export const CARD_MEDIA_TYPE = "application/mcp-server-card+json"

/** The media type of an AI Catalog. @internal */
export const CATALOG_MEDIA_TYPE = "application/ai-catalog+json"

/** A URL variable or a header of a remote: described, never filled from the card for a secret. */
const inputFields = {
  description: Schema.optional(Schema.String),
  isRequired: Schema.optional(Schema.Boolean),
  isSecret: Schema.optional(Schema.Boolean),
  format: Schema.optional(Schema.String),
  default: Schema.optional(Schema.String),
  placeholder: Schema.optional(Schema.String),
  value: Schema.optional(Schema.String),
  choices: Schema.optional(Schema.Array(Schema.String))
}

/** @internal */
export const Input = OpenStruct(inputFields)

/** @internal */
export const KeyValueInput = OpenStruct({
  ...inputFields,
  name: Schema.String,
  variables: Schema.optional(Schema.Record(Schema.String, Input))
})

/** One HTTP endpoint of the server. `type` is a string (not a closed list): a newer transport name decodes. @internal */
export const Remote = OpenStruct({
  type: Schema.String,
  url: Schema.String,
  headers: Schema.optional(Schema.Array(KeyValueInput)),
  variables: Schema.optional(Schema.Record(Schema.String, Input)),
  supportedProtocolVersions: Schema.optional(Schema.Array(Schema.String))
})

/** @internal */
export const Repository = OpenStruct({
  url: Schema.String,
  source: Schema.String,
  subfolder: Schema.optional(Schema.String),
  id: Schema.optional(Schema.String)
})

/** A tool as the SEP's first draft listed it (later drafts leave tools to `tools/list`). @internal */
export const CardTool = OpenStruct({ name: Schema.String })

/** @internal */
export const ServerCard = OpenStruct({
  $schema: Schema.optional(Schema.String),
  name: Schema.String,
  version: Schema.String,
  description: Schema.optional(Schema.String),
  title: Schema.optional(Schema.String),
  websiteUrl: Schema.optional(Schema.String),
  repository: Schema.optional(Repository),
  icons: Schema.optional(Schema.Array(Icon)),
  remotes: Schema.optional(Schema.Array(Remote)),
  tools: Schema.optional(Schema.Array(CardTool)),
  _meta: Schema.optional(JsonObject)
})

/** One entry of a catalog: any artifact type; the MCP ones carry a card's `url` or the card itself in `data`. @internal */
export const CatalogEntry = OpenStruct({
  identifier: Schema.String,
  type: Schema.String,
  url: Schema.optional(Schema.String),
  data: Schema.optional(Schema.Unknown)
})

/** An AI Catalog (or the extension's earlier MCP Catalog, the same shape). @internal */
export const Catalog = OpenStruct({
  specVersion: Schema.String,
  entries: Schema.Array(CatalogEntry)
})
