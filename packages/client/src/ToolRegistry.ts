/**
 * Any number of MCP clients and local toolkits behind one prefix namespace, with one `toolsForLlm` and one
 * `executeToolCalls`: tool `search` of the owner registered as `github` is offered as `github__search`,
 * each call is routed to its owner, and the batch is scheduled across owners by the same `ToolScheduler`
 * rules as a single server (serial unless every call, whoever owns it, is to a read-only idempotent tool).
 *
 * ```ts
 * import { Effect } from "effect"
 * import { LlmBridge, McpClient, ToolRegistry, Toolkit } from "@mcp-effect/client"
 *
 * const program = Effect.gen(function*() {
 *   const github = yield* McpClient.McpClient
 *   const registry = yield* ToolRegistry.make()
 *   yield* registry.register("github", LlmBridge.clientSource(github))
 *   yield* registry.register("local", yield* Toolkit.source(Toolkit.make()))
 *   return yield* registry.toolsForLlm()   // github__search, ..., local__...
 * })
 * ```
 *
 * Rules:
 *
 * - A prefix matches `^[a-zA-Z0-9-]+(_[a-zA-Z0-9-]+)*$` and has at most 32 characters: no `__` inside, no
 *   `_` at either end, so the first `__` of an exposed name always ends the prefix and routing is unambiguous.
 *   An invalid prefix, or one already registered, fails `register` with a `ToolRegistryError`.
 * - The exposed name is `prefix__tool`, sanitised like any tool name (`LlmBridge.sanitizeToolName`: kept when
 *   valid, otherwise cleaned, cut to 64 characters and suffixed with a stable hash of the full name).
 * - `register` lists the owner's tools at once; if any exposed name would be claimed twice (an owner listing
 *   one name twice, or a hash collision) it fails with `ToolRegistryError` `NameCollision` and registers
 *   nothing. A catalogue that changes later and collides fails `toolsForLlm` the same way; nothing is ever
 *   silently overwritten.
 * - The catalogue order is stable: owners in registration order, each owner's tools in its own order.
 * - `toolsForLlm` needs every owner's catalogue: one that cannot be listed fails it. `executeToolCalls`
 *   never fails: without a complete catalogue the batch is serial and each call is routed by its prefix.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as Semaphore from "effect/Semaphore"
import { assignNames } from "./internal/llm/names.js"
import * as LlmBridge from "./LlmBridge.js"
import type { McpClientError } from "./McpError.js"

/**
 * The separator between an owner's prefix and its tool's name.
 *
 * @since 0.1.0
 * @category constants
 */
export const SEPARATOR = "__"

/**
 * What a prefix must look like.
 *
 * @since 0.1.0
 * @category constants
 */
export const PREFIX_PATTERN: RegExp = /^[a-zA-Z0-9-]+(?:_[a-zA-Z0-9-]+)*$/

/**
 * The longest prefix.
 *
 * @since 0.1.0
 * @category constants
 */
export const MAX_PREFIX_LENGTH = 32

/**
 * A registration the registry refuses, or a catalogue whose names collide.
 *
 * @since 0.1.0
 * @category errors
 */
export class ToolRegistryError extends Schema.TaggedError<ToolRegistryError>()("ToolRegistryError", {
  reason: Schema.Literals(["InvalidPrefix", "DuplicatePrefix", "NameCollision"]),
  prefix: Schema.String,
  detail: Schema.String
}) {
  override get message(): string {
    return `tool registry, prefix ${JSON.stringify(this.prefix)}: ${this.detail}`
  }
}

/**
 * What listing a registry's catalogue can fail with.
 *
 * @since 0.1.0
 * @category errors
 */
export type RegistryError = McpClientError | ToolRegistryError

/**
 * What can be registered: a tool source, or a bridge (its source is used): a client's, a toolkit's, or
 * another registry (registries nest).
 *
 * @since 0.1.0
 * @category models
 */
export type Provider = LlmBridge.ToolSource<RegistryError> | LlmBridge.Bridge<RegistryError>

/**
 * @since 0.1.0
 * @category models
 */
export interface Registry extends LlmBridge.Bridge<RegistryError> {
  /** Add an owner under `prefix`; its tools are listed now to check their names. */
  readonly register: (prefix: string, provider: Provider) => Effect.Effect<void, RegistryError>
  /** Remove an owner; `false` if there was none under `prefix`. */
  readonly unregister: (prefix: string) => Effect.Effect<boolean>
  /** The prefixes, in registration order. */
  readonly prefixes: Effect.Effect<ReadonlyArray<string>>
}

interface Owner {
  readonly prefix: string
  readonly source: LlmBridge.ToolSource<RegistryError>
  /** The composite names seen when it was registered. */
  readonly names: ReadonlyArray<string>
}

const sourceOf = (provider: Provider): LlmBridge.ToolSource<RegistryError> =>
  "source" in provider ? provider.source : provider

/**
 * Why a prefix is not acceptable, or `undefined` if it is.
 *
 * @since 0.1.0
 * @category guards
 */
export const prefixProblem = (prefix: string): string | undefined => {
  if (prefix.length === 0) return "a prefix cannot be empty"
  if (prefix.length > MAX_PREFIX_LENGTH) return `a prefix has at most ${MAX_PREFIX_LENGTH} characters`
  if (!PREFIX_PATTERN.test(prefix)) {
    return "a prefix is letters, digits, - and single _ between them (no __, no _ at either end)"
  }
  return undefined
}

const collisionDetail = (collision: { readonly exposed: string; readonly names: ReadonlyArray<string> }) =>
  `${collision.names.map((n) => JSON.stringify(n)).join(" and ")} would all be offered as ${collision.exposed}`

/**
 * An empty registry, scheduled by the `ToolScheduler` in context (or the default one).
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (options: LlmBridge.BridgeOptions = {}): Effect.Effect<Registry> =>
  Effect.gen(function*() {
    const lock = yield* Semaphore.make(1)
    let owners: ReadonlyArray<Owner> = []

    const ownerOf = (name: string): { readonly owner: Owner; readonly tool: string } | undefined => {
      const cut = name.indexOf(SEPARATOR)
      if (cut <= 0) return undefined
      const prefix = name.slice(0, cut)
      const owner = owners.find((o) => o.prefix === prefix)
      return owner === undefined ? undefined : { owner, tool: name.slice(cut + SEPARATOR.length) }
    }

    const source: LlmBridge.ToolSource<RegistryError> = {
      list: (listOptions) =>
        Effect.suspend(() => {
          const current = owners
          return Effect.forEach(
            current,
            (owner) =>
              Effect.map(owner.source.list(listOptions), (tools) =>
                tools.map((tool) => ({ ...tool, name: `${owner.prefix}${SEPARATOR}${tool.name}` }))),
            { concurrency: "unbounded" }
          ).pipe(
            Effect.flatMap((perOwner) => {
              const tools = perOwner.flat()
              const collision = assignNames(tools.map((t) => t.name)).collisions[0]
              if (collision === undefined) return Effect.succeed(tools)
              const prefix = ownerOf(collision.names[0] ?? "")?.owner.prefix ?? ""
              return Effect.fail(
                new ToolRegistryError({ reason: "NameCollision", prefix, detail: collisionDetail(collision) })
              )
            })
          )
        }),
      invoke: (name, args, context) =>
        Effect.suspend(() => {
          const routed = ownerOf(name)
          if (routed === undefined) {
            return Effect.succeed<LlmBridge.ToolOutcome>({
              content: `Unknown tool "${name}": no tool server is registered under its prefix (registered: ${
                owners.map((o) => o.prefix).join(", ") || "none"
              }).`,
              isError: true
            })
          }
          return routed.owner.source.invoke(routed.tool, args, context)
        })
    }

    const bridge = yield* LlmBridge.fromSourceEffect(source, options)

    const register = (prefix: string, provider: Provider) =>
      lock.withPermits(1)(
        Effect.gen(function*() {
          const problem = prefixProblem(prefix)
          if (problem !== undefined) {
            return yield* new ToolRegistryError({ reason: "InvalidPrefix", prefix, detail: problem })
          }
          if (owners.some((o) => o.prefix === prefix)) {
            return yield* new ToolRegistryError({
              reason: "DuplicatePrefix",
              prefix,
              detail: "an owner is already registered under this prefix"
            })
          }
          const ownerSource = sourceOf(provider)
          const tools = yield* ownerSource.list()
          const names = tools.map((t) => `${prefix}${SEPARATOR}${t.name}`)
          const all = [...owners.flatMap((o) => o.names), ...names]
          const collision = assignNames(all).collisions.find((c) => c.names.some((n) => names.includes(n)))
          if (collision !== undefined) {
            return yield* new ToolRegistryError({ reason: "NameCollision", prefix, detail: collisionDetail(collision) })
          }
          owners = [...owners, { prefix, source: ownerSource, names }]
        })
      )

    const unregister = (prefix: string) =>
      lock.withPermits(1)(Effect.sync(() => {
        const before = owners.length
        owners = owners.filter((o) => o.prefix !== prefix)
        return owners.length !== before
      }))

    const registry: Registry = {
      ...bridge,
      register,
      unregister,
      prefixes: Effect.sync(() => owners.map((o) => o.prefix))
    }
    return registry
  })
