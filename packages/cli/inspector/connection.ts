/**
 * One server in the page: a client of `@mcp-effect/client` (its Promise face) over a transport that records
 * every JSON-RPC message both ways for the Protocol view.
 *
 * - Streamable HTTP: straight from the page (`McpTransport.layerHttp` on the browser's `fetch`); when the
 *   server's CORS refuses the page, again through the inspector's HTTP relay, and the page says so.
 * - stdio: through the inspector's stdio relay, as a custom message channel (`McpTransport.layerMemory`: the
 *   relay's event stream feeds the client, each message the client writes is posted to the relay).
 *
 * Elicitation and sampling requests wait in `pending` until the person answers them in the page.
 */
import { McpAuth, McpClient, McpPromise, McpTransport } from "@mcp-effect/client"
import type { EraResolver, InputFulfiller, McpPinning, PromiseClient } from "@mcp-effect/client"
import * as Effect from "effect/Effect"
import * as FetchHttpClient from "effect/http/FetchHttpClient"
import * as Layer from "effect/Layer"
import { token, type Target } from "./api.js"
import { authOptions } from "./signIn.js"
import { stdioChannel } from "./stdioChannel.js"
import { changed } from "./store.js"

export type Status = "connecting" | "connected" | "error"

/** One JSON-RPC message as the Protocol view shows it. */
export interface Message {
  readonly seq: number
  readonly direction: "in" | "out"
  readonly at: number
  readonly message: unknown
  readonly method: string | undefined
  readonly id: string | number | undefined
}

export interface LogEntry {
  readonly at: number
  readonly level: string
  readonly logger: string | undefined
  readonly data: unknown
}

/** A request of the server waiting for the person: an elicitation (form or URL) or a sampling request. */
export type Pending =
  | {
    readonly kind: "elicitation"
    readonly seq: number
    readonly params: InputFulfiller.ElicitParams
    readonly answer: (result: InputFulfiller.ElicitResult) => void
  }
  | {
    readonly kind: "sign-in"
    readonly seq: number
    readonly url: URL
    /** Opens the authorization page (from the person's click: a sign-in window needs one). */
    readonly open: () => void
    readonly cancel: () => void
  }
  | {
    readonly kind: "pin"
    readonly seq: number
    readonly change: McpPinning.ToolChange
    readonly answer: (decision: McpPinning.Decision) => void
  }
  | {
    readonly kind: "sampling"
    readonly seq: number
    readonly params: InputFulfiller.CreateMessageParams
    readonly answer: (result: InputFulfiller.CreateMessageResult | undefined) => void
  }

export interface Progress {
  readonly progress: number
  readonly total?: number | undefined
  readonly message?: string | undefined
}

/** A task the client follows, with each status it went through. */
export interface TaskEntry {
  readonly taskId: string
  readonly method: string
  readonly statuses: Array<{ readonly at: number; readonly status: string; readonly message: string | undefined }>
}

export interface Server {
  readonly key: number
  readonly label: string
  readonly kind: "stdio" | "http"
  status: Status
  error: string | undefined
  /** "relay" when an HTTP server is reached through the inspector (its CORS refused the page). */
  via: "direct" | "relay" | undefined
  note: string | undefined
  info: EraResolver.EraInfo | undefined
  client: PromiseClient | undefined
  readonly messages: Array<Message>
  readonly logs: Array<LogEntry>
  pending: Array<Pending>
  readonly tasks: Array<TaskEntry>
  /** The progress of the calls in flight (the latest report). */
  progress: Progress | undefined
}

/** The longest a list of messages or logs grows; the oldest go first. */
const MAX_KEPT = 5000
let seq = 0

const push = <A>(list: Array<A>, item: A) => {
  list.push(item)
  if (list.length > MAX_KEPT) list.splice(0, list.length - MAX_KEPT)
}

const describe = (message: unknown): { method: string | undefined; id: string | number | undefined } => {
  if (typeof message !== "object" || message === null) return { method: undefined, id: undefined }
  const record = message as Record<string, unknown>
  const id = record["id"]
  return {
    method: typeof record["method"] === "string" ? record["method"] : undefined,
    id: typeof id === "string" || typeof id === "number" ? id : undefined
  }
}

const record = (server: Server, direction: "in" | "out", message: unknown) => {
  push(server.messages, { seq: ++seq, direction, at: performance.now(), message, ...describe(message) })
  changed()
}

/** The transport with every message recorded. */
const tapped = (server: Server) =>
  Layer.effect(
    McpTransport.McpTransport,
    Effect.map(Effect.service(McpTransport.McpTransport), (inner): McpTransport.Service => ({
      ...inner,
      connect: Effect.map(inner.connect, (connection): McpTransport.Connection => ({
        ...connection,
        send: (message, context, scope) => {
          record(server, "out", message)
          return connection.send(message, context, scope)
        },
        receive: (receiver) =>
          connection.receive({
            ...receiver,
            message: (message, meta) => {
              record(server, "in", message)
              receiver.message(message, meta)
            }
          })
      }))
    }))
  )

/** The client's options: hooks that put the server's requests in front of the person, progress, logs. */
const clientOptions = (server: Server): McpClient.ClientOptions => ({
  clientName: "mcp-effect-inspector",
  apps: true,
  logLevel: "debug",
  requestTimeout: "10 minutes",
  resetTimeoutOnProgress: true,
  elicitationModes: ["form", "url"],
  onElicit: (request) =>
    new Promise((resolve) => {
      const item: Pending = { kind: "elicitation", seq: ++seq, params: request.params, answer: (result) => {
        server.pending = server.pending.filter((p) => p !== item)
        changed()
        resolve(result)
      } }
      server.pending = [...server.pending, item]
      changed()
    }),
  onSample: (request) =>
    new Promise((resolve, reject) => {
      const item: Pending = { kind: "sampling", seq: ++seq, params: request.params, answer: (result) => {
        server.pending = server.pending.filter((p) => p !== item)
        changed()
        return result === undefined ? reject(new Error("rejected in the inspector")) : resolve(result)
      } }
      server.pending = [...server.pending, item]
      changed()
    }),
  onProgress: (report) => {
    server.progress = report
    changed()
  },
  skills: true,
  // Pinned for the page's life under a scope the server cannot choose (what it was started as, or its URL); a
  // tool whose definition changes is put in front of the person, who approves it or keeps it quarantined.
  pinning: {
    scope: `inspector:${server.label}`,
    onChanged: (change) =>
      new Promise<McpPinning.Decision>((resolve) => {
        const item: Pending = { kind: "pin", seq: ++seq, change, answer: (decision) => {
          server.pending = server.pending.filter((p) => p !== item)
          changed()
          resolve(decision)
        } }
        server.pending = [...server.pending, item]
        changed()
      })
  },
  onTaskCreated: (task) =>
    Effect.sync(() => {
      push(server.tasks, { taskId: task.taskId, method: task.method, statuses: [] })
      changed()
    }),
  onTaskStatus: (status) =>
    Effect.sync(() => {
      const entry = server.tasks.find((t) => t.taskId === status.taskId)
      const item = { at: Date.now(), status: status.status, message: status.statusMessage }
      if (entry === undefined) push(server.tasks, { taskId: status.taskId, method: "", statuses: [item] })
      else if (entry.statuses.at(-1)?.status !== item.status || entry.statuses.at(-1)?.message !== item.message) {
        entry.statuses.push(item)
      }
      changed()
    }),
  onLog: (message) => {
    push(server.logs, { at: Date.now(), level: message.level, logger: message.logger, data: message.data })
    changed()
  }
})

const messageOf = (error: unknown): string =>
  typeof error === "object" && error !== null && "message" in error ? String(error.message) : String(error)

/** Whether a failure is a browser refusing the answer (CORS) or not reaching the server: no HTTP status. */
const unreachable = (error: unknown): boolean =>
  typeof error === "object" && error !== null && "_tag" in error && error._tag === "McpTransportError" &&
  !("status" in error && typeof error.status === "number")

const connectWith = async (server: Server, transport: Layer.Layer<McpTransport.McpTransport>) => {
  const layer = McpClient.layer(clientOptions(server)).pipe(Layer.provide(tapped(server)), Layer.provide(transport))
  const client = await McpPromise.fromLayer(layer)
  try {
    server.info = await client.info()
    return client
  } catch (error) {
    await client.close().catch(() => undefined)
    throw error
  }
}

const httpTransport = (url: string, relayTarget: string | undefined, server: Server) =>
  relayTarget === undefined
    ? McpAuth.layerHttp({ url }).pipe(Layer.provide(McpAuth.layer(authOptions(server))), Layer.provide(FetchHttpClient.layer))
    : McpTransport.layerHttp({
      url: new URL("/api/http", location.href).href,
      headers: { "x-inspector-token": token, "x-inspector-target": relayTarget }
    }).pipe(Layer.provide(FetchHttpClient.layer))

let keys = 0

/** Where a server is: a target of the command line, a URL or a command typed in the page. */
export type Source =
  | { readonly _tag: "Target"; readonly target: Target }
  | { readonly _tag: "Url"; readonly url: string }
  | { readonly _tag: "Command"; readonly command: string }

const labelOf = (source: Source) =>
  source._tag === "Target" ? source.target.name : source._tag === "Url" ? source.url : source.command

/** Connect to a server; the returned record changes as the connection goes (see `store.ts`). */
export const connect = (source: Source): Server => {
  const kind = source._tag === "Command" || (source._tag === "Target" && source.target.kind === "stdio") ? "stdio" : "http"
  const server: Server = {
    key: ++keys, label: labelOf(source), kind, status: "connecting", error: undefined, via: undefined,
    note: undefined, info: undefined, client: undefined, messages: [], logs: [], pending: [], tasks: [], progress: undefined
  }
  const attempt = async () => {
    if (source._tag === "Command") return connectWith(server, stdioChannel({ command: source.command }))
    if (source._tag === "Target" && source.target.kind === "stdio") {
      return connectWith(server, stdioChannel({ target: source.target.id }))
    }
    const url = source._tag === "Url" ? source.url : source.target.url ?? ""
    const relayTarget = source._tag === "Url" ? url : `target:${source._tag === "Target" ? source.target.id : ""}`
    if (source._tag === "Target" && source.target.relayOnly === true) {
      server.via = "relay"
      server.note = "through the inspector: the entry's headers stay in the command"
      return connectWith(server, httpTransport(url, relayTarget, server))
    }
    try {
      server.via = "direct"
      return await connectWith(server, httpTransport(url, undefined, server))
    } catch (error) {
      if (!unreachable(error)) throw error
      server.via = "relay"
      server.note = "the server's CORS refused this page (or it could not be reached from it): through the inspector's relay"
      changed()
      return connectWith(server, httpTransport(url, relayTarget, server))
    }
  }
  attempt().then((client) => {
    server.client = client
    server.status = "connected"
    changed()
  }, (error: unknown) => {
    server.status = "error"
    server.error = messageOf(error)
    changed()
  })
  return server
}

/** Close a server's client (its relay session ends with it). */
export const disconnect = (server: Server): Promise<void> => server.client?.close() ?? Promise.resolve()
