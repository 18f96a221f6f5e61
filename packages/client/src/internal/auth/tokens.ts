/**
 * What the client keeps per MCP server and authorization server (tokens, the registered client), and the store
 * in memory, the default. Portable: the token file of Node programs is `store.ts`, in the Node wing.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type { McpAuthError } from "../../McpAuthError.js"

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
  /**
   * Every entry for a server (one per authorization server). Fails when the store cannot be used at all (a
   * token file that is not a regular file, or too large), which ends the authorization with that error.
   */
  readonly load: (server: string) => Effect.Effect<ReadonlyArray<StoredEntry>, McpAuthError>
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

/** @internal */
export const keyOf = (server: string, issuer: string) => `${server} ${issuer}`

/** @internal */
export const memory = (): Store => {
  const entries = new Map<string, StoredEntry>()
  return {
    load: (server) => Effect.sync(() => [...entries.values()].filter((entry) => entry.server === server)),
    save: (entry) => Effect.sync(() => void entries.set(keyOf(entry.server, entry.issuer), entry))
  }
}

/** What a stored entry must look like to be used (anything else in a store is kept, never used). */
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

/** @internal */
export const decodeEntry = Schema.decodeUnknownOption(FileEntry)
