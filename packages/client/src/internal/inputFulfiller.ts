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
import { InputRefused } from "../InputFulfillerError.js"
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

/**
 * One way an answer to an elicitation form breaks the request's `requestedSchema`: the field, the rule (as the
 * schema wrote it: `format: email`, `minLength: 2`, `pattern: ^[A-Z]+$`) and what is wrong.
 *
 * @internal
 */
export interface ElicitProblem {
  readonly field: string
  readonly rule: string
  readonly message: string
}

/** `"email" is not an email address (format: email)`. @internal */
export const describeProblem = (problem: ElicitProblem): string =>
  `"${problem.field}" ${problem.message} (${problem.rule})`

/** Whether a `pattern` matches (searched for, as JSON Schema says), or `undefined` when it cannot be run. */
type Matcher = (pattern: string, value: string) => boolean | undefined

/** Patterns longer than this are not compiled (RE2 compiles in time and memory of the pattern's length). */
const MAX_PATTERN_LENGTH = 4096
/** Compiled patterns kept; the cache is emptied when it is full. */
const MAX_PATTERNS = 128

type Compiled = { readonly test: (input: string) => boolean } | "unusable"

const noPatterns: Matcher = () => undefined

/** The matcher of `re2js`: each pattern compiled once (a bounded cache); one RE2 does not take is `unusable`. */
const re2Matcher = (RE2JS: typeof import("re2js").RE2JS): Matcher => {
  const compiled = new Map<string, Compiled>()
  const compile = (pattern: string): Compiled => {
    if (pattern.length > MAX_PATTERN_LENGTH) return "unusable"
    try {
      return RE2JS.compile(RE2JS.translateRegExp(pattern))
    } catch {
      return "unusable"
    }
  }
  return (pattern, value) => {
    let engine = compiled.get(pattern)
    if (engine === undefined) {
      if (compiled.size >= MAX_PATTERNS) compiled.clear()
      engine = compile(pattern)
      compiled.set(pattern, engine)
    }
    return engine === "unusable" ? undefined : engine.test(value)
  }
}

/**
 * A server's patterns run on RE2 (`re2js`: linear time, no backtracking, as for `outputSchema`), loaded the
 * first time a form has a pattern. A pattern RE2 does not take (lookaround, backreferences), or every pattern
 * if `re2js` cannot be loaded, is not applied: the server, which wrote it, still checks the answer.
 */
let loaded: Promise<Matcher> | undefined
const loadMatcher: Effect.Effect<Matcher> = Effect.promise(() =>
  loaded ??= import("re2js").then(({ RE2JS }) => re2Matcher(RE2JS), () => noPatterns)
)

const hasPattern = (schema: unknown): boolean => isRecord(schema) && typeof schema["pattern"] === "string"

const matcherFor = (schemas: ReadonlyArray<unknown>): Effect.Effect<Matcher> =>
  schemas.some(hasPattern) ? loadMatcher : Effect.succeed(noPatterns)

const problemsOf = (
  requestedSchema: unknown,
  content: unknown,
  matches: Matcher
): ReadonlyArray<ElicitProblem> => {
  const problems: Array<ElicitProblem> = []
  if (!isRecord(requestedSchema)) return problems
  const properties = isRecord(requestedSchema["properties"]) ? requestedSchema["properties"] : {}
  const required = Array.isArray(requestedSchema["required"]) ? requestedSchema["required"] : []
  const answer = isRecord(content) ? content : {}
  for (const key of required) {
    if (typeof key === "string" && !(key in answer)) problems.push({ field: key, rule: "required", message: "is required" })
  }
  for (const [key, value] of Object.entries(answer)) {
    const property = properties[key]
    if (!isRecord(property)) {
      problems.push({ field: key, rule: "properties", message: "is not in the requested schema" })
      continue
    }
    problems.push(...fieldProblems(key, property, value, matches))
  }
  return problems
}

/**
 * Check an elicitation form answer against the request's `requestedSchema`, without its `pattern`s (see
 * `checkElicitContent`). @internal
 */
export const validateElicitContent = (requestedSchema: unknown, content: unknown): ReadonlyArray<string> =>
  problemsOf(requestedSchema, content, noPatterns).map(describeProblem)

/** Every rule of the requested schema, `pattern`s included (on RE2). @internal */
export const checkElicitContent = (requestedSchema: unknown, content: unknown): Effect.Effect<ReadonlyArray<ElicitProblem>> => {
  const properties = isRecord(requestedSchema) && isRecord(requestedSchema["properties"])
    ? Object.values(requestedSchema["properties"])
    : []
  return Effect.map(matcherFor(properties), (matches) => problemsOf(requestedSchema, content, matches))
}

/** One field's answer against its property's schema, `pattern` included (on RE2). @internal */
export const checkElicitField = (
  field: string,
  schema: JsonObject,
  value: unknown
): Effect.Effect<ReadonlyArray<ElicitProblem>> =>
  Effect.map(matcherFor([schema]), (matches) => fieldProblems(field, schema, value, matches))

const allowedValues = (schema: JsonObject): ReadonlyArray<unknown> | undefined => {
  if (Array.isArray(schema["enum"])) return schema["enum"]
  for (const key of ["oneOf", "anyOf"]) {
    const options = schema[key]
    if (Array.isArray(options)) return options.filter(isRecord).map((o) => o["const"])
  }
  return undefined
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/
const DATE_TIME = /^(\d{4}-\d{2}-\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(?:[Zz]|[+-](\d{2}):(\d{2}))$/
const EMAIL = /^[^@\s]+@[^@\s]+$/

/** A calendar date (`2026-02-28`; not `2026-02-30`), as RFC 3339 `full-date`. */
const isDate = (value: string): boolean => {
  const parts = DATE.exec(value)
  if (parts === null) return false
  const [year, month, day] = [Number(parts[1]), Number(parts[2]), Number(parts[3])]
  const date = new Date(Date.UTC(year, month - 1, day))
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day
}

/** RFC 3339 `date-time`: a date, a time of day, an offset. */
const isDateTime = (value: string): boolean => {
  const parts = DATE_TIME.exec(value)
  if (parts === null || !isDate(parts[1] ?? "")) return false
  const [hour, minute, second] = [Number(parts[2]), Number(parts[3]), Number(parts[4])]
  const offsetOk = parts[5] === undefined || (Number(parts[5]) < 24 && Number(parts[6]) < 60)
  return hour < 24 && minute < 60 && second <= 60 && offsetOk
}

const FORMATS: Readonly<Record<string, { readonly test: (value: string) => boolean; readonly message: string }>> = {
  email: { test: (value) => EMAIL.test(value), message: "is not an email address" },
  uri: { test: (value) => URL.canParse(value), message: "is not a URI" },
  date: { test: isDate, message: "is not a date (YYYY-MM-DD)" },
  "date-time": { test: isDateTime, message: "is not a date and time (YYYY-MM-DDThh:mm:ssZ)" }
}

const stringProblems = (field: string, schema: JsonObject, value: string, matches: Matcher): ReadonlyArray<ElicitProblem> => {
  const problems: Array<ElicitProblem> = []
  const problem = (rule: string, message: string) => problems.push({ field, rule, message })
  const allowed = allowedValues(schema)
  if (allowed !== undefined && !allowed.includes(value)) problem("enum", "must be one of the listed values")
  const min = schema["minLength"]
  const max = schema["maxLength"]
  const length = [...value].length
  if (typeof min === "number" && length < min) problem(`minLength: ${min}`, `is shorter than ${min}`)
  if (typeof max === "number" && length > max) problem(`maxLength: ${max}`, `is longer than ${max}`)
  const format = typeof schema["format"] === "string" ? FORMATS[schema["format"]] : undefined
  if (format !== undefined && !format.test(value)) problem(`format: ${String(schema["format"])}`, format.message)
  const pattern = schema["pattern"]
  if (typeof pattern === "string" && matches(pattern, value) === false) {
    problem(`pattern: ${pattern}`, "does not match the pattern")
  }
  return problems
}

const numberProblems = (field: string, schema: JsonObject, value: unknown): ReadonlyArray<ElicitProblem> => {
  if (typeof value !== "number" || !Number.isFinite(value)) return [{ field, rule: "type: number", message: "must be a number" }]
  if (schema["type"] === "integer" && !Number.isInteger(value)) {
    return [{ field, rule: "type: integer", message: "must be a whole number" }]
  }
  const min = schema["minimum"]
  const max = schema["maximum"]
  if (typeof min === "number" && value < min) return [{ field, rule: `minimum: ${min}`, message: `is below ${min}` }]
  if (typeof max === "number" && value > max) return [{ field, rule: `maximum: ${max}`, message: `is above ${max}` }]
  return []
}

const arrayProblems = (field: string, schema: JsonObject, value: unknown): ReadonlyArray<ElicitProblem> => {
  if (!Array.isArray(value) || !value.every((v) => typeof v === "string")) {
    return [{ field, rule: "type: array", message: "must be an array of strings" }]
  }
  const problems: Array<ElicitProblem> = []
  const items = isRecord(schema["items"]) ? allowedValues(schema["items"]) : undefined
  if (items !== undefined && !value.every((v) => items.includes(v))) {
    problems.push({ field, rule: "items", message: "has a value that is not listed" })
  }
  const min = schema["minItems"]
  const max = schema["maxItems"]
  if (typeof min === "number" && value.length < min) {
    problems.push({ field, rule: `minItems: ${min}`, message: `has fewer than ${min} items` })
  }
  if (typeof max === "number" && value.length > max) {
    problems.push({ field, rule: `maxItems: ${max}`, message: `has more than ${max} items` })
  }
  return problems
}

const fieldProblems = (field: string, schema: JsonObject, value: unknown, matches: Matcher): ReadonlyArray<ElicitProblem> => {
  switch (schema["type"]) {
    case "string":
      return typeof value === "string"
        ? stringProblems(field, schema, value, matches)
        : [{ field, rule: "type: string", message: "must be a string" }]
    case "number":
    case "integer":
      return numberProblems(field, schema, value)
    case "boolean":
      return typeof value === "boolean" ? [] : [{ field, rule: "type: boolean", message: "must be a boolean" }]
    case "array":
      return arrayProblems(field, schema, value)
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
          return checkElicitContent(params["requestedSchema"], result.content ?? {}).pipe(
            Effect.flatMap((problems) =>
              problems.length === 0
                ? Effect.succeed(result)
                : Effect.fail(`the answer does not match requestedSchema: ${problems.map(describeProblem).join("; ")}`)
            )
          )
        }),
        // Every answer turned into a decline is said where it is seen (each field and rule it breaks): the
        // server is told no more than "decline".
        Effect.catch((e) =>
          Effect.logWarning(`mcp: elicitation declined: ${describe(e)}`).pipe(
            Effect.andThen(onDiagnostic(McpDiagnostic.HookFailed({ hook: "onElicit", reason: describe(e) }))),
            Effect.as(decline)
          )
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

