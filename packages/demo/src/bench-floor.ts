/**
 * The floor of the benchmark: hand-written clients with no library at all (`child_process` or `node:http`,
 * `JSON.parse`, a map of ids), speaking just enough MCP for `tools/call echo` in either era. Whatever they
 * cost is what the server and the machine cost; no real client can go below them.
 */
import { spawn } from "node:child_process"
import * as http from "node:http"

const MODERN = "2026-07-28"
const LEGACY = "2025-11-25"
const clientInfo = { name: "mcp-floor", version: "0.0.0" }
const modernMeta = {
  "io.modelcontextprotocol/protocolVersion": MODERN,
  "io.modelcontextprotocol/clientInfo": clientInfo,
  "io.modelcontextprotocol/clientCapabilities": {}
}

export type Era = "modern" | "legacy"

export interface FloorClient {
  readonly request: (method: string, params: Record<string, unknown>) => Promise<unknown>
  readonly close: () => Promise<void>
}

/** Params of a request in this era (modern: the `_meta` envelope). */
const paramsOf = (era: Era, params: Record<string, unknown>) =>
  era === "modern" ? { ...params, _meta: modernMeta } : params

interface Message {
  readonly id?: number
  readonly result?: unknown
  readonly error?: { readonly message: string }
}

export const floorStdio = async (command: string, args: ReadonlyArray<string>, era: Era): Promise<FloorClient> => {
  const child = spawn(command, [...args], { stdio: ["pipe", "pipe", "ignore"] })
  const pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>()
  let nextId = 0
  let buffer = ""
  child.stdout.setEncoding("utf8")
  child.stdout.on("data", (chunk: string) => {
    buffer += chunk
    let newline: number
    while ((newline = buffer.indexOf("\n")) >= 0) {
      const line = buffer.slice(0, newline)
      buffer = buffer.slice(newline + 1)
      if (line === "") continue
      const message = JSON.parse(line) as Message
      const waiting = message.id === undefined ? undefined : pending.get(message.id)
      if (waiting === undefined) continue
      pending.delete(message.id as number)
      if (message.error !== undefined) waiting.reject(new Error(message.error.message))
      else waiting.resolve(message.result)
    }
  })
  const send = (message: object) => child.stdin.write(JSON.stringify(message) + "\n")
  const request = (method: string, params: Record<string, unknown>) =>
    new Promise<unknown>((resolve, reject) => {
      const id = ++nextId
      pending.set(id, { resolve, reject })
      send({ jsonrpc: "2.0", id, method, params: paramsOf(era, params) })
    })
  if (era === "legacy") {
    await request("initialize", { protocolVersion: LEGACY, capabilities: {}, clientInfo })
    send({ jsonrpc: "2.0", method: "notifications/initialized" })
  } else {
    await request("server/discover", {})
  }
  return {
    request,
    close: () =>
      new Promise<void>((resolve) => {
        child.once("exit", () => resolve())
        child.stdin.end()
        setTimeout(() => child.kill("SIGKILL"), 2000).unref()
      })
  }
}

/** The JSON-RPC message of a response body: JSON, or the first SSE `data:` that is a response. */
const messageOf = (type: string, body: string): Message => {
  if (!type.includes("text/event-stream")) return JSON.parse(body) as Message
  for (const line of body.split("\n")) {
    if (!line.startsWith("data:")) continue
    const message = JSON.parse(line.slice(5)) as Message
    if (message.id !== undefined) return message
  }
  throw new Error("no response in the SSE body")
}

type Post = (body: object, headers: Record<string, string>) => Promise<{
  readonly status: number
  readonly type: string
  readonly text: string
  readonly session: string | undefined
}>

/** The floor over `node:http` with a keep-alive agent. */
export const floorHttp = async (url: string, era: Era): Promise<FloorClient> => {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 })
  const post: Post = (body, headers) =>
    new Promise<{ status: number; type: string; text: string; session: string | undefined }>((resolve, reject) => {
      const data = JSON.stringify(body)
      const req = http.request(url, {
        method: "POST",
        agent,
        headers: {
          "content-type": "application/json",
          "accept": "application/json, text/event-stream",
          "content-length": Buffer.byteLength(data),
          ...headers
        }
      }, (res) => {
        let text = ""
        res.setEncoding("utf8")
        res.on("data", (chunk: string) => (text += chunk))
        res.on("end", () => {
          const id = res.headers["mcp-session-id"]
          resolve({ status: res.statusCode ?? 0, type: res.headers["content-type"] ?? "", text, session: typeof id === "string" ? id : undefined })
        })
      })
      req.on("error", reject)
      req.end(data)
    })
  return floorOn(post, era, async () => agent.destroy())
}

/** The floor over `fetch` (what a page, a Worker, Bun or Deno has): the body read whole with `text()`. */
export const floorFetch = async (url: string, era: Era): Promise<FloorClient> => {
  const post: Post = async (body, headers) => {
    const response = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", "accept": "application/json, text/event-stream", ...headers },
      body: JSON.stringify(body)
    })
    const text = await response.text()
    return {
      status: response.status,
      type: response.headers.get("content-type") ?? "",
      text,
      session: response.headers.get("mcp-session-id") ?? undefined
    }
  }
  return floorOn(post, era, async () => {})
}

const floorOn = async (post: Post, era: Era, close: () => Promise<void>): Promise<FloorClient> => {
  let session: string | undefined
  let nextId = 0
  const headersOf = (method: string, params: Record<string, unknown>): Record<string, string> => {
    if (era === "modern") {
      const name = typeof params["name"] === "string" ? { "mcp-name": params["name"] } : {}
      return { "mcp-protocol-version": MODERN, "mcp-method": method, ...name }
    }
    const headers: Record<string, string> = {}
    if (session !== undefined) headers["mcp-session-id"] = session
    if (method !== "initialize") headers["mcp-protocol-version"] = LEGACY
    return headers
  }
  const request = async (method: string, params: Record<string, unknown>) => {
    const response = await post(
      { jsonrpc: "2.0", id: ++nextId, method, params: paramsOf(era, params) },
      headersOf(method, params)
    )
    if (response.session !== undefined) session = response.session
    const message = messageOf(response.type, response.text)
    if (message.error !== undefined) throw new Error(message.error.message)
    return message.result
  }
  if (era === "legacy") {
    await request("initialize", { protocolVersion: LEGACY, capabilities: {}, clientInfo })
    await post({ jsonrpc: "2.0", method: "notifications/initialized" }, headersOf("notifications/initialized", {}))
  } else {
    await request("server/discover", {})
  }
  return { request, close }
}
