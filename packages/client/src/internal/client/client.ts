/**
 * The client's constructor: wires the parts (connection, requests, pagination, tools, listen, notifications)
 * into the `McpClient` service.
 */
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import type * as EraResolver from "../../EraResolver.js"
import type * as InputFulfiller from "../../InputFulfiller.js"
import type { ClientOptions, Service, SubscriptionFilter } from "../../McpClient.js"
import { McpDiagnostic } from "../../McpDiagnostic.js"
import type { McpClientError } from "../../McpError.js"
import {
  type JsonObject,
  ListPromptsResult,
  ListResourcesResult,
  ListResourceTemplatesResult
} from "../../McpSchema.js"
import type * as McpTransport from "../../McpTransport.js"
import type * as ResultCache from "../../ResultCache.js"
import * as Connection from "./connection.js"
import * as Context from "./context.js"
import { decodeCompleteResult, decodeGetPromptResult, decodeReadResourceResult } from "./decode.js"
import * as Listen from "./listen.js"
import * as Notifications from "./notifications.js"
import * as Pagination from "./pagination.js"
import * as Progress from "./progress.js"
import * as Request from "./request.js"
import type * as Skills from "./skills.js"
import * as TaskWatch from "./taskWatch.js"
import * as Tools from "./tools.js"
import { invalidCall, notSent } from "./arguments.js"
import * as typedCall from "./typedCall.js"
import { onFirstUse } from "../firstUse.js"

/** Methods a modern server may answer with `input_required`. */
const INPUT_METHODS: ReadonlySet<string> = new Set(["tools/call", "resources/read", "prompts/get"])

/** What the client does once the era is settled: legacy `logging/setLevel`, the list-change watcher. */
const afterHandshake = (context: Context.ClientContext, listen: Listen.Listen) => (current: Connection.Session) =>
  Effect.gen(function*() {
    const { info } = current
    const { options } = context
    if (info.era === "legacy" && options.logLevel !== undefined && info.capabilities.logging !== undefined) {
      yield* current.link.peer.request("logging/setLevel", { level: options.logLevel }, {
        timeout: context.requestTimeout,
        context: { era: "legacy", protocolVersion: info.protocolVersion }
      }).pipe(
        Effect.catch((error) =>
          context.report(McpDiagnostic.RefusedRequest({ method: "logging/setLevel", reason: error.message }))
        )
      )
    }
    if (info.era === "modern" && options.watchListChanges === true) {
      const filter: SubscriptionFilter = {
        toolsListChanged: info.capabilities.tools?.listChanged === true,
        promptsListChanged: info.capabilities.prompts?.listChanged === true,
        resourcesListChanged: info.capabilities.resources?.listChanged === true
      }
      if (Object.values(filter).some((wanted) => wanted === true)) {
        yield* listen.watch(current, filter).pipe(
          Effect.catch((error) =>
            context.report(McpDiagnostic.RefusedRequest({ method: "subscriptions/listen", reason: error.message }))
          ),
          Effect.forkIn(current.link.scope)
        )
      }
    }
  })

/** @internal */
export const make = (
  options: ClientOptions = {}
): Effect.Effect<
  Service,
  McpClientError,
  | McpTransport.McpTransport
  | EraResolver.EraResolver
  | InputFulfiller.InputFulfiller
  | ResultCache.ResultCache
  | Scope.Scope
> =>
  Effect.gen(function*() {
    const context = yield* Context.make(options)
    const progress = Progress.make(context)
    // Listen is given the session with each call: the connection needs listen (its notifications) first.
    const listen = Listen.make(context)
    const connections = yield* Connection.make(context, {
      onNotification: Notifications.make(context, progress, listen),
      onAnswered: progress.onAnswered,
      afterHandshake: afterHandshake(context, listen)
    })
    const requests = Request.make(context, progress, connections.session, TaskWatch.make(listen))
    const pagination = Pagination.make(context, requests, connections.session)
    const tools = Tools.make(context, requests, pagination, connections.session, progress)
    yield* Effect.addFinalizer(() => connections.close)
    // The first connection is opened now, so a server that cannot be started fails the layer.
    yield* connections.currentLink
    const base = service(context, connections, requests, pagination, tools, listen)
    const skills = lazySkills(context, requests, pagination, connections.session, base.readResource)
    return { ...base, ...skills }
  })

// The skills extension (its checks, digests and the YAML of `SKILL.md`) is loaded by the first skills call.
let skillsModule: Promise<typeof import("./skills.js")> | undefined
const loadSkills = () => (skillsModule ??= import("./skills.js"))

/** The skills methods, made when first called. */
const lazySkills = (...args: Parameters<typeof Skills.make>): Skills.SkillMethods => {
  const methods = onFirstUse(Effect.flatMap(Effect.promise(loadSkills), (module) => module.make(...args)))
  return {
    listSkills: (options) => Effect.flatMap(methods, (m) => m.listSkills(options)),
    getSkill: (uri, options) => Effect.flatMap(methods, (m) => m.getSkill(uri, options)),
    listSkillDirectory: (skill, directory, options) =>
      Effect.flatMap(methods, (m) => m.listSkillDirectory(skill, directory, options)),
    readSkillFile: (skill, uri, options) => Effect.flatMap(methods, (m) => m.readSkillFile(skill, uri, options)),
    loadSkill: (skill, options) => Effect.flatMap(methods, (m) => m.loadSkill(skill, options))
  }
}

const service = (
  context: Context.ClientContext,
  connections: Connection.Connections,
  requests: Request.Requests,
  pagination: Pagination.Pagination,
  tools: Tools.Tools,
  listen: Listen.Listen
): Omit<Service, keyof Skills.SkillMethods> => {
  const session = connections.session
  const info = Effect.map(session, (s) => s.info)
  const withSession = <A>(f: (current: Connection.Session) => Effect.Effect<A, McpClientError>) =>
    Effect.flatMap(session, f)
  const list = pagination.listAll
  return {
    era: Effect.map(info, (i) => i.era),
    info,
    serverInfo: Effect.map(info, (i) => i.serverInfo),
    serverCapabilities: Effect.map(info, (i) => i.capabilities),
    instructions: Effect.map(info, (i) => i.instructions),
    listTools: tools.listTools,
    callTool: typedCall.withSchema(tools.callTool),
    listPrompts: (listOptions) => list("prompts/list", ListPromptsResult, (page) => page.prompts, listOptions),
    getPrompt: (name, args, callOptions) => {
      const invalid = invalidCall("prompts/get", "prompt name", name, args)
      if (invalid !== undefined) return Effect.fail(invalid)
      return requests.requestWithInput("prompts/get", args === undefined ? { name } : { name, arguments: args }, callOptions)
        .pipe(Effect.flatMap((last) => decodeGetPromptResult(last.result)))
    },
    listResources: (listOptions) => list("resources/list", ListResourcesResult, (page) => page.resources, listOptions),
    listResourceTemplates: (listOptions) =>
      list("resources/templates/list", ListResourceTemplatesResult, (page) => page.resourceTemplates, listOptions),
    readResource: (uri, callOptions) =>
      typeof uri !== "string" || uri === ""
        ? Effect.fail(notSent("resources/read", `the URI must be a non-empty string, not ${uri === null ? "null" : typeof uri}`))
        : withSession((current) =>
        pagination.cacheable(
          current,
          "resources/read",
          Notifications.readKey(uri),
          requests.requestWithInput("resources/read", { uri }, callOptions).pipe(
            Effect.flatMap((last) =>
              decodeReadResourceResult(last.result).pipe(
                // A result reached through input rounds is never cached.
                Effect.map((value) => ({ value, ttlMs: last.round === 0 ? value.ttlMs : 0, cacheScope: value.cacheScope }))
              )
            )
          ),
          callOptions
        )
      ),
    complete: (ref, argument, completeContext, callOptions) =>
      withSession((current) =>
        requests.requestComplete(
          current,
          "completion/complete",
          completeContext === undefined ? { ref, argument } : { ref, argument, context: completeContext },
          callOptions
        )
      ).pipe(Effect.flatMap(decodeCompleteResult)),
    request: (method: string, params?: JsonObject, callOptions?) =>
      INPUT_METHODS.has(method)
        ? requests.requestWithInput(method, params ?? {}, callOptions).pipe(Effect.map((last) => last.result))
        : withSession((current) => requests.requestComplete(current, method, params, callOptions)),
    notifyRootsChanged: withSession((current) =>
      current.info.era === "legacy" && context.fulfiller.rootsListChanged
        ? current.link.peer.notify("notifications/roots/list_changed", undefined, {
          era: "legacy",
          protocolVersion: current.info.protocolVersion
        })
        : Effect.void
    ),
    listen: (filter) => listen.listen(session, filter),
    notifications: context.notifications.subscribe,
    diagnostics: context.diagnostics.subscribe,
    close: connections.close
  }
}
