/**
 * Token storage: what the client keeps per MCP server and authorization server (tokens, the registered
 * client). In memory by default; a JSON file created `0600` for programs that sign in once, which several
 * programs may share.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { randomBytes } from "node:crypto"
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { withFileLock } from "./fileLock.js"

/** @internal */
export interface StoredTokens {
  readonly accessToken: string
  /** `bearer` or `dpop` (lower case). */
  readonly tokenType: string
  readonly refreshToken?: string | undefined
  /** Epoch milliseconds. */
  readonly expiresAt?: number | undefined
  readonly scope?: string | undefined
  /** Epoch milliseconds. */
  readonly issuedAt: number
}

/** @internal */
export interface StoredClient {
  readonly clientId: string
  readonly clientSecret?: string | undefined
  readonly authMethod: string
  /** The redirect URI it was registered with (a registration is reused only for the same one). */
  readonly redirectUri?: string | undefined
}

/** @internal */
export interface StoredEntry {
  /** The MCP server URL. */
  readonly server: string
  /** The authorization server's issuer. */
  readonly issuer: string
  readonly tokens?: StoredTokens | undefined
  readonly client?: StoredClient | undefined
}

/** @internal */
export interface Store {
  /** Every entry for a server (one per authorization server). */
  readonly load: (server: string) => Effect.Effect<ReadonlyArray<StoredEntry>>
  readonly save: (entry: StoredEntry) => Effect.Effect<void>
  /**
   * Run `effect` holding a lock that every process sharing this store respects, so that a refresh is
   * single-flight across processes (the engine re-reads the store inside it). When the lock cannot be had
   * within its lifetime (the store unreachable), `alone` runs instead where given, else `effect` without the
   * lock. Optional: a store kept by one process leaves it out.
   */
  readonly exclusive?: <A, E, R>(
    server: string,
    effect: Effect.Effect<A, E, R>,
    alone?: Effect.Effect<A, E, R>
  ) => Effect.Effect<A, E, R>
}

const keyOf = (server: string, issuer: string) => `${server} ${issuer}`

/** @internal */
export const memory = (): Store => {
  const entries = new Map<string, StoredEntry>()
  return {
    load: (server) => Effect.sync(() => [...entries.values()].filter((entry) => entry.server === server)),
    save: (entry) => Effect.sync(() => void entries.set(keyOf(entry.server, entry.issuer), entry))
  }
}

/** What a file entry must look like to be used (anything else in the file is kept, never used). */
const FileEntry = Schema.Struct({
  server: Schema.String,
  issuer: Schema.String,
  tokens: Schema.optional(Schema.Struct({
    accessToken: Schema.String,
    tokenType: Schema.String,
    refreshToken: Schema.optional(Schema.String),
    expiresAt: Schema.optional(Schema.Number),
    scope: Schema.optional(Schema.String),
    issuedAt: Schema.Number
  })),
  client: Schema.optional(Schema.Struct({
    clientId: Schema.String,
    clientSecret: Schema.optional(Schema.String),
    authMethod: Schema.String,
    redirectUri: Schema.optional(Schema.String)
  }))
})

const decodeEntry = Schema.decodeUnknownOption(FileEntry)

/** The file's content as it is: an object of entries (some maybe not usable), or why it is not. */
type Raw = { readonly _tag: "Read"; readonly content: Record<string, unknown> } | { readonly _tag: "Unreadable" }

const readRaw = (filePath: string): Effect.Effect<Raw> =>
  Effect.promise(async (): Promise<Raw> => {
    let text: string
    try {
      text = await fs.readFile(filePath, "utf8")
    } catch {
      // Absent (or not readable at all: nothing there to keep aside either).
      return { _tag: "Read", content: {} }
    }
    try {
      const parsed: unknown = JSON.parse(text)
      return typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)
        ? { _tag: "Read", content: parsed as Record<string, unknown> }
        : { _tag: "Unreadable" }
    } catch {
      return { _tag: "Unreadable" }
    }
  })

/** The usable entries of the file's content (a `StoredEntry` of the right shape, `Bearer [object Object]` never). */
const usable = (content: Record<string, unknown>): ReadonlyArray<StoredEntry> =>
  Object.values(content).flatMap((value) => Option.toArray(decodeEntry(value)))

/** Write the content whole: a new file of a random name created exclusively (never through a link), renamed. */
const replace = (filePath: string, content: Record<string, unknown>) =>
  Effect.tryPromise(async () => {
    await fs.mkdir(path.dirname(filePath), { recursive: true, mode: 0o700 })
    const temporary = `${filePath}.${randomBytes(12).toString("hex")}.tmp`
    try {
      await fs.writeFile(temporary, JSON.stringify(content, null, 2), { mode: 0o600, flag: "wx" })
      await fs.chmod(temporary, 0o600)
      await fs.rename(temporary, filePath)
    } catch (error) {
      await fs.rm(temporary, { force: true })
      throw error
    }
  })

/** Keep an unreadable file aside (`<file>.corrupt-<time>`) instead of writing over what it may still hold. */
const keepAside = (filePath: string) =>
  Effect.gen(function*() {
    const aside = `${filePath}.corrupt-${new Date().toISOString().replace(/[:.]/g, "-")}`
    yield* Effect.tryPromise(() => fs.rename(filePath, aside))
    yield* Effect.logWarning(`mcp auth: the token file ${filePath} was unreadable; it is kept as ${aside}`)
  })

/**
 * Change the file under its lock: re-read it (an unreadable one is kept aside first), `change` its content,
 * write it whole. Other processes' entries written since are kept.
 */
const update = <A>(filePath: string, change: (content: Record<string, unknown>) => A) =>
  withFileLock(
    filePath,
    Effect.gen(function*() {
      const raw = yield* readRaw(filePath)
      if (raw._tag === "Unreadable") yield* keepAside(filePath)
      const content = raw._tag === "Read" ? { ...raw.content } : {}
      const out = change(content)
      yield* replace(filePath, content)
      return out
    })
  )

/**
 * A JSON file, read on every load and changed under a lock on every save: saves are serialised in the
 * process and locked across processes (`<file>.lock`), and each re-reads the file and changes only its own
 * entry. An unreadable file is kept aside (`<file>.corrupt-<time>`, with a warning), never written over;
 * entries of the wrong shape are not used. A failed write is logged (without its content) and otherwise
 * ignored.
 *
 * @internal
 */
export const file = (filePath: string): Store => ({
  load: (server) =>
    Effect.flatMap(readRaw(filePath), (raw) => {
      if (raw._tag === "Read") return Effect.succeed(usable(raw.content).filter((entry) => entry.server === server))
      return Effect.as(Effect.logWarning(`mcp auth: the token file ${filePath} is unreadable; no stored sign-in is used`), [])
    }),
  save: (entry) =>
    update(filePath, (content) => {
      content[keyOf(entry.server, entry.issuer)] = entry
    }).pipe(Effect.catch(() => Effect.logWarning(`mcp auth: could not write the token file ${filePath}`)))
})

/**
 * Remove the entries of one server (or every entry) from a token file, under its lock; how many were removed.
 *
 * @internal
 */
export const removeFromFile = (filePath: string, server: string | undefined): Effect.Effect<number, Error> =>
  Effect.flatMap(readRaw(filePath), (raw) =>
    raw._tag === "Read" && Object.keys(raw.content).length === 0
      ? Effect.succeed(0)
      : update(filePath, (content) => {
        let removed = 0
        for (const [key, value] of Object.entries(content)) {
          const of = typeof value === "object" && value !== null && "server" in value ? value.server : undefined
          if (server === undefined || of === server) {
            delete content[key]
            removed++
          }
        }
        return removed
      }).pipe(Effect.mapError((cause) => cause instanceof Error ? cause : new Error(String(cause)))))
