/**
 * The house rule for a URL the client fetches on its own (OAuth metadata, Server Cards) or hands a person:
 * https, or plain http on a loopback host (development). A module of its own so that each user of the rule
 * loads only it.
 *
 * @internal
 */

/** @internal */
export const isLoopback = (url: URL): boolean =>
  url.hostname === "127.0.0.1" || url.hostname === "localhost" || url.hostname === "[::1]"

/** @internal */
export const isSecure = (url: URL): boolean => url.protocol === "https:" || (url.protocol === "http:" && isLoopback(url))
