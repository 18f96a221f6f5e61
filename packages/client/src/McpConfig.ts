/**
 * Servers from the `mcpServers` configuration every MCP host keeps (Claude Desktop, Cursor, VS Code, Claude
 * Code):
 *
 * ```json
 * { "mcpServers": {
 *     "files": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "."] },
 *     "remote": { "url": "https://example.com/mcp", "headers": { "Authorization": "Bearer ${TOKEN}" } } } }
 * ```
 *
 * Each entry becomes a client (stdio when it has a `command`, Streamable HTTP when it has a `url`; a `type`
 * of `stdio`, `http` or `streamable-http` may say so) registered in a `ToolRegistry` under its name as the
 * prefix, so tool `read` of `files` is offered to a model as `files__read`.
 *
 * ```ts
 * import { Effect } from "effect"
 * import { McpConfig } from "@mcp-effect/client"
 *
 * const program = Effect.gen(function*() {
 *   const servers = yield* McpConfig.McpServers
 *   return yield* servers.registry.toolsForLlm()
 * })
 * program.pipe(Effect.provide(McpConfig.layer("./.mcp.json")), Effect.runPromise)
 * ```
 *
 * Rules:
 *
 * - `${VAR}` in `command`, `args`, `cwd`, `env`, `url` and `headers` is replaced by the environment variable
 *   (`${VAR:-default}` gives a default, `$${` is a literal `${`; VS Code's `${env:VAR}` too); an unset variable
 *   without a default is an error naming the field. VS Code's `${input:ID}` takes `ParseOptions.inputs`, and
 *   `${workspaceFolder}` the project's folder (the folder of `.vscode/`, else the file's own).
 *   Where `${VAR}` is expanded follows Claude Code's `.mcp.json` (command, args, env, url, headers).
 * - What a reference stood for (6 characters or more) never reaches an error: a command that cannot start is
 *   named as written, and what a server says back (a JSON-RPC error, an HTTP error body, its stderr) is cleaned
 *   of it (`[redacted]`), as of the values of an entry's `headers` (see `ServerEntry.secrets`).
 * - Unknown fields (of the document or of an entry) are kept in `raw` and otherwise ignored.
 * - A file that cannot be read, is not a regular file (a FIFO, a device), is larger than 4 MiB, is not JSON, or
 *   has a malformed entry fails with `McpConfigError`, which names the file, the entry and the field. A server
 *   that cannot be started or listed fails with `McpConfigServerError` naming the entry.
 * - `make`, `layer` and `connectServers` start at most `concurrency` servers at once (default 8), each within
 *   `connectTimeout` (default 30 s): a server that fails or does not answer in time is stopped before the next
 *   one starts, so no more than `concurrency` processes are starting or stopping at any time.
 * - The HTTP+SSE transport of 2024-11-05 (`"type": "sse"`) is not supported and is reported as such.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as FileSystem from "effect/FileSystem"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import * as Scope from "effect/Scope"
import * as client from "./internal/config/client.js"
import * as file from "./internal/config/file.js"
import * as parse from "./internal/config/parse.js"
import * as LlmBridge from "./LlmBridge.js"
import type * as McpAuth from "./McpAuth.js"
import * as McpClient from "./McpClient.js"
import type { McpClientError } from "./McpError.js"
import type * as McpTransport from "./McpTransport.js"
import * as ToolRegistry from "./ToolRegistry.js"
import * as NodePath from "node:path"
import { McpConfigError } from "./McpConfigError.js"

// -----------------------------------------------------------------------------
// Models
// -----------------------------------------------------------------------------

/**
 * Where `${VAR}` references are looked up (default `process.env`).
 *
 * @since 0.1.0
 * @category models
 */
export type Environment = Readonly<Record<string, string | undefined>>

/**
 * A server started over stdio. `env` is merged over the variables a server inherits (see
 * `McpTransport.SAFE_ENV_KEYS`).
 *
 * @since 0.1.0
 * @category models
 */
export interface StdioEntry {
  readonly name: string
  readonly transport: "stdio"
  readonly command: string
  readonly args: ReadonlyArray<string>
  readonly env: Readonly<Record<string, string>> | undefined
  readonly cwd: string | undefined
  /** The command line as written, references not expanded: how errors name the server (`StdioOptions.description`). */
  readonly description?: string | undefined
  /**
   * What the entry's `${VAR}` and `${input:ID}` references stood for (values of 6 characters or more; not
   * defaults, nor `${workspaceFolder}`): kept out of the server's errors and stderr tail (`StdioOptions.secrets`).
   */
  readonly secrets?: ReadonlyArray<string> | undefined
  /** The entry as written (unknown fields included, references not expanded). */
  readonly raw: Readonly<Record<string, unknown>>
}

/**
 * A Streamable HTTP server.
 *
 * @since 0.1.0
 * @category models
 */
export interface HttpEntry {
  readonly name: string
  readonly transport: "http"
  readonly url: string
  readonly headers: Readonly<Record<string, string>> | undefined
  /**
   * What the entry's references stood for (as `StdioEntry.secrets`): kept out of the server's errors
   * (`HttpOptions.secrets`), as the values of its `headers` are.
   */
  readonly secrets?: ReadonlyArray<string> | undefined
  /** The entry as written (unknown fields included, references not expanded). */
  readonly raw: Readonly<Record<string, unknown>>
}

/**
 * @since 0.1.0
 * @category models
 */
export type ServerEntry = StdioEntry | HttpEntry

/**
 * A configuration read: its entries in the order written.
 *
 * @since 0.1.0
 * @category models
 */
export interface Config {
  /** The file it came from, if any. */
  readonly path: string | undefined
  readonly servers: ReadonlyArray<ServerEntry>
}

/**
 * @since 0.1.0
 * @category models
 */
export interface ParseOptions {
  /** Where `${VAR}` is looked up (default `process.env`). */
  readonly env?: Environment | undefined
  /** The values of VS Code's `${input:ID}` references (its `inputs`, which a host prompts for), by id. */
  readonly inputs?: Readonly<Record<string, string>> | undefined
}

/**
 * Options of `layer` and `connectServers`.
 *
 * @since 0.1.0
 * @category models
 */
export interface LayerOptions extends ParseOptions {
  /** The behaviour of every client (hooks, timeouts, ...). `cacheNamespace` is the entry's name. */
  readonly client?: McpClient.ClientOptions | undefined
  /** Only these entries (default: all). */
  readonly only?: ReadonlyArray<string> | undefined
  /** Bridge options of the registry. */
  readonly bridge?: LlmBridge.BridgeOptions | undefined
  /**
   * A broken entry (malformed, or its server cannot be started or reached): `"fail"` fails the whole (the
   * default of `make` and `layer`), `"report"` leaves it out, in `failures`, and connects the rest (the
   * default of `connectServers`); when every entry is broken, `"report"` fails with the first.
   */
  readonly onBroken?: "fail" | "report" | undefined
  /**
   * How many servers are started (spawned or reached, and probed) at once (default 8, as `mcp-effect servers`):
   * a configuration of 200 entries does not start 200 processes together. Once started, a server stays
   * connected while the next ones start. A whole number of at least 1.
   */
  readonly concurrency?: number | undefined
  /**
   * How long one server may take to start and answer its handshake (default 30 seconds, as `mcp-effect`'s
   * `--connect-timeout`); then it is broken (`McpConfigServerError` with an `McpTimeoutError`), its process
   * stopped before the next server starts. The calls keep their own `requestTimeout`.
   */
  readonly connectTimeout?: Duration.Input | undefined
}

// -----------------------------------------------------------------------------
// Errors
// -----------------------------------------------------------------------------

export {
  /**
   * @since 0.1.0
   */
  McpConfigError
} from "./McpConfigError.js"

/**
 * A configured server that could not be started, probed or registered.
 *
 * @since 0.1.0
 * @category errors
 */
export class McpConfigServerError extends Schema.TaggedError<McpConfigServerError>()("McpConfigServerError", {
  entry: Schema.String,
  cause: Schema.Defect()
}) {
  override get message(): string {
    const cause = this.cause instanceof Error ? this.cause.message : String(this.cause)
    return `server ${JSON.stringify(this.entry)}: ${cause}`
  }
}

// -----------------------------------------------------------------------------
// Reading
// -----------------------------------------------------------------------------

/** VS Code's `${workspaceFolder}` for a file: the folder of its `.vscode/` folder, else its own folder. */
const workspaceFolderOf = (path: string): string => {
  const folder = NodePath.dirname(NodePath.resolve(path))
  return NodePath.basename(folder) === ".vscode" ? NodePath.dirname(folder) : folder
}

const envOf = (options: ParseOptions | undefined, path?: string): Environment => {
  const env = options?.env ?? process.env
  const inputs = options?.inputs
  const workspace = path === undefined || env["workspaceFolder"] !== undefined
    ? {}
    : { workspaceFolder: workspaceFolderOf(path) }
  return inputs === undefined && path === undefined
    ? env
    : {
      ...workspace,
      ...env,
      ...Object.fromEntries(Object.entries(inputs ?? {}).map(([id, value]) => [`input:${id}`, value]))
    }
}

/**
 * The `inputs` a configuration declares (VS Code's `.vscode/mcp.json`): what to ask the user for before its
 * `${input:ID}` references can be read (`ParseOptions.inputs`).
 *
 * @since 0.2.0
 * @category parsing
 */
export const inputsOf: (document: unknown) => ReadonlyArray<parse.Input> = parse.inputsOf

/** `$${` (a literal `${`, skipped) or VS Code's `${input:ID}`, as `parse.ts` reads them. */
const INPUT_REFERENCE = /\$\$\{|\$\{input:([^}]+)\}/g

/** How deep an entry's values are searched (an entry's fields are at most an object of strings deep). */
const INPUT_SEARCH_DEPTH = 8

/**
 * The ids of the `${input:ID}` references an entry's values make (each once, in order of appearance): which of
 * a configuration's `inputs` (`inputsOf`) are needed to read that entry.
 *
 * @since 0.2.0
 * @category parsing
 */
export const inputReferencesOf = (entry: unknown): ReadonlyArray<string> => {
  const found = new Set<string>()
  const visit = (value: unknown, depth: number): void => {
    if (typeof value === "string") {
      for (const match of value.matchAll(INPUT_REFERENCE)) if (match[1] !== undefined) found.add(match[1])
    } else if (depth < INPUT_SEARCH_DEPTH && Array.isArray(value)) {
      for (const item of value) visit(item, depth + 1)
    } else if (depth < INPUT_SEARCH_DEPTH && typeof value === "object" && value !== null) {
      for (const item of Object.values(value)) visit(item, depth + 1)
    }
  }
  visit(entry, 0)
  return [...found]
}

/**
 * @since 0.2.0
 * @category models
 */
export type Input = parse.Input

/**
 * Read a configuration object (already parsed JSON).
 *
 * @since 0.1.0
 * @category parsing
 */
export const parseConfig = (document: unknown, options?: ParseOptions): Effect.Effect<Config, McpConfigError> =>
  parse.parseDocument(document, envOf(options))

/**
 * Read one entry (the value under its name in `mcpServers`).
 *
 * @since 0.1.0
 * @category parsing
 */
export const parseEntry = (
  name: string,
  entry: unknown,
  options?: ParseOptions
): Effect.Effect<ServerEntry, McpConfigError> => parse.parseEntry(name, entry, envOf(options))

/**
 * The largest configuration file read (4 MiB). A larger file, and anything that is not a regular file (a FIFO, a
 * device, a directory), is an `McpConfigError` naming it, and is not read.
 *
 * @since 0.2.0
 * @category constants
 */
export const MAX_CONFIG_BYTES: number = file.MAX_CONFIG_BYTES

/**
 * The text of a configuration file, read as `load` reads it: a regular file of at most `MAX_CONFIG_BYTES`,
 * else an `McpConfigError` naming the file ("not a regular file", "larger than 4 MiB"). A FIFO is refused
 * without being opened, so nothing waits on one.
 *
 * @since 0.2.0
 * @category parsing
 */
export const readConfigText = (path: string): Effect.Effect<string, McpConfigError, FileSystem.FileSystem> =>
  Effect.flatMap(FileSystem.FileSystem, (fs) => file.readText(fs, path))

/**
 * Read a configuration file (a regular file of at most 4 MiB: see `MAX_CONFIG_BYTES`).
 *
 * @since 0.1.0
 * @category parsing
 */
export const load = (
  path: string,
  options?: ParseOptions
): Effect.Effect<Config, McpConfigError, FileSystem.FileSystem> =>
  Effect.gen(function*() {
    const text = yield* readConfigText(path)
    const document = yield* parse.parseText(text, path)
    return yield* parse.parseDocument(document, envOf(options), path)
  })

// Node's file system is loaded when a file is read: `@effect/platform-node` is an optional peer, and a program
// that never reads a configuration file loads neither it nor its modules. Missing, it is a tagged error that
// says what to install, not Node's ERR_MODULE_NOT_FOUND.
let nodeFileSystemModule: Promise<typeof import("@effect/platform-node/NodeFileSystem")> | undefined
const nodeFileSystem: Layer.Layer<FileSystem.FileSystem, McpConfigError> = Layer.unwrap(
  Effect.map(
    Effect.tryPromise({
      try: () => (nodeFileSystemModule ??= import("@effect/platform-node/NodeFileSystem")),
      catch: (cause) => {
        nodeFileSystemModule = undefined
        return platformNodeMissing(cause)
      }
    }),
    (module) => module.layer
  )
)

/** The error of a configuration file read without `@effect/platform-node` (or with one that does not load). */
const platformNodeMissing = (cause: unknown): McpConfigError => {
  const notFound = typeof cause === "object" && cause !== null && "code" in cause &&
    (cause.code === "ERR_MODULE_NOT_FOUND" || cause.code === "MODULE_NOT_FOUND")
  const install = "npm install @effect/platform-node (an optional peer dependency of @mcp-effect/client)"
  return new McpConfigError({
    detail: notFound
      ? `reading a configuration file needs @effect/platform-node, which is not installed: ${install}`
      : `reading a configuration file needs @effect/platform-node, which did not load (${
        cause instanceof Error ? cause.message : String(cause)
      }): ${install}`
  })
}

/**
 * Read a source entry by entry: a malformed entry is its own `McpConfigError` and leaves the others alone
 * (what `mcp-effect servers` shows). Fails only when the document itself cannot be read.
 *
 * @since 0.1.0
 * @category parsing
 */
export const readEntries = (
  source: Source,
  options?: ParseOptions
): Effect.Effect<ReadonlyArray<Result.Result<ServerEntry, McpConfigError>>, McpConfigError> =>
  Effect.gen(function*() {
    const path = typeof source === "string" ? source : undefined
    const document = typeof source === "string"
      ? yield* readConfigText(source).pipe(
        Effect.flatMap((text) => parse.parseText(text, path)),
        Effect.provide(nodeFileSystem)
      )
      : source
    const servers = yield* parse.serversOf(document, path)
    return yield* Effect.forEach(
      Object.entries(servers),
      ([name, entry]) => Effect.result(parse.parseEntry(name, entry, envOf(options, path), path))
    )
  })

/**
 * A file path, or the configuration object itself.
 *
 * @since 0.1.0
 * @category models
 */
export type Source = string | Readonly<Record<string, unknown>>

/**
 * Read a source: a path is read from the file system (Node's), an object is parsed as it is.
 *
 * @since 0.1.0
 * @category parsing
 */
export const read = (source: Source, options?: ParseOptions): Effect.Effect<Config, McpConfigError> =>
  typeof source === "string"
    ? load(source, options).pipe(Effect.provide(nodeFileSystem))
    : parseConfig(source, options)

// -----------------------------------------------------------------------------
// Clients
// -----------------------------------------------------------------------------

/**
 * The options of an entry's client: the client's own; for a stdio entry how long its server has to exit once
 * its stdin is closed (`shutdownTimeout`, default 2 s; see `McpTransport.StdioOptions`); for an HTTP entry the
 * sign-in (`auth`, see `McpAuth`: used only if the server answers 401); and how long the client has to connect.
 *
 * @since 0.2.0
 * @category models
 */
export interface EntryClientOptions extends McpClient.ClientOptions {
  readonly shutdownTimeout?: Duration.Input | undefined
  /** OAuth sign-in of an HTTP entry (tokens in `auth.tokenFile` when given); a stdio entry ignores it. */
  readonly auth?: McpAuth.AuthOptions | undefined
  /**
   * How long the server has to start and answer the handshake (the era settled, a sign-in included) when the
   * layer is built; then the layer fails with `McpTimeoutError` (`method: "connect"`, `limit: "overall"`),
   * whose `silentServer` is the tail of a stdio server's stderr when it wrote nothing on stdout (cleaned of the
   * entry's secrets, at most 20 lines in the message). Without it the layer connects on the first call. Not a
   * duration: `McpConfigError`. The calls keep their own `requestTimeout`.
   */
  readonly connectTimeout?: Duration.Input | undefined
}

/**
 * The client layer of one entry (Node: `child_process` for stdio, undici for HTTP).
 *
 * @since 0.1.0
 * @category layers
 */
export const clientLayer: (
  entry: ServerEntry,
  options?: EntryClientOptions
) => Layer.Layer<McpClient.McpClient, McpClientError | McpConfigError> = (entry, options = {}) =>
  client.clientLayer(entry, options)

/**
 * One entry's transport alone, with no client over it: for a tool that speaks the entry's messages itself (a
 * recorder, a replay check). `shutdownTimeout` is a stdio entry's; the HTTP entry's headers and secrets are
 * applied as `clientLayer` applies them.
 *
 * @since 0.3.0
 * @category layers
 */
export const transportLayer = (
  entry: ServerEntry,
  options: { readonly shutdownTimeout?: Duration.Input | undefined } = {}
): Layer.Layer<McpTransport.McpTransport> => client.transportOf(entry, {}, options)

/**
 * Start one entry's client for the life of the scope.
 *
 * @since 0.1.0
 * @category constructors
 */
export const connect = (
  entry: ServerEntry,
  options: EntryClientOptions = {}
): Effect.Effect<McpClient.Service, McpClientError | McpConfigError, Scope.Scope> =>
  Effect.map(Layer.build(clientLayer(entry, options)), Context.get(McpClient.McpClient))

/**
 * Every configured server: its client, and the registry that has them all under their names.
 *
 * @since 0.1.0
 * @category models
 */
export interface Servers {
  readonly config: Config
  readonly clients: ReadonlyMap<string, McpClient.Service>
  readonly registry: ToolRegistry.Registry
  /** The entries left out (`onBroken: "report"`), each with why: malformed, or its server failed. */
  readonly failures: ReadonlyArray<McpConfigError | McpConfigServerError>
}

/**
 * @since 0.1.0
 * @category services
 */
export class McpServers extends Context.Service<McpServers, Servers>()("@mcp-effect/client/McpConfig/McpServers") {}

const selected = (config: Config, only: ReadonlyArray<string> | undefined, malformed: ReadonlyArray<McpConfigError> = []) =>
  Effect.gen(function*() {
    if (only === undefined) return config.servers
    const unknown = only.find((name) =>
      !config.servers.some((entry) => entry.name === name) && !malformed.some((error) => error.entry === name)
    )
    if (unknown !== undefined) {
      return yield* new McpConfigError({ path: config.path, entry: unknown, detail: "no such entry in mcpServers" })
    }
    return config.servers.filter((entry) => only.includes(entry.name))
  })

/** The configuration and its malformed entries: all of it parsed (`"fail"`), or entry by entry (`"report"`). */
const readReporting = (source: Source | Config, options: LayerOptions) =>
  Effect.gen(function*() {
    if (isConfig(source)) return { config: source, malformed: [] }
    if (options.onBroken !== "report") return { config: yield* read(source, options), malformed: [] }
    const results = yield* readEntries(source, options)
    const servers: Array<ServerEntry> = []
    const malformed: Array<McpConfigError> = []
    for (const result of results) {
      if (result._tag === "Success") servers.push(result.success)
      else malformed.push(result.failure)
    }
    const config: Config = { path: typeof source === "string" ? source : undefined, servers }
    return { config, malformed }
  })

/**
 * One entry's client, connected (its era known) within the connect timeout, or why not. The entry has a scope
 * of its own: a server that failed is stopped (its process gone) before this returns, so `concurrency` bounds
 * the processes alive, not only the starts; a connected one lives until the caller's scope closes.
 */
const connectEntry = (entry: ServerEntry, options: LayerOptions, timeout: Duration.Duration) =>
  Effect.gen(function*() {
    const scope = yield* Scope.fork(yield* Effect.scope)
    return yield* connect(entry, { ...options.client, connectTimeout: timeout }).pipe(
      Scope.provide(scope),
      Effect.onExit((exit) => Exit.isFailure(exit) ? Scope.close(scope, exit) : Effect.void),
      Effect.mapError((cause) => new McpConfigServerError({ entry: entry.name, cause })),
      Effect.map((client) => [entry.name, client] as const)
    )
  })

/** How long `make` gives one server to start and answer its handshake by default. */
const DEFAULT_CONNECT_TIMEOUT = "30 seconds"

/** How many servers `make` starts at once by default. */
const DEFAULT_CONCURRENCY = 8

/**
 * Start the configured servers (in parallel, `concurrency` at a time, default 8) and register each under its
 * name, in the order written. By default any broken entry fails the whole; with `onBroken: "report"` it is left
 * out, in `failures`, and the rest connect.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (
  source: Source | Config,
  options: LayerOptions = {}
): Effect.Effect<Servers, McpConfigError | McpConfigServerError, Scope.Scope> =>
  Effect.gen(function*() {
    const concurrency = options.concurrency ?? DEFAULT_CONCURRENCY
    if (!Number.isInteger(concurrency) || concurrency < 1) {
      return yield* new McpConfigError({ detail: `concurrency must be a whole number of at least 1, got ${concurrency}` })
    }
    // Parsed here, not thrown: a duration from a caller's settings may be text that is not one.
    const parsed = Duration.fromInput(options.connectTimeout ?? DEFAULT_CONNECT_TIMEOUT)
    if (Option.isNone(parsed)) {
      return yield* new McpConfigError({ detail: `connectTimeout is not a duration, got ${String(options.connectTimeout)}` })
    }
    const timeout = parsed.value
    const { config, malformed } = yield* readReporting(source, options)
    const entries = yield* selected(config, options.only, malformed)
    const failures: Array<McpConfigError | McpConfigServerError> = malformed.filter((error) =>
      options.only === undefined || (error.entry !== undefined && options.only.includes(error.entry))
    )
    const outcomes = yield* Effect.forEach(
      entries,
      (entry) =>
        options.onBroken === "report"
          ? Effect.result(connectEntry(entry, options, timeout))
          : Effect.map(connectEntry(entry, options, timeout), Result.succeed),
      { concurrency }
    )
    const clients: Array<readonly [string, McpClient.Service]> = []
    for (const outcome of outcomes) {
      if (outcome._tag === "Success") clients.push(outcome.success)
      else failures.push(outcome.failure)
    }
    // Reported, not failed: unless nothing is left to connect.
    const [first] = failures
    if (clients.length === 0 && first !== undefined) return yield* Effect.fail(first)
    const registry = yield* ToolRegistry.make(options.bridge)
    for (const [name, client] of clients) {
      yield* registry.register(name, LlmBridge.clientSource(client)).pipe(
        Effect.mapError((cause) => new McpConfigServerError({ entry: name, cause }))
      )
    }
    return { config, clients: new Map(clients), registry, failures }
  })

const isConfig = (source: Source | Config): source is Config =>
  typeof source === "object" && "servers" in source && Array.isArray(source["servers"]) && !("mcpServers" in source)

/**
 * The configured servers as a layer.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (
  source: Source | Config,
  options: LayerOptions = {}
): Layer.Layer<McpServers, McpConfigError | McpConfigServerError> => Layer.effect(McpServers, make(source, options))
