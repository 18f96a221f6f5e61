/**
 * Serves everything a server asks of the client, in both eras, through the hooks the caller set:
 * `onElicit`, `onSample`, `onListRoots`.
 *
 * - Legacy servers ask with server-to-client JSON-RPC requests (`elicitation/create`, `sampling/createMessage`,
 *   `roots/list`); the answer is a JSON-RPC result, a refusal is a JSON-RPC error.
 * - Modern servers ask inside an `input_required` result; the answer goes into `inputResponses` of the retry.
 *
 * The capabilities the client declares are exactly the hooks that are set. An unset hook is a refusal and a
 * promise never to be asked; a server that asks anyway is refused without calling anything. Refusal does not
 * fail the call where the protocol has a refusal to send: an elicitation is declined (`{ action: "decline" }`),
 * a roots request gets an empty list, and a legacy sampling request gets the spec's `-1` "User rejected
 * sampling request" error. A modern sampling request has no refusal shape (the spec: the client abandons the
 * original request), so refusing one ends the call with `McpInputRefusedError`.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import { McpDiagnostic } from "./McpDiagnostic.js"
import { type ClientCapabilities, ContentBlock, decodeWire, isRecord, type JsonObject } from "./McpSchema.js"
import type { Era } from "./McpTransport.js"

// -----------------------------------------------------------------------------
// Hook types
// -----------------------------------------------------------------------------

const Extra = Schema.Record({ key: Schema.String, value: Schema.Unknown })

/**
 * The parameters of `elicitation/create`, checked before the hook is called (a request without a `message`
 * is refused). Unknown fields are kept.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ElicitParams = Schema.Struct({
  mode: Schema.optional(Schema.Literal("form", "url")),
  message: Schema.String,
  requestedSchema: Schema.optional(Extra),
  url: Schema.optional(Schema.String),
  elicitationId: Schema.optional(Schema.String)
}, Extra)

/**
 * @since 0.1.0
 * @category models
 */
export type ElicitParams = typeof ElicitParams.Type

/**
 * The parameters of `sampling/createMessage`, checked before the hook is called (a request without
 * `messages` and `maxTokens` is refused). Unknown fields are kept.
 *
 * @since 0.1.0
 * @category schemas
 */
export const CreateMessageParams = Schema.Struct({
  messages: Schema.Array(Schema.Struct({ role: Schema.Literal("user", "assistant"), content: Schema.Unknown }, Extra)),
  maxTokens: Schema.Number,
  systemPrompt: Schema.optional(Schema.String),
  includeContext: Schema.optional(Schema.Literal("none", "thisServer", "allServers")),
  temperature: Schema.optional(Schema.Number),
  stopSequences: Schema.optional(Schema.Array(Schema.String)),
  modelPreferences: Schema.optional(Extra),
  metadata: Schema.optional(Extra),
  tools: Schema.optional(Schema.Array(Schema.Unknown)),
  toolChoice: Schema.optional(Schema.Unknown)
}, Extra)

/**
 * @since 0.1.0
 * @category models
 */
export type CreateMessageParams = typeof CreateMessageParams.Type

/**
 * The parameters each input method's hook is given.
 *
 * @since 0.1.0
 * @category models
 */
export interface InputParams {
  readonly "elicitation/create": ElicitParams
  readonly "sampling/createMessage": CreateMessageParams
  readonly "roots/list": JsonObject
}

/**
 * What a hook is called with: the server's request, its parameters typed for the method.
 *
 * @since 0.1.0
 * @category models
 */
export interface InputRequestOf<Method extends string> {
  readonly method: Method
  readonly params: Method extends keyof InputParams ? InputParams[Method] : JsonObject
}

/**
 * A hook may return the result directly, as a Promise, or as an Effect. Throwing, rejecting or failing
 * declines (see the module docs).
 *
 * @since 0.1.0
 * @category models
 */
export type Hook<Method extends string, A> = (
  request: InputRequestOf<Method>
) => Effect.Effect<A, unknown> | PromiseLike<A> | A

/**
 * @since 0.1.0
 * @category models
 */
export interface ElicitResult {
  readonly action: "accept" | "decline" | "cancel"
  readonly content?: Readonly<Record<string, string | number | boolean | ReadonlyArray<string>>>
  readonly _meta?: JsonObject
}

/**
 * @since 0.1.0
 * @category models
 */
export interface CreateMessageResult {
  readonly role: "assistant" | "user"
  readonly content: unknown
  readonly model: string
  readonly stopReason?: string
  readonly _meta?: JsonObject
}

/**
 * @since 0.1.0
 * @category models
 */
export interface Root {
  readonly uri: string
  readonly name?: string
  readonly _meta?: JsonObject
}

/**
 * @since 0.1.0
 * @category models
 */
export interface ListRootsResult {
  readonly roots: ReadonlyArray<Root>
}

/**
 * The hooks and the options that shape the declared capabilities.
 *
 * @since 0.1.0
 * @category models
 */
export interface InputHooks {
  readonly onElicit?: Hook<"elicitation/create", ElicitResult> | undefined
  readonly onSample?: Hook<"sampling/createMessage", CreateMessageResult> | undefined
  readonly onListRoots?: Hook<"roots/list", ListRootsResult> | undefined
  /** Elicitation modes the `onElicit` hook handles (default `["form"]`). */
  readonly elicitationModes?: ReadonlyArray<"form" | "url"> | undefined
  /** Declare `sampling.tools`: the `onSample` hook can handle `tools`/`toolChoice` (default false). */
  readonly samplingTools?: boolean | undefined
  /** Declare `sampling.context`: `includeContext` other than "none" is acceptable (default false). */
  readonly samplingContext?: boolean | undefined
}

// -----------------------------------------------------------------------------
// Service
// -----------------------------------------------------------------------------

/**
 * Why an input request was refused. `abandon` means the protocol has no refusal to send (a modern sampling
 * request), so the call that needed the input must end.
 *
 * @since 0.1.0
 * @category errors
 */
export class InputRefused extends Data.TaggedError("InputRefused")<{
  readonly method: string
  readonly code: number
  readonly message: string
  readonly abandon: boolean
}> {}

/**
 * @since 0.1.0
 * @category models
 */
export interface Service {
  /** The capabilities to declare in this era: exactly the hooks that are set. */
  readonly capabilities: (era: Era) => ClientCapabilities
  /** Serve one input request. Success is the result body; failure is a refusal. */
  readonly fulfil: (
    request: { readonly method: string; readonly params?: JsonObject | undefined },
    era: Era,
    report?: (diagnostic: McpDiagnostic) => Effect.Effect<void>
  ) => Effect.Effect<unknown, InputRefused>
  /** Whether roots changes may be announced (legacy, `roots.listChanged` declared). */
  readonly rootsListChanged: boolean
}

/**
 * @since 0.1.0
 * @category tags
 */
export class InputFulfiller extends Context.Tag("@mcp-effect/client/InputFulfiller")<InputFulfiller, Service>() {}

// -----------------------------------------------------------------------------
// Implementation
// -----------------------------------------------------------------------------

const runHook = <M extends string, A>(hook: Hook<M, A>, request: InputRequestOf<M>): Effect.Effect<A, unknown> =>
  Effect.try({ try: () => hook(request), catch: (e) => e }).pipe(
    Effect.flatMap((out) => {
      if (Effect.isEffect(out)) return out
      if (isPromiseLike(out)) return Effect.tryPromise({ try: () => Promise.resolve(out), catch: (e) => e })
      return Effect.succeed(out)
    })
  )

const isPromiseLike = <A>(u: A | PromiseLike<A>): u is PromiseLike<A> =>
  typeof u === "object" && u !== null && "then" in u && typeof u.then === "function"

const describe = (e: unknown): string =>
  e instanceof Error ? e.message : typeof e === "string" ? e : (() => {
    try {
      return JSON.stringify(e)
    } catch {
      return String(e)
    }
  })()

const ElicitResultSchema = Schema.Struct({
  action: Schema.Literal("accept", "decline", "cancel"),
  content: Schema.optional(
    Schema.Record({
      key: Schema.String,
      value: Schema.Union(Schema.String, Schema.Number, Schema.Boolean, Schema.Array(Schema.String))
    })
  ),
  _meta: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Unknown }))
})

const CreateMessageResultSchema = Schema.Struct({
  role: Schema.Literal("assistant", "user"),
  content: Schema.Union(ContentBlock, Schema.Array(ContentBlock)),
  model: Schema.String,
  stopReason: Schema.optional(Schema.String)
})

const RootSchema = Schema.Struct({
  uri: Schema.String,
  name: Schema.optional(Schema.String),
  _meta: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Unknown }))
})

const ListRootsResultSchema = Schema.Struct({ roots: Schema.Array(RootSchema) })

const decodeElicitParams = Schema.decodeUnknownOption(ElicitParams)
const decodeCreateMessageParams = Schema.decodeUnknownOption(CreateMessageParams)

/**
 * Check an elicitation form answer against the request's `requestedSchema` (the flat, primitive-only schema
 * the spec allows). Returns the problems found; empty means valid.
 *
 * @since 0.1.0
 * @category validation
 */
export const validateElicitContent = (requestedSchema: unknown, content: unknown): ReadonlyArray<string> => {
  const problems: Array<string> = []
  if (!isRecord(requestedSchema)) return problems
  const properties = isRecord(requestedSchema["properties"]) ? requestedSchema["properties"] : {}
  const required = Array.isArray(requestedSchema["required"]) ? requestedSchema["required"] : []
  const answer = isRecord(content) ? content : {}
  for (const key of required) {
    if (typeof key === "string" && !(key in answer)) problems.push(`"${key}" is required`)
  }
  for (const [key, value] of Object.entries(answer)) {
    const property = properties[key]
    if (!isRecord(property)) {
      problems.push(`"${key}" is not in the requested schema`)
      continue
    }
    problems.push(...checkPrimitive(key, property, value))
  }
  return problems
}

const allowedValues = (schema: JsonObject): ReadonlyArray<unknown> | undefined => {
  if (Array.isArray(schema["enum"])) return schema["enum"]
  for (const key of ["oneOf", "anyOf"]) {
    const options = schema[key]
    if (Array.isArray(options)) return options.filter(isRecord).map((o) => o["const"])
  }
  return undefined
}

const checkPrimitive = (key: string, schema: JsonObject, value: unknown): ReadonlyArray<string> => {
  const type = schema["type"]
  const num = (k: string) => typeof schema[k] === "number" ? schema[k] : undefined
  switch (type) {
    case "string": {
      if (typeof value !== "string") return [`"${key}" must be a string`]
      const problems: Array<string> = []
      const allowed = allowedValues(schema)
      if (allowed !== undefined && !allowed.includes(value)) problems.push(`"${key}" must be one of the listed values`)
      const min = num("minLength")
      const max = num("maxLength")
      if (min !== undefined && value.length < min) problems.push(`"${key}" is shorter than ${min}`)
      if (max !== undefined && value.length > max) problems.push(`"${key}" is longer than ${max}`)
      const format = schema["format"]
      if (format === "email" && !/^[^@\s]+@[^@\s]+$/.test(value)) problems.push(`"${key}" is not an email address`)
      if (format === "uri" && !URL.canParse(value)) problems.push(`"${key}" is not a URI`)
      if ((format === "date" || format === "date-time") && Number.isNaN(Date.parse(value))) {
        problems.push(`"${key}" is not a ${format}`)
      }
      return problems
    }
    case "number":
    case "integer": {
      if (typeof value !== "number" || !Number.isFinite(value)) return [`"${key}" must be a number`]
      if (type === "integer" && !Number.isInteger(value)) return [`"${key}" must be an integer`]
      const min = num("minimum")
      const max = num("maximum")
      if (min !== undefined && value < min) return [`"${key}" is below ${min}`]
      if (max !== undefined && value > max) return [`"${key}" is above ${max}`]
      return []
    }
    case "boolean":
      return typeof value === "boolean" ? [] : [`"${key}" must be a boolean`]
    case "array": {
      if (!Array.isArray(value) || !value.every((v) => typeof v === "string")) {
        return [`"${key}" must be an array of strings`]
      }
      const items = isRecord(schema["items"]) ? allowedValues(schema["items"]) : undefined
      const problems: Array<string> = []
      if (items !== undefined && !value.every((v) => items.includes(v))) {
        problems.push(`"${key}" has a value that is not listed`)
      }
      const min = num("minItems")
      const max = num("maxItems")
      if (min !== undefined && value.length < min) problems.push(`"${key}" has fewer than ${min} items`)
      if (max !== undefined && value.length > max) problems.push(`"${key}" has more than ${max} items`)
      return problems
    }
    default:
      return []
  }
}

const decline: ElicitResult = { action: "decline" }
const noRoots: ListRootsResult = { roots: [] }

/**
 * Build the fulfiller for a set of hooks. Every refusal and every bad hook answer is reported as a diagnostic.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (hooks: InputHooks): Service => {
  const modes = hooks.elicitationModes ?? ["form"]
  const rootsListChanged = hooks.onListRoots !== undefined

  const capabilities = (era: Era): ClientCapabilities => {
    const caps: {
      -readonly [K in keyof ClientCapabilities]: ClientCapabilities[K]
    } = {}
    if (hooks.onElicit !== undefined && modes.length > 0) {
      caps.elicitation = Object.fromEntries(modes.map((mode) => [mode, {}]))
    }
    if (hooks.onSample !== undefined) {
      caps.sampling = {
        ...(hooks.samplingTools === true ? { tools: {} } : {}),
        ...(hooks.samplingContext === true ? { context: {} } : {})
      }
    }
    if (hooks.onListRoots !== undefined) caps.roots = era === "legacy" ? { listChanged: true } : {}
    return caps
  }

  type Report = (diagnostic: McpDiagnostic) => Effect.Effect<void>

  const fulfilWith = (onDiagnostic: Report) => {
    const refused = (method: string, reason: string) => onDiagnostic(McpDiagnostic.RefusedRequest({ method, reason }))
    const refuse = (method: string, code: number, message: string, abandon: boolean) =>
      refused(method, message).pipe(Effect.zipRight(Effect.fail(new InputRefused({ method, code, message, abandon }))))

    const elicit = (params: JsonObject, era: Era): Effect.Effect<unknown, InputRefused> => {
      const method = "elicitation/create"
      const mode = params["mode"] ?? "form"
      const hook = hooks.onElicit
      if (hook === undefined) {
        return era === "legacy"
          ? refuse(method, -32601, "elicitation is not supported by this client", false)
          : refused(method, "elicitation was not declared; declined").pipe(Effect.as(decline))
      }
      if (mode !== "form" && mode !== "url" || !modes.includes(mode)) {
        return era === "legacy"
          ? refuse(method, -32602, `elicitation mode ${String(mode)} is not supported by this client`, false)
          : refused(method, `elicitation mode ${String(mode)} was not declared; declined`).pipe(Effect.as(decline))
      }
      const typed = decodeElicitParams(params)
      if (typed._tag === "None") {
        return era === "legacy"
          ? refuse(method, -32602, "elicitation/create without a message", false)
          : refused(method, "elicitation/create without a message; declined").pipe(Effect.as(decline))
      }
      return runHook(hook, { method, params: typed.value }).pipe(
        Effect.flatMap(decodeWire(ElicitResultSchema)),
        Effect.flatMap((result) => {
          if (result.action !== "accept" || mode !== "form") {
            const { content: _, ...rest } = result
            return Effect.succeed(rest)
          }
          const problems = validateElicitContent(params["requestedSchema"], result.content ?? {})
          return problems.length === 0
            ? Effect.succeed(result)
            : Effect.fail(`the answer does not match requestedSchema: ${problems.join("; ")}`)
        }),
        Effect.catchAll((e) =>
          onDiagnostic(McpDiagnostic.HookFailed({ hook: "onElicit", reason: describe(e) })).pipe(Effect.as(decline))
        )
      )
    }

    const sample = (params: JsonObject, era: Era): Effect.Effect<unknown, InputRefused> => {
      const method = "sampling/createMessage"
      const abandon = era === "modern"
      const hook = hooks.onSample
      if (hook === undefined) return refuse(method, -32601, "sampling is not supported by this client", abandon)
      if ((params["tools"] !== undefined || params["toolChoice"] !== undefined) && hooks.samplingTools !== true) {
        return refuse(method, -32602, "sampling with tools was not declared by this client", abandon)
      }
      const typed = decodeCreateMessageParams(params)
      if (typed._tag === "None") {
        return refuse(method, -32602, "sampling/createMessage without messages and maxTokens", abandon)
      }
      return runHook(hook, { method, params: typed.value }).pipe(
        Effect.flatMap((result) =>
          decodeWire(CreateMessageResultSchema)(result).pipe(Effect.as(result), Effect.mapError((e) => e.message))
        ),
        Effect.catchAll((e) =>
          onDiagnostic(McpDiagnostic.HookFailed({ hook: "onSample", reason: describe(e) })).pipe(
            Effect.zipRight(refuse(method, -1, "User rejected sampling request", abandon))
          )
        )
      )
    }

    const listRoots = (params: JsonObject, era: Era): Effect.Effect<unknown, InputRefused> => {
      const method = "roots/list"
      const hook = hooks.onListRoots
      if (hook === undefined) {
        return era === "legacy"
          ? refuse(method, -32601, "roots are not supported by this client", false)
          : refused(method, "roots were not declared; answered with no roots").pipe(Effect.as(noRoots))
      }
      return runHook(hook, { method, params }).pipe(
        Effect.flatMap(decodeWire(ListRootsResultSchema)),
        Effect.flatMap((result) => {
          const bad = result.roots.filter((root) => !root.uri.startsWith("file://"))
          return bad.length === 0
            ? Effect.succeed(result)
            : Effect.fail(`roots must be file:// URIs: ${bad.map((root) => root.uri).join(", ")}`)
        }),
        Effect.catchAll((e) =>
          onDiagnostic(McpDiagnostic.HookFailed({ hook: "onListRoots", reason: describe(e) })).pipe(Effect.as(noRoots))
        )
      )
    }

    return (request: { readonly method: string; readonly params?: JsonObject | undefined }, era: Era) => {
      const params = request.params ?? {}
      switch (request.method) {
        case "elicitation/create":
          return elicit(params, era)
        case "sampling/createMessage":
          return sample(params, era)
        case "roots/list":
          return listRoots(params, era)
        default:
          return refuse(request.method, -32601, `method not found: ${request.method}`, era === "modern")
      }
    }
  }

  const silent = fulfilWith(() => Effect.void)
  const fulfil: Service["fulfil"] = (request, era, report) =>
    report === undefined ? silent(request, era) : fulfilWith(report)(request, era)

  return { capabilities, fulfil, rootsListChanged }
}

/**
 * A fulfiller with the given hooks.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (hooks: InputHooks): Layer.Layer<InputFulfiller> => Layer.succeed(InputFulfiller, make(hooks))

/**
 * A fulfiller with no hooks: declares no capabilities and refuses everything.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerNone: Layer.Layer<InputFulfiller> = layer({})
