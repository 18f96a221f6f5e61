/**
 * Tokens and registrations in a key-value store: Effect's `KeyValueStore` (a browser's `localStorage` or
 * IndexedDB, a file, SQL) or a Web Storage object itself. One key per MCP server (`<prefix><server URL>`), its
 * value the JSON array of that server's entries (one per authorization server). What is not an entry of the
 * right shape is left out when loading, and a value that is not JSON is treated as empty (and replaced by the
 * next save).
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import type * as KeyValueStore from "effect/persistence/KeyValueStore"
import { McpAuthError } from "../../McpAuthError.js"
import { decodeEntry, type Store, type StoredEntry } from "./tokens.js"

/** The prefix of the keys written (`mcp-effect/tokens/https://example.com/mcp`). @internal */
export const KEY_PREFIX = "mcp-effect/tokens/"

/** The largest value read: 1 MiB, as for a token file (a server's entries take a few hundred bytes). */
const MAX_VALUE_CHARS = 1024 * 1024

/** The part of the Web Storage interface used (`localStorage`, `sessionStorage`). @internal */
export interface WebStorage {
  readonly getItem: (key: string) => string | null
  readonly setItem: (key: string, value: string) => void
}

interface Strings {
  readonly get: (key: string) => Effect.Effect<string | undefined, unknown>
  readonly set: (key: string, value: string) => Effect.Effect<void, unknown>
}

const parse = (text: string | undefined): ReadonlyArray<unknown> => {
  if (text === undefined || text.length > MAX_VALUE_CHARS) return []
  try {
    const parsed: unknown = JSON.parse(text)
    return Array.isArray(parsed) ? parsed : []
  } catch {
    return []
  }
}

const entriesOf = (text: string | undefined): ReadonlyArray<StoredEntry> =>
  parse(text).flatMap((value) => {
    const entry = decodeEntry(value)
    return entry._tag === "Some" ? [entry.value] : []
  })

const unusable = (what: string) => (error: unknown) =>
  new McpAuthError({
    step: "discovery",
    detail: `the token store could not be read (${what}): ${error instanceof Error ? error.message : String(error)}`
  })

const over = (strings: Strings, what: string, prefix: string): Store => {
  const keyOf = (server: string) => `${prefix}${server}`
  return {
    load: (server) =>
      strings.get(keyOf(server)).pipe(
        Effect.mapError(unusable(what)),
        Effect.map((text) => entriesOf(text).filter((entry) => entry.server === server))
      ),
    // A failed write is logged (never its content) and otherwise ignored, as for a token file: the tokens
    // in hand still work for this program.
    save: (entry) =>
      strings.get(keyOf(entry.server)).pipe(
        Effect.map((text) => [...entriesOf(text).filter((kept) => kept.issuer !== entry.issuer), entry]),
        Effect.flatMap((entries) => strings.set(keyOf(entry.server), JSON.stringify(entries))),
        Effect.catch((error) =>
          Effect.logWarning(
            `mcp auth: the sign-in could not be saved in ${what}: ${error instanceof Error ? error.message : String(error)}`
          )
        )
      )
  }
}

/** A store on Effect's `KeyValueStore`. @internal */
export const fromKeyValueStore = (store: KeyValueStore.KeyValueStore, prefix: string = KEY_PREFIX): Store =>
  over({ get: store.get, set: (key, value) => store.set(key, value) }, "the KeyValueStore", prefix)

/** A store on a Web Storage object (`localStorage`). @internal */
export const fromWebStorage = (storage: WebStorage, prefix: string = KEY_PREFIX): Store =>
  over(
    {
      get: (key) => Effect.try(() => storage.getItem(key) ?? undefined),
      set: (key, value) => Effect.try(() => storage.setItem(key, value))
    },
    "the web storage",
    prefix
  )
