/**
 * Signing in to a server reached from the page (OAuth through `McpAuth` on the page's `fetch`).
 */
import { BrowserMcpAuth, type McpAuth } from "@mcp-effect/client"
import type { Pending, Server } from "./connection.js"
import { addStep, settle } from "./netlog.js"
import { changed } from "./store.js"

let seq = 0

const messageOf = (error: unknown): string =>
  typeof error === "object" && error !== null && "message" in error ? String(error.message) : String(error)

/**
 * OAuth for a server reached from the page: registered as "mcp-effect inspector", redirected to the inspector's
 * `/oauth/callback`, tokens kept in this tab's session storage. The sign-in window opens from the person's
 * click on the prompt shown with the server (`authorize` in the Auth view).
 */
export const authOptions = (server: Server): McpAuth.AuthOptions => ({
  clientName: "mcp-effect inspector",
  redirectUrl: new URL("/oauth/callback", location.href).href,
  tokenStorage: sessionStorage,
  onAuthorize: (url) =>
    new Promise<string>((resolve, reject) => {
      const step = addStep("authorize", `${url.origin}${url.pathname}`, "running", "waiting for the person to sign in")
      const done = () => {
        server.pending = server.pending.filter((p) => p !== item)
        changed()
      }
      const item: Pending = {
        kind: "sign-in",
        seq: ++seq,
        url,
        open: () => {
          done()
          BrowserMcpAuth.popup()(url).then((redirected) => {
            settle(step, "ok", "signed in: the authorization server redirected back")
            resolve(redirected)
          }, (error: unknown) => {
            settle(step, "error", messageOf(error))
            reject(error)
          })
        },
        cancel: () => {
          done()
          settle(step, "error", "the person did not sign in")
          reject(new Error("sign-in cancelled in the inspector"))
        }
      }
      server.pending = [...server.pending, item]
      changed()
    })
})
