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
import type * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as internal from "./internal/inputFulfiller.js"
import type { McpDiagnostic } from "./McpDiagnostic.js"
import type { ClientCapabilities, JsonObject } from "./McpSchema.js"
import type { Era } from "./McpTransport.js"
import { InputRefused } from "./InputFulfillerError.js"

// -----------------------------------------------------------------------------
// Hook types
// -----------------------------------------------------------------------------

/**
 * The parameters of `elicitation/create`, checked before the hook is called (a request without a `message`
 * is refused). Unknown fields are kept.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ElicitParams = internal.ElicitParams

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
export const CreateMessageParams = internal.CreateMessageParams

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
  /**
   * How many of these hooks may run at once, all kinds together (default 8). More requests than that wait
   * their turn, first come first served: a server that sends thousands of sampling requests cannot run
   * thousands of paid model calls at once.
   */
  readonly maxConcurrentHooks?: number | undefined
}

// -----------------------------------------------------------------------------
// Service
// -----------------------------------------------------------------------------

export {
  /**
   * @since 0.1.0
   */
  InputRefused
} from "./InputFulfillerError.js"

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
 * @category services
 */
export class InputFulfiller extends Context.Service<InputFulfiller, Service>()("@mcp-effect/client/InputFulfiller") {}

// -----------------------------------------------------------------------------
// Constructors
// -----------------------------------------------------------------------------

/**
 * Check an elicitation form answer against the request's `requestedSchema` (the flat, primitive-only schema
 * the spec allows). Returns the problems found; empty means valid. `pattern`s are not checked here (they need
 * the RE2 engine, loaded on demand): `checkElicitContent` checks every rule.
 *
 * @since 0.1.0
 * @category validation
 */
export const validateElicitContent: (requestedSchema: unknown, content: unknown) => ReadonlyArray<string> =
  internal.validateElicitContent

/**
 * One way an answer breaks a form's schema: the field, the rule as the schema wrote it (`format: email`,
 * `minLength: 2`, `pattern: ^[A-Z]+$`, `required`) and what is wrong (`is not an email address`).
 *
 * @since 0.2.0
 * @category validation
 */
export type ElicitProblem = internal.ElicitProblem

/**
 * A problem as one line: `"email" is not an email address (format: email)`.
 *
 * @since 0.2.0
 * @category validation
 */
export const describeProblem: (problem: ElicitProblem) => string = internal.describeProblem

/**
 * Every rule of the request's `requestedSchema` an answer breaks: required fields, types, enums, lengths,
 * ranges, formats (`email`, `uri`, `date`, `date-time`) and `pattern`s. A server's pattern runs on RE2 (linear
 * time: no pattern freezes the client); one RE2 does not take (lookaround, backreferences) is not applied.
 * The fulfiller declines an answer that breaks a rule (with a warning naming each field and rule).
 *
 * @since 0.2.0
 * @category validation
 */
export const checkElicitContent: (
  requestedSchema: unknown,
  content: unknown
) => Effect.Effect<ReadonlyArray<ElicitProblem>> = internal.checkElicitContent

/**
 * One field's answer against its property's schema (as `checkElicitContent`): for a form that asks field by
 * field and asks again when an answer breaks a rule.
 *
 * @since 0.2.0
 * @category validation
 */
export const checkElicitField: (
  field: string,
  schema: JsonObject,
  value: unknown
) => Effect.Effect<ReadonlyArray<ElicitProblem>> = internal.checkElicitField

/**
 * Build the fulfiller for a set of hooks. Every refusal and every bad hook answer is reported as a diagnostic.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make: (hooks: InputHooks) => Service = internal.make

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
