/**
 * A Promise client: every operation of `McpClient.Service` as a Promise method, made from the list of
 * operations (`McpClient.operations`: an operation added there is a Promise method here with no line written),
 * run on the one runner (`promiseRun.ts`) with the client's context.
 *
 * @internal
 */
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import type { TypeLambda } from "effect/HKT"
import type * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import type * as LlmBridge from "../../LlmBridge.js"
import * as McpClient from "../../McpClient.js"
import { type McpClientError, McpClosedError } from "../../McpError.js"
import type {
  PromiseBridge,
  PromiseCallToolOptions,
  PromiseClient,
  PromiseSubscription
} from "../../McpPromise.js"
import { isRecord, type JsonObject } from "../../McpSchema.js"
import * as Operations from "../client/operations.js"
import * as PromiseRun from "../promiseRun.js"
import { abortReason, failureOf, fromBridge } from "./run.js"

/**
 * The signal of a call: the last argument's `signal`, when that argument is an options object carrying an
 * `AbortSignal` (options come last in every operation).
 */
const signalOf = (args: ReadonlyArray<unknown>): AbortSignal | undefined => {
  const last = args.at(-1)
  return isRecord(last) && last.signal instanceof AbortSignal ? last.signal : undefined
}

type Run = <A>(effect: Effect.Effect<A, unknown>, signal?: AbortSignal) => Promise<A>

/** An effect of the service as a Promise method without arguments. */
interface PromiseMethod extends TypeLambda {
  readonly type: () => Promise<this["Target"]>
}

/** The effect of one call as its Promise. */
interface PromiseOf extends TypeLambda {
  readonly type: Promise<this["Target"]>
}

/**
 * Each effect and each call of the service (`McpClient.operations`) as a Promise method; the scoped calls
 * and the streams have forms of their own (`listen`, `onNotification`, `onDiagnostic`).
 */
const derive = (service: McpClient.Service, run: Run): Operations.Operations<PromiseMethod, PromiseOf> =>
  Operations.mapOperations<PromiseMethod, PromiseOf>(service, {
    effect: (effect) => () => run(effect),
    call: (effect, _name, args) => run(effect, signalOf(args))
  })

/** `McpClient.listen` as an async iterable whose `close()` (or leaving a `for await` loop) ends it. */
const listenOf = (
  runtime: ManagedRuntime.ManagedRuntime<McpClient.McpClient, McpClientError>,
  client: McpClient.Service,
  run: Run
) =>
async (filter: McpClient.SubscriptionFilter): Promise<PromiseSubscription> => {
  const scope = await runtime.runPromise(Scope.make())
  const release = () => runtime.runPromise(Scope.close(scope, Exit.void))
  const subscription = await run(Scope.provide(client.listen(filter), scope)).catch(async (error: unknown) => {
    await release()
    throw error
  })
  const iterable = Stream.toAsyncIterableWith(subscription.notifications, await runtime.context())
  let closed: Promise<void> | undefined
  const close = () => (closed ??= release())
  return {
    acknowledged: subscription.acknowledged,
    close,
    [Symbol.asyncIterator]: () => {
      const inner = iterable[Symbol.asyncIterator]()
      return {
        next: () => inner.next(),
        return: async (value?: unknown) => {
          await close()
          return inner.return === undefined ? { done: true as const, value } : inner.return(value)
        }
      }
    }
  }
}

/** A stream's elements to `listener` until the returned function is called. */
const listenerOf = (runtime: ManagedRuntime.ManagedRuntime<McpClient.McpClient, McpClientError>) =>
<A>(stream: Stream.Stream<A>) =>
(listener: (a: A) => void): () => void => {
  const controller = new AbortController()
  void runtime.runPromise(
    Stream.runForEach(stream, (a) => Effect.sync(() => listener(a))),
    { signal: controller.signal }
  ).catch(() => undefined)
  return () => controller.abort()
}

// The LLM bridge (its schema translation, scheduler and content mapping) is loaded on the first of its calls:
// a program that only lists and calls tools never loads it.
let bridgeModule: Promise<typeof import("../llm/client.js")> | undefined
const loadBridge = () => (bridgeModule ??= import("../llm/client.js"))

/** `toolsForLlm`, `describeTools`, `executeToolCalls` and `toolAnnotations`, the bridge made on first use. */
const lazyBridge = (
  client: McpClient.Service,
  options: LlmBridge.ClientBridgeOptions
): Omit<PromiseBridge, "bridge"> => {
  let made: Promise<PromiseBridge> | undefined
  const bridge = () => (made ??= loadBridge().then((module) => fromBridge(module.fromClient(client, options))))
  return {
    toolsForLlm: (options) => bridge().then((b) => b.toolsForLlm(options)),
    describeTools: (options) => bridge().then((b) => b.describeTools(options)),
    executeToolCalls: (calls, options) => bridge().then((b) => b.executeToolCalls(calls, options)),
    toolAnnotations: (name, options) => bridge().then((b) => b.toolAnnotations(name, options))
  }
}

/** The service of a built runtime, or the layer's error (the runtime disposed). */
const serviceOf = (runtime: ManagedRuntime.ManagedRuntime<McpClient.McpClient, McpClientError>) =>
  runtime.runPromiseExit(McpClient.McpClient).then(
    Exit.match({
      onSuccess: (client) => client,
      onFailure: async (cause) => {
        await runtime.dispose()
        throw Cause.squash(cause)
      }
    })
  )

/** @internal */
export const fromLayer = async (
  layer: Layer.Layer<McpClient.McpClient, McpClientError>,
  bridgeOptions: LlmBridge.ClientBridgeOptions = {}
): Promise<PromiseClient> => {
  const runtime = ManagedRuntime.make(layer)
  const client = await serviceOf(runtime)
  let closing: Promise<void> | undefined
  const runOn = PromiseRun.make(await runtime.context(), failureOf)
  const run: Run = (effect, signal) =>
    closing !== undefined
      ? Promise.reject(new McpClosedError({ reason: "close() was called" }))
      : signal?.aborted === true
      ? Promise.reject(abortReason(signal))
      : runOn(effect, signal)
  const listen = listenerOf(runtime)
  // The bridge runs detached from the client's runtime, so executeToolCalls still resolves (is_error) after close().
  const llm = lazyBridge(client, bridgeOptions)
  const callTool = <O extends PromiseCallToolOptions>(name: string, args?: JsonObject, options?: O) =>
    run(client.callTool(name, args, options), options?.signal) as Promise<McpClient.CallResultOf<O>>
  return {
    ...derive(client, run),
    callTool,
    ...llm,
    ping: (options) => run(Effect.asVoid(client.request("ping", {}, options)), options?.signal),
    setLogLevel: (level, options) =>
      run(Effect.asVoid(client.request("logging/setLevel", { level }, options)), options?.signal),
    listen: listenOf(runtime, client, run),
    onNotification: listen(client.notifications),
    onDiagnostic: listen(client.diagnostics),
    close: () => {
      closing ??= runtime.runPromise(client.close).finally(() => runtime.dispose())
      return closing
    },
    runtime
  }
}

/** The bridge options a `connect*` call carries. @internal */
export const bridgeOptionsOf = (
  options: { readonly toolConcurrency?: number | undefined }
): LlmBridge.ClientBridgeOptions => options.toolConcurrency === undefined ? {} : { toolConcurrency: options.toolConcurrency }
