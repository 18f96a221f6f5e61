/**
 * The request envelope of each era: modern requests carry protocol version, client info and capabilities in
 * `params._meta`; legacy ones go as they are, over the `initialize`d session.
 */
import type * as EraResolver from "../../EraResolver.js"
import { type ClientCapabilities, isRecord, type JsonObject, MetaKey } from "../../McpSchema.js"
import * as ModernTasks from "../modernTasks.js"
import type { ClientContext } from "./context.js"

/**
 * The `_meta` of a modern request (the envelope's reserved keys win over the caller's).
 *
 * @internal
 */
export const modernMeta = (
  context: ClientContext,
  protocolVersion: string,
  extra?: JsonObject,
  info?: EraResolver.EraInfo
): JsonObject => {
  if (extra !== undefined) return buildMeta(context, protocolVersion, extra, info)
  // Without the caller's keys the envelope is the same for every request of a session (or, before one is
  // settled, of a client and version): built once.
  if (info !== undefined) {
    let meta = sessionMetas.get(info)
    if (meta === undefined) sessionMetas.set(info, meta = buildMeta(context, protocolVersion, undefined, info))
    return meta
  }
  let byVersion = plainMetas.get(context)
  if (byVersion === undefined) plainMetas.set(context, byVersion = new Map())
  let meta = byVersion.get(protocolVersion)
  if (meta === undefined) byVersion.set(protocolVersion, meta = buildMeta(context, protocolVersion, undefined, undefined))
  return meta
}

const plainMetas = new WeakMap<ClientContext, Map<string, JsonObject>>()
const sessionMetas = new WeakMap<EraResolver.EraInfo, JsonObject>()

const buildMeta = (
  context: ClientContext,
  protocolVersion: string,
  extra: JsonObject | undefined,
  info: EraResolver.EraInfo | undefined
): JsonObject => ({
  ...extra,
  ...(context.options.logLevel === undefined ? {} : { [MetaKey.logLevel]: context.options.logLevel }),
  [MetaKey.protocolVersion]: protocolVersion,
  [MetaKey.clientInfo]: context.clientInfo,
  [MetaKey.clientCapabilities]: info === undefined ? context.fulfiller.capabilities("modern") : capabilitiesFor(context, info)
})

const withTasks = new WeakMap<EraResolver.EraInfo, ClientCapabilities>()

/**
 * The capabilities of a modern request: the hooks', plus the tasks extension when the server offers it (the
 * client then follows a `resultType: "task"` answer). Computed once per settled session.
 */
const capabilitiesFor = (context: ClientContext, info: EraResolver.EraInfo): ClientCapabilities => {
  const known = withTasks.get(info)
  if (known !== undefined) return known
  const base = context.fulfiller.capabilities("modern")
  const capabilities = ModernTasks.serverOffersTasks(info.capabilities)
    ? { ...base, extensions: { ...base.extensions, [ModernTasks.TASKS_EXTENSION]: {} } }
    : base
  withTasks.set(info, capabilities)
  return capabilities
}

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
  if (info.era === "modern") return { ...params, _meta: modernMeta(context, info.protocolVersion, callerMeta, info) }
  if (callerMeta === undefined || Object.keys(callerMeta).length === 0) {
    if (params === undefined) return undefined
    const { _meta: _, ...rest } = params
    return rest
  }
  return { ...params, _meta: callerMeta }
}
