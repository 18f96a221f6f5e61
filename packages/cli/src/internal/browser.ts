/**
 * Opening a URL in the user's browser: `$BROWSER` when it is set (`none` for no browser), else the
 * platform's opener. Used by the sign-in and by URL elicitations (after the user agreed); the caller prints
 * the URL, so a missing browser only means the user opens it by hand.
 */
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
