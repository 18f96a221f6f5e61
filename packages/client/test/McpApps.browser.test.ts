/**
 * MCP Apps in real Chromium (Debian's headless shell, driven by playwright-core). The host page is served by
 * the page host on one origin, the package's `apps-sandbox.html` by a second page host on another origin.
 * - The official `server-basic-vanillajs` (stdio, behind a 127.0.0.1 relay that records what reaches it),
 *   hosted with the Promise face's `mountApp`: its App renders, gets its input and result, and its button's
 *   `tools/call` reaches the server; a message from another window is dropped; `close()` tears it down.
 * - The official `server-system-monitor` the same way: its app-only poll tool is never offered to a model, yet
 *   the App's polls reach the server, approved first (the tool is not marked read-only).
 * - An App written with the official App SDK (`ext-apps`' `App`), exercising the rest of the protocol.
 * - Two Apps side by side, one navigating its frame away.
 * - A hostile App from an in-page scripted server, hosted with `BrowserMcpApps.mount`: a tool not visible to
 *   apps (refused, nothing sent), a fetch to an undeclared origin (that origin's server sees nothing),
 *   `allow-same-origin` asked for (stripped), a flood; and Apps refused before any frame: a 50 MB resource, a
 *   `ui://` path trick, a CSP source with `;`.
 */
import { build } from "esbuild"
import { cpSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { createRequire } from "node:module"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { chromium } from "playwright-core"
import type { Browser, Page } from "playwright-core"
import { afterAll, assert, beforeAll, describe, it } from "vitest"
import { startStdioRelay } from "./fixtures/stdioRelay.js"
import type { StdioRelay } from "./fixtures/stdioRelay.js"
import { startListening } from "./runtimes/fixtures/project.js"
import type { RunningServer } from "./runtimes/fixtures/project.js"

const require = createRequire(import.meta.url)
const pageHost = require.resolve("@mcp-effect/test-servers/page-host")
const CHROMIUM = process.env["MCP_EFFECT_CHROMIUM"] ?? "/usr/bin/chromium-headless-shell"
const MONITOR = path.resolve(import.meta.dirname, "../../../node_modules/@modelcontextprotocol/server-system-monitor/dist/index.js")
const VANILLA = path.resolve(import.meta.dirname, "../../../node_modules/@modelcontextprotocol/server-basic-vanillajs/dist/index.js")

let dir = ""
let browser: Browser | undefined
let relay: StdioRelay | undefined
let monitor: StdioRelay | undefined
const servers: Array<RunningServer> = []
let host = ""
let sandboxUrl = ""
/** The undeclared origin: it records every request it sees. */
const evilSeen: Array<string> = []
let evilUrl = ""
const evil = createServer((req, res) => {
  evilSeen.push(`${req.method} ${req.url}`)
  res.writeHead(200, { "access-control-allow-origin": "*" }).end("ok")
})

/** The App written with the official App SDK, as one script for its document. */
const sdkApp = async (): Promise<string> => {
  const built = await build({
    entryPoints: [path.join(import.meta.dirname, "fixtures", "apps", "sdk-app.mjs")],
    bundle: true,
    write: false,
    platform: "browser",
    format: "esm",
    logLevel: "silent"
  })
  return built.outputFiles[0]?.text ?? ""
}

const bundle = (name: string, define: Record<string, string> = {}) =>
  build({
    entryPoints: [path.join(import.meta.dirname, "fixtures", "apps", `${name}.mjs`)],
    outfile: path.join(dir, `${name}.js`),
    bundle: true,
    platform: "browser",
    format: "esm",
    define,
    logLevel: "silent"
  }).then(() =>
    writeFileSync(
      path.join(dir, `${name}.html`),
      `<!doctype html><meta charset="utf-8"><title>${name}</title><div id="app"></div><script type="module" src="./${name}.js"></script>\n`
    )
  )

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "mcp-effect-apps-"))
  const sandboxDir = path.join(dir, "sandbox")
  cpSync(path.join(import.meta.dirname, "../apps-sandbox.html"), path.join(sandboxDir, "apps-sandbox.html"))
  const sdk = await sdkApp()
  await Promise.all([bundle("page-vanilla"), bundle("page-hostile", { __SDK_APP_JS__: JSON.stringify(sdk) })])
  relay = await startStdioRelay(process.execPath, [VANILLA, "--stdio"])
  monitor = await startStdioRelay(process.execPath, [MONITOR, "--stdio"])
  const [hosted, sandbox] = await Promise.all([
    startListening(pageHost, ["--root", dir, "--upstream", `apps=${relay.url}`, "--upstream", `monitor=${monitor.url}`]),
    startListening(pageHost, ["--root", sandboxDir])
  ])
  servers.push(hosted, sandbox)
  host = hosted.url
  // Another port is another origin: the spec's MUST for the sandbox.
  sandboxUrl = `${sandbox.url}apps-sandbox.html`
  await new Promise<void>((resolve) => evil.listen(0, "127.0.0.1", resolve))
  evilUrl = `http://127.0.0.1:${(evil.address() as AddressInfo).port}/exfiltrate`
  browser = await chromium.launch({ executablePath: CHROMIUM })
}, 120_000)

afterAll(async () => {
  await browser?.close()
  await Promise.all(servers.map((server) => server.stop()))
  await relay?.stop()
  await monitor?.stop()
  await new Promise<void>((resolve) => evil.close(() => resolve()))
  if (dir !== "") rmSync(dir, { recursive: true, force: true })
})

const openPage = async (name: string): Promise<{ readonly page: Page; readonly errors: Array<string> }> => {
  if (browser === undefined) throw new Error("no browser")
  const page = await browser.newPage()
  const errors: Array<string> = []
  page.on("pageerror", (error) => errors.push(error.message))
  await page.goto(`${host}${name}.html`)
  await page.waitForFunction(() => "appState" in globalThis || "hostileState" in globalThis)
  return { page, errors }
}

interface Event {
  readonly method: string
  readonly outcome: string
  readonly params?: { readonly name?: string }
}

describe("Chromium: server-basic-vanillajs with mountApp", () => {
  it("renders, gets its input and result, its button's tools/call reaches the server; another window's message is dropped", async () => {
    const { page, errors } = await openPage("page-vanilla")
    try {
      const mounted = await page.evaluate((url) => (globalThis as unknown as { runVanilla: (u: string) => Promise<{ result: { structuredContent?: { time?: string } } }> }).runVanilla(url), sandboxUrl)
      const firstTime = mounted.result.structuredContent?.time
      assert.isString(firstTime)
      const app = page.frameLocator("#app iframe").frameLocator("iframe")
      // The App shows the result it was sent.
      await app.locator("#server-time").filter({ hasText: firstTime ?? "" }).waitFor({ timeout: 20_000 })
      const callsBefore = relay?.received.filter((m) => m["method"] === "tools/call").length ?? 0
      await app.locator("#get-time-btn").click()
      await page.waitForFunction(() =>
        (globalThis as unknown as { appState: () => { events: Array<Event> } }).appState().events.some((e) => e.method === "tools/call")
      , undefined, { timeout: 20_000 })
      const calls = relay?.received.filter((m) => m["method"] === "tools/call") ?? []
      assert.strictEqual(calls.length, callsBefore + 1, "the App's tools/call reached the server")
      assert.strictEqual((calls.at(-1)?.["params"] as { name?: string } | undefined)?.name, "get-time")
      // Another window's message, however well-formed, is dropped and reported; the server sees nothing.
      await page.evaluate(() => (globalThis as unknown as { postForeign: () => void }).postForeign())
      await page.waitForFunction(() =>
        (globalThis as unknown as { appState: () => { rejected: Array<{ reason: string }> } }).appState().rejected.some((r) => r.reason === "foreign")
      )
      assert.strictEqual(relay?.received.filter((m) => m["method"] === "tools/call").length, callsBefore + 1)
      const state = await page.evaluate(() => (globalThis as unknown as { appState: () => { events: Array<Event> } }).appState())
      const initialize = relay?.received.find((m) => m["method"] === "initialize" || m["method"] === "server/discover")
      assert.isDefined(initialize)
      assert.deepStrictEqual(state.events.filter((e) => e.method === "tools/call").map((e) => e.outcome), ["answered"])
      const frames = await page.evaluate(() => (globalThis as unknown as { closeApp: () => Promise<number> }).closeApp())
      assert.strictEqual(frames, 0, "close() removed the frame")
      assert.deepStrictEqual(errors, [])
    } finally {
      await page.close()
    }
  }, 90_000)
})

describe("Chromium: mountApp refused", () => {
  it("rejects with a tagged error, leaves no frame, and nothing unhandled", async () => {
    const { page, errors } = await openPage("page-vanilla")
    try {
      const outcome = await page.evaluate(
        (url) => (globalThis as unknown as { mountMissing: (u: string) => Promise<{ ok: boolean; tag?: string; reason?: string; frames: number }> }).mountMissing(url),
        sandboxUrl
      )
      assert.deepStrictEqual(outcome, { ok: false, tag: "McpAppsError", reason: "no-ui", frames: 0 })
      assert.deepStrictEqual(errors, [])
    } finally {
      await page.close()
    }
  }, 60_000)
})

describe("Chromium: server-system-monitor with mountApp", () => {
  it("its app-only poll tool is never offered to a model, yet the App's polls reach the server (approved)", async () => {
    const { page, errors } = await openPage("page-vanilla")
    try {
      await page.evaluate(
        (url) => (globalThis as unknown as { runVanilla: (u: string, up: string, t: string) => Promise<unknown> }).runVanilla(url, "monitor", "get-system-info"),
        sandboxUrl
      )
      const offered = await page.evaluate(() => (globalThis as unknown as { modelTools: () => Promise<Array<string>> }).modelTools())
      assert.deepStrictEqual(offered, ["get-system-info"])
      // The App polls on its own or from its toggle; either way its poll-system-stats calls reach the server.
      const app = page.frameLocator("#app iframe").frameLocator("iframe")
      await app.locator("#poll-toggle-btn").waitFor({ timeout: 20_000 })
      const polled = () => monitor?.received.some((m) => m["method"] === "tools/call" && (m["params"] as { name?: string }).name === "poll-system-stats") === true
      if (!polled()) await app.locator("#poll-toggle-btn").click()
      await page.waitForFunction(() =>
        (globalThis as unknown as { appState: () => { events: Array<Event> } }).appState().events.some((e) => e.method === "tools/call" && e.outcome === "answered")
      , undefined, { timeout: 20_000 })
      assert.isTrue(polled(), "the App's poll-system-stats reached the server")
      const state = await page.evaluate(() => (globalThis as unknown as { appState: () => { approvals: Array<string> } }).appState())
      assert.include(state.approvals, "poll-system-stats", "a tool not marked read-only was approved first")
      await page.evaluate(() => (globalThis as unknown as { closeApp: () => Promise<number> }).closeApp())
      assert.deepStrictEqual(errors, [])
    } finally {
      await page.close()
    }
  }, 90_000)
})

describe("Chromium: a hostile App with BrowserMcpApps.mount", () => {
  it("is refused a model-only tool, cannot reach an undeclared origin, gets no same origin, and its flood is cut", async () => {
    const { page } = await openPage("page-hostile")
    try {
      const mounted = await page.evaluate(
        ([sandbox, target]) => (globalThis as unknown as { runHostile: (s: string, e: string) => Promise<{ ok: boolean; error?: string }> }).runHostile(sandbox, target),
        [sandboxUrl, evilUrl] as const
      )
      assert.isTrue(mounted.ok, mounted.error)
      await page.waitForFunction(() =>
        (globalThis as unknown as { hostileState: () => { messages: Array<unknown> } }).hostileState().messages.length > 0
      , undefined, { timeout: 20_000 })
      await page.waitForFunction(() =>
        (globalThis as unknown as { hostileState: () => { rejected: Array<{ limit?: string }> } }).hostileState().rejected.some((r) => r.limit === "rate")
      , undefined, { timeout: 20_000 })
      const state = await page.evaluate(() => (globalThis as unknown as { hostileState: () => {
        received: Array<{ method: string; name?: string }>
        messages: Array<Array<{ text: string }>>
        events: Array<Event>
      } }).hostileState())
      const report = JSON.parse(state.messages[0]?.[0]?.text ?? "{}") as {
        origin: string
        storage: string
        top: string
        fetch: string
        secret: { error?: { code: number } }
        visible: { result?: unknown }
      }
      assert.strictEqual(report.origin, "null", "an opaque origin: allow-same-origin was stripped")
      assert.strictEqual(report.storage, "blocked")
      assert.strictEqual(report.top, "blocked")
      assert.strictEqual(report.secret.error?.code, -32000)
      assert.isDefined(report.visible.result)
      assert.strictEqual(report.fetch, "blocked")
      assert.deepStrictEqual(evilSeen, [], "the undeclared origin's server saw nothing")
      const calls = state.received.filter((m) => m.method === "tools/call").map((m) => m.name)
      assert.deepStrictEqual(calls, ["hostile", "visible"], "the refused call was never sent")
      const sandboxFrame = page.frames().find((frame) => frame.url().startsWith(sandboxUrl))
      const innerSandbox = await sandboxFrame?.locator("iframe").getAttribute("sandbox")
      assert.strictEqual(innerSandbox, "allow-scripts")
      const frames = await page.evaluate(() => (globalThis as unknown as { closeHostile: () => Promise<number> }).closeHostile())
      assert.strictEqual(frames, 0)
    } finally {
      await page.close()
    }
  }, 90_000)

  it("a 50 MB resource, a ui:// path trick and a CSP source with ; are refused before any frame", async () => {
    const { page } = await openPage("page-hostile")
    try {
      const tryMount = (tool: string) =>
        page.evaluate(
          ([name, sandbox]) => (globalThis as unknown as { tryMount: (t: string, s: string) => Promise<{ reason: string; message: string; frames: number }> }).tryMount(name, sandbox),
          [tool, sandboxUrl] as const
        )
      const huge = await tryMount("huge")
      assert.strictEqual(huge.reason, "too-large")
      const trick = await tryMount("trick")
      assert.strictEqual(trick.reason, "invalid-uri")
      const csp = await tryMount("badcsp")
      assert.strictEqual(csp.reason, "invalid-csp")
      assert.include(csp.message, "https://api.example.com; script-src *")
      assert.deepStrictEqual([huge.frames, trick.frames, csp.frames], [0, 0, 0])
      const frames = await page.evaluate(
        (sandbox) => (globalThis as unknown as { tryMount: (t: string, s: string, o: unknown) => Promise<{ limit?: string; frames: number }> }).tryMount("hostile", sandbox, { maxFrames: 0 }),
        sandboxUrl
      )
      assert.strictEqual(frames.limit, "frames")
      const sameOrigin = await page.evaluate(
        (sandbox) => (globalThis as unknown as { tryMount: (t: string, s: string) => Promise<{ reason?: string; frames: number }> }).tryMount("hostile", sandbox),
        `${host}apps-sandbox.html`
      )
      assert.strictEqual(sameOrigin.reason, "sandbox", "a sandbox on the page's own origin is refused")
      assert.deepStrictEqual([frames.frames, sameOrigin.frames], [0, 0])
      const reads = await page.evaluate(() => (globalThis as unknown as { hostileState: () => { received: Array<{ method: string; uri?: string }> } }).hostileState().received.filter((m) => m.method === "resources/read").map((m) => m.uri))
      assert.notInclude(reads, "ui://hostile/../../../etc/passwd")
    } finally {
      await page.close()
    }
  }, 90_000)
})

describe("Chromium: an App written with the official App SDK", () => {
  it("gets its input and result, and every host request it makes is answered through the hooks", async () => {
    const { page, errors } = await openPage("page-hostile")
    type SdkState = {
      messages: Array<Array<{ text: string }>>
      links: Array<string>
      contexts: Array<unknown>
      files: Array<{ filename: string; mimeType?: string; text?: string }>
      logs: Array<{ data?: unknown }>
      sizes: Array<{ width?: number; height?: number }>
      events: Array<Event>
      received: Array<{ method: string; name?: string }>
    }
    const stateOf = () => page.evaluate(() => (globalThis as unknown as { hostileState: () => SdkState }).hostileState())
    try {
      const mounted = await page.evaluate(
        (sandbox) => (globalThis as unknown as { runSdk: (s: string) => Promise<{ ok: boolean; error?: string }> }).runSdk(sandbox),
        sandboxUrl
      )
      assert.isTrue(mounted.ok, mounted.error)
      // The App's messages: its report, and one per host context change it was told of.
      /** Waits (in the page) for an App message matching `predicate`, a JavaScript function's source. */
      const until = async (predicate: string) => {
        await page.waitForFunction(
          `globalThis.hostileState().messages.map((m) => JSON.parse(m[0].text)).some(${predicate})`,
          undefined,
          { timeout: 20_000 }
        )
        const found: unknown = await page.evaluate(
          `globalThis.hostileState().messages.map((m) => JSON.parse(m[0].text)).find(${predicate})`
        )
        return (found ?? {}) as Record<string, unknown>
      }
      const report = await until(`(r) => "input" in r`)
      const state = await stateOf()
      assert.deepStrictEqual(report["input"], { city: "Paris" })
      assert.deepStrictEqual((report["result"] as { content?: unknown }).content, [{ type: "text", text: "called sdk" }])
      const hostContext = report["hostContext"] as { theme?: string; locale?: string; toolInfo?: { tool?: { name?: string } } }
      assert.strictEqual(hostContext.theme, "light")
      assert.strictEqual(hostContext.locale, "fr-FR")
      assert.strictEqual(hostContext.toolInfo?.tool?.name, "sdk")
      assert.deepStrictEqual(report["displayMode"], { mode: "fullscreen" })
      assert.strictEqual(report["read"], 1)
      assert.deepStrictEqual((report["call"] as { content?: unknown }).content, [{ type: "text", text: "called visible" }])
      assert.match(String(report["secret"]), /^refused/)
      assert.deepStrictEqual(state.links, ["https://example.com/docs"])
      assert.deepStrictEqual(state.contexts, [{ content: [{ type: "text", text: "ctx" }], structuredContent: { a: 1 } }])
      assert.deepStrictEqual(state.files, [{ filename: "report.csv", mimeType: "text/csv", text: "a,b" }])
      assert.deepStrictEqual(state.logs.map((log) => log.data), ["hello from the app"])
      assert.isTrue(state.sizes.some((size) => size.height === 456))
      const calls = state.received.filter((m) => m.method === "tools/call").map((m) => m.name)
      assert.deepStrictEqual(calls, ["sdk", "visible"], "secret never reached the server")
      assert.includeMembers(
        state.events.map((e) => e.method),
        ["ui/open-link", "ui/update-model-context", "ui/request-display-mode", "ui/download-file", "resources/read", "tools/call", "ui/message"]
      )
      // A change of host context reaches the App (which reports it back).
      await page.evaluate(() => (globalThis as unknown as { sdkHostContext: (c: unknown) => Promise<void> }).sdkHostContext({ theme: "dark" }))
      const changed = await until(`(r) => r.contextChanged?.theme === "dark"`)
      assert.deepStrictEqual(changed["contextChanged"], { theme: "dark" })
      // The container's width follows its element (ResizeObserver).
      await page.locator("#app").evaluate((element) => element.setAttribute("style", "width: 333px"))
      await until(`(r) => r.contextChanged?.containerDimensions?.width === 333`)
      const frames = await page.evaluate(() => (globalThis as unknown as { closeSdk: () => Promise<number> }).closeSdk())
      assert.strictEqual(frames, 0)
      assert.deepStrictEqual(errors, [])
    } finally {
      await page.close()
    }
  }, 90_000)
})

describe("Chromium: two Apps on one page", () => {
  it("neither reports the other's traffic as foreign; an App that navigates its frame away loses it", async () => {
    const { page } = await openPage("page-hostile")
    try {
      const mounted = await page.evaluate(
        (sandbox) => (globalThis as unknown as { runTwo: (s: string) => Promise<{ ok: boolean; error?: string }> }).runTwo(sandbox),
        sandboxUrl
      )
      assert.isTrue(mounted.ok, mounted.error)
      // The SDK App's report arrives: its traffic went through while the other App was mounted.
      await page.waitForFunction(() =>
        (globalThis as unknown as { hostileState: () => { messages: Array<unknown> } }).hostileState().messages.length > 0
      , undefined, { timeout: 20_000 })
      // The wanderer's frame is removed by the sandbox page once it navigated away.
      const sandboxes = page.frames().filter((frame) => frame.url().startsWith(sandboxUrl))
      assert.strictEqual(sandboxes.length, 2)
      await Promise.all(sandboxes.map((frame) => frame.waitForLoadState()))
      const counts = await Promise.all(sandboxes.map((frame) => frame.locator("iframe").count()))
      assert.deepStrictEqual([...counts].sort(), [0, 1])
      const rejected = await page.evaluate(() =>
        (globalThis as unknown as { hostileState: () => { rejected: Array<{ reason: string }> } }).hostileState().rejected
      )
      assert.deepStrictEqual(rejected.filter((r) => r.reason === "foreign"), [])
      await page.evaluate(() => (globalThis as unknown as { closeHostile: () => Promise<number> }).closeHostile())
    } finally {
      await page.close()
    }
  }, 90_000)
})

describe("Chromium: permissions", () => {
  it("only those declared and granted by the hook reach the frames; none without a hook", async () => {
    const { page } = await openPage("page-hostile")
    try {
      const granted = await page.evaluate(
        (sandbox) => (globalThis as unknown as { mountPerms: (s: string, g: unknown) => Promise<{ asked: Array<string>; allow: string | null }> }).mountPerms(sandbox, ["camera", "clipboardWrite"]),
        sandboxUrl
      )
      assert.deepStrictEqual(granted.asked, ["camera", "microphone", "geolocation"])
      assert.strictEqual(granted.allow, "camera", "clipboardWrite was granted but never declared")
      const sandboxFrame = page.frames().find((frame) => frame.url().startsWith(sandboxUrl))
      await sandboxFrame?.locator("iframe").waitFor()
      assert.strictEqual(await sandboxFrame?.locator("iframe").getAttribute("allow"), "camera")
      await page.evaluate(() => (globalThis as unknown as { closeHostile: () => Promise<number> }).closeHostile())
      const none = await page.evaluate(
        (sandbox) => (globalThis as unknown as { mountPerms: (s: string, g: unknown) => Promise<{ asked: Array<string>; allow: string | null }> }).mountPerms(sandbox, null),
        sandboxUrl
      )
      assert.strictEqual(none.allow, null)
      await page.evaluate(() => (globalThis as unknown as { closeHostile: () => Promise<number> }).closeHostile())
    } finally {
      await page.close()
    }
  }, 90_000)
})
