/**
 * Tools that behave the same in both eras (apart from where their notifications go,
 * which `Core` decides). Tools that need client input or logging live in the era modules.
 */
import { log } from "./scripted-context.js"
import type { Outcome, RequestContext } from "./scripted-context.js"
import { text } from "./scripted-catalog.js"
import { ErrorCode, RpcError, getCount, getString, isObject, isRequestId, sleep } from "./scripted-json.js"
import type { JsonObject } from "./scripted-json.js"
import type { Core } from "./scripted-server.js"

export type Tool = (core: Core, context: RequestContext, args: JsonObject) => Outcome | Promise<Outcome>

const requireString = (args: JsonObject, key: string): string => {
  const value = getString(args, key)
  if (value === undefined) throw new RpcError(ErrorCode.InvalidParams, `Argument "${key}" must be a string`)
  return value
}

/** Waits `ms` (cancellable: a cancelled call is never answered), then answers `reply`. */
const wait = async (context: RequestContext, args: JsonObject, reply: string): Promise<Outcome> => {
  await sleep(getCount(args, "ms", 0), context.signal)
  return text(reply)
}

const progress: Tool = async (core, context, args) => {
  const steps = getCount(args, "steps", 3)
  const ms = getCount(args, "ms", 10)
  const meta = context.params["_meta"]
  const token = isObject(meta) ? meta["progressToken"] : undefined
  for (let step = 1; step <= steps; step++) {
    await sleep(ms, context.signal)
    if (isRequestId(token)) {
      core.notify("notifications/progress", { progressToken: token, progress: step, total: steps, message: `step ${step}` })
    }
  }
  if (isRequestId(token)) {
    core.notify("notifications/progress", { progressToken: "foreign-token", progress: 1, total: 1, message: "foreign" })
    context.after(() =>
      core.notify("notifications/progress", { progressToken: token, progress: steps + 1, total: steps, message: "late" })
    )
  }
  return text("progress done")
}

const listKind = (value: string | undefined): "tools" | "prompts" | "resources" => {
  if (value === "tools" || value === "prompts" || value === "resources") return value
  throw new RpcError(ErrorCode.InvalidParams, 'Argument "kind" must be "tools", "prompts" or "resources"')
}

const endHow = (value: string | undefined): "result" | "cancel" | "both" => {
  if (value === undefined) return "both"
  if (value === "result" || value === "cancel" || value === "both") return value
  throw new RpcError(ErrorCode.InvalidParams, 'Argument "how" must be "result", "cancel" or "both"')
}

export const COMMON_TOOLS: Readonly<Record<string, Tool>> = {
  echo: (_core, _context, args) => text(requireString(args, "text")),
  slow: (_core, context, args) => wait(context, args, getString(args, "text") ?? "slow done"),
  slow_write: (_core, context, args) => wait(context, args, "slow done"),
  die: () => {
    // Exit once stderr has taken the line: a loaded machine can leave a write queued, and exit drops it.
    process.stderr.write("dying now\n", () => process.exit(7))
    return new Promise<never>(() => {})
  },
  count: (core) => text(String(core.toolCalls)),
  progress,
  roots_changed_count: (core) => text(String(core.rootsChanged)),
  bad_result_type: () => ({ ...text("weird result"), resultType: "weird" }),
  error: () => {
    throw new RpcError(ErrorCode.InternalError, "tool exploded", { detail: "x" })
  },
  is_error: () => text("failed on purpose", true),
  add_tool: (core) => {
    core.extraTool = true
    return text(`tool extra added (notified ${core.announce("tools")})`)
  },
  list_changed: (core, _context, args) => {
    const kind = listKind(getString(args, "kind"))
    return text(`${kind} list changed (notified ${core.announce(kind)})`)
  },
  touch: (core, _context, args) => {
    const uri = requireString(args, "uri")
    return text(`touched ${uri} (notified ${core.touch(uri)})`)
  },
  end_listen: (core, _context, args) => text(`ended ${core.endListens(endHow(getString(args, "how")))} subscriptions`),
  extra: (core) => {
    if (!core.extraTool) throw new RpcError(ErrorCode.InvalidParams, "Unknown tool: extra")
    return text("extra")
  }
}

/** Looks a tool up in the era's own table, then in the common one. */
export const callTool = (
  core: Core,
  context: RequestContext,
  eraTools: Readonly<Record<string, Tool>>
): Outcome | Promise<Outcome> => {
  const name = getString(context.params, "name")
  if (name === undefined) throw new RpcError(ErrorCode.InvalidParams, "tools/call needs a name")
  const rawArgs = context.params["arguments"]
  if (rawArgs !== undefined && !isObject(rawArgs)) throw new RpcError(ErrorCode.InvalidParams, "arguments must be an object")
  const table = Object.hasOwn(eraTools, name) ? eraTools : Object.hasOwn(COMMON_TOOLS, name) ? COMMON_TOOLS : undefined
  const tool = table?.[name]
  if (tool === undefined) throw new RpcError(ErrorCode.InvalidParams, `Unknown tool: ${name}`, { name })
  log(`tools/call ${name} (id ${JSON.stringify(context.id)})`)
  return tool(core, context, rawArgs ?? {})
}
