/**
 * The Apps tab: the server's tools that carry an MCP App (`_meta.ui.resourceUri`), each rendered on demand with
 * `mountApp` (the MCP Apps host of `@mcp-effect/client`: the spec's double iframe, the outer sandbox page served
 * by the inspector on another origin). What the App asks of the host is listed under it; its tool calls go to
 * the server (shown in the Protocol view), its links are listed, never opened without a click.
 */
import { McpApps, McpPromise } from "@mcp-effect/client"
import type { Tool } from "@mcp-effect/client"
import { useEffect, useRef, useState } from "preact/hooks"
import type { Server } from "./connection.js"

/** Where the sandbox page is (set once the inspector said). */
export const sandbox = { url: "" }

interface Event {
  readonly method: string
  readonly outcome: string
}

const messageOf = (error: unknown): string =>
  typeof error === "object" && error !== null && "message" in error ? String(error.message) : String(error)

const AppFrame = ({ server, tool }: { server: Server; tool: Tool }) => {
  const container = useRef<HTMLDivElement>(null)
  const [status, setStatus] = useState<"loading" | "ready" | "error">("loading")
  const [error, setError] = useState<string | undefined>(undefined)
  const [events, setEvents] = useState<ReadonlyArray<Event>>([])
  const [links, setLinks] = useState<ReadonlyArray<string>>([])
  useEffect(() => {
    const client = server.client
    const element = container.current
    if (client === undefined || element === null) return
    let handle: McpPromise.AppHandle | undefined
    let gone = false
    McpPromise.mountApp(element, {
      client,
      tool: tool.name,
      sandboxUrl: sandbox.url,
      // The person opened this App to try it: its calls go through, each one listed below and in Protocol.
      approveToolCall: () => true,
      onOpenLink: ({ url }) => void setLinks((list) => [...list, url]),
      onAppRequest: (event) => void setEvents((list) => [...list.slice(-49), { method: event.method, outcome: event.outcome }])
    }).then((mounted) => {
      handle = mounted
      if (gone) return void mounted.close()
      setStatus("ready")
    }, (e: unknown) => {
      setStatus("error")
      setError(messageOf(e))
    })
    return () => {
      gone = true
      void handle?.close()
    }
  }, [server.client, tool.name])
  return (
    <div class="card" data-testid="app-frame" data-app-status={status} data-name={tool.name}>
      <div class="row" style={{ justifyContent: "space-between" }}>
        <b>{tool.title ?? tool.name}</b><span class="badge">{status}</span>
      </div>
      <div ref={container} class="app-container" />
      {error === undefined ? null : <div class="error-text">{error}</div>}
      {links.map((url) => (
        <div key={url} data-testid="app-link">
          link asked:{" "}
          {/* Only an http(s) link is clickable: a `javascript:` one would run in this page. */}
          {/^https?:\/\//i.test(url) ? <a href={url} target="_blank" rel="noopener noreferrer">{url}</a> : <code>{url}</code>}
        </div>
      ))}
      {events.length === 0 ? null : (
        <div class="muted" style={{ fontSize: "12px" }}>
          {events.map((e, i) => <div key={i} data-testid="app-event" data-method={e.method}>{e.method}: {e.outcome}</div>)}
        </div>
      )}
    </div>
  )
}

export const AppsView = ({ server }: { server: Server }) => {
  const [tools, setTools] = useState<ReadonlyArray<Tool> | undefined>(undefined)
  const [open, setOpen] = useState<string | undefined>(undefined)
  useEffect(() => void server.client?.listTools().then(setTools, () => setTools([])), [server.client])
  const apps = (tools ?? []).filter((tool) => McpApps.resourceUri(tool) !== undefined)
  const tool = apps.find((t) => t.name === open)
  if (tools === undefined) return <div class="empty">listing tools…</div>
  if (apps.length === 0) return <div class="empty">This server's tools carry no MCP App.</div>
  return (
    <div class="split">
      <div class="list">
        {apps.map((t) => (
          <button class="list-item" data-testid="app" data-name={t.name} aria-selected={t.name === open} key={t.name} onClick={() => setOpen(t.name)}>
            <div><b>{t.name}</b></div><div class="desc">{McpApps.resourceUri(t)}</div>
          </button>
        ))}
      </div>
      <div>{tool === undefined ? <div class="empty">Pick an App: its tool is called and the App shown.</div> : <AppFrame server={server} tool={tool} key={tool.name} />}</div>
    </div>
  )
}
