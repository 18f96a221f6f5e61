/**
 * `mountApp`, the Promise form of `BrowserMcpApps.mount`: the App lives in a scope of its own on the client's
 * runtime, closed by the handle's `close()` (the App torn down, its answer awaited, then its frame removed).
 * The mount's code is loaded on the first `mountApp`.
 *
 * @internal
 */
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"
import * as McpClient from "../../McpClient.js"
import type { PromiseClient } from "../../McpPromise.js"
import type { CallToolResult, JsonObject } from "../../McpSchema.js"
import type { ContainerLike, IFrameLike } from "../apps/dom.js"
import type { MountOptions } from "../apps/mount.js"

/** @internal */
export interface MountAppOptions extends MountOptions {
  readonly client: PromiseClient
}

/** @internal */
export interface AppHandle {
  readonly instance: string
  readonly iframe: IFrameLike
  /** The tool call's result (rejects with the call's error). */
  readonly result: Promise<CallToolResult>
  /** Sends the App a change of host context (theme, display mode, container size, locale). */
  readonly setHostContext: (change: JsonObject) => Promise<void>
  /** Tears the App down (its answer awaited, bounded) and removes its frame. */
  readonly close: () => Promise<void>
}

let mountModule: Promise<typeof import("../apps/mount.js")> | undefined

/** @internal */
/** The element the frame goes in. @internal */
export type MountAppContainer = ContainerLike

/** @internal */
export const mountApp = async (container: ContainerLike, options: MountAppOptions): Promise<AppHandle> => {
  const { client: promiseClient, ...mountOptions } = options
  const module = await (mountModule ??= import("../apps/mount.js"))
  const runtime = promiseClient.runtime
  const scope = await runtime.runPromise(Scope.make())
  const close = () => runtime.runPromise(Scope.close(scope, Exit.void))
  const exit = await runtime.runPromiseExit(
    Effect.flatMap(McpClient.McpClient, (client) => module.mount(client, container, mountOptions)).pipe(Scope.provide(scope))
  )
  if (Exit.isFailure(exit)) {
    await close()
    throw Cause.squash(exit.cause)
  }
  const mounted = exit.value
  let closing: Promise<void> | undefined
  const result = runtime.runPromise(mounted.result)
  // A caller who never looks at the result (or closes the App before it came) gets no unhandled rejection;
  // one who awaits it still sees the call's error.
  result.catch(() => undefined)
  return {
    instance: mounted.instance,
    iframe: mounted.iframe,
    result,
    setHostContext: (change) => runtime.runPromise(mounted.bridge.setHostContext(change)),
    close: () => (closing ??= close())
  }
}
