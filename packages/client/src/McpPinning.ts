/**
 * Tool pinning: a client given `pinning: { store }` records each tool's definition (name, title, description,
 * inputSchema, outputSchema, annotations) the first time it sees it, as the SHA-256 of its canonical JSON plus a
 * short summary, in a store, under a scope. A tool whose definition
 * later differs (a "rug pull": a server rewriting a tool's description after it was trusted) is quarantined:
 * left out of `listTools` (so of `toolsForLlm`, the toolkits, the registry) and refused by `callTool` with
 * `McpToolQuarantinedError`, until `onChanged` approves it or it is approved in the store (`approve`, or the
 * CLI's `mcp-effect pins approve NAME`).
 *
 * Trust on first use: a tool seen for the first time, at the first listing or later (reported as `ToolAdded`),
 * is pinned as it is then; pinning says "this has not changed since", not "this is safe". A tool no longer
 * listed is reported (`ToolRemoved`) and its pin kept, so that it cannot come back changed unnoticed.
 *
 * The scope is something the server cannot choose (never its `serverInfo.name`, which a server that rewrites a
 * tool could change too): a stdio server's command and arguments (`stdioScope`), an HTTP endpoint's origin and
 * path (`httpScope`), a configuration entry's name (`McpConfig`, `connectServers`, the CLI's `--server`), or
 * `pinning.scope`.
 *
 * Fail closed: a tool the client cannot check is quarantined too: the store cannot be read and no pin of the
 * tool was read before (unless `onStoreUnavailable: "allow"`), its stored record is damaged, its name is listed
 * twice with different definitions, or its definition nests deeper than 256 levels. Bounds: a record of at most
 * 1 MiB of JSON, a scope of at most 8 MiB, a pin file of at most 16 MiB; a write past them is refused (the
 * store left as it was, reported as `PinStoreUnavailable`). After `notifications/tools/list_changed`, a call
 * to a tool lists the tools (and checks them) again before it goes.
 *
 * Stores: `memoryStore()` (one process; the default when `pinning` names no store), `keyValueStore` (Effect's
 * `KeyValueStore`: a browser, a file, SQL), `NodeMcpPinning.fileStore(path)` (a `0600` JSON file, shared by
 * processes) and, for a fleet, `McpFleet.pinStore` (Redis).
 *
 * @since 0.3.0
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import type * as KeyValueStore from "effect/persistence/KeyValueStore"
import * as scopes from "./internal/pinning/scope.js"
import * as stores from "./internal/pinning/stores.js"
import type { McpPinStoreError, PinStore } from "./internal/pinning/model.js"

export {
  /**
   * @since 0.3.0
   * @category schemas
   */
  Fingerprint,
  /**
   * @since 0.3.0
   * @category errors
   */
  McpPinStoreError,
  /**
   * @since 0.3.0
   * @category schemas
   */
  PinRecord
} from "./internal/pinning/model.js"

export type {
  /**
   * @since 0.3.0
   * @category models
   */
  Decision,
  /**
   * @since 0.3.0
   * @category models
   */
  PinningOptions,
  /**
   * @since 0.3.0
   * @category models
   */
  PinStore,
  /**
   * @since 0.3.0
   * @category models
   */
  DamagedRecord,
  /**
   * @since 0.3.0
   * @category models
   */
  StoredRecord,
  /**
   * @since 0.3.0
   * @category models
   */
  ToolChange
} from "./internal/pinning/model.js"

/**
 * A tool's standing in a store: `pinned`, or `quarantined` while a definition nobody approved is pending
 * (`pendingHash`, and `changes`: what differs from the pinned one).
 *
 * @since 0.3.0
 * @category models
 */
export type PinStatus = stores.PinStatus

/**
 * A store in this process's memory (tests; a program that wants pins for its own lifetime only).
 *
 * @since 0.3.0
 * @category constructors
 */
export const memoryStore = (): PinStore => stores.memory()

/**
 * A store on Effect's `KeyValueStore` from the context: one key per scope (`<prefix><scope>`, default prefix
 * `mcp-effect/pins/`), its value the JSON array of the scope's records.
 *
 * @since 0.3.0
 * @category constructors
 */
export const keyValueStore = (
  options: { readonly prefix?: string | undefined } = {}
): Effect.Effect<PinStore, never, KeyValueStore.KeyValueStore> =>
  Effect.gen(function*() {
    // `effect/persistence` is loaded by the programs that use it, not by every importer of the client.
    const { KeyValueStore: Tag } = yield* Effect.promise(() => import("effect/persistence/KeyValueStore"))
    return stores.keyValue(yield* Tag, options.prefix)
  })

/**
 * The records of a scope with their status.
 *
 * @since 0.3.0
 * @category combinators
 */
export const list = (store: PinStore, scope: string): Effect.Effect<ReadonlyArray<PinStatus>, McpPinStoreError> =>
  stores.list(store, scope)

/**
 * Approve the pending definition of a quarantined tool: it becomes the pinned one, and the tool is usable from
 * a client's next listing. Answers the tool's status after (`undefined` when the scope has no such tool; a tool
 * with nothing pending is left as it is).
 *
 * @since 0.3.0
 * @category combinators
 */
export const approve = (
  store: PinStore,
  scope: string,
  name: string
): Effect.Effect<PinStatus | undefined, McpPinStoreError> =>
  Effect.flatMap(Clock.currentTimeMillis, (now) => stores.approve(store, scope, name, now))

/**
 * The default scope of a stdio server: its command and arguments, joined with spaces (what the client was told
 * to run; the server cannot choose it), the value of each credential-like argument replaced by `[secret]`
 * (`--token=…`, `--api-key …`, `API_KEY=…`, `Authorization: …`, `Bearer …`): a scope is written to the pins
 * file and printed, and a rotated credential keeps the pins.
 *
 * @since 0.3.0
 * @category constructors
 */
export const stdioScope: (command: string, args?: ReadonlyArray<string> | undefined) => string = scopes.stdioScope

/**
 * The default scope of a Streamable HTTP endpoint: its origin and path, without credentials, query or fragment
 * (which may hold secrets, and are no part of which server it is).
 *
 * @since 0.3.0
 * @category constructors
 */
export const httpScope: (url: string | URL) => string = scopes.httpScope

export {
  /**
   * @since 0.3.0
   */
  McpToolQuarantinedError
} from "./McpError.js"
