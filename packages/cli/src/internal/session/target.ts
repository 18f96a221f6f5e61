/**
 * Which server a command talks to: `--stdio "command args..."`, `-- command args...`, `--url URL` (with
 * `--header`), or an entry of the configuration (`--config FILE`, default `./.mcp.json` then `./mcp.json`,
 * chosen with `--server NAME`, or the only entry); and what a stdio server is given besides its entry's `env`:
 * `--env KEY=VALUE` and `--env-all`.
 */
import { McpTransport } from "@mcp-effect/client"
import { McpConfig } from "@mcp-effect/client/node"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Result from "effect/Result"
import type * as Prompt from "effect/cli/Prompt"
import { discover, shown } from "../config/discover.js"
import * as inputs from "../config/inputs.js"
import { UsageError } from "../errors.js"
import { splitCommand } from "./shell.js"

export interface TargetOptions {
  readonly config: Option.Option<string>
  readonly server: Option.Option<string>
  readonly stdio: Option.Option<string>
  readonly url: Option.Option<string>
  readonly header: ReadonlyArray<string>
  /** `--env KEY=VALUE`: variables for a stdio server, merged over its entry's `env`. */
  readonly env?: ReadonlyArray<string> | undefined
  /** `--env-all`: the stdio server gets the command's whole environment (under its entry's `env` and `--env`). */
  readonly envAll?: boolean | undefined
  /** The words after `--` on the command line. */
  readonly tail: ReadonlyArray<string> | undefined
}

const usage = (message: string) => new UsageError({ message })

/** `Name: value` (or `Name=value`) headers. */
export const parseHeaders = (items: ReadonlyArray<string>): Effect.Effect<Record<string, string>, UsageError> =>
  Effect.gen(function*() {
    const headers: Record<string, string> = {}
    for (const item of items) {
      const match = /^([^:=\s]+)\s*[:=]\s*(.*)$/.exec(item)
      if (match === null) return yield* usage(`--header expects "Name: value", got ${JSON.stringify(item)}`)
      headers[match[1] ?? ""] = match[2] ?? ""
    }
    return headers
  })

/** What a malformed `--env` is shown as: its name part, never what may be a value. */
const shownKey = (item: string): string => {
  const key = item.split("=")[0] ?? ""
  return /^[A-Za-z0-9_.-]{1,64}$/.test(key) ? JSON.stringify(key) : "a malformed name"
}

/** `KEY=VALUE` variables (the value may hold `=`, and may be empty). */
export const parseEnv = (items: ReadonlyArray<string>): Effect.Effect<Record<string, string>, UsageError> =>
  Effect.gen(function*() {
    const env: Record<string, string> = {}
    for (const item of items) {
      const match = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/s.exec(item)
      if (match === null) return yield* usage(`--env expects KEY=VALUE (KEY of letters, digits and _), got ${shownKey(item)}`)
      env[match[1] ?? ""] = match[2] ?? ""
    }
    return env
  })

/**
 * The entry with what the command line adds to a stdio server's environment: the command's whole environment
 * (`--env-all`), the entry's `env` over it, `--env` over both. A value given with `--env` is one of the entry's
 * secrets (kept out of errors and stderr tails), as a configuration's `${VAR}` values are.
 */
const withEnvironment = (
  entry: McpConfig.ServerEntry,
  options: TargetOptions
): Effect.Effect<McpConfig.ServerEntry, UsageError> =>
  Effect.gen(function*() {
    const given = yield* parseEnv(options.env ?? [])
    const envAll = options.envAll === true
    if (Object.keys(given).length === 0 && !envAll) return entry
    if (entry.transport !== "stdio") return yield* usage("--env and --env-all go with a stdio server")
    const inherited = envAll ? McpTransport.childEnvironment({ command: entry.command, inheritEnv: "all" }) : {}
    return {
      ...entry,
      env: { ...inherited, ...entry.env, ...given },
      secrets: [...(entry.secrets ?? []), ...Object.values(given)]
    }
  })

/**
 * The configuration file to read: `--config`, else `./.mcp.json`, `./mcp.json`, then the editors' and desktop
 * apps' files (`config/discover.ts`), saying on stderr which one was used.
 */
export const configPath = (config: Option.Option<string>): Effect.Effect<string, UsageError> =>
  Option.match(config, {
    onSome: Effect.succeed,
    onNone: () => {
      const found = discover()
      if (found === undefined) {
        return Effect.fail(usage(
          "no server given: use --stdio \"command args\", -- command args, --url URL, or --config FILE " +
            "(no ./.mcp.json, ./mcp.json, nor an editor's or desktop app's configuration found)"
        ))
      }
      const path = shown(found)
      return found.announce
        ? Effect.as(Effect.sync(() => process.stderr.write(`mcp-effect: using ${path} (${found.app})\n`)), path)
        : Effect.succeed(path)
    }
  })

const fromConfig = (options: TargetOptions) =>
  Effect.gen(function*() {
    const path = yield* configPath(options.config)
    const answers = yield* inputs.ask(path)
    const entries = yield* McpConfig.readEntries(path, answers === undefined ? undefined : { inputs: answers }).pipe(
      Effect.mapError((e) => usage(e.message))
    )
    const names = entries.map((entry) => Result.match(entry, { onFailure: (e) => e.entry ?? "", onSuccess: (s) => s.name }))
    const name = Option.getOrUndefined(options.server) ?? (names.length === 1 ? names[0] : undefined)
    if (name === undefined) {
      return yield* usage(`${path} has ${names.length} servers; choose one with --server NAME (${names.join(", ")})`)
    }
    const index = names.indexOf(name)
    const entry = entries[index]
    if (entry === undefined) return yield* usage(`${path} has no server ${JSON.stringify(name)} (${names.join(", ")})`)
    return yield* Result.match(entry, { onFailure: (e) => Effect.fail(usage(e.message)), onSuccess: Effect.succeed })
  })

/** The one server of the command line, with the variables the command line gives a stdio server. */
export const resolve = (options: TargetOptions): Effect.Effect<McpConfig.ServerEntry, UsageError, Prompt.Environment> =>
  Effect.flatMap(server(options), (entry) => withEnvironment(entry, options))

/** The one server of the command line. */
const server = (options: TargetOptions): Effect.Effect<McpConfig.ServerEntry, UsageError, Prompt.Environment> =>
  Effect.gen(function*() {
    const given = [Option.isSome(options.stdio), options.tail !== undefined, Option.isSome(options.url)].filter(Boolean)
    if (given.length > 1) return yield* usage("give one server: --stdio, -- command, or --url")
    if (Option.isSome(options.server) && given.length > 0) {
      return yield* usage("--server picks an entry of the configuration; it cannot be combined with --stdio, -- or --url")
    }
    if (options.header.length > 0 && Option.isNone(options.url)) return yield* usage("--header goes with --url")
    const words = options.tail ?? Option.match(options.stdio, { onNone: () => undefined, onSome: splitCommand })
    if (typeof words === "string") return yield* usage(`--stdio: ${words}`)
    if (words !== undefined) {
      const [command, ...args] = words
      if (command === undefined) return yield* usage("an empty server command")
      return { name: "stdio", transport: "stdio", command, args, env: undefined, cwd: undefined, raw: {} }
    }
    if (Option.isSome(options.url)) {
      const headers = yield* parseHeaders(options.header)
      // Headers from the command line are taken as they are (the shell has expanded them): `$${` keeps a `${`.
      const literal = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, v.replaceAll("${", "$${")]))
      return yield* McpConfig.parseEntry("url", { url: options.url.value, headers: literal }, { env: {} }).pipe(
        Effect.mapError((e) => usage(`--url: ${e.detail}`))
      )
    }
    return yield* fromConfig(options)
  })
