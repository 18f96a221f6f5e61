/**
 * A person's sign-in from a web page, in headless Chromium (Debian's `chromium-headless-shell`, driven by
 * `playwright-core`): the page, bundled from the packed tarball and served from the page host's origin, connects
 * with the Promise `connectHttp` to the OAuth-protected MCP server on another origin (CORS opened for the page's
 * origin only), signs in through `BrowserMcpAuth.popup()` (oidc-provider approves at once; the popup's redirect
 * page runs `BrowserMcpAuth.completeSignIn()`), and keeps its tokens in `localStorage`.
 *
 * The headless shell has no popup blocker (Chrome's lives in its UI layer, which the shell leaves out): a popup
 * opens there with or without a gesture. A blocked popup is played as a blocking browser answers it, `window.open`
 * returning null.
 */
import { build } from "esbuild"
import { writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import * as path from "node:path"
import { chromium } from "playwright-core"
import type { Browser, BrowserContext, Page } from "playwright-core"
import { startOAuthProtected } from "@mcp-effect/test-servers/oauth-protected"
import type { OAuthProtected } from "@mcp-effect/test-servers/oauth-protected"
import { afterAll, assert, beforeAll, describe, it } from "vitest"
import { packedProject, startListening } from "./fixtures/project.js"
import type { PackedProject, RunningServer } from "./fixtures/project.js"

const require = createRequire(import.meta.url)
const pageHost = require.resolve("@mcp-effect/test-servers/page-host")

/** Debian's headless shell (`apt-get install chromium-headless-shell`; `.ci/run` installs it). */
const CHROMIUM = process.env["MCP_EFFECT_CHROMIUM"] ?? "/usr/bin/chromium-headless-shell"

/** The key `tokenStorage` keeps a server's tokens under (the README's). */
const TOKEN_KEY_PREFIX = "mcp-effect/tokens/"

type Outcome = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly error: string }

let project: PackedProject | undefined
let browser: Browser | undefined
let host: RunningServer | undefined
let oauth: OAuthProtected | undefined

/** Bundles `<name>.mjs` of the packed project for the browser, beside its `<name>.html`. */
const bundlePage = async (dir: string, name: string) => {
  writeFileSync(
    path.join(dir, `${name}.html`),
    `<!doctype html><meta charset="utf-8"><title>${name}</title><script type="module" src="./${name}.js"></script>\n`
  )
  await build({
    absWorkingDir: dir,
    entryPoints: [`./${name}.mjs`],
    outfile: path.join(dir, `${name}.js`),
    bundle: true,
    platform: "browser",
    format: "esm",
    logLevel: "silent"
  })
}

/** The page's Client ID Metadata Document, served by the page host at `client.json`. */
const clientMetadata = (hostUrl: string) => ({
  client_id: `${hostUrl}client.json`,
  client_name: "mcp-effect browser test (metadata document)",
  redirect_uris: [`${hostUrl}callback.html`],
  grant_types: ["authorization_code", "refresh_token"],
  response_types: ["code"],
  token_endpoint_auth_method: "none",
  application_type: "web"
})

beforeAll(async () => {
  const installed = packedProject()
  project = installed
  await Promise.all([bundlePage(installed.dir, "page-oauth"), bundlePage(installed.dir, "callback")])
  host = await startListening(pageHost, ["--root", installed.dir])
  writeFileSync(path.join(installed.dir, "client.json"), JSON.stringify(clientMetadata(host.url)))
  oauth = await startOAuthProtected({ cors: { origin: new URL(host.url).origin }, clientMetadataDocuments: true })
  browser = await chromium.launch({ executablePath: CHROMIUM })
}, 240_000)

afterAll(async () => {
  await browser?.close()
  await oauth?.close()
  await host?.stop()
  project?.remove()
})

const running = () => {
  if (browser === undefined || host === undefined || oauth === undefined) throw new Error("the suite did not start")
  return { browser, host, oauth }
}

/** A fresh browser profile (its own `localStorage`) whose console lines, from every page and popup, are kept. */
const openContext = async () => {
  const context = await running().browser.newContext()
  const consoleLines: Array<string> = []
  context.on("console", (message) => consoleLines.push(message.text()))
  context.on("weberror", (error) => consoleLines.push(String(error.error())))
  return { context, consoleLines }
}

/**
 * Opens the sign-in page for the MCP server in `context` and waits for its button; with `onload`, the page
 * calls `whoami` as it loads, with no click; with `cimd`, it is registered by that Client ID Metadata Document.
 */
const openPage = async (
  context: BrowserContext,
  options: { onload?: boolean; cimd?: string; hostUrl?: string } = {}
): Promise<Page> => {
  const { host, oauth } = running()
  const page = await context.newPage()
  const query = new URLSearchParams({ mcp: oauth.mcpUrl, ...(options.cimd === undefined ? {} : { cimd: options.cimd }) })
  await page.goto(`${options.hostUrl ?? host.url}page-oauth.html?${query}${options.onload === true ? "&onload" : ""}`)
  await page.waitForSelector("#sign-in")
  return page
}

/** Clicks "Sign in" (the person's gesture) and returns the popup it opened. */
const clickSignIn = async (page: Page): Promise<Page> => {
  const [popup] = await Promise.all([page.waitForEvent("popup", { timeout: 20_000 }), page.click("#sign-in")])
  return popup
}

/** The outcome of the page's `whoami`, started by the click or by `onload`. */
const outcomeOf = (page: Page): Promise<Outcome> =>
  page.evaluate(() => (globalThis as unknown as { outcome: Promise<Outcome> }).outcome)

const localStorageOf = (page: Page): Promise<Record<string, string>> =>
  page.evaluate(() => Object.fromEntries(Object.entries(localStorage)))

/** A field of the stored entry's part (a server's entries are a JSON array, one per authorization server). */
const storedField = (value: string | undefined, part: "tokens" | "client", field: string): unknown => {
  const entries: unknown = JSON.parse(value ?? "[]")
  const first: unknown = Array.isArray(entries) ? entries[0] : undefined
  const within: unknown = typeof first === "object" && first !== null ? Reflect.get(first, part) : undefined
  return typeof within === "object" && within !== null ? Reflect.get(within, field) : undefined
}

const storedAccessToken = (value: string | undefined): string => {
  const token = storedField(value, "tokens", "accessToken")
  if (typeof token !== "string") throw new Error(`no access token stored: ${value}`)
  return token
}

/** Asks the MCP server, from here, who `token` belongs to: a token the server accepts answers `hello <sub>`. */
const whoamiWith = async (token: string): Promise<string> => {
  const response = await fetch(running().oauth.mcpUrl, {
    method: "POST",
    headers: {
      authorization: `Bearer ${token}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2025-06-18"
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "whoami", arguments: {} } })
  })
  const body = (await response.json()) as { result?: { content?: Array<{ text?: string }> } }
  return body.result?.content?.[0]?.text ?? `HTTP ${response.status}`
}

describe("Chromium × OAuth × popup sign-in (dynamic registration), tokens in localStorage", () => {
  let context: BrowserContext | undefined
  let consoleLines: Array<string> = []
  let page: Page | undefined

  afterAll(async () => {
    await context?.close()
  })

  it("Chromium × OAuth × sign-in from a click: popup, redirect page, whoami answers hello demo-user", async () => {
    const { oauth } = running()
    const opened = await openContext()
    context = opened.context
    consoleLines = opened.consoleLines
    page = await openPage(context)
    const before = { ...oauth.counts }
    const popup = await clickSignIn(page)
    assert.deepStrictEqual(await outcomeOf(page), { ok: true, value: "hello demo-user" })
    // completeSignIn() closed the popup after posting the redirect URL back.
    if (!popup.isClosed()) await popup.waitForEvent("close", { timeout: 5_000 })
    assert.strictEqual(oauth.counts.authorizations, before.authorizations + 1)
    assert.strictEqual(oauth.counts.registrations, before.registrations + 1)
  }, 60_000)

  it("Chromium × OAuth × page loaded again: the tokens in localStorage serve without a second sign-in", async () => {
    const { oauth } = running()
    if (context === undefined || page === undefined) throw new Error("the sign-in test did not run")
    const before = { ...oauth.counts }
    await page.close()
    // The page loaded again, calling as it loads: no click, and no popup may open.
    page = await openPage(context, { onload: true })
    assert.deepStrictEqual(await outcomeOf(page), { ok: true, value: "hello demo-user" })
    // A second page of the same profile too.
    const second = await openPage(context, { onload: true })
    assert.deepStrictEqual(await outcomeOf(second), { ok: true, value: "hello demo-user" })
    assert.strictEqual(oauth.counts.authorizations, before.authorizations)
    assert.strictEqual(oauth.counts.registrations, before.registrations)
    assert.lengthOf(context.pages(), 2)
  }, 60_000)

  it("Chromium × OAuth × the access token is kept only under the documented key, never in the console", async () => {
    const { oauth } = running()
    if (page === undefined) throw new Error("the sign-in test did not run")
    const stored = await localStorageOf(page)
    const key = `${TOKEN_KEY_PREFIX}${oauth.mcpUrl}`
    const token = storedAccessToken(stored[key])
    // The stored token is the one the server accepts, not some other string.
    assert.strictEqual(await whoamiWith(token), "hello demo-user")
    const holding = Object.entries(stored).filter(([, value]) => value.includes(token)).map(([name]) => name)
    assert.deepStrictEqual(holding, [key])
    assert.deepStrictEqual(consoleLines.filter((line) => line.includes(token)), [])
    // Registered from a page: a public client, so no client secret sits in the page's storage.
    const entries = JSON.parse(stored[key] ?? "[]") as ReadonlyArray<{ readonly client?: Record<string, unknown> }>
    assert.deepStrictEqual(entries.map((entry) => [entry.client?.["authMethod"], "clientSecret" in (entry.client ?? {})]), [
      ["none", false]
    ])
  }, 60_000)

  it("Chromium × OAuth × an access token the server ended is renewed from the stored refresh token", async () => {
    const { oauth } = running()
    if (context === undefined || page === undefined) throw new Error("the sign-in test did not run")
    const key = `${TOKEN_KEY_PREFIX}${oauth.mcpUrl}`
    const old = storedAccessToken((await localStorageOf(page))[key])
    await oauth.revokeAccessTokens()
    const before = { ...oauth.counts, grants: { ...oauth.counts.grants } }
    const again = await openPage(context, { onload: true })
    assert.deepStrictEqual(await outcomeOf(again), { ok: true, value: "hello demo-user" })
    // A refresh at the token endpoint (cross-origin), no sign-in, and the new token replaced the old one.
    assert.strictEqual(oauth.counts.grants["refresh_token"] ?? 0, (before.grants["refresh_token"] ?? 0) + 1)
    assert.strictEqual(oauth.counts.authorizations, before.authorizations)
    const renewed = storedAccessToken((await localStorageOf(again))[key])
    assert.notStrictEqual(renewed, old)
    assert.strictEqual(await whoamiWith(renewed), "hello demo-user")
    assert.deepStrictEqual(consoleLines.filter((line) => line.includes(renewed)), [])
  }, 60_000)
})

describe("Chromium × OAuth × a sign-in that cannot end", () => {
  it("Chromium × OAuth × popup closed by the person: the call rejects with a clear error", async () => {
    const { oauth } = running()
    const { context } = await openContext()
    try {
      // The authorization page waits for the person (instead of approving at once), who closes the popup.
      await context.route(
        (url) => url.href.startsWith(`${oauth.issuer}/auth`),
        (route) => route.fulfill({ contentType: "text/html", body: "<!doctype html><p>Sign in to continue</p>" })
      )
      const page = await openPage(context)
      const before = { ...oauth.counts }
      const popup = await clickSignIn(page)
      await popup.close()
      const outcome = await outcomeOf(page)
      assert.isFalse(outcome.ok)
      if (!outcome.ok) assert.match(outcome.error, /^McpAuthError: .*the sign-in window was closed before the sign-in ended$/)
      assert.strictEqual(oauth.counts.authorizations, before.authorizations)
    } finally {
      await context.close()
    }
  }, 60_000)

  it("Chromium × OAuth × popup blocked (window.open answers null): the call rejects with a clear error", async () => {
    const { oauth } = running()
    const { context } = await openContext()
    try {
      // What a browser's popup blocker does to a `window.open` without the person's gesture.
      await context.addInitScript(() => Reflect.set(globalThis, "open", () => null))
      const before = { ...oauth.counts }
      const page = await openPage(context, { onload: true })
      const outcome = await outcomeOf(page)
      assert.isFalse(outcome.ok)
      if (!outcome.ok) assert.match(outcome.error, /^McpAuthError: .*the sign-in popup was blocked: open it from a click, or allow popups/)
      assert.lengthOf(context.pages(), 1)
      assert.strictEqual(oauth.counts.authorizations, before.authorizations)
    } finally {
      await context.close()
    }
  }, 60_000)
})

describe("Chromium × OAuth × CORS", () => {
  it("Chromium × OAuth × a page on an origin the server does not allow cannot reach it", async () => {
    const { host, oauth } = running()
    const { context } = await openContext()
    try {
      // The same page host under another name: another origin, not the one the servers allow.
      const other = host.url.replace("127.0.0.1", "localhost")
      const before = { ...oauth.counts }
      const page = await openPage(context, { onload: true, hostUrl: other })
      const outcome = await outcomeOf(page)
      // The browser refuses the answer (no CORS header for this origin): the first request fails.
      assert.isFalse(outcome.ok)
      if (!outcome.ok) assert.match(outcome.error, /^McpTransportError: .*cannot reach http:\/\/127\.0\.0\.1:\d+\/mcp.*allow this page.s origin through CORS/)
      assert.lengthOf(context.pages(), 1)
      assert.deepStrictEqual(oauth.counts, before)
    } finally {
      await context.close()
    }
  }, 60_000)
})

describe("Chromium × OAuth × Client ID Metadata Document", () => {
  it("Chromium × OAuth × sign-in as the page's metadata document: no registration, a public client", async () => {
    const { host, oauth } = running()
    const { context } = await openContext()
    try {
      const cimd = `${host.url}client.json`
      const page = await openPage(context, { cimd })
      const before = { ...oauth.counts }
      const popup = await clickSignIn(page)
      assert.deepStrictEqual(await outcomeOf(page), { ok: true, value: "hello demo-user" })
      if (!popup.isClosed()) await popup.waitForEvent("close", { timeout: 5_000 })
      assert.strictEqual(oauth.counts.authorizations, before.authorizations + 1)
      assert.strictEqual(oauth.counts.registrations, before.registrations)
      // The tokens were issued to the document's URL as client id; no registration (nor secret) is kept.
      const stored = (await localStorageOf(page))[`${TOKEN_KEY_PREFIX}${oauth.mcpUrl}`]
      const token = storedAccessToken(stored)
      assert.strictEqual(await oauth.clientOf(token), cimd)
      assert.strictEqual(storedField(stored, "client", "clientId"), undefined)
      assert.strictEqual(await whoamiWith(token), "hello demo-user")
    } finally {
      await context.close()
    }
  }, 60_000)
})
