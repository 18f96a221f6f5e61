/**
 * Credentials out of text: what a server sends back (an error body that echoes the `Authorization` header, an
 * `error_description` that quotes a secret, a stderr tail that repeats an argument) is cleaned of every
 * credential and secret the client holds before it goes into an error or a log, and, over HTTP, of anything
 * that looks like an `Authorization` value.
 *
 * @internal
 */
import { isRecord } from "../McpSchema.js"
import { base64OfText } from "./bytes.js"

/** The request headers whose values are credentials. @internal */
export const CREDENTIAL_HEADERS: ReadonlySet<string> = new Set(["authorization", "proxy-authorization", "dpop", "cookie"])

const MASK = "[redacted]"

/** `Bearer …`, `DPoP …`, `Basic …` values (RFC 6750 b64token characters). */
const SCHEMES = /\b(Bearer|DPoP|Basic)(\s+)[A-Za-z0-9\-._~+/]+=*/gi

/**
 * Shorter values are not looked for: masking every `true`, `info` or `/usr` in what a server says would hide
 * more than it protects. @internal
 */
export const MIN_SECRET = 6

/** Whether `value` is long enough to be looked for (`MIN_SECRET`). @internal */
export const isSecretLike = (value: string): boolean => value.length >= MIN_SECRET

/** Each secret as it is, as the token after an auth scheme, percent- and base64-encoded; the longest first. */
const formsOf = (secrets: Iterable<string | undefined>): ReadonlyArray<string> => {
  const forms = new Set<string>()
  for (const secret of secrets) {
    if (secret === undefined) continue
    const bare = secret.replace(/^(Bearer|DPoP|Basic)\s+/i, "")
    for (const form of [secret, bare, encodeURIComponent(bare), base64OfText(bare)]) {
      if (isSecretLike(form)) forms.add(form)
    }
  }
  return [...forms].sort((a, b) => b.length - a.length)
}

const withoutForms = (text: string, forms: ReadonlyArray<string>): string => {
  let out = text
  for (const form of forms) out = out.split(form).join(MASK)
  return out
}

/**
 * `text` without any of `secrets` (each also as the token after an auth scheme, and percent- and
 * base64-encoded) and without auth-scheme values.
 *
 * @internal
 */
export const redact = (text: string, secrets: Iterable<string | undefined>): string =>
  withoutForms(text, formsOf(secrets)).replace(SCHEMES, `$1$2${MASK}`)

/**
 * What cleans text of these values (in the forms `redact` looks for; nothing else is touched), or `undefined`
 * when there is nothing to look for: the values a caller gave a transport (`secrets`), fixed for a connection,
 * so their forms are worked out once.
 *
 * @internal
 */
export const redactor = (secrets: Iterable<string> | undefined): ((text: string) => string) | undefined => {
  const forms = formsOf(secrets ?? [])
  return forms.length === 0 ? undefined : (text) => withoutForms(text, forms)
}

/**
 * The credentials a connection sent lately (the values of `CREDENTIAL_HEADERS`), at most `max` of them, the
 * newest kept.
 *
 * @internal
 */
export class SentCredentials {
  private readonly values = new Set<string>()
  /**
   * `fixed`: values that are always cleaned besides the credentials sent (the caller's `secrets` and the values
   * of the headers it gave).
   */
  constructor(private readonly max = 16, private readonly fixed: ReadonlyArray<string> = []) {}

  /** Note the credentials among `headers`; `headers` as they are. */
  noted<H extends Readonly<Record<string, string>>>(headers: H): H {
    this.note(headers)
    return headers
  }

  note(headers: Readonly<Record<string, string>>): void {
    for (const [name, value] of Object.entries(headers)) {
      if (!CREDENTIAL_HEADERS.has(name.toLowerCase()) || value === "") continue
      this.values.delete(value)
      this.values.add(value)
      if (this.values.size > this.max) {
        const oldest = this.values.values().next()
        if (oldest.done !== true) this.values.delete(oldest.value)
      }
    }
  }

  redact(text: string): string {
    return redact(text, [...this.fixed, ...this.values])
  }
}

/** Deeper than this, a value of an error is replaced whole (it is not walked). */
const MAX_DEPTH = 32

const cleanStrings = (value: unknown, clean: (text: string) => string, depth: number): unknown => {
  if (typeof value === "string") return clean(value)
  if (typeof value !== "object" || value === null) return value
  if (depth >= MAX_DEPTH) return MASK
  if (Array.isArray(value)) return value.map((item) => cleanStrings(item, clean, depth + 1))
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, cleanStrings(item, clean, depth + 1)]))
}

/**
 * A JSON-RPC error response with every string of its `error` (the message, the data at any depth) passed through
 * `clean`; any other message as it is. A server may quote the request's credentials in an error it answers with
 * HTTP 200 as well as in one it answers with an error status.
 *
 * @internal
 */
export const cleanErrorResponse = (message: unknown, clean: (text: string) => string): unknown =>
  isRecord(message) && isRecord(message["error"])
    ? { ...message, error: cleanStrings(message["error"], clean, 0) }
    : message
