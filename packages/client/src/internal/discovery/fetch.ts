/**
 * One discovery GET on any `effect/http` `HttpClient`, under the rules OAuth metadata discovery follows here:
 * every hop https (plain http only to a loopback host), checked before anything is sent to it; at most
 * `MAX_REDIRECTS` redirects, followed by hand so each hop is checked; the answer's media type checked before its
 * body is read; the body read up to `MAX_BODY_BYTES` and no further, all within `DOCUMENT_TIMEOUT`; then parsed
 * as JSON. No trace headers go out: the host is a third party.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as FetchHttpClient from "effect/http/FetchHttpClient"
import * as HttpClient from "effect/http/HttpClient"
import type * as HttpClientError from "effect/http/HttpClientError"
import * as HttpClientRequest from "effect/http/HttpClientRequest"
import type * as HttpClientResponse from "effect/http/HttpClientResponse"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import { isSecure } from "../secureUrl.js"
import { concatBytes } from "../bytes.js"
import { cached, type Entry, type Fetched, keepOf, type Loaded } from "./cache.js"
import { fail, type McpDiscoveryError } from "./error.js"

/** The largest document read: a card or a catalog is a few kilobytes; anything past this is refused. @internal */
export const MAX_BODY_BYTES = 1 << 20

/**
 * How long one document may take, redirects and body included: the size bound alone would let a host trickle
 * bytes forever. On the Effect `Clock` (a `TestClock` drives it in tests).
 *
 * @internal
 */
export const DOCUMENT_TIMEOUT = "30 seconds"

/** Redirects one GET follows. @internal */
export const MAX_REDIRECTS = 5

/** What one GET asks for and accepts. @internal */
export interface Wanted {
  /** The `Accept` header sent. */
  readonly accept: string
  /** The media types (no parameters, lower case) an answer may have. */
  readonly mediaTypes: ReadonlyArray<string>
}

const parseUrl = (text: string | URL): Effect.Effect<URL, McpDiscoveryError> =>
  Effect.suspend(() => {
    try {
      return Effect.succeed(new URL(text))
    } catch {
      return Effect.fail(fail("invalid", String(text), "not a URL"))
    }
  })

/** `text` as a URL discovery may send a request to (see `isSecure`), or an `insecure` error. @internal */
export const secureUrl = (text: string | URL): Effect.Effect<URL, McpDiscoveryError> =>
  Effect.flatMap(
    parseUrl(text),
    (url) =>
      isSecure(url)
        ? Effect.succeed(url)
        : Effect.fail(fail("insecure", url, "not https (plain http only to a loopback host); nothing was sent"))
  )

/** No answer, or an answer whose body broke off: the client's reason, never a body. */
const transportFailure = (url: URL, error: HttpClientError.HttpClientError) => {
  const said = error.reason.description === undefined ? "" : ` (${error.reason.description})`
  return fail("http", url, `the exchange failed: ${error.reason._tag}${said}`)
}

const mediaTypeOf = (response: HttpClientResponse.HttpClientResponse): string =>
  (response.headers["content-type"] ?? "").split(";")[0]?.trim().toLowerCase() ?? ""

/** The body, read chunk by chunk and given up (the stream cancelled) as soon as it passes the bound. */
const readBounded = (response: HttpClientResponse.HttpClientResponse, url: URL) =>
  Effect.suspend(() => {
    const declared = Number(response.headers["content-length"])
    if (Number.isFinite(declared) && declared > MAX_BODY_BYTES) {
      return Effect.fail(fail("too-large", url, `declares ${declared} bytes; the limit is ${MAX_BODY_BYTES}`, response.status))
    }
    const chunks: Array<Uint8Array> = []
    let size = 0
    return response.stream.pipe(
      Stream.mapError((error) => transportFailure(url, error)),
      Stream.runForEach((chunk) => {
        size += chunk.byteLength
        if (size > MAX_BODY_BYTES) {
          return Effect.fail(fail("too-large", url, `larger than ${MAX_BODY_BYTES} bytes; reading stopped`, response.status))
        }
        chunks.push(chunk)
        return Effect.void
      }),
      Effect.map(() => concatBytes(chunks))
    )
  })

const decoder = new TextDecoder("utf-8", { fatal: true })

const parseJson = (bytes: Uint8Array, url: URL, status: number): Effect.Effect<unknown, McpDiscoveryError> =>
  Effect.try({
    try: (): unknown => JSON.parse(decoder.decode(bytes)),
    catch: () => fail("invalid", url, "the body is not UTF-8 JSON", status)
  })

/** Where a redirect goes, or undefined for any other answer. */
const redirectTarget = (response: HttpClientResponse.HttpClientResponse, url: URL) => {
  if (response.status < 300 || response.status >= 400 || response.status === 304) return undefined
  const location = response.headers["location"]
  if (location === undefined) return fail("redirect", url, `status ${response.status} without a Location`, response.status)
  try {
    return new URL(location, url)
  } catch {
    return fail("redirect", url, "the Location is not a URL", response.status)
  }
}

/** The GET for `url`; conditional (`If-None-Match`) when a stored document has an entity tag. */
const requestFor = (url: URL, wanted: Wanted, stored: Entry | undefined) => {
  const request = HttpClientRequest.setHeader(HttpClientRequest.get(url), "accept", wanted.accept)
  return stored?.etag === undefined ? request : HttpClientRequest.setHeader(request, "if-none-match", stored.etag)
}

/** One exchange: the answer's head checked, its body read when it is the document. */
const exchange = (client: HttpClient.HttpClient, url: URL, wanted: Wanted, stored: Entry | undefined) =>
  Effect.scoped(
    Effect.gen(function*() {
      const response = yield* Effect.mapError(
        client.execute(requestFor(url, wanted, stored)),
        (error) => transportFailure(url, error)
      )
      if (response.status === 304 && stored?.etag !== undefined) {
        const answer: Loaded = { fetched: stored.value, keep: keepOf(response.headers), notModified: true }
        return { _tag: "Document", answer } as const
      }
      const next = redirectTarget(response, url)
      if (next instanceof URL) return { _tag: "Redirect", next } as const
      if (next !== undefined) return yield* next
      // A browser's `fetch` with `redirect: "manual"` hides the redirect (an opaque answer, status 0).
      if (response.status === 0) return yield* fail("redirect", url, "a redirect this runtime does not let the client see")
      if (response.status !== 200) return yield* fail("http", url, `status ${response.status}`, response.status)
      const mediaType = mediaTypeOf(response)
      if (!wanted.mediaTypes.includes(mediaType)) {
        return yield* fail(
          "media-type",
          url,
          `answered ${mediaType === "" ? "no Content-Type" : mediaType}, expected ${wanted.mediaTypes.join(" or ")}`,
          response.status
        )
      }
      const json = yield* parseJson(yield* readBounded(response, url), url, response.status)
      const answer: Loaded = { fetched: { url: url.href, json }, keep: keepOf(response.headers), notModified: false }
      return { _tag: "Document", answer } as const
    })
  )

/** Keep the caller's fetch options, with redirects handed back to this code (only `fetch` reads them). */
const manualRedirects = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.flatMap(Effect.serviceOption(FetchHttpClient.RequestInit), (init) =>
    Effect.provideService(effect, FetchHttpClient.RequestInit, {
      ...Option.getOrElse(init, () => ({})),
      redirect: "manual"
    }))

const follow = (
  client: HttpClient.HttpClient,
  url: URL,
  wanted: Wanted,
  stored: Entry | undefined,
  hops: number
): Effect.Effect<Loaded, McpDiscoveryError> =>
  Effect.flatMap(exchange(client, url, wanted, stored), (result) => {
    if (result._tag === "Document") return Effect.succeed(result.answer)
    if (hops >= MAX_REDIRECTS) {
      return Effect.fail(fail("redirect", url, `more than ${MAX_REDIRECTS} redirects`))
    }
    if (!isSecure(result.next)) {
      return Effect.fail(
        fail("redirect", url, `redirects to ${result.next.origin}, which is not https (plain http only to a loopback host)`)
      )
    }
    return follow(client, result.next, wanted, stored, hops + 1)
  })

const load = (url: URL, wanted: Wanted, stored: Entry | undefined) =>
  Effect.flatMap(HttpClient.HttpClient, (client) =>
    follow(client, url, wanted, stored, 0).pipe(
      Effect.timeoutOrElse({
        duration: DOCUMENT_TIMEOUT,
        orElse: () => Effect.fail(fail("timeout", url, `no whole answer within ${DOCUMENT_TIMEOUT}`))
      }),
      manualRedirects,
      Effect.provideService(HttpClient.TracerPropagationEnabled, false)
    ))

/**
 * The JSON document at `url`, from the cache while its `Cache-Control` keeps it fresh, revalidated with its
 * `ETag` once stale.
 *
 * @internal
 */
export const getDocument = (
  url: URL,
  wanted: Wanted
): Effect.Effect<Fetched, McpDiscoveryError, HttpClient.HttpClient> =>
  Effect.flatMap(secureUrl(url), (secure) => cached(`${wanted.accept} ${secure.href}`, (stored) => load(secure, wanted, stored)))
