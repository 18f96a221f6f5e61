/**
 * Token storage: what the client keeps per MCP server and authorization server (tokens, the registered
 * client). In memory by default; a JSON file created `0600` for programs that sign in once.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as fs from "node:fs/promises"
import * as path from "node:path"

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
   * single-flight across processes (the engine re-reads the store inside it). Optional: a store kept by one
   * process leaves it out.
   */
  readonly exclusive?: <A, E, R>(server: string, effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
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

type FileShape = Record<string, StoredEntry>

const isEntry = (value: unknown): value is StoredEntry =>
  typeof value === "object" && value !== null && typeof (value as { server?: unknown }).server === "string" &&
  typeof (value as { issuer?: unknown }).issuer === "string"

/**
 * A JSON file, read on every load and replaced whole (written `0600` next to it, then renamed) on every save.
 * An unreadable file counts as empty; a failed write is logged (without its content) and otherwise ignored.
 *
 * @internal
 */
export const file = (filePath: string): Store => {
  const read = Effect.promise(async (): Promise<FileShape> => {
    try {
      const parsed: unknown = JSON.parse(await fs.readFile(filePath, "utf8"))
      if (typeof parsed !== "object" || parsed === null) return {}
      const out: FileShape = {}
      for (const [key, value] of Object.entries(parsed)) if (isEntry(value)) out[key] = value
      return out
    } catch {
      return {}
    }
  })
  let writing: Promise<void> = Promise.resolve()
  const write = (content: FileShape) =>
    Effect.tryPromise(() => {
      const next = writing.then(async () => {
        await fs.mkdir(path.dirname(filePath), { recursive: true, mode: 0o700 })
        const temporary = `${filePath}.${process.pid}.tmp`
        await fs.writeFile(temporary, JSON.stringify(content, null, 2), { mode: 0o600 })
        await fs.chmod(temporary, 0o600)
        await fs.rename(temporary, filePath)
      })
      writing = next.catch(() => undefined)
      return next
    }).pipe(Effect.catch(() => Effect.logWarning(`mcp auth: could not write the token file ${filePath}`)))
  return {
    load: (server) => Effect.map(read, (content) => Object.values(content).filter((entry) => entry.server === server)),
    save: (entry) =>
      Effect.flatMap(read, (content) => write({ ...content, [keyOf(entry.server, entry.issuer)]: entry }))
  }
}
