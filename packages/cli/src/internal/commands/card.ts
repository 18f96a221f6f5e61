/**
 * `card URL [--check] [--catalog]`: what a server says it is before anyone connects (its Server Card), and with
 * `--check` whether the live server agrees. URL is a card's URL (a path ending in `/server-card` or `.json`), else
 * an MCP endpoint (its card is at `<endpoint>/server-card`); with `--catalog`, an origin whose catalog is listed.
 * A card is advisory: `--check` believes the live server, and connects where the card says only over https (or
 * http on loopback), with nothing else taken from the card (no header, no credential: `connectionOptions` strips a
 * URL's userinfo, fragment and credential-named query parameters). What a card or a catalog says is printed bounded
 * (each field, each table cell, the whole table: see `print.ts`); `--json` prints it whole (at most the 1 MiB read).
 * The URLs of a card or a catalog are shown without their userinfo, fragment and credential-named query
 * parameters, in every form (`McpDiscovery.withoutCredentials`), and the values of its secret or credential-named
 * headers and URL variables are withheld (`McpDiscovery.remoteWithoutCredentials`).
 */
import { McpDiscovery } from "@mcp-effect/client"
import * as Argument from "effect/cli/Argument"
import * as Command from "effect/cli/Command"
import * as Flag from "effect/cli/Flag"
import * as Effect from "effect/Effect"
import * as FetchHttpClient from "effect/http/FetchHttpClient"
import * as Option from "effect/Option"
import { CardDisagrees, UsageError } from "../errors.js"
import { CommandTail, withClient } from "../session/connection.js"
import { shared } from "../session/options.js"
import { clip, print, printJson, table } from "../terminal/print.js"
import { wide } from "./flags.js"

/** A card's URL as given, or the reserved location of the endpoint given. */
const cardOf = (location: string) => {
  const path = URL.canParse(location) ? new URL(location).pathname : location
  return /(?:\/server-card|\.json)$/.test(path) ? McpDiscovery.card(location) : McpDiscovery.endpointCard(location)
}

/** A remote as one line: its transport, URL and the protocol revisions it says it supports. */
const remoteLine = (remote: McpDiscovery.Remote) => {
  const versions = remote.supportedProtocolVersions ?? []
  return `${remote.type} ${remote.url}${versions.length === 0 ? "" : ` (protocol ${versions.join(", ")})`}`
}

/**
 * A card as it may be shown: its URLs without what would carry a credential (`McpDiscovery.withoutCredentials`),
 * the values of its secret or credential-named headers and variables withheld (`remoteWithoutCredentials`).
 */
const shown = (card: McpDiscovery.ServerCard): McpDiscovery.ServerCard => ({
  ...card,
  ...(card.websiteUrl === undefined ? {} : { websiteUrl: McpDiscovery.withoutCredentials(card.websiteUrl) }),
  ...(card.remotes === undefined ? {} : { remotes: card.remotes.map(McpDiscovery.remoteWithoutCredentials) })
})

const PAD = "               "

/** At most this many characters of each field of a card are shown (`--json` shows them whole). */
const MAX_CARD_FIELD = 2000

/** The card as aligned lines, each field cut at `MAX_CARD_FIELD`; a field the card leaves out is left out. */
const cardText = (card: McpDiscovery.ServerCard): string => {
  const field = (label: string, value: string | undefined) =>
    value === undefined
      ? []
      : [`${`${label}:`.padEnd(PAD.length)}${clip(value.trim(), MAX_CARD_FIELD).split("\n").join(`\n${PAD}`)}`]
  const remotes = card.remotes ?? []
  return [
    ...field("name", card.name),
    ...field("title", card.title),
    ...field("version", card.version),
    ...field("description", card.description),
    ...field("website", card.websiteUrl),
    ...field("remotes", remotes.length === 0 ? "(none)" : remotes.map(remoteLine).join("\n")),
    ...field("tools", card.tools === undefined ? undefined : card.tools.map((tool) => tool.name).join(", ") || "(none)")
  ].join("\n")
}

/** `--catalog`: the servers of the origin's catalog. */
const listCatalog = (origin: string, options: { readonly json: boolean; readonly wide: boolean }) =>
  Effect.gen(function*() {
    const listed = yield* McpDiscovery.catalog(origin)
    const found = {
      url: McpDiscovery.withoutCredentials(listed.url),
      servers: listed.servers.map(({ entry: _entry, ...server }) => ({
        ...server,
        url: server.url === undefined ? undefined : McpDiscovery.withoutCredentials(server.url),
        card: server.card === undefined ? undefined : shown(server.card)
      }))
    }
    if (options.json) return yield* printJson(found)
    yield* print(`catalog: ${found.url}`)
    if (found.servers.length === 0) return yield* print("no MCP servers listed")
    yield* print(table(
      ["IDENTIFIER", "NAME", "CARD"],
      found.servers.map((server) => [server.identifier, server.card?.name ?? "", server.url ?? "(inline)"]),
      { wide: options.wide }
    ))
  })

/** Where `--check` connects: the server the command line names, else the card's Streamable HTTP remote. */
interface Chosen {
  readonly url: Option.Option<string>
  readonly stdio: Option.Option<string>
  readonly server: Option.Option<string>
}

const checkTarget = <O extends Chosen>(card: McpDiscovery.ServerCard, options: O) =>
  Effect.gen(function*() {
    const tail = yield* CommandTail
    if (tail !== undefined || Option.isSome(options.url) || Option.isSome(options.stdio) || Option.isSome(options.server)) {
      return options
    }
    const remote = McpDiscovery.connectionOptions(card)
    if (Option.isNone(remote)) {
      return yield* new UsageError({
        message: "the card names no Streamable HTTP remote to check (https, or http on loopback): give --url, --stdio or -- command"
      })
    }
    return { ...options, url: Option.some(remote.value.url) }
  })

export const card = Command.make(
  "card",
  {
    ...shared,
    wide,
    location: Argument.String("url").pipe(
      Argument.withDescription("a card's URL, an MCP endpoint (its card at <endpoint>/server-card), or with --catalog an origin")
    ),
    check: Flag.Boolean("check").pipe(
      Flag.withDescription("connect to the server (the card's remote, or --url/--stdio) and show where the card is wrong"),
      Flag.withDefault(false)
    ),
    catalog: Flag.Boolean("catalog").pipe(Flag.withDescription("list the servers of URL's catalog"), Flag.withDefault(false))
  },
  (options) =>
    Effect.gen(function*() {
      if (options.catalog) {
        if (options.check) return yield* new UsageError({ message: "--check goes with a card, not with --catalog" })
        return yield* listCatalog(options.location, options)
      }
      const found = yield* cardOf(options.location)
      // Shown without the credentials its URLs may carry; `--check` takes the card as it is (`connectionOptions`
      // strips them after filling the URL's variables).
      if (!options.check) return yield* options.json ? printJson(shown(found)) : print(cardText(shown(found)))
      const target = yield* checkTarget(found, options)
      const differences = yield* withClient(target, (client) =>
        Effect.map(McpDiscovery.live(client), (live) => McpDiscovery.compare(found, live))
      )
      if (options.json) yield* printJson({ card: shown(found), differences })
      else if (differences.length === 0) yield* print("the card agrees with the server")
      else {
        yield* print(table(
          ["FIELD", "CARD", "SERVER"],
          differences.map((difference) => [difference.field, difference.card, difference.live]),
          { wide: options.wide }
        ))
      }
      if (differences.length > 0) return yield* new CardDisagrees({ count: differences.length })
    }).pipe(Effect.provide(FetchHttpClient.layer))
).pipe(
  Command.withDescription("a server's Server Card; --check: compared with the live server (exit 1 when they differ)"),
  Command.withExamples([
    { command: "mcp-effect card https://example.com/mcp", description: "the card of an endpoint (at /mcp/server-card)" },
    { command: "mcp-effect card https://example.com/mcp --check", description: "connect where it says, exit 1 if it is wrong" },
    { command: "mcp-effect card https://example.com --catalog", description: "the servers of the site's catalog" },
    {
      command: "mcp-effect card https://example.com/card.json --check --stdio \"my-server --stdio\"",
      description: "check a card against a server started here"
    }
  ])
)
