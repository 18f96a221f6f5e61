/**
 * `inspect`: a web inspector whose MCP client runs in the page. The command serves the page on 127.0.0.1,
 * relays stdio servers (and HTTP servers whose CORS refuses the page) for it, prints one line,
 * `mcp-effect inspector: http://127.0.0.1:PORT/#token=TOKEN`, and opens the browser (not with `--no-open` or
 * `BROWSER=none`). It runs until Ctrl-C, which stops every server it started.
 *
 * The server is the one of the command line (`--stdio`, `-- cmd`, `--url`, `--server NAME`); with none, every
 * entry of the configuration file (if there is one) is offered in the page, and others can be typed there.
 */
import { McpConfig, writePrivateFile } from "@mcp-effect/client/node"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { pathToFileURL } from "node:url"
import * as Command from "effect/cli/Command"
import * as Flag from "effect/cli/Flag"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Result from "effect/Result"
import { launchBrowser } from "../browser.js"
import * as inputs from "../config/inputs.js"
import { discover, shown } from "../config/discover.js"
import { UsageError } from "../errors.js"
import { isLoopback, newToken } from "../inspect/guard.js"
import { serve } from "../inspect/server.js"
import { CommandTail } from "../session/connection.js"
import { shared } from "../session/options.js"
import * as target from "../session/target.js"
import { visible } from "../terminal/sanitize.js"

const flags = {
  config: shared.config,
  server: Flag.String("server").pipe(
    Flag.withAlias("s"),
    Flag.withDescription("the entry of the configuration to open (default: every entry, side by side)"),
    Flag.optional
  ),
  stdio: shared.stdio,
  url: shared.url,
  header: shared.header,
  env: shared.env,
  envAll: shared.envAll,
  port: Flag.Int("port").pipe(
    Flag.withDescription("the port to listen on (default: a free one)"),
    Flag.withDefault(0),
    Flag.filterMap((n) => (n >= 0 && n <= 65535 ? Option.some(n) : Option.none()), () => "--port must be 0-65535")
  ),
  host: Flag.String("host").pipe(
    Flag.withDescription("the address to listen on (default 127.0.0.1; another than loopback needs --allow-remote)"),
    Flag.withDefault("127.0.0.1")
  ),
  allowRemote: Flag.Boolean("allow-remote").pipe(
    Flag.withDescription("allow a --host other than loopback (still behind the token)"),
    Flag.withDefault(false)
  ),
  noOpen: Flag.Boolean("no-open").pipe(
    Flag.withDescription("do not open the browser (also BROWSER=none)"),
    Flag.withDefault(false)
  )
}

type Options = Command.Command.Config.Infer<typeof flags>

const usage = (message: string) => new UsageError({ message })

/** Every valid entry of the configuration file, if there is one (none: servers are picked in the page). */
const configEntries = (config: Option.Option<string>) =>
  Effect.gen(function*() {
    const found = Option.isSome(config) ? undefined : discover()
    const path = Option.getOrUndefined(config) ?? (found === undefined ? undefined : shown(found))
    if (path === undefined) return []
    // As every command says which editor's or app's file it read (on stderr: stdout is the one line).
    if (found?.announce === true) yield* Effect.sync(() => process.stderr.write(`mcp-effect: using ${path} (${found.app})\n`))
    const answers = yield* inputs.ask(path, "every")
    const entries = yield* McpConfig.readEntries(path, answers === undefined ? undefined : { inputs: answers }).pipe(
      Effect.mapError((e) => usage(e.message))
    )
    // A broken entry is said on stderr and left out; the others are offered.
    for (const entry of entries) {
      if (Result.isFailure(entry)) {
        yield* Effect.sync(() => process.stderr.write(`mcp-effect: leaving out ${visible(entry.failure.message)}\n`))
      }
    }
    return entries.flatMap((entry) => Result.isSuccess(entry) ? [entry.success] : [])
  })

/** The servers the page is offered: the one of the command line, or the configuration's. */
const entriesOf = (options: Options, tail: ReadonlyArray<string> | undefined) => {
  const named = Option.isSome(options.stdio) || Option.isSome(options.url) || Option.isSome(options.server) ||
    tail !== undefined
  if (!named) return configEntries(options.config)
  // A server of the command line (not a configuration's entry) is named as it was given: its URL or command.
  const fromLine = Option.isNone(options.server)
  return Effect.map(target.resolve({ ...options, tail }), (entry) => [
    !fromLine ? entry : { ...entry, name: entry.transport === "http" ? entry.url : [entry.command, ...entry.args].join(" ") }
  ])
}

/** The URL's host part for an address. */
const urlHost = (host: string) => (host.includes(":") && !host.startsWith("[") ? `[${host}]` : host)

/**
 * What the browser is started on: a private page (0600 by `writePrivateFile`, in a folder of its own, 0700)
 * that sends it on to the inspector's URL. The token never sits on a command line (the opener's, the
 * browser's), where any local user reads it (`ps`, `/proc/PID/cmdline`) for the browser's whole life. The
 * folder goes when the inspector ends, or at once when the page could not be written.
 */
const launcherPage = (url: URL) =>
  Effect.acquireRelease(
    Effect.tryPromise({
      try: async () => {
        const dir = mkdtempSync(path.join(tmpdir(), "mcp-effect-inspect-"))
        const file = path.join(dir, "open.html")
        const href = JSON.stringify(url.href)
        try {
          await writePrivateFile(
            file,
            `<!doctype html><meta charset="utf-8"><meta name="referrer" content="no-referrer"><title>mcp-effect inspector</title><script>location.replace(${href})</script>\n`,
            { createFolder: false }
          )
        } catch (error) {
          rmSync(dir, { recursive: true, force: true })
          throw error
        }
        return { dir, url: pathToFileURL(file) }
      },
      catch: (error) => (error instanceof Error ? error.message : String(error))
    }),
    ({ dir }) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
  )

/** Starts the browser on the inspector (through `launcherPage`), saying on stderr when it could not. */
const openInspector = (url: URL) =>
  Effect.gen(function*() {
    const page = yield* Effect.result(launcherPage(url))
    const launch = Result.isSuccess(page)
      ? yield* launchBrowser(page.success.url)
      : { _tag: "Failed" as const, reason: page.failure }
    if (launch._tag === "Failed") {
      yield* Effect.sync(() => process.stderr.write(`mcp-effect: could not open a browser (${launch.reason}); open the link above\n`))
    }
  })

export const inspect = Command.make("inspect", flags, (options) =>
  Effect.gen(function*() {
    if (!isLoopback(options.host) && !options.allowRemote) {
      return yield* usage(`--host ${options.host} is not a loopback address; add --allow-remote to listen there`)
    }
    const entries = yield* entriesOf(options, yield* CommandTail)
    const { page } = yield* Effect.promise(() => import("../inspect/pageAssets.js"))
    const token = newToken()
    const { port } = yield* serve({ host: options.host, port: options.port, token, entries, page }).pipe(
      Effect.mapError((error) => usage(`cannot listen on ${options.host}:${options.port}: ${error.message}`))
    )
    const url = new URL(`http://${urlHost(options.host)}:${port}/#token=${token}`)
    yield* Effect.sync(() => process.stdout.write(`mcp-effect inspector: ${url.href}\n`))
    if (!options.noOpen) yield* openInspector(url)
    return yield* Effect.never
  }).pipe(Effect.scoped)).pipe(
    Command.withDescription(
      "a web inspector in your browser, its MCP client in the page (prints its URL; Ctrl-C ends it)"
    )
  )
