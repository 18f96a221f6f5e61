/**
 * The inspector's page: the servers on the left (those of the command line, and any added here), the
 * selected server's views as tabs on the right. Keyboard: Tab moves through everything; in the tab bar the
 * arrow keys move between tabs; Alt+1..9 picks one of the first nine tabs.
 */
// First: it wraps the page's fetch to record the OAuth steps (see the Auth view).
import "./netlog.js"
import { BrowserMcpAuth } from "@mcp-effect/client"
import { render } from "preact"
import { useEffect, useState } from "preact/hooks"
import { offer } from "./api.js"
import { AppsView, sandbox } from "./apps.js"
import { connect, disconnect, type Server } from "./connection.js"
import { changed, useStore } from "./store.js"
import { css } from "./style.js"
import { ToolsView } from "./tools.js"
import { AuthView, LogsView, PromptsView, ProtocolView, ResourcesView, ServersView, SignIn, SkillsView, Status, TasksView } from "./views.js"

const TABS = ["servers", "tools", "resources", "prompts", "tasks", "skills", "apps", "logs", "protocol", "auth"] as const
type Tab = typeof TABS[number]

const servers: Array<Server> = []

const add = (server: Server) => {
  servers.push(server)
  changed()
}

const AddServer = () => {
  const [value, setValue] = useState("")
  return (
    <form class="connect-form" onSubmit={(e) => {
      e.preventDefault()
      const text = value.trim()
      if (text === "") return
      add(connect(/^https?:\/\//.test(text) ? { _tag: "Url", url: text } : { _tag: "Command", command: text }))
      setValue("")
    }}>
      <h2>Add a server</h2>
      <input aria-label="server URL or command" placeholder="https://…/mcp or a command" value={value}
        data-testid="add-server" onInput={(e) => setValue(e.currentTarget.value)} />
      <button type="submit">Connect</button>
    </form>
  )
}

const Tabs = ({ tab, setTab }: { tab: Tab; setTab: (tab: Tab) => void }) => (
  <nav class="tabs" role="tablist" aria-label="views" onKeyDown={(e) => {
    const index = TABS.indexOf(tab)
    const next = e.key === "ArrowRight" ? TABS[(index + 1) % TABS.length] : e.key === "ArrowLeft" ? TABS[(index + TABS.length - 1) % TABS.length] : undefined
    if (next !== undefined) {
      setTab(next)
      requestAnimationFrame(() => document.querySelector<HTMLElement>(`[data-testid=tab][data-name=${next}]`)?.focus())
    }
  }}>
    {TABS.map((name) => (
      <button role="tab" data-testid="tab" data-name={name} aria-selected={tab === name} tabIndex={tab === name ? 0 : -1} key={name}
        onClick={() => setTab(name)}>
        {name[0]?.toUpperCase()}{name.slice(1)}
      </button>
    ))}
  </nav>
)

const View = ({ tab, server }: { tab: Tab; server: Server | undefined }) => {
  if (tab === "servers") return <ServersView servers={servers} />
  if (tab === "auth") return <AuthView />
  if (server === undefined) return <div class="empty">No server selected.</div>
  if (tab === "protocol") return <ProtocolView server={server} />
  if (tab === "logs") return <LogsView server={server} />
  if (tab === "tasks") return <TasksView server={server} />
  if (server.status !== "connected") {
    return server.status === "error" ? <div class="error-text">{server.error}</div> : <div class="empty">connecting…</div>
  }
  if (tab === "tools") return <ToolsView server={server} />
  if (tab === "resources") return <ResourcesView server={server} />
  if (tab === "apps") return <AppsView server={server} />
  if (tab === "skills") return <SkillsView server={server} />
  return <PromptsView server={server} />
}

const App = () => {
  useStore()
  const [tab, setTab] = useState<Tab>("servers")
  const [selected, setSelected] = useState<number | undefined>(undefined)
  const [theme, setTheme] = useState(() => localStorage.getItem("mcp-effect-inspector-theme") ?? (matchMedia("(prefers-color-scheme: light)").matches ? "light" : "dark"))
  const [loadError, setLoadError] = useState<string | undefined>(undefined)
  useEffect(() => {
    document.documentElement.dataset["theme"] = theme
    localStorage.setItem("mcp-effect-inspector-theme", theme)
  }, [theme])
  useEffect(() => {
    offer().then((offered) => {
      sandbox.url = offered.sandboxUrl
      offered.targets.forEach((target) => add(connect({ _tag: "Target", target })))
    }, (e: unknown) => setLoadError(String(e)))
    const keys = (e: KeyboardEvent) => {
      const n = Number(e.key)
      if (e.altKey && n >= 1 && n <= TABS.length) setTab(TABS[n - 1] ?? "servers")
    }
    addEventListener("keydown", keys)
    addEventListener("beforeunload", () => servers.forEach((s) => void disconnect(s)))
    return () => removeEventListener("keydown", keys)
  }, [])
  const server = servers.find((s) => s.key === selected) ?? servers[0]
  return (
    <div class="app">
      <header>
        <h1><span>mcp-effect</span> inspector</h1>
        <span class="spacer" />
        {server === undefined ? null : <span class="muted">{server.info?.serverInfo?.title ?? server.info?.serverInfo?.name ?? server.label}</span>}
        <button aria-label="toggle dark and light" data-testid="theme" onClick={() => setTheme(theme === "dark" ? "light" : "dark")}>
          {theme === "dark" ? "Light" : "Dark"}
        </button>
      </header>
      <aside>
        <h2>Servers</h2>
        {loadError === undefined ? null : <div class="error-text">{loadError}</div>}
        {servers.map((s) => (
          <button class="server-item" aria-current={s === server} key={s.key} onClick={() => setSelected(s.key)}>
            <span class="name">{s.info?.serverInfo?.name ?? s.label}</span>
            <Status server={s} />
          </button>
        ))}
        <AddServer />
      </aside>
      <main>
        <Tabs tab={tab} setTab={setTab} />
        <div class="content" role="tabpanel">
          {servers.map((s) => <SignIn server={s} key={s.key} />)}
          <View tab={tab} server={server} />
        </div>
      </main>
    </div>
  )
}

// The sign-in window's redirect page: hand the answer to the page that opened it, and close.
if (location.pathname === "/oauth/callback") BrowserMcpAuth.completeSignIn()

const style = document.createElement("style")
style.textContent = css
document.head.append(style)
const root = document.getElementById("app")
if (root !== null && location.pathname !== "/oauth/callback") render(<App />, root)
