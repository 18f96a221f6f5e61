/**
 * Page weight of hosting an MCP App (issue 35): a page that renders the App of the official
 * `server-basic-vanillajs` (its `get-time` tool) with our `mountApp`, beside the same page written with the
 * official client and `@modelcontextprotocol/ext-apps`' `AppBridge`. Each page is built with Vite 8, esbuild,
 * webpack 5 and rspack as in `bench-bundlers.ts` and run in real Chromium (Debian's headless shell): the page's
 * origin serves the build, a second origin the package's `apps-sandbox.html` (both pages use it: it speaks the
 * spec's sandbox-proxy messages). The weight is what the page fetched from its own origin (gzip -9 per file) by
 * the first render: the App's frame shows the tool's result.
 *
 *   node bench-apps.js <folder inside the workspace>
 *
 * prints one JSON line (`ReadonlyArray<BundledPage>`). `MCP_EFFECT_CHROMIUM` names another Chromium.
 */
import { spawn } from "node:child_process"
import { existsSync, readFileSync, writeFileSync, mkdirSync } from "node:fs"
import { createServer } from "node:http"
import type { Server } from "node:http"
import { createRequire } from "node:module"
import type { AddressInfo } from "node:net"
import { join, normalize, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import { chromium } from "playwright-core"
import { type BundledPage, type Bundler, BUNDLERS, buildWith, gzipOf } from "./bench-build.js"

const require = createRequire(import.meta.url)
const CHROMIUM = process.env["MCP_EFFECT_CHROMIUM"] ?? "/usr/bin/chromium-headless-shell"
const SERVER_URL = "http://127.0.0.1:3001/mcp"
const SANDBOX_URL = "http://127.0.0.1:3002/apps-sandbox.html"
const RENDER_TIMEOUT_MS = 60_000

/** The two pages, in the shape each library's documentation shows; the URLs are placeholders. */
export const APP_PAGES: ReadonlyArray<{ readonly name: string; readonly what: string; readonly source: string }> = [
  {
    name: "ours-app",
    what: "connectHttp + mountApp",
    source: `import { connectHttp, mountApp } from "@mcp-effect/client"

const client = await connectHttp({ url: "${SERVER_URL}", clientName: "page", apps: true })
const app = await mountApp(document.getElementById("app"), { client, tool: "get-time", sandboxUrl: "${SANDBOX_URL}" })
await app.result
`
  },
  {
    name: "official-app",
    what: "Client + StreamableHTTPClientTransport + AppBridge",
    source: `import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client"
import { AppBridge, PostMessageTransport, getToolUiResourceUri } from "@modelcontextprotocol/ext-apps/app-bridge"

const client = new Client({ name: "page", version: "0.0.0" })
await client.connect(new StreamableHTTPClientTransport(new URL("${SERVER_URL}")))
const { tools } = await client.listTools()
const tool = tools.find((t) => t.name === "get-time")
const { contents } = await client.readResource({ uri: getToolUiResourceUri(tool) })
const bridge = new AppBridge(client, { name: "page", version: "0.0.0" }, { openLinks: {}, serverTools: {} })
bridge.onsandboxready = () => bridge.sendSandboxResourceReady({ html: contents[0].text })
bridge.oninitialized = async () => {
  await bridge.sendToolInput({ arguments: {} })
  await bridge.sendToolResult(await client.callTool({ name: "get-time", arguments: {} }))
}
const frame = document.createElement("iframe")
frame.src = "${SANDBOX_URL}?host=" + encodeURIComponent(location.origin)
document.getElementById("app").appendChild(frame)
await bridge.connect(new PostMessageTransport(frame.contentWindow, frame.contentWindow))
`
  }
]

const TYPES: Readonly<Record<string, string>> = { ".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8" }

/** A static server of `root` on a free 127.0.0.1 port; every path it served, as asked. */
const serveStatic = async (root: string): Promise<{ readonly server: Server; readonly origin: string; readonly served: Array<string> }> => {
  const served: Array<string> = []
  const server = createServer((req, res) => {
    const path = normalize(join(root, decodeURIComponent(new URL(req.url ?? "/", "http://x").pathname)))
    if (!path.startsWith(root) || !existsSync(path)) return void res.writeHead(404).end()
    served.push(path)
    res.writeHead(200, { "content-type": TYPES[path.slice(path.lastIndexOf("."))] ?? "application/octet-stream" })
    res.end(readFileSync(path))
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, served }
}

const freePort = async (): Promise<number> => {
  const probe = createServer()
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve))
  const port = (probe.address() as AddressInfo).port
  await new Promise<void>((resolve) => probe.close(() => resolve()))
  return port
}

/** The official `server-basic-vanillajs` over Streamable HTTP (CORS open), on a free port. */
const startVanilla = async (): Promise<{ readonly url: string; readonly stop: () => void }> => {
  const port = await freePort()
  const script = join(require.resolve("@modelcontextprotocol/server-basic-vanillajs"), "..", "index.js")
  const child = spawn(process.execPath, [script], { env: { ...process.env, PORT: String(port) }, stdio: ["ignore", "pipe", "inherit"] })
  await new Promise<void>((resolve, reject) => {
    child.stdout.setEncoding("utf8")
    child.stdout.on("data", (chunk: string) => chunk.includes("listening") && resolve())
    child.once("exit", (code) => reject(new Error(`server-basic-vanillajs exited (${code})`)))
  })
  return { url: `http://127.0.0.1:${port}/mcp`, stop: () => void child.kill("SIGTERM") }
}

/** Both pages with every bundler, each run in Chromium until its App shows the result. */
export const appWeights = async (folder: string): Promise<ReadonlyArray<BundledPage>> => {
  const dir = resolve(folder)
  mkdirSync(dir, { recursive: true })
  const root = join(dir, "out-apps")
  const vanilla = await startVanilla()
  const sandbox = await serveStatic(join(require.resolve("@mcp-effect/client/apps-sandbox.html"), ".."))
  const host = await serveStatic(root)
  const browser = await chromium.launch({ executablePath: CHROMIUM })
  const weights: Array<BundledPage> = []
  try {
    for (const page of APP_PAGES) {
      const entry = `apps-${page.name}.js`
      const source = page.source.replaceAll(SERVER_URL, vanilla.url).replaceAll(SANDBOX_URL, `${sandbox.origin}/apps-sandbox.html`)
      writeFileSync(join(dir, entry), source)
      for (const bundler of BUNDLERS) weights.push(await weighApp(dir, root, entry, page.name, bundler, host, browser))
    }
  } finally {
    await browser.close()
    host.server.close()
    sandbox.server.close()
    vanilla.stop()
  }
  return weights
}

const weighApp = async (
  dir: string,
  root: string,
  entry: string,
  name: string,
  bundler: Bundler,
  host: Awaited<ReturnType<typeof serveStatic>>,
  browser: Awaited<ReturnType<typeof chromium.launch>>
): Promise<BundledPage> => {
  const outdir = join(root, bundler, name)
  const context = await browser.newContext()
  try {
    await buildWith(bundler, dir, entry, outdir)
    writeFileSync(
      join(outdir, "index.html"),
      `<!doctype html><meta charset="utf-8"><div id="app"></div><script type="module" src="./${entry.replace(/\.js$/, "")}.js"></script>\n`
    )
    host.served.length = 0
    const tab = await context.newPage()
    const errors: Array<string> = []
    tab.on("pageerror", (error) => errors.push(error.message))
    await tab.goto(`${host.origin}/${bundler}/${name}/index.html`)
    // The first render: the App (in the sandbox's inner frame) shows the time the tool answered.
    await tab.frameLocator("#app iframe").frameLocator("iframe").locator("#server-time")
      .filter({ hasText: /\d/ }).waitFor({ timeout: RENDER_TIMEOUT_MS })
      .catch((error: unknown) => {
        throw new Error(`${errors.join(" | ")} ${error instanceof Error ? error.message.split("\n")[0] : ""}`)
      })
    const files = [...new Set(host.served)].filter((path) => path.endsWith(".js"))
    return { page: name, bundler, loadedGzip: files.reduce((total, path) => total + gzipOf(path), 0), loadedFiles: files.length }
  } catch (error) {
    return { page: name, bundler, error: (error instanceof Error ? error.message : String(error)).slice(0, 400) }
  } finally {
    await context.close()
  }
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const dir = process.argv[2]
  if (dir === undefined) throw new Error("usage: bench-apps.js <folder>")
  process.stdout.write(`${JSON.stringify(await appWeights(dir))}\n`)
  process.exit(0)
}
