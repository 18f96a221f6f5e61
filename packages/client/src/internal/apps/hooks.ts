/**
 * The host's hooks for one App, and how they are called: each may answer synchronously or with a Promise; a
 * hook that throws or rejects refuses what it was asked (and is reported), never escapes.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import type * as InputFulfiller from "../../InputFulfiller.js"
import type { JsonObject } from "../../McpSchema.js"
import type { McpAppsLimitError } from "./errors.js"
import type { DisplayMode } from "./protocol.js"

/** An App's `tools/call`, as `approveToolCall` sees it. @internal */
export interface ToolCallRequest {
  readonly instance: string
  readonly name: string
  readonly arguments: JsonObject
  /** The tool as listed (its annotations: `readOnlyHint` calls are not asked about). */
  readonly readOnly: boolean
}

/** A file an App offers (`ui/download-file`), its name made safe. @internal */
export interface DownloadFile {
  readonly instance: string
  readonly filename: string
  readonly mimeType: string | undefined
  /** The text, or the base64 bytes (`blob`), of an embedded resource; absent for a resource link. */
  readonly text?: string | undefined
  readonly blob?: string | undefined
  /** The resource's URI (a link's target). */
  readonly uri: string | undefined
}

/** What every App request becomes, for an audit trail. @internal */
export interface AppRequestEvent {
  readonly instance: string
  /** The tool whose App this is. */
  readonly tool: string
  readonly method: string
  readonly params: JsonObject | undefined
  readonly outcome: "answered" | "refused" | "failed"
  readonly detail?: string | undefined
}

/** A message the bridge dropped, and why. @internal */
export interface RejectedMessage {
  readonly instance: string
  readonly reason: "foreign" | "malformed" | "unexpected" | "limit"
  readonly detail: string
  readonly limit?: McpAppsLimitError | undefined
}

/**
 * What a hook may answer: the value, a Promise of it, or an Effect (as the client's own input hooks may).
 *
 * @internal
 */
export type Answer<A> = A | PromiseLike<A> | Effect.Effect<A, unknown>

/** @internal */
export interface AppHooks {
  /** Asked before an App's call of a tool not marked `readOnlyHint` (default: allowed). */
  readonly approveToolCall?: ((call: ToolCallRequest) => Answer<boolean>) | undefined
  /** `ui/open-link` (http and https only); without it the App is told links cannot be opened. */
  readonly onOpenLink?: ((link: { readonly instance: string; readonly url: string }) => Answer<boolean | void>) | undefined
  /** `ui/download-file`, one call per file; without it the App is told files cannot be downloaded. */
  readonly onDownloadFile?: ((file: DownloadFile) => Answer<boolean | void>) | undefined
  /** `ui/message`: the App adds a user message to the conversation. */
  readonly onMessage?:
    | ((message: { readonly instance: string; readonly role: "user"; readonly content: ReadonlyArray<JsonObject> }) => Answer<boolean | void>)
    | undefined
  /** `ui/update-model-context`: the latest replaces any earlier one. */
  readonly onUpdateModelContext?:
    | ((context: {
      readonly instance: string
      readonly content?: ReadonlyArray<JsonObject> | undefined
      readonly structuredContent?: JsonObject | undefined
    }) => Answer<void>)
    | undefined
  /** Asked when an App requests a display mode both sides support (default: granted). */
  readonly onRequestDisplayMode?: ((request: { readonly instance: string; readonly mode: DisplayMode }) => Answer<boolean>) | undefined
  /** `ui/notifications/size-changed`. */
  readonly onSizeChanged?: ((size: { readonly width?: number | undefined; readonly height?: number | undefined }) => void) | undefined
  /** `ui/notifications/request-teardown`: the App asks to be closed. */
  readonly onRequestTeardown?: (() => void) | undefined
  /** `notifications/message` from the App. */
  readonly onLog?: ((params: JsonObject) => void) | undefined
  /** Every App request, with its outcome: the audit trail. */
  readonly onAppRequest?: ((event: AppRequestEvent) => void) | undefined
  /** Every message dropped (another window's, malformed, past a limit). */
  readonly onRejected?: ((message: RejectedMessage) => void) | undefined
  /** `sampling/createMessage` from the App, served as the client's own `onSample` is (same hook type). */
  readonly onSample?: InputFulfiller.InputHooks["onSample"]
}

const describe = (error: unknown): string =>
  `the host's hook failed: ${error instanceof Error ? error.message : String(error)}`

const isPromiseLike = (u: unknown): u is PromiseLike<unknown> =>
  typeof u === "object" && u !== null && typeof Reflect.get(u, "then") === "function"

/** Runs a hook; a throw, a rejection or a failure is the failure (a string saying what went wrong). @internal */
export const runHook = <A>(call: () => Answer<A>): Effect.Effect<A, string> =>
  Effect.try({ try: call, catch: describe }).pipe(
    Effect.flatMap((answer): Effect.Effect<A, string> => {
      if (Effect.isEffect(answer)) return Effect.mapError(answer as Effect.Effect<A, unknown>, describe)
      if (isPromiseLike(answer)) return Effect.tryPromise({ try: async () => (await answer) as A, catch: describe })
      return Effect.succeed(answer)
    })
  )

/** Runs a leaf hook (a notification's): whatever it does, the bridge goes on. @internal */
export const runLeaf = (call: () => unknown): Effect.Effect<void> =>
  // A leaf hook's failure is the host's own affair: the App's message was handled.
  Effect.ignore(Effect.try({ try: call, catch: () => undefined }))
