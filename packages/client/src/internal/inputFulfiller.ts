/**
 * The input fulfiller's implementation: hooks run as Effect, Promise or plain values; answers checked against
 * their schemas (elicitation forms against the request's `requestedSchema`); refusals reported.
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type { ClientCapabilities, JsonObject } from "../McpSchema.js"
import { ContentBlock, decodeWire, isRecord, JsonObject as Extra, OpenStruct } from "../McpSchema.js"
import { McpDiagnostic } from "../McpDiagnostic.js"
import type { Era } from "../McpTransport.js"
import type { ElicitResult, Hook, InputHooks, InputRequestOf, ListRootsResult, Service } from "../InputFulfiller.js"
import { InputRefused } from "../InputFulfiller.js"
import * as Limiter from "./limiter.js"

/** @internal */
export const ElicitParams = OpenStruct({
  mode: Schema.optional(Schema.Literals(["form", "url"])),
  message: Schema.String,
  requestedSchema: Schema.optional(Extra),
  url: Schema.optional(Schema.String),
  elicitationId: Schema.optional(Schema.String)
})

/** @internal */
export const CreateMessageParams = OpenStruct({
  messages: Schema.Array(OpenStruct({ role: Schema.Literals(["user", "assistant"]), content: Schema.Unknown })),
  maxTokens: Schema.Number,
  systemPrompt: Schema.optional(Schema.String),
  includeContext: Schema.optional(Schema.Literals(["none", "thisServer", "allServers"])),
  temperature: Schema.optional(Schema.Number),
  stopSequences: Schema.optional(Schema.Array(Schema.String)),
  modelPreferences: Schema.optional(Extra),
  metadata: Schema.optional(Extra),
  tools: Schema.optional(Schema.Array(Schema.Unknown)),
  toolChoice: Schema.optional(Schema.Unknown)
})


const decodeElicitParams = Schema.decodeUnknownOption(ElicitParams)
const decodeCreateMessageParams = Schema.decodeUnknownOption(CreateMessageParams)

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

const ElicitResultSchema = OpenStruct({
  action: Schema.Literals(["accept", "decline", "cancel"]),
  content: Schema.optional(
    Schema.Record(
      Schema.String,
      Schema.Union([Schema.String, Schema.Number, Schema.Boolean, Schema.Array(Schema.String)])
    )
  ),
  _meta: Schema.optional(Extra)
})

const CreateMessageResultSchema = OpenStruct({
  role: Schema.Literals(["assistant", "user"]),
  content: Schema.Union([ContentBlock, Schema.Array(ContentBlock)]),
  model: Schema.String,
  stopReason: Schema.optional(Schema.String)
})

const RootSchema = OpenStruct({
  uri: Schema.String,
  name: Schema.optional(Schema.String),
  _meta: Schema.optional(Extra)
})

const ListRootsResultSchema = OpenStruct({ roots: Schema.Array(RootSchema) })

const decodeElicitResult = decodeWire(ElicitResultSchema)
const decodeCreateMessageResult = decodeWire(CreateMessageResultSchema)
const decodeListRootsResult = decodeWire(ListRootsResultSchema)

/** @internal */
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

/** @internal */
export const make = (hooks: InputHooks): Service => {
  const modes = hooks.elicitationModes ?? ["form"]
  const limiter = Limiter.make(hooks.maxConcurrentHooks ?? 8)
  const runBounded = <M extends string, A>(hook: Hook<M, A>, request: InputRequestOf<M>) =>
    limiter.withPermit(runHook(hook, request))
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
      refused(method, message).pipe(Effect.andThen(Effect.fail(new InputRefused({ method, code, message, abandon }))))

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
      return runBounded(hook, { method, params: typed.value }).pipe(
        Effect.flatMap(decodeElicitResult),
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
        Effect.catch((e) =>
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
      return runBounded(hook, { method, params: typed.value }).pipe(
        Effect.flatMap((result) =>
          decodeCreateMessageResult(result).pipe(Effect.as(result), Effect.mapError((e) => e.message))
        ),
        Effect.catch((e) =>
          onDiagnostic(McpDiagnostic.HookFailed({ hook: "onSample", reason: describe(e) })).pipe(
            Effect.andThen(refuse(method, -1, "User rejected sampling request", abandon))
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
      return runBounded(hook, { method, params }).pipe(
        Effect.flatMap(decodeListRootsResult),
        Effect.flatMap((result) => {
          const bad = result.roots.filter((root) => !root.uri.startsWith("file://"))
          return bad.length === 0
            ? Effect.succeed(result)
            : Effect.fail(`roots must be file:// URIs: ${bad.map((root) => root.uri).join(", ")}`)
        }),
        Effect.catch((e) =>
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

