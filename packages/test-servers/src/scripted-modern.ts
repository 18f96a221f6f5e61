/**
 * The modern era (2026-07-28): stateless requests that each carry their version and
 * capabilities in `params._meta`, `server/discover`, `resultType` on every result, cache
 * hints, MRTR (`input_required`) instead of server-to-client requests, and
 * `subscriptions/listen`.
 */
import { NO_ANSWER } from "./scripted-context.js"
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
import { ErrorCode, RpcError, asLogLevel, atOrAbove, getCount, getObject, getString, isObject, sleep } from "./scripted-json.js"
import type { Json, JsonObject } from "./scripted-json.js"
import type { Core } from "./scripted-server.js"
import { callTool } from "./scripted-tools.js"
import type { Tool } from "./scripted-tools.js"

const PROTOCOL_VERSION = "io.modelcontextprotocol/protocolVersion"
const CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities"
const LOG_LEVEL = "io.modelcontextprotocol/logLevel"
const SERVER_INFO: JsonObject = { "io.modelcontextprotocol/serverInfo": { name: "scripted", version: "0.0.1" } }

const CAPABILITIES: JsonObject = {
  tools: { listChanged: true },
  resources: { subscribe: true, listChanged: true },
  prompts: { listChanged: true },
  logging: {},
  completions: {}
}

/** Adds `resultType` (default `"complete"`) and `_meta.serverInfo` to a modern result. */
export const decorateModern = (result: JsonObject): JsonObject => {
  const meta = result["_meta"]
  return {
    ...result,
    resultType: result["resultType"] ?? "complete",
    _meta: { ...SERVER_INFO, ...(isObject(meta) ? meta : {}) }
  }
}

// ---------------------------------------------------------------------------
// Request envelope

const metaOf = (context: RequestContext): JsonObject | undefined => getObject(context.params, "_meta")

/** The request's own `clientCapabilities` (already checked to be present by the envelope). */
const capabilitiesOf = (context: RequestContext): JsonObject => getObject(metaOf(context), CLIENT_CAPABILITIES) ?? {}

/** Rejects a request whose `_meta` is malformed (`-32602`) or whose version is unsupported (`-32022`). */
const checkEnvelope = (core: Core, context: RequestContext): void => {
  const meta = metaOf(context)
  const missing = [
    ...(getString(meta, PROTOCOL_VERSION) === undefined ? [PROTOCOL_VERSION] : []),
    ...(getObject(meta, CLIENT_CAPABILITIES) === undefined ? [CLIENT_CAPABILITIES] : [])
  ]
  if (missing.length > 0) {
    throw new RpcError(ErrorCode.InvalidParams, `Missing required _meta: ${missing.join(", ")}`, { missing })
  }
  const logLevel = meta?.[LOG_LEVEL]
  if (logLevel !== undefined && asLogLevel(logLevel) === undefined) {
    throw new RpcError(ErrorCode.InvalidParams, `Invalid log level: ${JSON.stringify(logLevel)}`)
  }
  const requested = getString(meta, PROTOCOL_VERSION) ?? ""
  if (!core.options.profile.modernVersions.includes(requested)) {
    throw new RpcError(ErrorCode.UnsupportedProtocolVersion, "Unsupported protocol version", {
      supported: [...core.options.profile.advertisedVersions],
      requested
    })
  }
}

// ---------------------------------------------------------------------------
// MRTR helpers

const inputRequired = (inputRequests: JsonObject | undefined, requestState: string | undefined): JsonObject => ({
  resultType: "input_required",
  ...(inputRequests !== undefined ? { inputRequests } : {}),
  ...(requestState !== undefined ? { requestState } : {})
})

const elicit = (params: JsonObject): JsonObject => ({ method: "elicitation/create", params })

/** The echoed `requestState`, if any (a non-string one is `-32602`). */
const stateOf = (context: RequestContext): string | undefined => {
  const state = context.params["requestState"]
  if (state === undefined || typeof state === "string") return state
  throw new RpcError(ErrorCode.InvalidParams, "requestState must be a string")
}

/** Tools that never send a requestState reject a retry that carries one. */
const expectNoState = (context: RequestContext): void => {
  const state = stateOf(context)
  if (state !== undefined) {
    throw new RpcError(ErrorCode.InvalidParams, "Unexpected requestState: none was sent", { received: state })
  }
}

const wrongState = (expected: string, received: string | undefined): RpcError =>
  new RpcError(ErrorCode.InvalidParams, "Invalid requestState", { expected, received: received ?? null })

/** `inputResponses[key]`, checked with `check`, or undefined when the retry does not carry it. */
const responseFor = (
  context: RequestContext,
  key: string,
  check: (value: Json, where: string) => JsonObject
): JsonObject | undefined => {
  const responses = context.params["inputResponses"]
  if (responses === undefined) return undefined
  if (!isObject(responses)) throw new RpcError(ErrorCode.InvalidParams, "inputResponses must be an object")
  const value = responses[key]
  return value === undefined ? undefined : check(value, key)
}

type ConfirmStep =
  | { readonly kind: "no-capability" }
  | { readonly kind: "ask"; readonly result: JsonObject }
  | { readonly kind: "answer"; readonly answer: string }

/**
 * One "Proceed?" confirmation under `key` with `requestState` = `state`: asks (again) until
 * the retry echoes `state` exactly and carries `inputResponses[key]`.
 */
const confirmStep = (context: RequestContext, key: string, state: string): ConfirmStep => {
  if (!declaresFormElicitation(capabilitiesOf(context))) return { kind: "no-capability" }
  const received = stateOf(context)
  const response = responseFor(context, key, asElicitResult)
  const ask: ConfirmStep = { kind: "ask", result: inputRequired({ [key]: elicit(confirmElicitation(true)) }, state) }
  if (received === undefined && response === undefined) return ask
  if (received !== state) throw wrongState(state, received)
  return response === undefined ? ask : { kind: "answer", answer: describeConfirm(response) }
}

/** `multi`'s state: `r<round>|<JSON array of the answers so far>`. */
const parseMultiState = (state: string): { round: number; answers: Array<string> } => {
  const match = /^r([1-9][0-9]*)\|(.*)$/s.exec(state)
  if (match?.[1] !== undefined && match[2] !== undefined) {
    const round = Number(match[1])
    try {
      const answers = JSON.parse(match[2]) as Json
      if (Array.isArray(answers) && answers.length === round - 1) {
        const strings = answers.filter((answer) => typeof answer === "string")
        if (strings.length === answers.length) return { round, answers: strings }
      }
    } catch {
      // falls through to the error below
    }
  }
  throw wrongState("r<round>|<answers>", state)
}

// ---------------------------------------------------------------------------
// Tools

const MODERN_TOOLS: Readonly<Record<string, Tool>> = {
  log: (core, context, args) => {
    const level = asLogLevel(args["level"] ?? "info")
    if (level === undefined) throw new RpcError(ErrorCode.InvalidParams, 'Argument "level" must be a log level')
    const threshold = asLogLevel(metaOf(context)?.[LOG_LEVEL])
    if (threshold === undefined || !atOrAbove(level, threshold)) return text("log suppressed")
    core.notify("notifications/message", { level, logger: "scripted", data: "hello log" })
    return text("log sent")
  },

  confirm: (_core, context) => {
    const step = confirmStep(context, "confirm", "state-1")
    switch (step.kind) {
      case "no-capability":
        return text("no elicitation capability")
      case "ask":
        return step.result
      case "answer":
        return text(step.answer)
    }
  },

  multi: (_core, context, args) => {
    if (!declaresFormElicitation(capabilitiesOf(context))) return text("no elicitation capability")
    const rounds = getCount(args, "rounds", 2)
    const state = stateOf(context)
    const ask = (round: number, answers: ReadonlyArray<string>) =>
      inputRequired({ [`q${round}`]: elicit(questionElicitation(round, true)) }, `r${round}|${JSON.stringify(answers)}`)
    if (state === undefined) return rounds === 0 ? text(describeAnswers([])) : ask(1, [])
    const { round, answers } = parseMultiState(state)
    const response = responseFor(context, `q${round}`, asElicitResult)
    if (response === undefined) return ask(round, answers)
    const next = [...answers, describeAnswer(response)]
    return round >= rounds ? text(describeAnswers(next)) : ask(round + 1, next)
  },

  state_only: (_core, context, args) => {
    const rounds = getCount(args, "rounds", 1)
    const state = stateOf(context)
    const done = text("state rounds done")
    if (state === undefined) return rounds === 0 ? done : inputRequired(undefined, "s1")
    const match = /^s([1-9][0-9]*)$/.exec(state)
    if (match?.[1] === undefined) throw wrongState("s<round>", state)
    const round = Number(match[1])
    return round >= rounds ? done : inputRequired(undefined, `s${round + 1}`)
  },

  forever: () => inputRequired({ forever: elicit(confirmElicitation(true)) }, "forever"),

  sample: (_core, context) => {
    if (!declares(capabilitiesOf(context), "sampling")) return text("no sampling capability")
    expectNoState(context)
    const response = responseFor(context, "sample", asSamplingResult)
    if (response !== undefined) return text(describeSample(response))
    return inputRequired({ sample: { method: "sampling/createMessage", params: SAMPLING_REQUEST } }, undefined)
  },

  roots: (_core, context) => {
    if (!declares(capabilitiesOf(context), "roots")) return text("no roots capability")
    expectNoState(context)
    const response = responseFor(context, "roots", asRootsResult)
    if (response !== undefined) return text(describeRoots(response))
    return inputRequired({ roots: { method: "roots/list" } }, undefined)
  },

  both_inputs: (_core, context) => {
    const capabilities = capabilitiesOf(context)
    if (!declaresFormElicitation(capabilities)) return text("no elicitation capability")
    if (!declares(capabilities, "roots")) return text("no roots capability")
    const received = stateOf(context)
    const elicited = responseFor(context, "e", asElicitResult)
    const roots = responseFor(context, "r", asRootsResult)
    const ask = inputRequired({ e: elicit(confirmElicitation(true)), r: { method: "roots/list" } }, "both-1")
    if (received === undefined && elicited === undefined && roots === undefined) return ask
    if (received !== "both-1") throw wrongState("both-1", received)
    if (elicited === undefined || roots === undefined) return ask
    return text(`elicit: ${describeConfirm(elicited)}; roots: ${describeRoots(roots)}`)
  },

  ask_undeclared: (_core, context) => {
    expectNoState(context)
    const response = responseFor(context, "undeclared", asElicitResult)
    if (response !== undefined) return text(describeConfirm(response))
    return inputRequired({ undeclared: elicit(confirmElicitation(true)) }, undefined)
  },

  /** `input_required` with a URL elicitation under key `link` (no elicitationId, no state), then the answer. */
  url_elicit: (_core, context, args) => {
    if (!declaresUrlElicitation(capabilitiesOf(context))) return text("no url elicitation capability")
    expectNoState(context)
    const response = responseFor(context, "link", asElicitResult)
    if (response !== undefined) return text(describeUrlAnswer(response))
    return inputRequired({ link: elicit(urlElicitation(args)) }, undefined)
  },

  url_required: () => text("url_required is legacy-only (-32042 has no modern form)", true),

  ping_client: () => text("ping_client is legacy-only", true)
}

// ---------------------------------------------------------------------------
// Methods

type Method = (core: Core, context: RequestContext) => Outcome | Promise<Outcome>

const promptGet: Method = (_core, context) => {
  const name = getString(context.params, "name")
  if (name !== "hello") throw new RpcError(ErrorCode.InvalidParams, `Unknown prompt: ${String(name)}`)
  const args = getObject(context.params, "arguments") ?? {}
  const who = getString(args, "name")
  if (who === undefined) throw new RpcError(ErrorCode.InvalidParams, 'Missing required argument "name"')
  if (args["ask"] !== "yes") return promptMessages(who, "")
  const step = confirmStep(context, "confirm", "prompt-1")
  switch (step.kind) {
    case "no-capability":
      return promptMessages(who, " (no elicitation capability)")
    case "ask":
      return step.result
    case "answer":
      return promptMessages(who, ` (${step.answer})`)
  }
}

const resourceRead: Method = (core, context) => {
  const uri = getString(context.params, "uri")
  if (uri === undefined) throw new RpcError(ErrorCode.InvalidParams, "resources/read needs a uri")
  if (!isKnownResource(uri)) throw new RpcError(ErrorCode.InvalidParams, "Resource not found", { uri })
  if (uri !== ASK_URI) return { ...resourceContents(uri), ...core.cacheHints() }
  const step = confirmStep(context, "confirm", "read-1")
  switch (step.kind) {
    case "no-capability":
      return { ...resourceContents(uri, " (no elicitation capability)"), ...core.cacheHints() }
    case "ask":
      return step.result
    case "answer":
      return { ...resourceContents(uri, ` (${step.answer})`), ...core.cacheHints() }
  }
}

const METHODS: Readonly<Record<string, Method>> = {
  "server/discover": async (core, context) => {
    if (core.options.discoverDelayMs > 0) await sleep(core.options.discoverDelayMs, context.signal)
    return {
      supportedVersions: [...core.options.profile.advertisedVersions],
      capabilities: CAPABILITIES,
      instructions: "scripted server",
      ttlMs: 0,
      cacheScope: "public"
    }
  },
  "tools/list": (core, context) => {
    const tools = toolDefinitions(core.extraTool, declaresUrlElicitation(capabilitiesOf(context)))
    const { page, nextCursor } = paginate(tools, context.params["cursor"], {
      pageSize: core.options.pageSize,
      endless: core.options.endlessPages,
      modern: true
    })
    return { tools: page, ...(nextCursor !== undefined ? { nextCursor } : {}), ...core.cacheHints() }
  },
  "tools/call": (core, context) => callTool(core, context, MODERN_TOOLS),
  "prompts/list": (core) => ({ prompts: [...PROMPTS], ...core.cacheHints() }),
  "prompts/get": promptGet,
  "resources/list": (core) => ({ resources: [...RESOURCES], ...core.cacheHints() }),
  "resources/templates/list": (core) => ({ resourceTemplates: [...RESOURCE_TEMPLATES], ...core.cacheHints() }),
  "resources/read": resourceRead,
  "completion/complete": () => COMPLETION,
  "subscriptions/listen": (core, context) => core.listen(context)
}

/** The modern request handler: envelope checks, then the method table. */
export const createModern =
  (core: Core): Handler =>
  async (context) => {
    if (context.method === "initialize") {
      const profile = core.options.profile
      if (profile.initializeRefusal === "unsupported-version") {
        throw new RpcError(ErrorCode.UnsupportedProtocolVersion, "Unsupported protocol version", {
          supported: [...profile.advertisedVersions],
          requested: getString(context.params, "protocolVersion") ?? null
        })
      }
      throw new RpcError(ErrorCode.MethodNotFound, "Method not found")
    }
    checkEnvelope(core, context)
    const method = Object.hasOwn(METHODS, context.method) ? METHODS[context.method] : undefined
    if (method === undefined) throw new RpcError(ErrorCode.MethodNotFound, "Method not found", { method: context.method })
    const outcome = await method(core, context)
    return outcome === NO_ANSWER ? outcome : decorateModern(outcome)
  }
