/**
 * The legacy era (2025-11-25 and earlier): the `initialize` handshake, a session that
 * remembers the client's capabilities and log level, real server-to-client requests
 * (`elicitation/create`, `sampling/createMessage`, `roots/list`, `ping`) and unsolicited
 * change notifications. No `resultType`, no cache hints.
 */
import { ClientError, NO_ANSWER, log } from "./scripted-context.js"
import type { Handler, Outcome, RequestContext } from "./scripted-context.js"
import {
  ASK_URI,
  COMPLETION,
  PROMPTS,
  RESOURCES,
  RESOURCE_TEMPLATES,
  SAMPLING_REQUEST,
  asElicitResult,
  asRootsResult,
  asSamplingResult,
  confirmElicitation,
  declares,
  declaresFormElicitation,
  declaresUrlElicitation,
  describeAnswer,
  describeAnswers,
  describeConfirm,
  describeRoots,
  describeSample,
  describeUrlAnswer,
  isKnownResource,
  paginate,
  promptMessages,
  questionElicitation,
  resourceContents,
  text,
  toolDefinitions,
  urlElicitation
} from "./scripted-catalog.js"
import {
  ErrorCode,
  RpcError,
  asLogLevel,
  atOrAbove,
  getCount,
  getObject,
  getString,
  isObject,
  sleep
} from "./scripted-json.js"
import type { JsonObject } from "./scripted-json.js"
import type { Core } from "./scripted-server.js"
import { callTool } from "./scripted-tools.js"
import type { Tool } from "./scripted-tools.js"

const CAPABILITIES: JsonObject = {
  logging: {},
  completions: {},
  tools: { listChanged: true },
  resources: { subscribe: true, listChanged: true },
  prompts: { listChanged: true }
}

const ERROR_MESSAGES: Readonly<Record<number, string>> = {
  [ErrorCode.MethodNotFound]: "Method not found",
  [ErrorCode.InvalidParams]: "Invalid params",
  [ErrorCode.InvalidRequest]: "Invalid Request",
  [ErrorCode.InternalError]: "Internal error"
}

/** The `--discover-error` answer, also given to every request (but ping) before `initialize`. */
const notInitialized = (core: Core): RpcError => {
  const code = core.options.discoverErrorCode
  return new RpcError(code, ERROR_MESSAGES[code] ?? "Server not initialized")
}

/** `mode: "form"` exists from 2025-11-25 on. */
const withMode = (core: Core): boolean => core.legacy.version === "2025-11-25"

// ---------------------------------------------------------------------------
// Server-to-client requests

const elicitConfirm = async (core: Core, context: RequestContext): Promise<string> =>
  describeConfirm(
    asElicitResult(
      await core.requestClient("elicitation/create", confirmElicitation(withMode(core)), context.signal),
      "elicitation/create"
    )
  )

const listRoots = async (core: Core, context: RequestContext): Promise<string> =>
  describeRoots(asRootsResult(await core.requestClient("roots/list", undefined, context.signal), "roots/list"))

/** Runs `body`; an error the client answered with becomes an `isError` result saying `what` failed. */
const viaClient = async (what: string, body: () => Promise<string>): Promise<Outcome> => {
  try {
    return text(await body())
  } catch (error) {
    if (error instanceof ClientError) return text(`${what}: ${error.code} ${error.message}`, true)
    throw error
  }
}

// ---------------------------------------------------------------------------
// URL-mode elicitation

/** A stranger's id, sent before the real one: a client must ignore it. */
const UNKNOWN_ID = "somebody-elses-elicitation"

const completeElicitation = (core: Core, elicitationId: string): void =>
  core.notify("notifications/elicitation/complete", { elicitationId })

/**
 * `elicitation/create` in URL mode; after an accept, waits `complete_ms` (default 1000), sends the completion
 * (after an unknown id, and once more as a duplicate), and answers a little later.
 */
const urlElicit: Tool = (core, context, args) => {
  if (!declaresUrlElicitation(core.legacy.capabilities)) return text("no url elicitation capability")
  return viaClient("elicitation failed", async () => {
    const elicitationId = `link-${context.id}`
    const params = urlElicitation(args, elicitationId)
    const result = asElicitResult(await core.requestClient("elicitation/create", params, context.signal), "elicitation/create")
    if (result["action"] === "accept") {
      await sleep(getCount(args, "complete_ms", 1000), context.signal)
      completeElicitation(core, UNKNOWN_ID)
      completeElicitation(core, elicitationId)
      completeElicitation(core, elicitationId)
      await sleep(300, context.signal)
    }
    return describeUrlAnswer(result)
  })
}

/**
 * `-32042` with one URL elicitation, whose completion (with `wrong_id`: a stranger's id instead) is sent
 * `complete_ms` (default 1000) later; a call once `refusals` (default 1) of them were completed succeeds.
 */
const urlRequired: Tool = (core, _context, args) => {
  if (!declaresUrlElicitation(core.legacy.capabilities)) return text("no url elicitation capability")
  const issued = core.legacy.urlElicitations
  const refusals = issued.size
  const completed = [...issued.values()].filter((done) => done).length
  if (completed >= getCount(args, "refusals", 1)) return text(`url required: done after ${refusals} refusal(s)`)
  const elicitationId = `required-${refusals + 1}`
  issued.set(elicitationId, false)
  setTimeout(() => {
    if (args["wrong_id"] === true) return completeElicitation(core, UNKNOWN_ID)
    issued.set(elicitationId, true)
    completeElicitation(core, elicitationId)
  }, getCount(args, "complete_ms", 1000))
  throw new RpcError(ErrorCode.UrlElicitationRequired, "This request requires more information.", {
    elicitations: [urlElicitation(args, elicitationId)]
  })
}

// ---------------------------------------------------------------------------
// Tools

const LEGACY_TOOLS: Readonly<Record<string, Tool>> = {
  log: (core, _context, args) => {
    const level = asLogLevel(args["level"] ?? "info")
    if (level === undefined) throw new RpcError(ErrorCode.InvalidParams, 'Argument "level" must be a log level')
    const threshold = core.legacy.logLevel
    if (threshold !== undefined && !atOrAbove(level, threshold)) return text("log suppressed")
    core.notify("notifications/message", { level, logger: "scripted", data: "hello log" })
    return text("log sent")
  },

  confirm: (core, context) => {
    if (!declaresFormElicitation(core.legacy.capabilities)) return text("no elicitation capability")
    return viaClient("elicitation failed", () => elicitConfirm(core, context))
  },

  multi: (core, context, args) => {
    if (!declaresFormElicitation(core.legacy.capabilities)) return text("no elicitation capability")
    const rounds = getCount(args, "rounds", 2)
    return viaClient("elicitation failed", async () => {
      const answers: Array<string> = []
      for (let round = 1; round <= rounds; round++) {
        const params = questionElicitation(round, withMode(core))
        const result = await core.requestClient("elicitation/create", params, context.signal)
        answers.push(describeAnswer(asElicitResult(result, `q${round}`)))
      }
      return describeAnswers(answers)
    })
  },

  state_only: () => text("state rounds done"),

  /** Keeps asking (10 ms apart) until the call is cancelled or the client answers with an error. */
  forever: (core, context) =>
    viaClient("elicitation failed", async () => {
      for (;;) {
        await elicitConfirm(core, context)
        await sleep(10, context.signal)
      }
    }),

  sample: (core, context) => {
    if (!declares(core.legacy.capabilities, "sampling")) return text("no sampling capability")
    return viaClient("sampling failed", async () => {
      const result = await core.requestClient("sampling/createMessage", SAMPLING_REQUEST, context.signal)
      return describeSample(asSamplingResult(result, "sampling/createMessage"))
    })
  },

  roots: (core, context) => {
    if (!declares(core.legacy.capabilities, "roots")) return text("no roots capability")
    return viaClient("roots/list failed", () => listRoots(core, context))
  },

  both_inputs: (core, context) => {
    if (!declaresFormElicitation(core.legacy.capabilities)) return text("no elicitation capability")
    if (!declares(core.legacy.capabilities, "roots")) return text("no roots capability")
    return viaClient("input failed", async () => {
      const elicited = await elicitConfirm(core, context)
      return `elicit: ${elicited}; roots: ${await listRoots(core, context)}`
    })
  },

  ask_undeclared: (core, context) => viaClient("client refused", () => elicitConfirm(core, context)),

  url_elicit: urlElicit,

  url_required: urlRequired,

  ping_client: (core, context) =>
    viaClient("ping failed", async () => {
      const result = await core.requestClient("ping", undefined, context.signal)
      const empty = isObject(result) && Object.keys(result).length === 0
      return empty ? "pong received" : `pong received (unexpected ${JSON.stringify(result)})`
    })
}

// ---------------------------------------------------------------------------
// Methods

type Method = (core: Core, context: RequestContext) => Outcome | Promise<Outcome>

const discover: Method = async (core, context) => {
  if (core.options.discoverDelayMs > 0) await sleep(core.options.discoverDelayMs, context.signal)
  switch (core.options.profile.discoverInLegacy) {
    case "error":
      throw new RpcError(core.options.discoverErrorCode, ERROR_MESSAGES[core.options.discoverErrorCode] ?? "Method not found")
    case "silent":
      log("ignoring server/discover")
      return NO_ANSWER
    case "exit":
      process.stderr.write("unknown method server/discover\n")
      process.exit(1)
    case "not-discover":
      return { foo: 1 }
  }
}

const initialize: Method = (core, context) => {
  const versions = core.options.profile.legacyVersions
  const requested = getString(context.params, "protocolVersion")
  const echoed = requested !== undefined && versions.includes(requested) ? requested : undefined
  const version = core.options.legacyVersion ?? echoed ?? versions[0] ?? "2025-11-25"
  core.legacy.initialized = true
  core.legacy.version = version
  core.legacy.capabilities = getObject(context.params, "capabilities")
  log(`initialize: client asked for ${String(requested)}, answering ${version}`)
  return {
    protocolVersion: version,
    capabilities: CAPABILITIES,
    serverInfo: { name: "scripted-legacy", version: "0.0.1" },
    instructions: "scripted legacy server"
  }
}

const requireUri = (context: RequestContext): string => {
  const uri = getString(context.params, "uri")
  if (uri === undefined) throw new RpcError(ErrorCode.InvalidParams, `${context.method} needs a uri`)
  return uri
}

const promptGet: Method = async (core, context) => {
  const name = getString(context.params, "name")
  if (name !== "hello") throw new RpcError(ErrorCode.InvalidParams, `Unknown prompt: ${String(name)}`)
  const args = getObject(context.params, "arguments") ?? {}
  const who = getString(args, "name")
  if (who === undefined) throw new RpcError(ErrorCode.InvalidParams, 'Missing required argument "name"')
  if (args["ask"] !== "yes") return promptMessages(who, "")
  if (!declaresFormElicitation(core.legacy.capabilities)) return promptMessages(who, " (no elicitation capability)")
  return promptMessages(who, ` (${await elicitConfirm(core, context)})`)
}

const resourceRead: Method = async (core, context) => {
  const uri = requireUri(context)
  if (!isKnownResource(uri)) throw new RpcError(ErrorCode.ResourceNotFound, "Resource not found", { uri })
  if (uri !== ASK_URI) return resourceContents(uri)
  if (!declaresFormElicitation(core.legacy.capabilities)) return resourceContents(uri, " (no elicitation capability)")
  return resourceContents(uri, ` (${await elicitConfirm(core, context)})`)
}

const METHODS: Readonly<Record<string, Method>> = {
  "tools/list": (core, context) => {
    const tools = toolDefinitions(core.extraTool, declaresUrlElicitation(core.legacy.capabilities))
    const { page, nextCursor } = paginate(tools, context.params["cursor"], {
      pageSize: core.options.pageSize,
      endless: core.options.endlessPages,
      modern: false
    })
    return { tools: page, ...(nextCursor !== undefined ? { nextCursor } : {}) }
  },
  "tools/call": (core, context) => callTool(core, context, LEGACY_TOOLS),
  "prompts/list": () => ({ prompts: [...PROMPTS] }),
  "prompts/get": promptGet,
  "resources/list": () => ({ resources: [...RESOURCES] }),
  "resources/templates/list": () => ({ resourceTemplates: [...RESOURCE_TEMPLATES] }),
  "resources/read": resourceRead,
  "resources/subscribe": (core, context) => {
    core.legacy.subscriptions.add(requireUri(context))
    return {}
  },
  "resources/unsubscribe": (core, context) => {
    core.legacy.subscriptions.delete(requireUri(context))
    return {}
  },
  "logging/setLevel": (core, context) => {
    const raw = context.params["level"]
    const level = asLogLevel(raw)
    if (level === undefined) throw new RpcError(ErrorCode.InvalidParams, `Invalid log level: ${JSON.stringify(raw ?? null)}`)
    core.legacy.logLevel = level
    return {}
  },
  "completion/complete": () => COMPLETION
}

/** The legacy request handler: discovery, handshake, ping, then the session's method table. */
export const createLegacy =
  (core: Core): Handler =>
  (context) => {
    switch (context.method) {
      case "server/discover":
        return discover(core, context)
      case "initialize":
        return initialize(core, context)
      case "ping":
        return {}
    }
    if (!core.legacy.initialized) throw notInitialized(core)
    const method = Object.hasOwn(METHODS, context.method) ? METHODS[context.method] : undefined
    if (method === undefined) throw new RpcError(ErrorCode.MethodNotFound, "Method not found", { method: context.method })
    return method(core, context)
  }
