/**
 * The operations of `McpClient.Service` as data (`operations`: each member's name and kind), and the one way
 * to wrap them all (`mapOperations`, `wrapOperations`): the Promise client, the fleet's rate limit and the
 * CLI's retrying client are built on them, so an operation added to the service is added here (the compiler
 * asks for it in `operations` and in `mapOperations`) and reaches every wrapper with no other line written.
 *
 * @internal
 */
import type * as Effect from "effect/Effect"
import type { Kind, TypeLambda } from "effect/HKT"
import type * as Scope from "effect/Scope"
import type * as Stream from "effect/Stream"
import type { Service } from "../../McpClient.js"

/**
 * What a member of the service is: `effect`, an effect (`era`, `close`); `call`, a function returning an
 * effect that needs nothing from context (`listTools`, `callTool`); `scoped`, a function returning an effect
 * that needs a `Scope` (`listen`); `stream`, a stream (`notifications`).
 *
 * @internal
 */
export type OperationKind = "effect" | "call" | "scoped" | "stream"

/** The kind a member of type `M` has (the check that `operations` says the truth). */
type KindOf<M> = M extends Stream.Stream<infer _A, infer _E, infer _R> ? "stream"
  : M extends Effect.Effect<infer _A, infer _E, infer _R> ? "effect"
  : M extends (...args: never) => Effect.Effect<infer _A, infer _E, infer R> ? [R] extends [never] ? "call"
    : [R] extends [Scope.Scope] ? "scoped"
    : never
  : never

/**
 * Every member of `McpClient.Service`, by name, with its kind. Checked against the service: a member left
 * out, one that is not in the service, or a wrong kind does not compile.
 */
const list = {
  era: "effect",
  info: "effect",
  serverInfo: "effect",
  serverCapabilities: "effect",
  instructions: "effect",
  listTools: "call",
  callTool: "call",
  listPrompts: "call",
  getPrompt: "call",
  listResources: "call",
  listResourceTemplates: "call",
  readResource: "call",
  complete: "call",
  listSkills: "call",
  getSkill: "call",
  listSkillDirectory: "call",
  readSkillFile: "call",
  loadSkill: "call",
  request: "call",
  notifyRootsChanged: "effect",
  listen: "scoped",
  notifications: "stream",
  diagnostics: "stream",
  close: "effect"
} as const satisfies { readonly [K in keyof Service]: KindOf<Service[K]> }

/** The list (frozen: every client shares it). @internal */
export const operations: typeof list = /* @__PURE__ */ Object.freeze(list)

/** @internal */
export type OperationName = keyof typeof operations

/** The names of the operations of kind `K`. @internal */
export type NameOf<K extends OperationKind> = {
  readonly [N in OperationName]: (typeof operations)[N] extends K ? N : never
}[OperationName]

/**
 * What wrapping with a `Target` whose effects become `Get` and whose calls' effects become `Call` gives: each
 * effect and each call of the service (the members a caller runs as they are; `scoped` and `stream` are not
 * among them). `callTool` is taken for its widest options (`AnyCallOptions`).
 *
 * @internal
 */
export type Operations<Get extends TypeLambda, Call extends TypeLambda> =
  & {
    readonly [N in NameOf<"effect">]: Service[N] extends Effect.Effect<infer A, infer E, infer R> ? Kind<Get, never, R, E, A>
      : never
  }
  & {
    readonly [N in NameOf<"call">]: Service[N] extends (...args: infer P) => Effect.Effect<infer A, infer E, infer R>
      ? (...args: P) => Kind<Call, never, R, E, A>
      : never
  }

/**
 * How each effect and each call's effect is wrapped: `effect` is given the service's effect (`era`), `call`
 * the effect of one call with the call's arguments (options come last in every call).
 *
 * @internal
 */
export interface Target<Get extends TypeLambda, Call extends TypeLambda> {
  readonly effect: <A, E>(effect: Effect.Effect<A, E>, name: NameOf<"effect">) => Kind<Get, never, never, E, A>
  readonly call: <A, E>(
    effect: Effect.Effect<A, E>,
    name: NameOf<"call">,
    args: ReadonlyArray<unknown>
  ) => Kind<Call, never, never, E, A>
}

/**
 * Each effect and each call of the service through `target` (the Promise client: `Get` a method returning a
 * Promise, `Call` a Promise): the one table of them. The service's own members are called as its methods
 * (`apply` with the service as `this`).
 *
 * @internal
 */
export const mapOperations = <Get extends TypeLambda, Call extends TypeLambda>(
  service: Service,
  target: Target<Get, Call>
): Operations<Get, Call> => {
  const call = <P extends Array<unknown>, A, E>(
    name: NameOf<"call">,
    f: (...args: P) => Effect.Effect<A, E>
  ) =>
  (...args: P) => target.call(f.apply(service, args), name, args)
  return {
    era: target.effect(service.era, "era"),
    info: target.effect(service.info, "info"),
    serverInfo: target.effect(service.serverInfo, "serverInfo"),
    serverCapabilities: target.effect(service.serverCapabilities, "serverCapabilities"),
    instructions: target.effect(service.instructions, "instructions"),
    notifyRootsChanged: target.effect(service.notifyRootsChanged, "notifyRootsChanged"),
    close: target.effect(service.close, "close"),
    listTools: call("listTools", service.listTools),
    // `callTool` is generic in its options; here as for the widest (`AnyCallOptions`), `wrapOperations` gives
    // it back its own type.
    callTool: (name, args, options) => target.call(service.callTool(name, args, options), "callTool", [name, args, options]),
    listPrompts: call("listPrompts", service.listPrompts),
    getPrompt: call("getPrompt", service.getPrompt),
    listResources: call("listResources", service.listResources),
    listResourceTemplates: call("listResourceTemplates", service.listResourceTemplates),
    readResource: call("readResource", service.readResource),
    complete: call("complete", service.complete),
    listSkills: call("listSkills", service.listSkills),
    getSkill: call("getSkill", service.getSkill),
    listSkillDirectory: call("listSkillDirectory", service.listSkillDirectory),
    readSkillFile: call("readSkillFile", service.readSkillFile),
    loadSkill: call("loadSkill", service.loadSkill),
    request: call("request", service.request)
  }
}

/**
 * An operation's effect wrapped, its type kept. An effect member (`era`) is wrapped once, when the client is;
 * a call's effect at each call.
 *
 * @internal
 */
export interface Wrap {
  <A, E, R>(effect: Effect.Effect<A, E, R>, name: OperationName, kind: OperationKind): Effect.Effect<A, E, R>
}

/**
 * The service with every effect, call and scoped call through `wrap` (which sees the operation's name and kind,
 * and may leave an effect as it is); streams are as they are.
 *
 * @internal
 */
export const wrapOperations = (service: Service, wrap: Wrap): Service => {
  const target: Target<Effect.EffectTypeLambda, Effect.EffectTypeLambda> = {
    effect: (effect, name) => wrap(effect, name, "effect"),
    call: (effect, name) => wrap(effect, name, "call")
  }
  // The members `mapOperations` does not give with their own type: the scoped calls, and `callTool` (generic).
  const others: Pick<Service, NameOf<"scoped"> | "callTool"> = {
    listen: (filter) => wrap(service.listen(filter), "listen", "scoped"),
    callTool: (name, args, options) => wrap(service.callTool(name, args, options), "callTool", "call")
  }
  return { ...service, ...mapOperations(service, target), ...others }
}
