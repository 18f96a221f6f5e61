/**
 * Cassette files through the `FileSystem` service (portable: the runtime's platform layer provides it). Read:
 * a regular file, bounded (`config/file.ts`'s reader), then parsed bounded (`read.ts`). Written whole: a new
 * file of a random name created exclusively with mode 0600 beside the target, renamed over it, so a reader
 * never sees half a cassette and a crash leaves the old one.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import { McpCassetteError } from "../../McpCassetteError.js"
import { readTextBounded } from "../config/file.js"
import { type Cassette, encode } from "./model.js"
import { type Bounds, DEFAULT_MAX_BYTES, parse } from "./read.js"

/** @internal */
export const read = (path: string, bounds?: Bounds): Effect.Effect<Cassette, McpCassetteError, FileSystem.FileSystem> =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const text = yield* readTextBounded(fs, path, bounds?.maxBytes ?? DEFAULT_MAX_BYTES, "a cassette is NDJSON").pipe(
      Effect.mapError((e) =>
        new McpCassetteError({ reason: e.bound ? "Bounds" : "Read", path, detail: e.detail })
      )
    )
    return yield* parse(text, path, bounds)
  })

/** @internal */
export const write = (path: string, cassette: Cassette): Effect.Effect<void, McpCassetteError, FileSystem.FileSystem> =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const temporary = `${path}.${crypto.randomUUID()}.tmp`
    const failed = (error: { readonly message: string }) =>
      new McpCassetteError({ reason: "Write", path, detail: `cannot be written: ${error.message}` })
    yield* fs.writeFileString(temporary, encode(cassette), { flag: "wx", mode: 0o600 }).pipe(
      Effect.andThen(fs.rename(temporary, path)),
      Effect.mapError(failed),
      Effect.tapError(() => Effect.ignore(fs.remove(temporary)))
    )
  })
