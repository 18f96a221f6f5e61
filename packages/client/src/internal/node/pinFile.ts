/**
 * The pin file (Node): one JSON file (`{ "version": 1, "scopes": { "<scope>": [records] } }`) created `0600`,
 * read bounded (a regular file of at most 16 MiB, opened without blocking), never written past what it reads
 * (a record of 1 MiB, a scope of 8 MiB, the file of 16 MiB: the write is refused, the file left as it is),
 * written whole under a lock shared with other processes (`privateFile.ts`: 0600, whole or not at all).
 *
 * A file that is there but cannot be used (not JSON, not of this shape, too large, not a regular file) fails
 * both reads and writes: it is never replaced, since read as empty every changed tool would be pinned again.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as regularFile from "./regularFile.js"
import * as path from "node:path"
import { isRecord } from "../../McpSchema.js"
import { withFileLock } from "./fileLock.js"
import { writePrivateFile } from "./privateFile.js"
import { getOwn, setOwn } from "../llm/own.js"
import { McpPinStoreError, type PinRecord, type PinStore } from "../pinning/model.js"
import { merged, scopeRecords, scopeText, stringified, toJson } from "../pinning/stores.js"

/** The largest pin file read: 16 MiB (a pin takes a few hundred bytes; a large schema's summary a few KiB). */
const MAX_FILE_BYTES = 16 * 1024 * 1024

type Content = Record<string, unknown>

/** The file's text, `undefined` when there is none; a file that is not regular or too large is refused. */
const readText = async (filePath: string): Promise<string | undefined> => {
  const found = await regularFile.readRegularText(filePath, MAX_FILE_BYTES)
  switch (found._tag) {
    case "Absent":
      return undefined
    case "Text":
      return found.text
    case "TooLarge":
      throw new Error(`the pin file is larger than ${MAX_FILE_BYTES} bytes`)
    case "NotRegular":
      throw new Error(`the pin file is not a regular file (${found.kind})`)
  }
}

/** The file's scopes (an empty object when there is no file). */
const readContent = (filePath: string, operation: "read" | "write"): Effect.Effect<Content, McpPinStoreError> =>
  Effect.tryPromise({
    try: () => readText(filePath),
    catch: (error) =>
      new McpPinStoreError({ store: filePath, operation, detail: error instanceof Error ? error.message : String(error) })
  }).pipe(
    Effect.flatMap((text) => {
      if (text === undefined) return Effect.succeed({})
      const fail = (detail: string) => Effect.fail(new McpPinStoreError({ store: filePath, operation, detail }))
      let parsed: unknown
      try {
        parsed = JSON.parse(text)
      } catch {
        return fail("the pin file is not JSON (it is left as it is)")
      }
      if (!isRecord(parsed) || parsed["version"] !== 1 || !isRecord(parsed["scopes"])) {
        return fail("the pin file is not a pin file of version 1 (it is left as it is)")
      }
      return Effect.succeed(parsed["scopes"])
    })
  )

/** The records of `scope` in the file's content (read once, as parsed: never serialised again to be read). */
const scopeOf = (filePath: string, content: Content, scope: string, operation: "read" | "write") => {
  const value = getOwn(content, scope)
  return value === undefined ? Effect.succeed([]) : scopeRecords(filePath, value, operation)
}

/**
 * Write the file whole, 0600, or leave it as it was (`privateFile.ts`). A text past the bound the file is read
 * with is refused before anything is written: the file stays as it was.
 */
const replace = (filePath: string, content: Content) =>
  Effect.flatMap(stringified(filePath, { version: 1, scopes: content }, 2), (text) => {
    if (Buffer.byteLength(text) > MAX_FILE_BYTES) {
      return Effect.fail(
        new McpPinStoreError({
          store: filePath,
          operation: "write",
          detail: `the pin file would be larger than ${MAX_FILE_BYTES} bytes (it is left as it is)`
        })
      )
    }
    return write(filePath, text)
  })

const write = (filePath: string, text: string) =>
  Effect.tryPromise({
    try: () => writePrivateFile(filePath, text),
    catch: (error) =>
      new McpPinStoreError({ store: filePath, operation: "write", detail: error instanceof Error ? error.message : String(error) })
  })

/** @internal */
export const make = (file: string): PinStore => {
  const filePath = path.resolve(file)
  const save = (scope: string, writes: ReadonlyArray<PinRecord>) =>
    withFileLock(
      filePath,
      Effect.gen(function*() {
        const content = yield* readContent(filePath, "write")
        const records = merged(yield* scopeOf(filePath, content, scope, "write"), writes)
        // The scope's bounds (a record, the scope) are those of a read: what is written can be read back.
        yield* scopeText(filePath, records)
        const next: Content = { ...content }
        setOwn(next, scope, records.map(toJson))
        yield* replace(filePath, next)
      })
    ).pipe(
      Effect.catchIf(
        (error): error is Exclude<typeof error, McpPinStoreError> => !(error instanceof McpPinStoreError),
        (error) => Effect.fail(new McpPinStoreError({ store: filePath, operation: "write", detail: error.message }))
      )
    )
  return {
    label: filePath,
    load: (scope) => Effect.flatMap(readContent(filePath, "read"), (content) => scopeOf(filePath, content, scope, "read")),
    save
  }
}
