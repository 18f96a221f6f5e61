/**
 * MCP Apps, the portable part: the `apps` declaration in both eras, finding and reading a tool's App (against
 * scripted servers and the official `server-basic-vanillajs` over stdio), the sandbox policy, the model's tool
 * list, and the `ui/*` bridge over an in-memory port.
 */
import { LlmBridge, McpApps, McpClient, McpTransport, ToolRegistry } from "@mcp-effect/client"
import { NodeMcpClient } from "@mcp-effect/client/node"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { readFileSync } from "node:fs"
import * as path from "node:path"
import { LEGACY_INITIALIZE, legacyServer, metaOf, modernServer, ok, paramsOf } from "./fixtures/memoryServer.js"
import type { JsonObject } from "./fixtures/memoryServer.js"

const VANILLA = path.resolve(import.meta.dirname, "../../../node_modules/@modelcontextprotocol/server-basic-vanillajs/dist/index.js")
const URI = "ui://demo/app.html"
const HTML = "<!doctype html><html><body>app</body></html>"

const tools = [
  { name: "show", inputSchema: { type: "object" }, _meta: { ui: { resourceUri: URI } } },
  { name: "flat", inputSchema: { type: "object" }, _meta: { "ui/resourceUri": URI } },
  { name: "refresh", inputSchema: { type: "object" }, annotations: { readOnlyHint: true }, _meta: { ui: { visibility: ["app"] } } },
  { name: "secret", inputSchema: { type: "object" }, _meta: { ui: { visibility: ["model"] } } },
  { name: "write", inputSchema: { type: "object" }, _meta: { ui: { visibility: ["app"] } } }
]

const appServer = (read: (params: JsonObject | undefined) => unknown = () => ({
  contents: [{ uri: URI, mimeType: "text/html;profile=mcp-app", text: HTML, _meta: { ui: { prefersBorder: true, domain: "content" } } }]
})) =>
  modernServer({
    "tools/list": () => ok({ resultType: "complete", tools }),
    "tools/call": (params) => ok({ resultType: "complete", content: [{ type: "text", text: `called ${String(params?.["name"])}` }] }),
    "resources/read": (params) => ok({ resultType: "complete", ...(read(params) as JsonObject) }),
    "resources/list": () =>
      ok({ resultType: "complete", resources: [{ uri: URI, name: "app", _meta: { ui: { domain: "listing", csp: { connectDomains: ["https://api.example.com"] } } } }] })
  })

const clientLayer = (transport: Layer.Layer<McpTransport.McpTransport>, options: McpClient.ClientOptions = { apps: true }) =>
  McpClient.layer(options).pipe(Layer.provide(transport))

const toolNamed = (name: string) =>
  Effect.flatMap(McpClient.listTools(), (listed) => Effect.fromNullishOr(listed.find((tool) => tool.name === name)))

describe("apps option", () => {
  it.effect("declares the extension in modern requests' _meta capabilities", () =>
    Effect.gen(function*() {
      const server = appServer()
      yield* McpClient.listTools().pipe(Effect.provide(clientLayer(server.layer)))
      const capabilities = metaOf(server.requests("tools/list")[0])["io.modelcontextprotocol/clientCapabilities"] as JsonObject
      assert.deepStrictEqual((capabilities["extensions"] as JsonObject)[McpApps.EXTENSION_ID], { mimeTypes: [McpApps.MIME_TYPE] })
    }))

  it.effect("declares it in the legacy initialize, with the media types given", () =>
    Effect.gen(function*() {
      const server = legacyServer({ "tools/list": () => ok({ tools: [] }), "initialize": () => ok(LEGACY_INITIALIZE) })
      yield* McpClient.listTools().pipe(Effect.provide(clientLayer(server.layer, { apps: { mimeTypes: ["text/html;profile=mcp-app", "x/y"] } })))
      const capabilities = paramsOf(server.requests("initialize")[0])["capabilities"] as JsonObject
      assert.deepStrictEqual((capabilities["extensions"] as JsonObject)[McpApps.EXTENSION_ID], { mimeTypes: ["text/html;profile=mcp-app", "x/y"] })
    }))

  it.effect("declares nothing without it", () =>
    Effect.gen(function*() {
      const server = appServer()
      yield* McpClient.listTools().pipe(Effect.provide(clientLayer(server.layer, {})))
      const capabilities = metaOf(server.requests("tools/list")[0])["io.modelcontextprotocol/clientCapabilities"] as JsonObject
      assert.isUndefined((capabilities["extensions"] as JsonObject | undefined)?.[McpApps.EXTENSION_ID])
    }))
})

describe("finding and reading an App", () => {
  it.effect("reads the nested and the flat resourceUri, merges _meta.ui with the content item winning", () =>
    Effect.gen(function*() {
      const server = appServer()
      const [nested, flat] = yield* Effect.all([toolNamed("show"), toolNamed("flat")]).pipe(Effect.provide(clientLayer(server.layer)))
      assert.strictEqual(McpApps.resourceUri(nested), URI)
      assert.strictEqual(McpApps.resourceUri(flat), URI)
      const app = yield* McpApps.read(flat).pipe(Effect.provide(clientLayer(server.layer)))
      assert.strictEqual(app.html, HTML)
      assert.strictEqual(app.ui.domain, "content")
      assert.strictEqual(app.ui.prefersBorder, true)
      assert.deepStrictEqual(app.ui.csp, { connectDomains: ["https://api.example.com"] })
    }))

  it("refuses ui:// path tricks and other schemes", () => {
    for (const uri of ["ui://demo/../../etc/passwd", "ui://demo/%2e%2e/x", "ui://demo/a%2fb", "ui://demo\\..\\x", "ui:///x", "https://demo/x", "ui://demo/a b", "ui://../x"]) {
      assert.isString(McpApps.uriProblem(uri), uri)
    }
    assert.isUndefined(McpApps.uriProblem("ui://get-time/mcp-app.html"))
  })

  it.effect("a path trick is refused with nothing sent to the server", () =>
    Effect.gen(function*() {
      const server = appServer()
      const tool = { name: "evil", inputSchema: {}, _meta: { ui: { resourceUri: "ui://demo/../../../etc/passwd" } } }
      const error = yield* Effect.flip(McpApps.read(tool).pipe(Effect.provide(clientLayer(server.layer))))
      assert.strictEqual(error._tag, "McpAppsError")
      assert.strictEqual(error._tag === "McpAppsError" ? error.reason : "", "invalid-uri")
      assert.strictEqual(server.requests("resources/read").length, 0)
    }))

  it.effect("a 50 MB resource is refused (too-large), another media type too", () =>
    Effect.gen(function*() {
      const big = appServer(() => ({ contents: [{ uri: URI, mimeType: "text/html;profile=mcp-app", text: "x".repeat(50 * 1024 * 1024) }] }))
      const tool = tools[0]!
      const tooLarge = yield* Effect.flip(McpApps.read(tool).pipe(Effect.provide(clientLayer(big.layer))))
      assert.include(tooLarge.message, "maxResourceBytes")
      const plain = appServer(() => ({ contents: [{ uri: URI, mimeType: "text/html", text: HTML }] }))
      const wrongType = yield* Effect.flip(McpApps.read(tool).pipe(Effect.provide(clientLayer(plain.layer))))
      assert.include(wrongType.message, "media type")
    }))

  it.effect("a content item of another URI is refused; a base64 blob is read as UTF-8 text", () =>
    Effect.gen(function*() {
      const tool = tools[0]!
      const other = appServer(() => ({ contents: [{ uri: "ui://demo/other.html", mimeType: "text/html;profile=mcp-app", text: HTML }] }))
      const error = yield* Effect.flip(McpApps.read(tool).pipe(Effect.provide(clientLayer(other.layer))))
      assert.include(error.message, "no content of this URI")
      const blob = appServer(() => ({
        contents: [{ uri: URI, mimeType: "text/html; profile=mcp-app", blob: Buffer.from("<p>é</p>").toString("base64") }]
      }))
      const app = yield* McpApps.read(tool).pipe(Effect.provide(clientLayer(blob.layer)))
      assert.strictEqual(app.html, "<p>é</p>")
    }))

  it.effect("the official server-basic-vanillajs over stdio: get-time's App is read", () =>
    Effect.gen(function*() {
      const tool = yield* toolNamed("get-time")
      const app = yield* McpApps.read(tool)
      assert.strictEqual(app.uri, "ui://get-time/mcp-app.html")
      assert.include(app.html, "get-time-btn")
    }).pipe(Effect.provide(NodeMcpClient.layerStdio({ command: process.execPath, args: [VANILLA, "--stdio"], apps: true }))), 60_000)
})

describe("the sandbox's policy", () => {
  it.effect("the restrictive default, declared domains only where declared, a source with ; refused by name", () =>
    Effect.gen(function*() {
      const none = yield* McpApps.contentSecurityPolicy({}, URI)
      assert.include(none, "default-src 'none'")
      assert.include(none, "connect-src 'none'")
      assert.include(none, "frame-src 'none'")
      assert.include(none, "base-uri 'self'")
      const declared = yield* McpApps.contentSecurityPolicy({ csp: { connectDomains: ["https://api.example.com"] } }, URI)
      assert.include(declared, "connect-src https://api.example.com")
      assert.include(declared, "frame-src 'none'")
      const error = yield* Effect.flip(McpApps.contentSecurityPolicy({ csp: { connectDomains: ["https://a.example; script-src *"] } }, URI))
      assert.strictEqual(error.reason, "invalid-csp")
      assert.include(error.message, "https://a.example; script-src *")
      for (const bad of ["'unsafe-eval'", "*", "https:", "a.example<x", "\"x\""]) {
        assert.isTrue(Effect.runSync(Effect.isFailure(McpApps.contentSecurityPolicy({ csp: { resourceDomains: [bad] } }, URI))), bad)
      }
    }))

  it("allow-same-origin is never granted, whatever the server asks", () => {
    assert.strictEqual(McpApps.sandboxAttribute("allow-same-origin allow-forms allow-top-navigation"), "allow-scripts allow-forms")
    assert.strictEqual(McpApps.sandboxAttribute(undefined), "allow-scripts")
  })

  it("download file names are sanitized", () => {
    assert.strictEqual(McpApps.sanitizeFilename("../../etc/passwd"), "passwd")
    assert.strictEqual(McpApps.sanitizeFilename("..\\..\\boot.ini"), "boot.ini")
    assert.strictEqual(McpApps.sanitizeFilename(".bashrc"), "bashrc")
    assert.strictEqual(McpApps.sanitizeFilename("CON"), "download")
    assert.strictEqual(McpApps.sanitizeFilename("a\u0000b:c.txt"), "a_b_c.txt")
    assert.strictEqual(McpApps.sanitizeFilename("invoice\u202Etxt.exe"), "invoicetxt.exe")
  })

  it("the shipped sandbox page is the string", () => {
    const file = readFileSync(path.join(import.meta.dirname, "../apps-sandbox.html"), "utf8")
    assert.strictEqual(file, McpApps.sandboxHtml)
  })
})

describe("the model's tool list", () => {
  it.effect("an app-only tool is never offered to a model, nor callable by one", () =>
    Effect.gen(function*() {
      const server = appServer()
      yield* Effect.gen(function*() {
        const bridge = yield* LlmBridge.make()
        const names = (yield* bridge.toolsForLlm()).map((tool) => tool.function.name)
        assert.deepStrictEqual([...names].sort(), ["flat", "secret", "show"])
        const [result] = yield* bridge.executeToolCalls([{ id: "1", type: "function", function: { name: "write", arguments: "{}" } }])
        assert.strictEqual(result?.is_error, true)
        assert.strictEqual(server.requests("tools/call").length, 0)
      }).pipe(Effect.provide(clientLayer(server.layer)))
    }))
})

describe("the registry's tool list", () => {
  it.effect("an app-only tool of a registered client is not offered", () =>
    Effect.gen(function*() {
      const server = appServer()
      yield* Effect.gen(function*() {
        const registry = yield* ToolRegistry.make()
        yield* registry.register("demo", LlmBridge.clientSource(yield* McpClient.McpClient))
        const names = (yield* registry.toolsForLlm()).map((tool) => tool.function.name)
        assert.deepStrictEqual([...names].sort(), ["demo__flat", "demo__secret", "demo__show"])
      }).pipe(Effect.provide(clientLayer(server.layer)))
    }))
})
