/**
 * The token file: what the client keeps per MCP server and authorization server (`tokens.ts`) in a JSON file
 * created `0600`, for programs that sign in once, which several programs may share. Node only.
 *
 * @internal
 */
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as fs from "node:fs/promises"
import { McpAuthError } from "../../McpAuthError.js"
import { isRecord } from "../../McpSchema.js"
import * as regularFile from "./regularFile.js"
import { withFileLock } from "./fileLock.js"
import { writePrivateFile } from "./privateFile.js"
import { decodeEntry, keyOf, type Store, type StoredEntry } from "../auth/tokens.js"

export type { Store, StoredClient, StoredEntry, StoredTokens } from "../auth/tokens.js"


/** The largest token file read: 1 MiB, far past any real one (a sign-in takes a few hundred bytes). */
const MAX_TOKEN_FILE_BYTES = 1024 * 1024

/**
 * The file's content as it is: an object of entries (some maybe not usable), or why it is not: `Unreadable`
 * (not a JSON object: kept aside on the next save), `Refused` (not a regular file, or too large: left as it is).
 */
type Raw =
  | { readonly _tag: "Read"; readonly content: Record<string, unknown> }
  | { readonly _tag: "Unreadable" }
  | { readonly _tag: "Refused"; readonly reason: string }

/** A token file that is not used, nor changed: why, in a sentence naming it. */
class TokenFileRefused extends Data.TaggedError("TokenFileRefused")<{ readonly reason: string }> {
  override get message(): string {
    return this.reason
  }
}

/** Nothing there (or nothing reachable): nothing to keep aside either. */
const absent = (): Raw => ({ _tag: "Read", content: {} })

/** The file's text: a regular file of at most 1 MiB (`regularFile.ts`), else why it is not read. */
const readText = async (filePath: string): Promise<string | Raw> => {
  const found = await regularFile.readRegularText(filePath, MAX_TOKEN_FILE_BYTES).catch(() => ({ _tag: "Absent" as const }))
  switch (found._tag) {
    case "Absent":
      return absent()
    case "Text":
      return found.text
    case "TooLarge":
      return { _tag: "Refused", reason: `the token file ${filePath} is larger than 1 MiB; a token file holds a few sign-ins` }
    case "NotRegular":
      return {
        _tag: "Refused",
        reason: `the token file ${filePath} is not a regular file (${found.kind}); tokens are kept in a JSON file`
      }
  }
}

const readRaw = (filePath: string): Effect.Effect<Raw> =>
  Effect.promise(async (): Promise<Raw> => {
    const text = await readText(filePath)
    if (typeof text !== "string") return text
    try {
      const parsed: unknown = JSON.parse(text)
      return isRecord(parsed) ? { _tag: "Read", content: parsed } : { _tag: "Unreadable" }
    } catch {
      return { _tag: "Unreadable" }
    }
  })

/** The usable entries of the file's content (a `StoredEntry` of the right shape, `Bearer [object Object]` never). */
const usable = (content: Record<string, unknown>): ReadonlyArray<StoredEntry> =>
  Object.values(content).flatMap((value) => Option.toArray(decodeEntry(value)))

/** Write the content whole, 0600, or leave the file as it was (`privateFile.ts`). */
const replace = (filePath: string, content: Record<string, unknown>) =>
  Effect.tryPromise(() => writePrivateFile(filePath, JSON.stringify(content, null, 2)))

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
      if (raw._tag === "Refused") return yield* new TokenFileRefused({ reason: raw.reason })
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
 * entries of the wrong shape are not used. Anything but a regular file of at most 1 MiB (a FIFO, a device, a
 * directory, a huge file) is neither read nor changed: a load fails with an `McpAuthError` naming the file. A
 * failed write is logged (without its content) and otherwise ignored.
 *
 * @internal
 */
export const file = (filePath: string): Store => ({
  load: (server) =>
    Effect.flatMap(readRaw(filePath), (raw) => {
      if (raw._tag === "Read") return Effect.succeed(usable(raw.content).filter((entry) => entry.server === server))
      if (raw._tag === "Refused") return Effect.fail(new McpAuthError({ step: "authorization", detail: raw.reason }))
      return Effect.as(Effect.logWarning(`mcp auth: the token file ${filePath} is unreadable; no stored sign-in is used`), [])
    }),
  save: (entry) =>
    update(filePath, (content) => {
      content[keyOf(entry.server, entry.issuer)] = entry
    }).pipe(Effect.catch((error) =>
      Effect.logWarning(
        `mcp auth: could not write the token file ${filePath}${error instanceof TokenFileRefused ? `: ${error.reason}` : ""}`
      )
    ))
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
