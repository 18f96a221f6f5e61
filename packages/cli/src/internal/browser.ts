/**
 * Opening a URL in the user's browser: `$BROWSER` when it is set (`none` for no browser), else the
 * platform's opener. Used by the sign-in and by URL elicitations (after the user agreed); the caller prints
 * the URL, so a missing browser only means the user opens it by hand.
 */
import * as Effect from "effect/Effect"
import { spawn } from "node:child_process"

/** The command that opens a URL: `$BROWSER` if set (`none` for no browser), else the platform's opener. */
export const browserCommand = (
  url: string,
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform
): ReadonlyArray<string> | undefined => {
  const browser = env["BROWSER"]
  if (browser !== undefined && browser !== "") return browser === "none" ? undefined : [browser, url]
  if (platform === "darwin") return ["open", url]
  if (platform === "win32") return ["cmd", "/c", "start", "", url]
  return ["xdg-open", url]
}

/** How starting the browser went: started, no browser wanted (`BROWSER=none`), or why it could not start. */
export type Launch =
  | { readonly _tag: "Started" }
  | { readonly _tag: "NoBrowser" }
  | { readonly _tag: "Failed"; readonly reason: string }

const reasonOf = (error: unknown): string => {
  const code = typeof error === "object" && error !== null && "code" in error ? String(error.code) : undefined
  if (code === "E2BIG") return "E2BIG: the link is too long to hand to a program"
  if (code === "ENOENT") return "ENOENT: the browser's program was not found"
  return error instanceof Error ? error.message : String(error)
}

/**
 * Start the browser on the URL, detached, and say how it went once the system has answered: the program
 * started (`spawn`), or could not (a link longer than the system hands to a program fails at once with
 * E2BIG; a missing program with ENOENT, a moment later).
 */
export const launchBrowser = (url: URL): Effect.Effect<Launch> =>
  Effect.callback<Launch>((resume) => {
    const [command, ...args] = browserCommand(url.href) ?? []
    if (command === undefined) return resume(Effect.succeed({ _tag: "NoBrowser" }))
    try {
      const child = spawn(command, args, { stdio: "ignore", detached: true })
      child.once("error", (error) => resume(Effect.succeed({ _tag: "Failed", reason: reasonOf(error) })))
      child.once("spawn", () => resume(Effect.succeed({ _tag: "Started" })))
      child.unref()
    } catch (error) {
      resume(Effect.succeed({ _tag: "Failed", reason: reasonOf(error) }))
    }
  })

/** Try to open the URL in a browser, detached; any failure (no opener, no display) is ignored. */
export const openBrowser = (url: URL): void => {
  const [command, ...args] = browserCommand(url.href) ?? []
  if (command === undefined) return
  try {
    const child = spawn(command, args, { stdio: "ignore", detached: true })
    child.on("error", () => undefined)
    child.unref()
  } catch {
    // No browser: the URL is on stderr.
  }
}
