/**
 * Signing in to `--url` servers that ask for it (OAuth, through the library's `McpAuth`): the loopback
 * redirect receiver on 127.0.0.1 (started only when a sign-in is needed, closed right after), the browser,
 * and the token file in the user's configuration directory; `auth logout` removes stored sign-ins.
 */
import { type McpAuth, McpSchema } from "@mcp-effect/client"
import { NodeMcpAuth } from "@mcp-effect/client/node"
import * as Effect from "effect/Effect"
import * as os from "node:os"
import * as path from "node:path"
import { openBrowser } from "../browser.js"
import { UsageError } from "../errors.js"
import { CONFIG_LIMIT, lstatOf, readRegularText } from "../files.js"

/** The default loopback port: fixed, so that a client registered with its redirect URL stays valid. */
export const DEFAULT_CALLBACK_PORT = 33418

const CLIENT_NAME = "mcp-effect"

/** `$XDG_CONFIG_HOME/mcp-effect/tokens.json`, else `~/.config/mcp-effect/tokens.json`. */
export const tokenFile = (env: NodeJS.ProcessEnv = process.env): string => {
  const base = env["XDG_CONFIG_HOME"] !== undefined && env["XDG_CONFIG_HOME"] !== ""
    ? env["XDG_CONFIG_HOME"]
    : path.join(os.homedir(), ".config")
  return path.join(base, "mcp-effect", "tokens.json")
}

/** Print the URL on stderr (always) and try the browser. */
const announce = (url: URL) => {
  process.stderr.write(`mcp-effect: this server asks you to sign in; opening your browser at:\n${url.href}\n`)
  openBrowser(url)
}

/**
 * The `auth` options of an HTTP client: the receiver listens on the port only while a sign-in waits for
 * its redirect, so a server that needs no sign-in never sees a listener.
 */
export const authOptions = (callbackPort: number): McpAuth.AuthOptions => ({
  clientName: CLIENT_NAME,
  redirectUrl: `http://127.0.0.1:${callbackPort}/callback`,
  onAuthorize: async (authorizationUrl: URL) => {
    const receiver = await NodeMcpAuth.loopbackReceiver({ port: callbackPort, open: announce }).catch((error: unknown) => {
      const reason = error instanceof Error ? error.message : String(error)
      throw new Error(`cannot receive the sign-in redirect on 127.0.0.1:${callbackPort} (${reason}); choose another port with --callback-port`)
    })
    try {
      return await receiver.onAuthorize(authorizationUrl)
    } finally {
      await receiver.close()
    }
  },
  tokenFile: tokenFile()
})

/** The callback port, checked. */
export const checkPort = (port: number): Effect.Effect<number, UsageError> =>
  Number.isInteger(port) && port > 0 && port < 65536
    ? Effect.succeed(port)
    : Effect.fail(new UsageError({ message: `--callback-port must be a port number (1-65535), got ${port}` }))

const serverOf = (entry: unknown): string | undefined =>
  typeof entry === "object" && entry !== null && typeof (entry as { server?: unknown }).server === "string"
    ? (entry as { server: string }).server
    : undefined

/**
 * The token file's entries: none when there is no file or it is not a JSON object. Anything but a regular file
 * of at most 4 MiB there is a `UsageError` (a FIFO must not hold the command).
 */
const readTokens = (file: string): Effect.Effect<Readonly<Record<string, unknown>>, UsageError> =>
  Effect.gen(function*() {
    const asUsage = (error: { readonly message: string }) => new UsageError({ message: error.message })
    if ((yield* Effect.mapError(lstatOf(file), asUsage)) === undefined) return {}
    const text = yield* Effect.mapError(readRegularText(file, CONFIG_LIMIT), asUsage)
    const parsed = yield* Effect.try((): unknown => JSON.parse(text)).pipe(Effect.orElseSucceed(() => undefined))
    return McpSchema.isRecord(parsed) ? parsed : {}
  })

/** The server URL as the token store keys it. */
export const normalizeUrl = (url: string): Effect.Effect<string, UsageError> =>
  Effect.try({
    try: () => new URL(url).href,
    catch: () => new UsageError({ message: `--url: not a URL: ${JSON.stringify(url)}` })
  })

/** Whether the token file holds a sign-in for the server. */
export const hasStored = (url: string, file: string = tokenFile()): Effect.Effect<boolean, UsageError> =>
  Effect.gen(function*() {
    const href = yield* normalizeUrl(url)
    const content = yield* readTokens(file)
    return Object.values(content).some((entry) => serverOf(entry) === href)
  })

/** Remove the stored sign-ins of one server (or all), under the token file's lock; the number removed. */
export const logout = (url: string | undefined, file: string = tokenFile()): Effect.Effect<number, UsageError> =>
  Effect.gen(function*() {
    const href = url === undefined ? undefined : yield* normalizeUrl(url)
    return yield* NodeMcpAuth.forgetStored(file, href).pipe(
      Effect.mapError((error) => new UsageError({ message: `cannot change ${file}: ${error.message}` }))
    )
  })
