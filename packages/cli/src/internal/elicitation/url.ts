/**
 * URL-mode elicitation: the server asks the user to open a link (a sign-in at a third party, a payment)
 * and the interaction happens in the browser, out of band. The spec's rules for the client: never fetch the
 * URL, never open it without the user's explicit consent, show the full URL (its site emphasised) before
 * asking, warn of look-alike sites. So the command always prints the message and the URL on stderr, asks
 * "Open it in your browser?" (default no) only at a terminal, and opens only http(s) links, with the same
 * opener as the sign-in (`$BROWSER` respected). Not at a terminal nobody can consent: nothing is opened.
 */
import * as Prompt from "effect/cli/Prompt"
import type { InputFulfiller } from "@mcp-effect/client"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import { launchBrowser } from "../browser.js"
import type { Completions } from "./completions.js"
import type { StatusLine, StyledPart } from "../terminal/statusLine.js"

/** What a URL elicitation needs from the command: the terminal (if the user is at one), its stderr, its waits. */
export interface Interaction {
  readonly terminal: Context.Context<Prompt.Environment> | undefined
  readonly status: StatusLine
  readonly completions: Completions
  /** Seconds to wait for the server when nobody is at the terminal (the request timeout). */
  readonly timeout: number
}

export interface UrlElicitation {
  readonly message: string
  readonly url: string
  readonly elicitationId?: string | undefined
}

export type Action = InputFulfiller.ElicitResult["action"]

export const WAITING = "waiting for you to finish in the browser…"

/** Domain names written in the message (`example.com`, `login.example.co.uk`). */
const DOMAIN = /\b(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+[a-z]{2,}\b/gi

const coveredBy = (host: string) => (domain: string) => host === domain || host.endsWith(`.${domain}`)

/** What looks wrong about where the link goes. */
export const warnings = (message: string, url: URL): ReadonlyArray<string> => {
  const host = url.hostname.toLowerCase()
  const found: Array<string> = []
  if (host.split(".").some((label) => label.startsWith("xn--"))) {
    found.push(`the site's name is internationalized (Punycode "xn--"): it may imitate another name; check it`)
  }
  if (url.username !== "" || url.password !== "") {
    found.push(`the link has a user name before "@": the site is ${host}, not what comes before the "@"`)
  }
  const named = [...new Set((message.match(DOMAIN) ?? []).map((domain) => domain.toLowerCase()))]
  if (named.length > 0 && !named.some(coveredBy(host))) {
    found.push(`the message names ${named.join(", ")} but the link goes to ${host}`)
  }
  return found
}

/** The link if it may be opened: a URL with the http or https scheme. */
export const openable = (url: string): URL | undefined => {
  if (!URL.canParse(url)) return undefined
  const parsed = new URL(url)
  return parsed.protocol === "https:" || parsed.protocol === "http:" ? parsed : undefined
}

/** The URL with its site (host and port) as the strong part. */
const linkParts = (url: URL): ReadonlyArray<StyledPart> => {
  const userinfo = url.username === "" && url.password === ""
    ? ""
    : `${url.username}${url.password === "" ? "" : `:${url.password}`}@`
  const before = `${url.protocol}//${userinfo}`
  return url.href.startsWith(`${before}${url.host}`)
    ? [{ text: `  ${before}` }, { text: url.host, strong: true }, { text: url.href.slice(before.length + url.host.length) }]
    : [{ text: `  ${url.href}` }]
}

/**
 * Print the message, the full URL with its site in bold, and any warning, on stderr (always). The link, if
 * it may be opened; otherwise a line says it will not be.
 */
export const show = (status: StatusLine, elicitation: UrlElicitation): URL | undefined => {
  status.line(`mcp-effect: the server asks you to open a link: ${elicitation.message}`)
  const url = openable(elicitation.url)
  if (url === undefined) {
    status.line(`  ${elicitation.url}`)
    status.line("mcp-effect: not opened: only http and https links are opened")
    return undefined
  }
  status.styled(linkParts(url))
  for (const warning of warnings(elicitation.message, url)) status.line(`mcp-effect: warning: ${warning}`)
  return url
}

/**
 * Open the link: `accept` once the browser started (or, with `BROWSER=none`, for the user to open by hand);
 * `cancel` when it could not start (a link too long to hand to it, no such program): the user never got
 * there, so the server is not told they did.
 */
const open = (status: StatusLine, url: URL): Effect.Effect<Action> =>
  Effect.map(launchBrowser(url), (launch): Action => {
    switch (launch._tag) {
      case "Started":
        return "accept"
      case "NoBrowser":
        status.line("mcp-effect: no browser is started (BROWSER=none): open the link above yourself")
        return "accept"
      case "Failed":
        status.line(`mcp-effect: could not start the browser (${launch.reason}): answered cancel`)
        return "cancel"
    }
  })

/** Ask at the terminal; yes opens the link. Quitting the prompt (Ctrl-C, Esc) cancels. */
export const consent = (terminal: Context.Context<Prompt.Environment>, status: StatusLine, url: URL): Effect.Effect<Action> =>
  Prompt.run(Prompt.Confirm({ message: "Open it in your browser?", initial: false })).pipe(
    Effect.catchTag("QuitError", () => Effect.succeed(undefined)),
    Effect.provide(terminal),
    Effect.flatMap((yes) => yes === undefined ? Effect.succeed<Action>("cancel") : yes ? open(status, url) : Effect.succeed<Action>("decline"))
  )

/**
 * A URL elicitation asked during a request. Accepted with an `elicitationId` (legacy), the live line says
 * the command waits for the browser step until the server's completion comes (the request goes on).
 */
export const answer = (interaction: Interaction, elicitation: UrlElicitation): Effect.Effect<Action> =>
  Effect.gen(function*() {
    const { completions, status, terminal } = interaction
    const url = show(status, elicitation)
    if (url === undefined) return "decline"
    if (terminal === undefined) {
      status.line("mcp-effect: not opened and declined: not at a terminal, so nobody could agree to open it")
      return "decline"
    }
    const action = yield* consent(terminal, status, url)
    if (action === "accept" && elicitation.elicitationId !== undefined) {
      yield* completions.expect(elicitation.elicitationId)
      status.note(WAITING)
    }
    return action
  })
