/**
 * Secrets out of a cassette, before anything is written: every string of every message (at any depth, keys
 * included) is cleaned of the values the recorder was told are secret, of the credentials the client sent
 * (noted from its headers as they pass), each also percent- and base64-encoded (`redact.ts`), and of any
 * `Bearer`/`DPoP`/`Basic` value; credential headers are kept with `[redacted]` as their value. A line that
 * lost something says what (`redacted: ["--env value", "authorization header"]`), so a server that echoed a
 * token is kept, with the marker where the token was.
 *
 * @internal
 */
import { isRecord, type JsonObject } from "../../McpSchema.js"
import { CREDENTIAL_HEADERS, isSecretLike, redact, redactor } from "../redact.js"

/** A value never written, and what it is (said in the line's `redacted`). @internal */
export interface Secret {
  readonly value: string
  readonly kind: string
}

const MASK = "[redacted]"

/** Headers whose values are credentials in either direction (the request ones, and cookies set). @internal */
export const SECRET_HEADERS: ReadonlySet<string> = new Set([...CREDENTIAL_HEADERS, "set-cookie", "x-api-key"])

/** Deeper than this a value is replaced whole (the reader refuses deeper lines anyway). */
const MAX_DEPTH = 64

/** The cleaner of one recording. @internal */
export class Redactor {
  private readonly byKind = new Map<string, Set<string>>()
  private cleaners: ReadonlyArray<readonly [string, (text: string) => string]> | undefined

  constructor(secrets: ReadonlyArray<Secret> = []) {
    for (const secret of secrets) this.add(secret)
  }

  /** One more value never to write (a credential the client just sent). */
  add(secret: Secret): void {
    if (!isSecretLike(secret.value)) return
    const bare = secret.value.replace(/^(Bearer|DPoP|Basic)\s+/i, "")
    let values = this.byKind.get(secret.kind)
    if (values === undefined) this.byKind.set(secret.kind, values = new Set())
    if (values.has(secret.value)) return
    values.add(secret.value)
    values.add(bare)
    this.cleaners = undefined
  }

  /** Note the credentials among headers (a host's `Authorization`, cookies, `DPoP`), as the kind of header. */
  noteHeaders(headers: Readonly<Record<string, string>>): void {
    for (const [name, value] of Object.entries(headers)) {
      const lower = name.toLowerCase()
      if (SECRET_HEADERS.has(lower)) this.add({ value, kind: `${lower} header` })
    }
  }

  private all(): ReadonlyArray<readonly [string, (text: string) => string]> {
    if (this.cleaners !== undefined) return this.cleaners
    const cleaners: Array<readonly [string, (text: string) => string]> = []
    for (const [kind, values] of this.byKind) {
      const clean = redactor(values)
      if (clean !== undefined) cleaners.push([kind, clean])
    }
    // Auth-scheme values that were never noted (a token the server made up and echoed is not ours to keep).
    cleaners.push(["credential", (text) => redact(text, [])])
    return this.cleaners = cleaners
  }

  /** `text` cleaned, noting in `removed` the kinds found. */
  text(text: string, removed: Set<string>): string {
    let out = text
    for (const [kind, clean] of this.all()) {
      const next = clean(out)
      if (next !== out) removed.add(kind)
      out = next
    }
    return out
  }

  /** A JSON value cleaned at any depth, keys included. */
  value(value: unknown, removed: Set<string>, depth = 0): unknown {
    if (typeof value === "string") return this.text(value, removed)
    if (typeof value !== "object" || value === null) return value
    if (depth >= MAX_DEPTH) return MASK
    if (Array.isArray(value)) return value.map((item) => this.value(item, removed, depth + 1))
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [this.text(key, removed), this.value(item, removed, depth + 1)])
    )
  }

  /** Headers as kept: credential headers masked whole, others cleaned. */
  headers(headers: Readonly<Record<string, string>>, removed: Set<string>): Record<string, string> {
    const out: Record<string, string> = {}
    for (const [name, value] of Object.entries(headers)) {
      const lower = name.toLowerCase()
      if (SECRET_HEADERS.has(lower)) {
        out[lower] = MASK
        removed.add(`${lower} header`)
      } else {
        out[lower] = this.text(value, removed)
      }
    }
    return out
  }

  /** A message cleaned. */
  message(message: JsonObject, removed: Set<string>): JsonObject {
    const out = this.value(message, removed)
    return isRecord(out) ? out : message
  }
}
