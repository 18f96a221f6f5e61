/**
 * A scripted host of Server Cards and AI Catalogs on 127.0.0.1, for the discovery tests: each path answers what
 * its route says (a JSON document with any status and headers, a redirect, or an endless body), and the host
 * counts the requests each path received and the bytes an endless body got out before the client stopped it.
 */
import { createServer } from "node:http"
import type { IncomingMessage, ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"

/** What one path answers. */
export type CardRoute =
  | {
    readonly kind: "json"
    readonly body: unknown
    readonly status?: number
    /** Sent as they are; `content-type` defaults to the card media type. */
    readonly headers?: Readonly<Record<string, string>>
  }
  | { readonly kind: "text"; readonly body: string; readonly contentType: string; readonly status?: number }
  | { readonly kind: "redirect"; readonly location: string; readonly status?: number }
  /** An endless JSON-looking body (no `content-length`), written as fast as the client reads it. */
  | { readonly kind: "endless"; readonly contentType: string }
  /** A head and the start of a body, then nothing more until the host closes. */
  | { readonly kind: "stall" }

export interface CardHost {
  /** `http://127.0.0.1:PORT`. */
  readonly origin: string
  /** Requests received per path. */
  readonly hits: (path: string) => number
  /** The `accept` header of the last request to `path`. */
  readonly lastAccept: (path: string) => string | undefined
  /** The `if-none-match` header of the last request to `path`. */
  readonly lastIfNoneMatch: (path: string) => string | undefined
  /** Bytes written of an endless body, up to when the client went away. */
  readonly endlessBytes: () => number
  /** Replace or add a route. */
  readonly route: (path: string, route: CardRoute) => void
  readonly close: () => Promise<void>
}

/** The media type cards are served with. */
export const CARD_MEDIA_TYPE = "application/mcp-server-card+json"

/** Where an endless body stops on its own if the client never does (so a broken client cannot hang a test). */
const ENDLESS_CAP = 256 * 1024 * 1024

const CHUNK = new TextEncoder().encode(`{"padding":"${"x".repeat(64 * 1024)}",`)

const writeEndless = (response: ServerResponse, counted: (bytes: number) => void) => {
  let written = 0
  const pump = () => {
    while (!response.destroyed && written < ENDLESS_CAP) {
      written += CHUNK.byteLength
      counted(CHUNK.byteLength)
      if (!response.write(CHUNK)) return void response.once("drain", pump)
    }
    response.end()
  }
  pump()
}

const answer = (
  route: CardRoute,
  request: IncomingMessage,
  response: ServerResponse,
  counted: (bytes: number) => void
) => {
  switch (route.kind) {
    case "json": {
      // A route with an `etag` header honours `If-None-Match`: 304 with the route's headers, no body.
      const etag = route.headers?.["etag"]
      if (etag !== undefined && request.headers["if-none-match"] === etag) {
        response.writeHead(304, { ...route.headers })
        return void response.end()
      }
      response.writeHead(route.status ?? 200, { "content-type": CARD_MEDIA_TYPE, ...route.headers })
      return void response.end(JSON.stringify(route.body))
    }
    case "text": {
      response.writeHead(route.status ?? 200, { "content-type": route.contentType })
      return void response.end(route.body)
    }
    case "redirect": {
      response.writeHead(route.status ?? 302, { location: route.location })
      return void response.end()
    }
    case "endless": {
      response.writeHead(200, { "content-type": route.contentType })
      return writeEndless(response, counted)
    }
    case "stall": {
      response.writeHead(200, { "content-type": CARD_MEDIA_TYPE })
      return void response.write("{")
    }
  }
}

/** Start a host with `routes` (more can be added with `route`); any other path is 404. */
export const startCardHost = (routes: Readonly<Record<string, CardRoute>> = {}): Promise<CardHost> => {
  const table = new Map(Object.entries(routes))
  const hits = new Map<string, number>()
  const accepts = new Map<string, string | undefined>()
  const conditions = new Map<string, string | undefined>()
  let endless = 0
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const path = new URL(request.url ?? "/", "http://host").pathname
    hits.set(path, (hits.get(path) ?? 0) + 1)
    accepts.set(path, request.headers.accept)
    conditions.set(path, request.headers["if-none-match"])
    const route = table.get(path)
    if (route === undefined) {
      response.writeHead(404, { "content-type": "text/plain" })
      return void response.end("not found")
    }
    answer(route, request, response, (bytes) => {
      endless += bytes
    })
  })
  return new Promise((resolve, reject) => {
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const address: AddressInfo | string | null = server.address()
      if (address === null || typeof address === "string") return reject(new Error("the card host has no port"))
      resolve({
        origin: `http://127.0.0.1:${address.port}`,
        hits: (path) => hits.get(path) ?? 0,
        lastAccept: (path) => accepts.get(path),
        lastIfNoneMatch: (path) => conditions.get(path),
        endlessBytes: () => endless,
        route: (path, route) => void table.set(path, route),
        close: () =>
          new Promise<void>((done) => {
            server.closeAllConnections()
            server.close(() => done())
          })
      })
    })
  })
}
