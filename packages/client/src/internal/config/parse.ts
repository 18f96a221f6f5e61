/**
 * Reading the `mcpServers` JSON shape: each entry checked field by field, `${VAR}` references expanded in
 * `command`, `args`, `cwd`, `env`, `url` and `headers`, unknown fields kept (in `raw`) and otherwise ignored.
 */
import * as Effect from "effect/Effect"
import type { Config, Environment, ServerEntry } from "../../McpConfig.js"
import { McpConfigError } from "../../McpConfigError.js"
import { isSecretLike } from "../redact.js"
import { SAFE_ENV_KEYS } from "../transport/environment.js"
import { isRecord } from "../../McpSchema.js"

type Json = Readonly<Record<string, unknown>>

interface Where {
  readonly path?: string | undefined
  readonly entry?: string | undefined
  /** Where the entry's expansions note what they substituted (see `substituted`). */
  readonly secrets?: Set<string> | undefined
}

/**
 * Whether a substituted value is kept out of errors: what a variable or an input stood for, of at least 6
 * characters (`MIN_SECRET`). Not a default written in the file, nor `${workspaceFolder}` (a path the file
 * implies), nor a variable every server inherits anyway (`SAFE_ENV_KEYS`: `HOME`, `USER`, `PATH`…), nor a
 * shorter value: masking every `/home/ada` or `true` a server says would hide more than it protects.
 */
const substituted = (where: Where, name: string, value: string) => {
  const variable = (name.startsWith("env:") ? name.slice(4) : name).toUpperCase()
  if (name === "workspaceFolder" || SAFE_ENV_KEYS.includes(variable) || !isSecretLike(value)) return
  where.secrets?.add(value)
}

const failure = (where: Where, field: string | undefined, detail: string) =>
  new McpConfigError({ path: where.path, entry: where.entry, field, detail })

/**
 * `${NAME}` or `${NAME:-default}`; `$${` is a literal `${`; VS Code's `${input:ID}` (looked up as `input:ID`) and
 * `${env:NAME}` (as `NAME`).
 */
const REFERENCE = /\$\$\{|\$\{((?:input:[^}]+)|(?:env:[A-Za-z_][A-Za-z0-9_]*)|[A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g

/** Expand the references of one value; the first unset variable without a default is named in the error. */
export const expand = (
  value: string,
  env: Environment,
  where: Where,
  field: string
): Effect.Effect<string, McpConfigError> => {
  let missing: string | undefined
  const expanded = value.replace(REFERENCE, (match, name: string | undefined, fallback: string | undefined) => {
    if (name === undefined) return "${"
    const found = env[name.startsWith("env:") ? name.slice(4) : name]
    if (found !== undefined && found !== "") {
      substituted(where, name, found)
      return found
    }
    if (fallback !== undefined) return fallback
    missing ??= name
    return match
  })
  if (missing === undefined) return Effect.succeed(expanded)
  return Effect.fail(failure(
    where,
    field,
    missing.startsWith("input:")
      ? `input ${missing.slice(6)} has no value (referenced as \${${missing}}; give it in the inputs option)`
      : `environment variable ${missing} is not set (referenced as \${${missing}})`
  ))
}

const optionalString = (entry: Json, key: string, where: Where): Effect.Effect<string | undefined, McpConfigError> => {
  const value = entry[key]
  if (value === undefined) return Effect.succeed(undefined)
  return typeof value === "string" ? Effect.succeed(value) : Effect.fail(failure(where, key, "must be a string"))
}

const stringMap = (
  entry: Json,
  key: string,
  env: Environment,
  where: Where
): Effect.Effect<Readonly<Record<string, string>> | undefined, McpConfigError> => {
  const value = entry[key]
  if (value === undefined) return Effect.succeed(undefined)
  if (!isRecord(value)) return Effect.fail(failure(where, key, "must be an object of strings"))
  return Effect.forEach(Object.entries(value), ([name, item]) =>
    typeof item === "string"
      ? Effect.map(expand(item, env, where, `${key}.${name}`), (expanded) => [name, expanded] as const)
      : Effect.fail(failure(where, `${key}.${name}`, "must be a string"))).pipe(Effect.map(Object.fromEntries))
}

/** A string field, its references expanded. */
const expandedString = (entry: Json, key: string, env: Environment, where: Where) =>
  Effect.flatMap(
    optionalString(entry, key, where),
    (value) => value === undefined ? Effect.succeed(undefined) : expand(value, env, where, key)
  )

/** An array of strings, each one's references expanded (an error names the item: `args[2]`). */
const stringArray = (
  entry: Json,
  key: string,
  env: Environment,
  where: Where
): Effect.Effect<ReadonlyArray<string> | undefined, McpConfigError> => {
  const value = entry[key]
  if (value === undefined) return Effect.succeed(undefined)
  if (!Array.isArray(value)) return Effect.fail(failure(where, key, "must be an array of strings"))
  return Effect.forEach(value, (item: unknown, i) =>
    typeof item === "string"
      ? expand(item, env, where, `${key}[${i}]`)
      : Effect.fail(failure(where, `${key}[${i}]`, "must be a string")))
}

/** A stdio entry's command line as written (references not expanded): how errors name its server. */
const asWritten = (entry: Json): string => {
  const args = Array.isArray(entry["args"]) ? entry["args"] : []
  return [entry["command"], ...args].map(String).join(" ")
}

/** What the entry's references stood for, to keep out of errors (none: `undefined`). */
const secretsOf = (where: Where): ReadonlyArray<string> | undefined =>
  where.secrets === undefined || where.secrets.size === 0 ? undefined : [...where.secrets]

const STDIO_TYPES = new Set(["stdio"])
const HTTP_TYPES = new Set(["http", "streamable-http", "streamableHttp"])

const parseStdio = (name: string, entry: Json, env: Environment, where: Where) =>
  Effect.gen(function*() {
    const command = yield* expandedString(entry, "command", env, where)
    if (command === undefined || command.length === 0) {
      return yield* failure(where, "command", "a stdio server needs a non-empty command")
    }
    const args = yield* stringArray(entry, "args", env, where)
    const envVars = yield* stringMap(entry, "env", env, where)
    const cwd = yield* expandedString(entry, "cwd", env, where)
    const server: ServerEntry = {
      name,
      transport: "stdio",
      command,
      args: args ?? [],
      env: envVars,
      cwd,
      description: asWritten(entry),
      secrets: secretsOf(where),
      raw: entry
    }
    return server
  })

const parseHttp = (name: string, entry: Json, env: Environment, where: Where) =>
  Effect.gen(function*() {
    const url = yield* expandedString(entry, "url", env, where)
    if (url === undefined) return yield* failure(where, "url", "an HTTP server needs a url")
    const parsed = URL.canParse(url) ? new URL(url) : undefined
    if (parsed === undefined || (parsed.protocol !== "http:" && parsed.protocol !== "https:")) {
      // Named as written: what a reference stood for may be a secret.
      return yield* failure(where, "url", `not an http(s) URL: ${JSON.stringify(entry["url"])}`)
    }
    const headers = yield* stringMap(entry, "headers", env, where)
    const server: ServerEntry = { name, transport: "http", url: parsed.href, headers, secrets: secretsOf(where), raw: entry }
    return server
  })

/** One entry of `mcpServers`. */
export const parseEntry = (
  name: string,
  entry: unknown,
  env: Environment,
  path?: string
): Effect.Effect<ServerEntry, McpConfigError> => {
  const where: Where = { path, entry: name, secrets: new Set() }
  if (!isRecord(entry)) return Effect.fail(failure(where, undefined, "an entry must be a JSON object"))
  const type = entry["type"]
  if (type !== undefined && typeof type !== "string") return Effect.fail(failure(where, "type", "must be a string"))
  if (type === "sse") {
    return Effect.fail(failure(where, "type", "the HTTP+SSE transport (2024-11-05) is not supported; use Streamable HTTP"))
  }
  if (type !== undefined && !STDIO_TYPES.has(type) && !HTTP_TYPES.has(type)) {
    return Effect.fail(failure(where, "type", `unknown transport ${JSON.stringify(type)} (stdio or http)`))
  }
  const hasCommand = entry["command"] !== undefined
  const hasUrl = entry["url"] !== undefined
  if (type === undefined && hasCommand && hasUrl) {
    return Effect.fail(failure(where, "url", "an entry has either a command (stdio) or a url (HTTP), not both"))
  }
  if (type === undefined && !hasCommand && !hasUrl) {
    return Effect.fail(failure(where, "command", "an entry needs a command (stdio) or a url (HTTP)"))
  }
  const http = type === undefined ? hasUrl : HTTP_TYPES.has(type)
  return http ? parseHttp(name, entry, env, where) : parseStdio(name, entry, env, where)
}

/** The whole document: `{ "mcpServers": { ... } }` (other top-level fields are ignored). */
export const parseDocument = (
  document: unknown,
  env: Environment,
  path?: string
): Effect.Effect<Config, McpConfigError> => {
  return serversOf(document, path).pipe(
    Effect.flatMap((servers) =>
      Effect.forEach(Object.entries(servers), ([name, entry]) => parseEntry(name, entry, env, path))
    ),
    Effect.map((entries) => ({ path, servers: entries }))
  )
}

/**
 * The named entries of a document: `mcpServers` (Claude Desktop, Cursor, Claude Code, ...), else VS Code's
 * `servers` (`.vscode/mcp.json`, whose entries have `type: "stdio" | "http" | "sse"`).
 */
export const serversOf = (document: unknown, path: string | undefined): Effect.Effect<Json, McpConfigError> => {
  const where: Where = { path }
  if (!isRecord(document)) return Effect.fail(failure(where, undefined, "the configuration must be a JSON object"))
  const key = document["mcpServers"] === undefined && document["servers"] !== undefined ? "servers" : "mcpServers"
  const servers = document[key]
  if (servers === undefined) return Effect.fail(failure(where, "mcpServers", "missing (nor VS Code's servers)"))
  if (!isRecord(servers)) return Effect.fail(failure(where, key, "must be an object of named entries"))
  return Effect.succeed(servers)
}

/** VS Code's `inputs` of a document: `{ id, description, password }` each (prompted for by its host). */
export interface Input {
  readonly id: string
  readonly description: string | undefined
  readonly password: boolean
}

/** The `inputs` a document declares (VS Code's shape; none for other shapes). */
export const inputsOf = (document: unknown): ReadonlyArray<Input> => {
  const inputs = isRecord(document) ? document["inputs"] : undefined
  if (!Array.isArray(inputs)) return []
  return inputs.flatMap((input): ReadonlyArray<Input> =>
    isRecord(input) && typeof input["id"] === "string"
      ? [{
        id: input["id"],
        description: typeof input["description"] === "string" ? input["description"] : undefined,
        password: input["password"] === true
      }]
      : []
  )
}

/**
 * Parse JSON text. The engine's message may quote the text around the error, which could be a secret, so only
 * the line and column are reported (when the engine gives a position).
 */
export const parseText = (text: string, path: string | undefined): Effect.Effect<unknown, McpConfigError> =>
  Effect.try({
    try: (): unknown => JSON.parse(text),
    catch: (error) => failure({ path }, undefined, `not valid JSON${whereIn(text, error)}`)
  })

const whereIn = (text: string, error: unknown): string => {
  const position = /at position (\d+)/.exec(error instanceof Error ? error.message : "")?.[1]
  if (position === undefined) return text.trim() === "" ? " (the file is empty)" : ""
  const before = text.slice(0, Number(position)).split("\n")
  return ` (line ${before.length}, column ${(before.at(-1)?.length ?? 0) + 1})`
}
