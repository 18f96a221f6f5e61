/**
 * `--out FILE` of `call` and `read`: the result's first blob (or image, audio, embedded resource), else its first
 * text, written to the file whole.
 */
import * as Console from "effect/Console"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import { writeFileAtomic } from "../files.js"
import { isRecord, type Record_ } from "../terminal/content.js"

/** A file that `--out` could not be written to. */
export class OutputError extends Data.TaggedError("OutputError")<{ readonly message: string }> {}

/** The bytes of a resource's contents or a content block: a blob or image/audio data (base64), or text. */
const bytesOf = (item: Record_): Uint8Array | undefined => {
  const base64 = typeof item["blob"] === "string" ? item["blob"] : typeof item["data"] === "string" ? item["data"] : undefined
  if (base64 !== undefined) return Buffer.from(base64, "base64")
  if (isRecord(item["resource"])) return bytesOf(item["resource"])
  return typeof item["text"] === "string" ? Buffer.from(item["text"], "utf8") : undefined
}

/**
 * `--out FILE`: the first blob (or image, audio, embedded resource) of the items, else the first text, written
 * to FILE whole (never through a symbolic link at FILE, nor into what a hard link there shares); says on stderr
 * what was written.
 */
export const saveFirst = (file: string, items: ReadonlyArray<Record_>): Effect.Effect<void, OutputError> => {
  const binary = items.find((item) =>
    typeof item["blob"] === "string" || typeof item["data"] === "string" ||
    (isRecord(item["resource"]) && typeof item["resource"]["blob"] === "string")
  )
  const chosen = binary ?? items.find((item) => bytesOf(item) !== undefined)
  const bytes = chosen === undefined ? undefined : bytesOf(chosen)
  if (bytes === undefined) return Effect.fail(new OutputError({ message: "nothing to save: the result has no blob or text" }))
  return writeFileAtomic(file, bytes).pipe(
    Effect.mapError((error) => new OutputError({ message: error.message })),
    Effect.andThen(Console.error(`mcp-effect: saved ${bytes.length} bytes to ${file}`))
  )
}
