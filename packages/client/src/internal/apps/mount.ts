/**
 * Mounting an App in a page: the tool found and its App read and checked, the policy built, the double iframe
 * opened, the bridge started, the tool called and its input and result handed to the App; on scope close the
 * App is torn down (its answer awaited, bounded) before its frame is removed.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Queue from "effect/Queue"
import type * as Scope from "effect/Scope"
import type * as McpClient from "../../McpClient.js"
import type { McpClientError } from "../../McpError.js"
import type { CallToolResult, JsonObject } from "../../McpSchema.js"
import * as Bridge from "./bridge.js"
import * as Csp from "./csp.js"
import type { ContainerLike, IFrameLike } from "./dom.js"
import { McpAppsError, McpAppsLimitError } from "./errors.js"
import * as Frame from "./frame.js"
import { type Answer, runHook } from "./hooks.js"
import * as Resource from "./resource.js"

/** @internal */
export interface MountOptions extends Omit<Bridge.BridgeOptions, "tool" | "sandbox"> {
  /** The tool's name: it is called with `arguments`, and its App shown. */
  readonly tool: string
  readonly arguments?: JsonObject | undefined
  /** The sandbox page (`@mcp-effect/client/apps-sandbox.html`), served from another origin than the page. */
  readonly sandboxUrl: string
  /** Asked for the permissions the App declares; only those answered are granted (default: none). */
  readonly grantPermissions?: ((request: {
    readonly instance: string
    readonly permissions: ReadonlyArray<Csp.Permission>
  }) => Answer<ReadonlyArray<Csp.Permission>>) | undefined
  readonly maxResourceBytes?: number | undefined
  /** How long the sandbox page may take to say it is ready (default 10 seconds). */
  readonly sandboxTimeout?: number | undefined
  /** How many Apps may be mounted in this page at once (default 8). */
  readonly maxFrames?: number | undefined
  /**
   * Tell the App the container's width as it changes (`containerDimensions` in `host-context-changed`), where
   * the page has `ResizeObserver` (default true).
   */
  readonly observeContainer?: boolean | undefined
}

/** @internal */
export interface MountedApp {
  readonly instance: string
  readonly bridge: Bridge.Bridge
  readonly iframe: IFrameLike
  /** The tool call's result, as the App received it. */
  readonly result: Effect.Effect<CallToolResult, McpClientError>
}

let mounted = 0

const reserveFrame = (max: number, subject: string) =>
  Effect.acquireRelease(
    Effect.suspend(() =>
      mounted >= max
        ? Effect.fail(new McpAppsLimitError({ limit: "frames", maximum: max, actual: mounted + 1, instance: subject }))
        : Effect.sync(() => void mounted++)
    ),
    () => Effect.sync(() => void mounted--)
  )

let instances = 0

interface ResizeObserverLike {
  observe(target: unknown): void
  disconnect(): void
}

type ResizeObserverConstructor = new(
  callback: (entries: ReadonlyArray<{ readonly contentRect: { readonly width: number } }>) => void
) => ResizeObserverLike

/**
 * The container's width to the App as it changes: the observer only notes the latest width (a sliding queue
 * of one), a fiber of the scope sends it, so a resize storm costs one message per change the App can take.
 */
const watchWidth = (container: ContainerLike, bridge: Bridge.Bridge) =>
  Effect.gen(function*() {
    const Observer: unknown = Reflect.get(globalThis, "ResizeObserver")
    if (typeof Observer !== "function") return
    const widths = yield* Queue.sliding<number>(1)
    yield* Effect.acquireRelease(
      Effect.sync(() => {
        const observer = new (Observer as ResizeObserverConstructor)((entries) => {
          const width = entries.at(-1)?.contentRect.width
          if (width !== undefined && Number.isFinite(width)) Queue.offerUnsafe(widths, Math.round(width))
        })
        observer.observe(container)
        return observer
      }),
      (observer) => Effect.sync(() => observer.disconnect())
    )
    let last: number | undefined
    yield* Queue.take(widths).pipe(
      Effect.flatMap((width) => {
        if (width === last) return Effect.void
        last = width
        return Effect.ignore(bridge.setHostContext({ containerDimensions: { width } }))
      }),
      Effect.forever,
      Effect.forkScoped
    )
  })

/** @internal */
export const mount = (
  client: McpClient.Service,
  container: ContainerLike,
  options: MountOptions
): Effect.Effect<MountedApp, McpAppsError | McpAppsLimitError | McpClientError, Scope.Scope> =>
  Effect.gen(function*() {
    const instance = options.instance ?? `app-${++instances}`
    yield* reserveFrame(options.maxFrames ?? 8, instance)
    const tool = (yield* client.listTools()).find((candidate) => candidate.name === options.tool)
    if (tool === undefined) return yield* new McpAppsError({ reason: "no-ui", detail: "no such tool", subject: options.tool })
    const app = yield* Resource.readApp(client, tool, { maxResourceBytes: options.maxResourceBytes })
    const policy = yield* Csp.buildCsp(app.ui, app.uri)
    const declared = Csp.declaredPermissions(app.ui)
    const grant = options.grantPermissions
    const answered = declared.length === 0 || grant === undefined ? [] : yield* runHook(() => grant({ instance, permissions: declared })).pipe(
      Effect.orElseSucceed(() => [])
    )
    const granted = declared.filter((permission) => answered.includes(permission))
    const permissions = Object.fromEntries(granted.map((permission) => [permission, {}]))
    const frame = yield* Frame.open(container, options.sandboxUrl, Csp.allowAttribute(granted), instance)
    const bridge = yield* Bridge.make(client, frame.port, {
      ...options,
      instance,
      tool,
      sandbox: { permissions, ...(app.ui.csp === undefined ? {} : { csp: app.ui.csp as JsonObject }) },
      onSizeChanged: (size) => {
        if (size.height !== undefined && Number.isFinite(size.height)) frame.iframe.style.height = `${Math.max(0, Math.ceil(size.height))}px`
        options.onSizeChanged?.(size)
      }
    })
    // Torn down before the frame is removed (finalizers run in reverse): the App's answer is awaited, bounded.
    yield* Effect.addFinalizer(() => bridge.teardown)
    yield* frame.load(
      { html: Csp.withPolicy(app.html, policy), sandbox: Csp.sandboxTokens(app.ui.sandbox), csp: app.ui.csp ?? {}, permissions },
      options.sandboxTimeout ?? 10_000
    )
    if (options.observeContainer !== false) yield* watchWidth(container, bridge)
    const args = options.arguments ?? {}
    const call = yield* Effect.forkScoped(client.callTool(tool.name, args))
    yield* Effect.forkScoped(
      Effect.gen(function*() {
        yield* bridge.initialized
        yield* bridge.sendToolInput(args)
        const exit = yield* Fiber.await(call)
        yield* Exit.isSuccess(exit)
          ? bridge.sendToolResult(exit.value)
          : bridge.sendToolCancelled("the tool call failed")
      }).pipe(Effect.ignore)
    )
    return { instance, bridge, iframe: frame.iframe, result: Fiber.join(call) }
  })
