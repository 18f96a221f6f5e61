/**
 * What a client may do with a card: connect (`connectionOptions`: an endpoint URL, nothing about auth) and check
 * it against what the server says once connected (`compare`). A card is advisory: nothing here feeds a security
 * decision, and where the card and the live server disagree the live server wins.
 *
 * @internal
 */
import * as Option from "effect/Option"
import type { Implementation } from "../../McpSchema.js"
import { credentialLike } from "../credentialName.js"
import { isSecure } from "../secureUrl.js"
import type { ServerCard } from "./schema.js"

type Card = typeof ServerCard.Type
type Remote = NonNullable<Card["remotes"]>[number]

/** @internal */
export interface ConnectionOptions {
  /** The Streamable HTTP endpoint to connect to. */
  readonly url: string
}

/** @internal */
export interface ConnectionOptionsInput {
  /** Values for the `{name}` variables of a remote's URL (a tenant, a region). */
  readonly variables?: Readonly<Record<string, string>> | undefined
}

/**
 * A remote's URL with its `{name}` variables filled: from `variables`, else the card's pre-set `value` or
 * `default` (never for a variable the card marks secret); undefined when one stays unfilled.
 */
const fillUrl = (remote: Remote, variables: Readonly<Record<string, string>>): string | undefined => {
  let missing = false
  const filled = remote.url.replace(/\{([a-zA-Z_][a-zA-Z0-9_]*)\}/g, (_, name: string) => {
    const given = variables[name]
    if (given !== undefined) return encodeURIComponent(given)
    const declared = remote.variables?.[name]
    const fromCard = declared === undefined || declared.isSecret === true || credentialLike(name)
      ? undefined
      : declared.value ?? declared.default
    if (fromCard === undefined) missing = true
    return fromCard === undefined ? "" : encodeURIComponent(fromCard)
  })
  return missing ? undefined : filled
}

/**
 * Take out of `url` what would carry a credential: the userinfo (`https://user:secret@host/`), query parameters
 * named like credentials, and the fragment (it means nothing to an endpoint and is where implicit-grant tokens
 * travel, `#access_token=`).
 */
const stripCredentials = (url: URL): void => {
  url.username = ""
  url.password = ""
  url.hash = ""
  for (const name of [...url.searchParams.keys()]) if (credentialLike(name)) url.searchParams.delete(name)
}

/**
 * The URL if it is https (or http on loopback), without what would carry a credential (`stripCredentials`).
 * Stripped, not refused: the endpoint is still the card's to name, its credentials never are.
 */
const usableUrl = (text: string | undefined): string | undefined => {
  if (text === undefined || !URL.canParse(text)) return undefined
  const url = new URL(text)
  if (!isSecure(url)) return undefined
  stripCredentials(url)
  return url.href
}

/**
 * A URL from a card or a catalog to show: as written when it carries no credential, else without what would
 * carry one (`stripCredentials`). Text that does not parse as a URL (a `{variable}` in its host) loses what
 * stands where a userinfo would.
 *
 * @internal
 */
export const withoutCredentials = (text: string): string => {
  if (!URL.canParse(text)) return text.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/?#]*@/i, "$1")
  const url = new URL(text)
  const written = url.href
  stripCredentials(url)
  return url.href === written ? text : url.href
}

/** What stands, in a remote as shown, for a value the card gave to a secret or a credential-named input. @internal */
export const WITHHELD = "[withheld]"

type Input = NonNullable<Remote["variables"]>[string]

/** An input (a header or a URL variable) as shown: its values withheld when it is secret or named like a credential. */
const shownInput = <I extends Input>(name: string, input: I): I => {
  const secret = input.isSecret === true || credentialLike(name)
  const withheld = secret
    ? {
      ...(input.value === undefined ? {} : { value: WITHHELD }),
      ...(input.default === undefined ? {} : { default: WITHHELD }),
      ...(input.choices === undefined ? {} : { choices: input.choices.map(() => WITHHELD) })
    }
    : {}
  return { ...input, ...withheld }
}

const shownVariables = (variables: Remote["variables"]) =>
  variables === undefined
    ? {}
    : { variables: Object.fromEntries(Object.entries(variables).map(([name, input]) => [name, shownInput(name, input)])) }

/**
 * A card's remote as it may be shown: its URL `withoutCredentials`, and the values the card gives to a header
 * or URL variable that is marked secret or named like a credential (`Authorization`, `X-API-Key`) replaced by
 * `WITHHELD`, as `connectionOptions` never takes them. @internal
 */
export const remoteWithoutCredentials = (remote: Remote): Remote => ({
  ...remote,
  url: withoutCredentials(remote.url),
  ...(remote.headers === undefined
    ? {}
    : {
      headers: remote.headers.map((header) => ({ ...shownInput(header.name, header), ...shownVariables(header.variables) }))
    }),
  ...shownVariables(remote.variables)
})

/**
 * The first Streamable HTTP remote of the card whose URL can be filled and is https (or http on loopback).
 * Headers, variables marked secret or named like credentials, a URL's userinfo, query parameters named like
 * credentials and auth hints are left out on purpose: credentials come from the user or
 * the OAuth flow, never from a document anyone can publish. A card describes remote servers only, so there is
 * no stdio command to give.
 *
 * @internal
 */
export const connectionOptions = (
  card: Card,
  input: ConnectionOptionsInput = {}
): Option.Option<ConnectionOptions> => {
  for (const remote of card.remotes ?? []) {
    if (remote.type !== "streamable-http") continue
    const url = usableUrl(fillUrl(remote, input.variables ?? {}))
    if (url !== undefined) return Option.some({ url })
  }
  return Option.none()
}

/** What the client learned from the live server (see `McpDiscovery.live`). @internal */
export interface LiveServer {
  readonly serverInfo: Implementation | undefined
  /** The protocol revision the connection runs. */
  readonly protocolVersion: string | undefined
  /** The server's tool names, when it has tools and they were listed. */
  readonly toolNames?: ReadonlyArray<string> | undefined
}

/** @internal */
export type DifferenceField = "name" | "version" | "title" | "description" | "protocolVersion" | "tools"

/** One thing the card says that the live server contradicts. @internal */
export interface Difference {
  readonly field: DifferenceField
  /** What the card says. */
  readonly card: string
  /** What the live server says (the value to believe). */
  readonly live: string
}

/**
 * A card's reverse-DNS `name` (`com.example/weather`) agrees with a live `serverInfo.name` that is the same
 * string or the part after the slash: servers commonly report the short name.
 */
const sameName = (cardName: string, liveName: string): boolean =>
  cardName === liveName || cardName.slice(cardName.indexOf("/") + 1) === liveName

const textDifferences = (card: Card, info: Implementation): ReadonlyArray<Difference> => {
  const found: Array<Difference> = []
  if (!sameName(card.name, info.name)) found.push({ field: "name", card: card.name, live: info.name })
  if (card.version !== info.version) found.push({ field: "version", card: card.version, live: info.version })
  for (const field of ["title", "description"] as const) {
    const said = card[field]
    const live = info[field]
    if (said !== undefined && live !== undefined && said !== live) found.push({ field, card: said, live })
  }
  return found
}

const versionDifference = (card: Card, protocolVersion: string | undefined): ReadonlyArray<Difference> => {
  const listed = (card.remotes ?? []).flatMap((remote) => remote.supportedProtocolVersions ?? [])
  if (protocolVersion === undefined || listed.length === 0 || listed.includes(protocolVersion)) return []
  return [{ field: "protocolVersion", card: [...new Set(listed)].join(", "), live: protocolVersion }]
}

const toolDifference = (card: Card, toolNames: ReadonlyArray<string> | undefined): ReadonlyArray<Difference> => {
  if (card.tools === undefined || toolNames === undefined) return []
  const said = [...new Set(card.tools.map((tool) => tool.name))].sort()
  const live = [...new Set(toolNames)].sort()
  return said.join("\n") === live.join("\n") ? [] : [{ field: "tools", card: said.join(", "), live: live.join(", ") }]
}

/**
 * Where the card contradicts the live server: identity (`name`, `version`, and `title`/`description` when both
 * sides give one), the protocol revision in use (when the card lists revisions), and the tool names (when the
 * card lists tools, as the SEP's first draft did). Empty when they agree; a field only one side gives is no
 * difference.
 *
 * @internal
 */
export const compare = (card: Card, live: LiveServer): ReadonlyArray<Difference> => [
  ...(live.serverInfo === undefined ? [] : textDifferences(card, live.serverInfo)),
  ...versionDifference(card, live.protocolVersion),
  ...toolDifference(card, live.toolNames)
]
