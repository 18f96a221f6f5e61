/**
 * How a batch of tool calls a model asked for is run. One scheduler serves remote servers (`LlmBridge`),
 * local toolkits (`Toolkit`) and registries of both (`ToolRegistry`), so the three cannot drift.
 *
 * - The calls run one at a time, in model order, unless **every** call names a tool annotated
 *   `readOnlyHint: true` **and** `idempotentHint: true`. Then the batch is widened: the distinct calls run
 *   together, `toolConcurrency` of them at a time (default 4).
 * - Order is not an outcome: result n answers call n, whatever finished first.
 * - One call to an unannotated tool (or to a tool nobody knows) makes the whole batch a sequence: a model
 *   that asked for a write beside a read in one turn is describing an order.
 * - Identical calls in a widened batch (same tool, same arguments after sorting keys) are one run, its
 *   answer copied to every slot that asked. A serial batch runs every call, repeats included.
 * - No catalogue, no annotations: when the tools could not be listed, the batch is serial. Concurrency is
 *   opted into by a server that said its tools were safe for it, never assumed.
 * - `toolConcurrency: 1` turns widening off.
 *
 * ```ts
 * import { Effect } from "effect"
 * import { ToolScheduler } from "@mcp-effect/client"
 *
 * const program = Effect.gen(function*() {
 *   const scheduler = yield* ToolScheduler.ToolScheduler
 *   return yield* scheduler.run(
 *     [
 *       { tool: "search", key: "search {\"q\":\"a\"}", run: Effect.succeed("a") },
 *       { tool: "search", key: "search {\"q\":\"b\"}", run: Effect.succeed("b") }
 *     ],
 *     (tool) => (tool === "search" ? { readOnlyHint: true, idempotentHint: true } : undefined)
 *   )
 * }).pipe(Effect.provide(ToolScheduler.ToolScheduler.Default))
 * ```
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as internal from "./internal/toolScheduler.js"
import type { ToolAnnotations } from "./McpSchema.js"

/**
 * One call of a batch, as the scheduler sees it.
 *
 * @since 0.1.0
 * @category models
 */
export interface Job<A, R = never> {
  /** The tool the call names (`undefined` when the call names none: the batch is then serial). */
  readonly tool: string | undefined
  /**
   * The call's identity for deduplication: the tool plus its canonical arguments. Jobs with one key run once
   * in a widened batch; `undefined` never merges.
   */
  readonly key: string | undefined
  /** Runs the call. It cannot fail: a failed call is an answer, not an error. */
  readonly run: Effect.Effect<A, never, R>
}

/**
 * What a tool's server said about it, by name; `undefined` for a tool it said nothing about.
 *
 * @since 0.1.0
 * @category models
 */
export type AnnotationLookup = (tool: string) => ToolAnnotations | undefined

/**
 * How a batch will run: `groups[g]` lists the slots (call indices) the g-th run answers. A serial plan has
 * one group per call, in order.
 *
 * @since 0.1.0
 * @category models
 */
export interface Plan {
  readonly mode: "serial" | "concurrent"
  readonly concurrency: number
  readonly groups: ReadonlyArray<ReadonlyArray<number>>
  /** Why the batch runs that way, for logs and tests. */
  readonly reason: string
}

/**
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** How many distinct calls of a widened batch are in flight at once (default 4; 1 turns widening off). */
  readonly toolConcurrency?: number | undefined
}

/**
 * @since 0.1.0
 * @category models
 */
export interface Service {
  readonly toolConcurrency: number
  /** How `jobs` would run; `annotations` is `undefined` when the catalogue could not be fetched. */
  readonly plan: (
    jobs: ReadonlyArray<Pick<Job<unknown, unknown>, "tool" | "key">>,
    annotations: AnnotationLookup | undefined
  ) => Plan
  /** Run a batch: the answers in call order, whatever finished first. */
  readonly run: <A, R>(
    jobs: ReadonlyArray<Job<A, R>>,
    annotations: AnnotationLookup | undefined
  ) => Effect.Effect<Array<A>, never, R>
}

/**
 * The default width of a widened batch.
 *
 * @since 0.1.0
 * @category constants
 */
export const DEFAULT_TOOL_CONCURRENCY: number = internal.DEFAULT_TOOL_CONCURRENCY

/**
 * Whether a tool's annotations allow it to run beside others: `readOnlyHint` and `idempotentHint` both
 * `true`. Unset is not true.
 *
 * @since 0.1.0
 * @category guards
 */
export const isConcurrencySafe: (annotations: ToolAnnotations | undefined) => boolean = internal.isConcurrencySafe

/**
 * The scheduling rules as a pure function.
 *
 * @since 0.1.0
 * @category constructors
 */
export const plan: (
  jobs: ReadonlyArray<Pick<Job<unknown, unknown>, "tool" | "key">>,
  annotations: AnnotationLookup | undefined,
  toolConcurrency?: number
) => Plan = internal.plan

/**
 * A scheduler.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make: (options?: Options) => Service = internal.make

/**
 * The scheduler every bridge uses. Bridges that find none in their context use `make()`.
 *
 * @since 0.1.0
 * @category services
 */
export class ToolScheduler extends Context.Service<ToolScheduler, Service>()("@mcp-effect/client/ToolScheduler") {
  /**
   * The default scheduler (`toolConcurrency` 4).
   *
   * @since 0.1.0
   */
  static readonly Default: Layer.Layer<ToolScheduler> = Layer.sync(ToolScheduler, () => make())

  /**
   * A scheduler with these options.
   *
   * @since 0.1.0
   */
  static readonly layer = (options: Options): Layer.Layer<ToolScheduler> =>
    Layer.sync(ToolScheduler, () => make(options))
}

/**
 * The scheduler in context, or the default one.
 *
 * @since 0.1.0
 * @category accessors
 */
export const current: Effect.Effect<Service> = Effect.map(
  Effect.serviceOption(ToolScheduler),
  (found) => found._tag === "Some" ? found.value : make()
)
