/**
 * The inspector's local server: the page, the targets of the command line, the stdio relay and the HTTP
 * relay, every request through the guard first (`guard.ts`). It listens for as long as its scope lives;
 * closing the scope stops every server process it started and closes the socket.
 */
import { McpApps } from "@mcp-effect/client"
import type { McpConfig } from "@mcp-effect/client/node"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Scope from "effect/Scope"
import { randomUUID } from "node:crypto"
import { gzipSync } from "node:zlib"
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import { splitCommand } from "../session/shell.js"
import { allowedHosts, check } from "./guard.js"
import { forward, type HttpTarget, targetOf } from "./httpRelay.js"
import * as StdioRelay from "./stdioRelay.js"

/** The page: its HTML and its script, bundled into the CLI at build time. */
export interface PageAssets {
  readonly html: string
  readonly script: string
}

export interface ServerOptions {
  readonly host: string
  readonly port: number
  readonly token: string
  readonly entries: ReadonlyArray<McpConfig.ServerEntry>
  readonly page: PageAssets
}

/** What the page is told of a target: never an entry's environment, headers or secrets. */
export interface TargetInfo {
  readonly id: string
  readonly name: string
  readonly kind: "stdio" | "http"
  readonly label: string
  readonly url?: string | undefined
  /** An HTTP target with headers of its own: reached through the relay only (the page is not given them). */
  readonly relayOnly?: boolean | undefined
}

const MAX_BODY_BYTES = 16 * 1024 * 1024
/** What may wait to be read by a page's event stream before it is cut off (and its server stopped). */
const MAX_UNREAD_BYTES = 32 * 1024 * 1024

const CSP = [
  "default-src 'self'",
  // No 'unsafe-eval': the client checks `structuredContent` against a tool's `outputSchema` without compiling code.
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob: http: https:",
  "media-src 'self' data: blob: http: https:",
  "connect-src 'self' http: https:",
  "frame-src 'self' blob: http: https:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'"
].join("; ")

const send = (response: ServerResponse, status: number, body: string, type = "application/json") => {
  response.writeHead(status, { "content-type": type, "cache-control": "no-store", "x-content-type-options": "nosniff" })
  response.end(body)
}

const json = (response: ServerResponse, status: number, value: unknown) => send(response, status, JSON.stringify(value))

/** A request's body as JSON, at most `MAX_BODY_BYTES`. */
const readJson = (request: IncomingMessage): Promise<unknown> =>
  new Promise((resolve, reject) => {
    const chunks: Array<Buffer> = []
    let size = 0
    request.on("data", (chunk: Buffer) => {
      size += chunk.length
      if (size > MAX_BODY_BYTES) {
        reject(new Error("body too large"))
        request.destroy()
      } else chunks.push(chunk)
    })
    request.on("end", () => {
      try {
        resolve(JSON.parse(Buffer.concat(chunks).toString("utf8")))
      } catch {
        reject(new Error("the body is not JSON"))
      }
    })
    request.on("error", reject)
  })

export const targetsOf = (entries: ReadonlyArray<McpConfig.ServerEntry>): ReadonlyArray<TargetInfo> =>
  entries.map((entry, index) =>
    entry.transport === "stdio"
      ? { id: String(index), name: entry.name, kind: "stdio", label: entry.description ?? [entry.command, ...entry.args].join(" ") }
      : {
        id: String(index),
        name: entry.name,
        kind: "http",
        label: entry.url,
        url: entry.url,
        relayOnly: Object.keys(entry.headers ?? {}).length > 0
      }
  )

/** The stdio entry a `POST /api/stdio` asks for: a target's id, or a command line typed in the page. */
const stdioEntryOf = (
  body: unknown,
  entries: ReadonlyArray<McpConfig.ServerEntry>
): McpConfig.StdioEntry | string => {
  if (typeof body !== "object" || body === null) return "expected { target } or { command }"
  if ("target" in body && typeof body.target === "string") {
    const entry = entries[Number(body.target)]
    return entry?.transport === "stdio" ? entry : "no such stdio target"
  }
  if ("command" in body && typeof body.command === "string") {
    const words = splitCommand(body.command)
    if (typeof words === "string") return words
    const [command, ...args] = words
    if (command === undefined) return "an empty command"
    return { name: "stdio", transport: "stdio", command, args, env: undefined, cwd: undefined, raw: {} }
  }
  return "expected { target } or { command }"
}

/**
 * The MCP Apps sandbox page (`McpApps.sandboxHtml`), served by a listener of its own: another port is another
 * origin, which the spec requires of the sandbox. Only that page, only under its own names, framed only by the
 * inspector's page; it carries no secret and spawns nothing.
 */
const sandboxRoute = (inspectorOrigins: () => ReadonlyArray<string>, hosts: () => ReadonlySet<string>) =>
  (request: IncomingMessage, response: ServerResponse) => {
    const host = request.headers.host?.toLowerCase()
    if (host === undefined || !hosts().has(host)) return json(response, 403, { error: "this sandbox does not answer to that Host" })
    // The host adds `?host=<its origin>` to the page's URL.
    const path = (request.url ?? "").split("?")[0]
    if (request.method !== "GET" || path !== "/apps-sandbox.html") return json(response, 404, { error: "not found" })
    // A bracketed IPv6 literal is not a valid frame-ancestors source (the browser drops it with an error).
    const ancestors = inspectorOrigins().filter((origin) => !origin.includes("["))
    response.setHeader("content-security-policy", `frame-ancestors ${ancestors.join(" ")}`)
    return send(response, 200, McpApps.sandboxHtml, "text/html; charset=utf-8")
  }

/** Start listening; resolves with the port. */
const listen = (server: Server, host: string, port: number): Effect.Effect<number, Error> =>
  Effect.callback<number, Error>((resume) => {
    server.once("error", (error) => resume(Effect.fail(error)))
    server.listen(port, host, () => {
      const address = server.address()
      resume(Effect.succeed(typeof address === "object" && address !== null ? address.port : port))
    })
  })

/** Where the inspector listens: its page's port, and the Apps sandbox's (another origin). */
export interface Listening {
  readonly port: number
  readonly sandboxPort: number
}

const listener = (server: Server, host: string, port: number) =>
  Effect.acquireRelease(listen(server, host, port), () =>
    Effect.callback<void>((resume) => {
      server.close(() => resume(Effect.void))
      server.closeAllConnections()
    }))

/**
 * Serve the inspector until the scope closes. Resolves with the ports it listens on (`options.port`, or a free
 * one for 0; the sandbox on a free one).
 */
export const serve = (
  options: ServerOptions
): Effect.Effect<Listening, Error, Scope.Scope> =>
  Effect.gen(function*() {
    const services = yield* Effect.context<Scope.Scope>()
    const run = Effect.runForkWith(services)
    const sessions = new Map<string, StdioRelay.StdioSession>()
    const httpTargets = new Map<string, HttpTarget>()
    options.entries.forEach((entry, index) => {
      if (entry.transport === "http") httpTargets.set(String(index), { url: entry.url, headers: entry.headers })
    })
    const targets = targetsOf(options.entries)
    let hosts: ReadonlySet<string> = new Set()
    let gzipped: Buffer | undefined
    let sandboxHosts: ReadonlySet<string> = new Set()
    let sandboxHost = ""

    const openSession = (request: IncomingMessage, response: ServerResponse) =>
      readJson(request).then((body) => {
        const entry = stdioEntryOf(body, options.entries)
        if (typeof entry === "string") return json(response, 400, { error: entry })
        const id = randomUUID()
        run(StdioRelay.open(id, entry)).addObserver((exit) => {
          if (exit._tag === "Success") {
            sessions.set(id, exit.value)
            json(response, 201, { session: id })
          } else {
            // The transport's own words (a server's secrets already kept out of them).
            const reason = Option.getOrElse(Cause.findErrorOption(exit.cause), () => "interrupted")
            json(response, 502, { error: `the server could not be started: ${reason}` })
          }
        })
      }, (error: Error) => json(response, 400, { error: error.message }))

    const sessionRoute = (request: IncomingMessage, response: ServerResponse, id: string, action: string) => {
      const session = sessions.get(id)
      if (session === undefined) return json(response, 404, { error: "no such session" })
      if (request.method === "GET" && action === "events") {
        response.writeHead(200, { "content-type": "application/x-ndjson", "cache-control": "no-store" })
        response.flushHeaders()
        // The page left (closed, reloaded): its server goes with it.
        response.on("close", () => {
          sessions.delete(id)
          run(session.close)
        })
        return session.attach({
          write: (line) => {
            // A page that stops reading while its server keeps talking is cut off, not buffered without end.
            if (response.writableLength > MAX_UNREAD_BYTES) return void response.destroy()
            response.write(line)
          },
          end: () => response.end()
        })
      }
      if (request.method === "POST" && action === "send") {
        return readJson(request).then((message) => {
          if (!StdioRelay.isOutbound(message)) return json(response, 400, { error: "not a JSON-RPC message" })
          run(session.send(message)).addObserver((exit) =>
            exit._tag === "Success" ? send(response, 202, "") : json(response, 502, { error: "the server is gone" })
          )
        }, (error: Error) => json(response, 400, { error: error.message }))
      }
      if (request.method === "DELETE" && action === "") {
        sessions.delete(id)
        return run(session.close).addObserver(() => send(response, 204, ""))
      }
      return json(response, 405, { error: "method not allowed" })
    }

    const route = (request: IncomingMessage, response: ServerResponse) => {
      const verdict = check({ url: request.url ?? "/", headers: request.headers }, options.token, hosts)
      if (!verdict.ok) return json(response, verdict.status, { error: verdict.reason })
      const path = (request.url ?? "/").split("?")[0] ?? "/"
      // `/oauth/callback`: the sign-in window's redirect page (the same page, which hands the answer back).
      if (request.method === "GET" && (path === "/" || path === "/index.html" || path === "/oauth/callback")) {
        response.setHeader("content-security-policy", CSP)
        response.setHeader("referrer-policy", "no-referrer")
        return send(response, 200, options.page.html, "text/html; charset=utf-8")
      }
      if (request.method === "GET" && path === "/inspector.js") {
        if (!/\bgzip\b/.test(request.headers["accept-encoding"] ?? "")) {
          return send(response, 200, options.page.script, "text/javascript; charset=utf-8")
        }
        // Compressed once, on the first request (about a third of the size).
        gzipped ??= gzipSync(options.page.script)
        response.writeHead(200, {
          "content-type": "text/javascript; charset=utf-8",
          "content-encoding": "gzip",
          "cache-control": "no-store",
          "x-content-type-options": "nosniff"
        })
        return response.end(gzipped)
      }
      if (request.method === "GET" && path === "/api/targets") {
        return json(response, 200, { targets, sandboxUrl: `http://${sandboxHost}/apps-sandbox.html` })
      }
      if (request.method === "POST" && path === "/api/stdio") return void openSession(request, response)
      const session = /^\/api\/stdio\/([0-9a-f-]{36})(?:\/(events|send))?$/.exec(path)
      if (session !== null) return void sessionRoute(request, response, session[1] ?? "", session[2] ?? "")
      if (path === "/api/http") {
        const target = targetOf(request, httpTargets)
        if (target === undefined) return json(response, 400, { error: "no such target" })
        return forward(request, response, target)
      }
      return json(response, 404, { error: "not found" })
    }

    const server = createServer((request, response) => route(request, response))
    const sandbox = createServer(sandboxRoute(() => [...hosts].map((h) => `http://${h}`), () => sandboxHosts))
    // Every relayed server is stopped when the inspector stops (each also lives in a scope of this one).
    yield* Effect.addFinalizer(() =>
      Effect.forEach([...sessions.values()], (session) => session.close, { concurrency: "unbounded", discard: true }).pipe(
        Effect.andThen(Effect.sync(() => sessions.clear()))
      )
    )
    const port = yield* listener(server, options.host, options.port)
    const sandboxPort = yield* listener(sandbox, options.host, 0)
    hosts = allowedHosts(options.host, port)
    sandboxHosts = allowedHosts(options.host, sandboxPort)
    sandboxHost = `${options.host.includes(":") && !options.host.startsWith("[") ? `[${options.host}]` : options.host}:${sandboxPort}`
    return { port, sandboxPort }
  })
