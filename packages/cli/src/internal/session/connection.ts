/**
 * One command's connection: the server chosen on the command line, a client with the command's hooks
 * (progress bar, log messages, elicitation prompts, roots), for the life of the command.
 */
import type { McpClient, McpTransport } from "@mcp-effect/client"
import { McpConfig } from "@mcp-effect/client/node"
import type { InputFulfiller, McpClientError } from "@mcp-effect/client"
import type { LoggingLevel } from "@mcp-effect/client/McpSchema"
import type * as Prompt from "effect/cli/Prompt"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type * as LogLevel from "effect/LogLevel"
import * as References from "effect/References"
import * as Scope from "effect/Scope"
import { resolve as resolvePath } from "node:path"
import { pathToFileURL } from "node:url"
import * as auth from "./auth.js"
import * as Completions from "../elicitation/completions.js"
import * as elicit from "../elicitation/form.js"
import * as inputs from "../config/inputs.js"
import { type ConnectTimeoutError, connectTimeoutOf } from "./connectTimeout.js"
import type { UsageError } from "../errors.js"
import * as Status from "../terminal/statusLine.js"
import * as TaskStatus from "../terminal/taskStatus.js"
import { type PinningFlags, pinningOf } from "./pins.js"
import * as target from "./target.js"
import type { Interaction } from "../elicitation/url.js"
import { retryingClient } from "../elicitation/urlRequired.js"

/** The words after `--` on the command line (a server command), if there was a `--`. */
export class CommandTail extends Context.Service<CommandTail, ReadonlyArray<string> | undefined>()("mcp-effect/cli/CommandTail") {}

/** What picks the server (see `target.ts`; its command tail comes from `CommandTail`), and how to talk to it. */
export interface SessionOptions extends Omit<target.TargetOptions, "tail">, Omit<PinningFlags, "server" | "url" | "stdio"> {
  readonly json: boolean
  readonly root: ReadonlyArray<string>
  readonly timeout: number
  /** Seconds to connect (start and handshake), apart from each request's `timeout`. */
  readonly connectTimeout: number
  readonly callbackPort: number
}

const CLIENT_NAME = "mcp-effect-cli"

/**
 * `--log-level` is `effect/cli`'s built-in flag (all, trace, debug, info, warn, warning, error, fatal, none):
 * it sets the minimum log level of the command, which `main` starts at `None` (no server logs unless asked).
 * Its level maps to the MCP level asked of the server.
 */
export const mcpLevelOf = (level: LogLevel.LogLevel): LoggingLevel | undefined => {
  switch (level) {
    case "None":
      return undefined
    case "All":
    case "Trace":
    case "Debug":
      return "debug"
    case "Info":
      return "info"
    case "Warn":
      return "warning"
    case "Error":
      return "error"
    case "Fatal":
      return "critical"
  }
}

/** `--root PATH` as roots (file URIs of the absolute paths). */
export const rootsOf = (paths: ReadonlyArray<string>): InputFulfiller.ListRootsResult => ({
  roots: paths.map((path) => {
    const absolute = resolvePath(path)
    return { uri: pathToFileURL(absolute).href, name: absolute }
  })
})

const logLine = (message: McpClient.LogMessage) => {
  const data = typeof message.data === "string" ? message.data : JSON.stringify(message.data)
  return `[${message.level}]${message.logger === undefined ? "" : ` ${message.logger}:`} ${data}`
}

/**
 * What the command's elicitations need: the terminal when stdin and stdout are one (prompts read stdin and
 * draw on stdout, so `--json | jq` declines instead), the status line, and the completions it waits for.
 */
export const interaction = (
  options: Pick<SessionOptions, "timeout">,
  status: Status.StatusLine
): Effect.Effect<Interaction, never, Prompt.Environment> =>
  Effect.gen(function*() {
    const interactive = process.stdin.isTTY === true && process.stdout.isTTY === true
    return {
      terminal: interactive ? yield* Effect.context<Prompt.Environment>() : undefined,
      status,
      completions: Completions.make(status),
      timeout: options.timeout
    }
  })

/**
 * The client options of a command: hooks on the status line, prompts when stdin is a terminal. With `progress`,
 * a call's progress and, given `tasks`, its task's status are the live line.
 */
export const clientOptions = (
  options: Pick<SessionOptions, "root" | "timeout">,
  interaction: Interaction,
  progress: boolean,
  tasks?: TaskStatus.TaskStatuses
): Effect.Effect<McpClient.ClientOptions> =>
  Effect.gen(function*() {
    const { status } = interaction
    const logLevel = mcpLevelOf(yield* References.MinimumLogLevel)
    return {
      clientName: CLIENT_NAME,
      requestTimeout: options.timeout * 1000,
      ...(logLevel === undefined ? {} : { logLevel, onLog: (message: McpClient.LogMessage) => status.line(logLine(message)) }),
      ...(progress ? { onProgress: status.progress, resetTimeoutOnProgress: true } : {}),
      ...(progress && tasks !== undefined ? { onTaskCreated: tasks.created, onTaskStatus: tasks.status } : {}),
      onElicit: elicit.hook(interaction),
      elicitationModes: ["form", "url"],
      ...(options.root.length === 0 ? {} : { onListRoots: () => rootsOf(options.root) })
    }
  })

/** The server of the command line. */
export const entryOf = (options: Omit<target.TargetOptions, "tail">): Effect.Effect<McpConfig.ServerEntry, UsageError, CommandTail | Prompt.Environment> =>
  Effect.flatMap(CommandTail, (tail) => target.resolve({ ...options, tail })).pipe(
    // VS Code's inputs asked are those of the entry `--server` names (`config/inputs.ts`).
    Effect.provideService(inputs.ChosenEntry, Option.getOrUndefined(options.server))
  )

/**
 * How long a stdio server has to exit once its stdin is closed, and again after SIGTERM, before it is ended
 * harder: a command's server is stopped when the command is done, and a server busy with a call that Ctrl-C
 * cancelled must not hold the prompt back.
 */
export const SERVER_GRACE = "150 millis"

/** An entry's transport alone, no client over it (`record`, `verify`: they speak the recorded messages). */
export const transportOf = (
  entry: McpConfig.ServerEntry,
  shutdownTimeout?: Duration.Input
): Layer.Layer<McpTransport.McpTransport> =>
  McpConfig.transportLayer(entry, { shutdownTimeout })

/**
 * After Ctrl-C, how long the connection's close (the server's stop, its group swept) may keep the prompt: the
 * cancellation is written by then (it is sent as the call is interrupted, before the close), and when the process
 * exits, the client ends what is left of the server's process group.
 */
const INTERRUPTED_CLOSE = "400 millis"

/**
 * Close the connection's scope: in full, unless the command was interrupted; then for `INTERRUPTED_CLOSE` at
 * most, the rest of the close left running until the process exits.
 */
const closeConnection = (scope: Scope.Closeable, exit: Exit.Exit<unknown, unknown>): Effect.Effect<void> =>
  Exit.hasInterrupts(exit)
    ? Effect.forkDetach(Scope.close(scope, exit)).pipe(
      Effect.flatMap((closing) => Effect.timeoutOption(Fiber.await(closing), INTERRUPTED_CLOSE)),
      Effect.asVoid
    )
    : Scope.close(scope, exit)

/** Whether the command line already authorizes the requests itself (an `Authorization` header). */
const authorizedByHeader = (entry: McpConfig.HttpEntry) =>
  Object.keys(entry.headers ?? {}).some((name) => name.toLowerCase() === "authorization")

/**
 * Start the entry's client for the life of the scope (`McpConfig.clientLayer`), connected within
 * `connectTimeout` seconds (`--connect-timeout`). An HTTP server is given the sign-in (`auth`): it comes into
 * play only if the server answers 401, and uses a stored token when there is one.
 */
export const connect = (
  entry: McpConfig.ServerEntry,
  client: McpClient.ClientOptions,
  settings: { readonly callbackPort: number; readonly connectTimeout: number }
): Effect.Effect<McpClient.Service, McpClientError | McpConfig.McpConfigError | ConnectTimeoutError, Scope.Scope> =>
  McpConfig.connect(entry, {
    ...client,
    shutdownTimeout: SERVER_GRACE,
    connectTimeout: Duration.seconds(settings.connectTimeout),
    ...(entry.transport === "http" && !authorizedByHeader(entry) ? { auth: auth.authOptions(settings.callbackPort) } : {})
  }).pipe(connectTimeoutOf(settings.connectTimeout))

/** Run `use` with a client of the chosen server; the server is stopped when it is done. */
export const withClient = <A, E, R>(
  options: SessionOptions,
  use: (client: McpClient.Service, status: Status.StatusLine, startedAt: number) => Effect.Effect<A, E, R>,
  settings: {
    readonly progress?: boolean
    /** The client options as the command wants them (`types` declares only the capabilities asked for). */
    readonly client?: (options: McpClient.ClientOptions) => McpClient.ClientOptions
  } = {}
): Effect.Effect<
  A,
  E | UsageError | McpClientError | McpConfig.McpConfigError | ConnectTimeoutError,
  R | CommandTail | Prompt.Environment
> =>
  Effect.gen(function*() {
    const entry = yield* entryOf(options)
    const callbackPort = yield* auth.checkPort(options.callbackPort)
    const status = Status.make()
    const asks = yield* interaction(options, status)
    const tasks = TaskStatus.make(status)
    const made = yield* clientOptions(options, asks, settings.progress === true, tasks)
    const hooks = settings.client === undefined ? made : settings.client(made)
    // Pinning is on when a pins file is given (`--pins`, `MCP_EFFECT_PINS`) on a command that takes it.
    const pins = pinningOf(entry, options)
    const client: McpClient.ClientOptions = pins === undefined ? hooks : { ...hooks, pinning: pins }
    const startedAt = Date.now()
    return yield* Effect.uninterruptibleMask((restore) =>
      Effect.gen(function*() {
        const scope = yield* Scope.make()
        const exit = yield* connect(entry, client, { callbackPort, connectTimeout: options.connectTimeout }).pipe(
          Effect.tap((service) => Completions.follow(service, asks.completions)),
          Effect.tap((service) => settings.progress === true ? tasks.follow(service) : Effect.void),
          Effect.flatMap((service) => use(retryingClient(service, asks), status, startedAt)),
          Effect.ensuring(Effect.sync(status.clear)),
          Scope.provide(scope),
          restore,
          Effect.exit
        )
        yield* closeConnection(scope, exit)
        return yield* exit
      })
    )
  })
