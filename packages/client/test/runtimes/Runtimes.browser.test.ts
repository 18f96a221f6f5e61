/**
 * The packed client in headless Chromium (Debian's `chromium-headless-shell`, driven by `playwright-core`):
 * a page bundled with esbuild for the browser (no externals) from the installed tarball, served by the
 * same-origin page host, which forwards `/modern/mcp` and `/legacy/mcp` to the official demo server (one per
 * era). Two pages: the Promise API's `connectHttp` and the Effect API on the browser's `fetch`. OAuth in the
 * browser is another suite's.
 */
import { build } from "esbuild"
import { writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import * as path from "node:path"
import { chromium } from "playwright-core"
import type { Browser } from "playwright-core"
import { afterAll, beforeAll, describe } from "vitest"
import { capabilityTests } from "./fixtures/capabilities.js"
import { officialHttp, once, packedProject, startListening } from "./fixtures/project.js"
import type { Era, PackedProject, Report, RunningServer, ScriptRun } from "./fixtures/project.js"

const require = createRequire(import.meta.url)
const pageHost = require.resolve("@mcp-effect/test-servers/page-host")

/** Debian's headless shell (`apt-get install chromium-headless-shell`; `.ci/run` installs it). */
const CHROMIUM = process.env["MCP_EFFECT_CHROMIUM"] ?? "/usr/bin/chromium-headless-shell"

const pages = { "Promise connectHttp": "page-promise", "Effect API, fetch": "page-effect" } as const
type PageName = keyof typeof pages

let project: PackedProject | undefined
let browser: Browser | undefined
const servers: Array<RunningServer> = []
let host = ""
/** Each page's bundling error, when esbuild refused it. */
const bundleErrors = new Map<PageName, string>()

/** Bundles a page for the browser from the packed project; an error is kept for that page's tests. */
const bundlePage = async (dir: string, name: PageName) => {
  const entry = pages[name]
  writeFileSync(
    path.join(dir, `${entry}.html`),
    `<!doctype html><meta charset="utf-8"><title>${entry}</title><script type="module" src="./${entry}.js"></script>\n`
  )
  await build({
    absWorkingDir: dir,
    entryPoints: [`./${entry}.mjs`],
    outfile: path.join(dir, `${entry}.js`),
    bundle: true,
    platform: "browser",
    format: "esm",
    logLevel: "silent"
  }).catch((error: unknown) => {
    bundleErrors.set(name, error instanceof Error ? error.message.slice(0, 2000) : String(error))
  })
}

beforeAll(async () => {
  const installed = packedProject()
  project = installed
  await Promise.all(Object.keys(pages).map((name) => bundlePage(installed.dir, name as PageName)))
  const [modern, legacy] = await Promise.all([officialHttp("modern"), officialHttp("legacy")])
  servers.push(modern, legacy)
  const hosted = await startListening(pageHost, [
    "--root",
    installed.dir,
    "--upstream",
    `modern=${modern.url}`,
    "--upstream",
    `legacy=${legacy.url}`
  ])
  servers.push(hosted)
  host = hosted.url
  browser = await chromium.launch({ executablePath: CHROMIUM })
}, 240_000)

afterAll(async () => {
  await browser?.close()
  await Promise.all(servers.map((server) => server.stop()))
  project?.remove()
})

/** Opens the page, runs the scenario against one era, and reports it like a runtime script does. */
const runPage = async (name: PageName, era: Era): Promise<ScriptRun> => {
  const bundleError = bundleErrors.get(name)
  if (bundleError !== undefined) return { code: null, stderr: `esbuild: ${bundleError}`, report: undefined }
  if (browser === undefined) throw new Error("no browser")
  const page = await browser.newPage()
  const errors: Array<string> = []
  page.on("pageerror", (error) => errors.push(error.message))
  page.on("console", (message) => {
    if (message.type() === "error") errors.push(message.text())
  })
  try {
    await page.goto(`${host}${pages[name]}.html`)
    await page.waitForFunction(() => "runScenario" in globalThis, undefined, { timeout: 10_000 })
    const report = await page.evaluate(
      (selected) => (globalThis as unknown as { runScenario: (era: string) => Promise<Report> }).runScenario(selected),
      era
    )
    return { code: 0, stderr: errors.join("\n"), report }
  } catch (error) {
    return { code: null, stderr: [String(error), ...errors].join("\n"), report: undefined }
  } finally {
    await page.close()
  }
}

const eras: ReadonlyArray<Era> = ["modern", "legacy"]

for (const api of Object.keys(pages) as Array<PageName>) {
  for (const era of eras) {
    describe(`Chromium × ${era} × ${api}`, () => {
      const run = once(() => runPage(api, era))

      capabilityTests({
        runtime: "Chromium",
        era,
        api,
        run,
        cancelledBy: api === "Promise connectHttp" ? "reason" : "interruption",
        timeout: 60_000
      })
    })
  }
}
