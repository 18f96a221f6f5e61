/**
 * The request envelope of each era: modern requests carry protocol version, client info and capabilities in
 * `params._meta`; legacy ones go as they are, over the `initialize`d session.
 */
import type * as EraResolver from "../../EraResolver.js"
import { isRecord, type JsonObject, MetaKey } from "../../McpSchema.js"
import type { ClientContext } from "./context.js"

/**
 * The `_meta` of a modern request (the envelope's reserved keys win over the caller's).
 *
 * @internal
 */
export const modernMeta = (context: ClientContext, protocolVersion: string, extra?: JsonObject): JsonObject => {
  if (extra !== undefined) return buildMeta(context, protocolVersion, extra)
  // Without the caller's keys the envelope is the same for every request of a client: built once.
  let byVersion = plainMetas.get(context)
  if (byVersion === undefined) plainMetas.set(context, byVersion = new Map())
  let meta = byVersion.get(protocolVersion)
  if (meta === undefined) byVersion.set(protocolVersion, meta = buildMeta(context, protocolVersion, undefined))
  return meta
}

const plainMetas = new WeakMap<ClientContext, Map<string, JsonObject>>()

const buildMeta = (context: ClientContext, protocolVersion: string, extra: JsonObject | undefined): JsonObject => ({
  ...extra,
  ...(context.options.logLevel === undefined ? {} : { [MetaKey.logLevel]: context.options.logLevel }),
  [MetaKey.protocolVersion]: protocolVersion,
  [MetaKey.clientInfo]: context.clientInfo,
  [MetaKey.clientCapabilities]: context.fulfiller.capabilities("modern")
})

/**
 * The params as sent in this era, with the caller's `meta` merged into `_meta`.
 *
 * @internal
 */
export const envelope = (
  context: ClientContext,
  info: EraResolver.EraInfo,
  params: JsonObject | undefined,
  meta: JsonObject | undefined
): JsonObject | undefined => {
  const callerMeta = isRecord(params?.["_meta"]) ? { ...params["_meta"], ...meta } : meta
  if (info.era === "modern") return { ...params, _meta: modernMeta(context, info.protocolVersion, callerMeta) }
  if (callerMeta === undefined || Object.keys(callerMeta).length === 0) {
    if (params === undefined) return undefined
    const { _meta: _, ...rest } = params
    return rest
  }
  return { ...params, _meta: callerMeta }
}
