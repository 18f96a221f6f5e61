/**
 * A sign-in from a Vite production build (issue 33, item 21): `vite build` bundles the pages listed in its
 * input, by default the one `index.html`, so a separate `callback.html` served by `vite dev` is missing from the
 * build. The redirect page may instead be the app's own page: it calls `BrowserMcpAuth.completeSignIn()` first at
 * every start, which hands an authorization response back to its opener and closes the popup, and otherwise
 * does nothing (the app goes on). Built with the real `vite build` (the installed client's `dist`, linked as
 * `node_modules/@mcp-effect/client`), served from a folder, driven in headless Chromium.
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { chromium } from "playwright-core"
import type { Browser, Page } from "playwright-core"
import { build } from "vite"
import { afterAll, assert, beforeAll, describe, it } from "vitest"
import { startListening } from "./fixtures/project.js"
import type { RunningServer } from "./fixtures/project.js"

const require = createRequire(import.meta.url)
const pageHost = require.resolve("@mcp-effect/test-servers/page-host")
const CHROMIUM = process.env["MCP_EFFECT_CHROMIUM"] ?? "/usr/bin/chromium-headless-shell"
const clientPackage = path.resolve(import.meta.dirname, "../..")

/** The app: one page, whose script hands a sign-in back when it is the popup's redirect, else starts the app. */
const MAIN = `import { BrowserMcpAuth } from "@mcp-effect/client"

if (!BrowserMcpAuth.completeSignIn()) {
  window.appStarted = true
  window.signIn = (url) => BrowserMcpAuth.popup({ closedPollMs: 50 })(new URL(url))
}
`

let project: string | undefined
let host: RunningServer | undefined
let browser: Browser | undefined
let built: ReadonlyArray<string> = []

beforeAll(async () => {
  const dir = mkdtempSync(path.join(tmpdir(), "mcp-effect-vite-"))
  project = dir
  mkdirSync(path.join(dir, "node_modules/@mcp-effect"), { recursive: true })
  symlinkSync(clientPackage, path.join(dir, "node_modules/@mcp-effect/client"), "dir")
  writeFileSync(path.join(dir, "index.html"), `<!doctype html><meta charset="utf-8"><title>app</title><script type="module" src="/main.js"></script>\n`)
  writeFileSync(path.join(dir, "main.js"), MAIN)
  // Vite's defaults: the one input is index.html.
  await build({ root: dir, logLevel: "silent", configFile: false, build: { outDir: "dist" } })
  built = readdirSync(path.join(dir, "dist"))
  host = await startListening(pageHost, ["--root", path.join(dir, "dist")])
  browser = await chromium.launch({ executablePath: CHROMIUM })
}, 240_000)

afterAll(async () => {
  await browser?.close()
  host?.stop()
  if (project !== undefined) rmSync(project, { recursive: true, force: true })
})

const openApp = async (): Promise<Page> => {
  const page = await (browser as Browser).newPage()
  await page.goto(new URL("index.html", host?.url).href)
  await page.waitForFunction(() => Reflect.get(globalThis, "appStarted") === true)
  return page
}

describe("a Vite production build signs in with the app's own page as the redirect page", () => {
  it("the build has the one page (no callback page of its own)", () => {
    assert.includeMembers([...built], ["index.html", "assets"])
    assert.notInclude(built, "callback.html")
  })

  it("the popup lands on the built page with the authorization response: it is handed back and the popup closes", async () => {
    const page = await openApp()
    try {
      const redirect = new URL("index.html?code=the-code&state=the-state&iss=https%3A%2F%2Fas.example", host?.url).href
      const [popup, landed] = await Promise.all([
        page.waitForEvent("popup"),
        page.evaluate((url) => (Reflect.get(globalThis, "signIn") as (url: string) => Promise<string>)(url), redirect)
      ])
      assert.strictEqual(landed, redirect)
      // completeSignIn() closed the popup (the close reaches this side as an event).
      if (!popup.isClosed()) await popup.waitForEvent("close")
      assert.isTrue(popup.isClosed())
    } finally {
      await page.close()
    }
  })

  it("the same page opened by another page without an authorization response starts the app, posts nothing, stays open", async () => {
    const page = await openApp()
    try {
      await page.evaluate(() => {
        const posted: Array<unknown> = []
        Reflect.set(globalThis, "posted", posted)
        const page = globalThis as unknown as { readonly addEventListener: (type: "message", f: (event: { readonly data: unknown }) => void) => void }
        page.addEventListener("message", (event) => void posted.push(event.data))
      })
      const [child] = await Promise.all([
        page.context().waitForEvent("page"),
        page.evaluate(() => void Reflect.set(globalThis, "child", (globalThis as unknown as { readonly open: (url: string, name: string) => unknown }).open("/index.html?from=app", "other")))
      ])
      await child.waitForFunction(() => Reflect.get(globalThis, "appStarted") === true)
      assert.isFalse(child.isClosed())
      assert.isFalse(await page.evaluate(() => (Reflect.get(globalThis, "child") as { readonly closed: boolean }).closed))
      assert.deepStrictEqual(await page.evaluate(() => Reflect.get(globalThis, "posted")), [])
    } finally {
      await page.close()
    }
  })
})
