/**
 * The Servers, Resources, Prompts, Tasks, Skills, Logs and Protocol views.
 */
import type {
  GetPromptResult,
  McpSkills,
  Prompt,
  ReadResourceResult,
  Resource,
  ResourceTemplate
} from "@mcp-effect/client"
import type { PromiseSubscription } from "@mcp-effect/client/McpPromise"
import { useEffect, useState } from "preact/hooks"
import type { Message, Server } from "./connection.js"
import { onStep, steps } from "./netlog.js"
import { changed } from "./store.js"
import { type Completer, readForm, SchemaInput } from "./tools.js"

const messageOf = (error: unknown): string =>
  typeof error === "object" && error !== null && "message" in error ? String(error.message) : String(error)

export const Status = ({ server }: { server: Server }) => (
  <span class="status" data-testid="connection-status" data-status={server.status} data-era={server.info?.era} data-via={server.via}>
    {server.status}{server.info === undefined ? "" : ` · ${server.info.era}`}{server.via === "relay" ? " · relay" : ""}
  </span>
)

const capabilityList = (capabilities: Readonly<Record<string, unknown>>) =>
  Object.entries(capabilities).map(([name, value]) => {
    const flags = typeof value === "object" && value !== null
      ? Object.entries(value).filter(([, on]) => on === true).map(([flag]) => flag)
      : []
    return flags.length === 0 ? name : `${name} (${flags.join(", ")})`
  })

export const ServersView = ({ servers }: { servers: ReadonlyArray<Server> }) =>
  servers.length === 0 ? <div class="empty">No server yet: add one on the left.</div> : (
    <div class="cards">
      {servers.map((server) => (
        <section class="card" data-testid="server-card" key={server.key}>
          <div class="row" style={{ justifyContent: "space-between" }}>
            <b>{server.info?.serverInfo?.name ?? server.label}</b>
            <span class="badge era">{server.info?.era ?? server.status}</span>
          </div>
          {server.note === undefined ? null : <p class="muted" data-testid="connection-note">{server.note}</p>}
          {server.error === undefined ? null : <p class="error-text">{server.error}</p>}
          {server.info === undefined ? null : (
            <dl class="kv">
              <dt>server</dt><dd>{server.info.serverInfo?.name} {server.info.serverInfo?.version}</dd>
              <dt>protocol</dt><dd>{server.info.protocolVersion}</dd>
              <dt>transport</dt><dd>{server.kind}{server.via === undefined ? "" : ` (${server.via})`}</dd>
              <dt>capabilities</dt><dd>{capabilityList(server.info.capabilities).map((c) => <span class="badge" key={c}>{c}</span>)}</dd>
              <dt>instructions</dt><dd><pre style={{ maxHeight: "160px" }}>{server.info.instructions ?? "(none)"}</pre></dd>
            </dl>
          )}
        </section>
      ))}
    </div>
  )

const Contents = ({ result }: { result: ReadResourceResult }) => (
  <div>
    {result.contents.map((content, i) => (
      <div key={i}>
        <span class="badge">{content.mimeType ?? "?"}</span> <span class="muted">{content.uri}</span>
        <pre>{"text" in content && typeof content.text === "string" ? content.text : `(${String("blob" in content ? "base64 blob" : "")})`}</pre>
      </div>
    ))}
  </div>
)

/** A subscription to one resource: each `notifications/resources/updated` for it, counted, until unsubscribed. */
const Subscribe = ({ server, uri }: { server: Server; uri: string }) => {
  const [state, setState] = useState<{ subscription?: PromiseSubscription; updates: number; error?: string }>({ updates: 0 })
  useEffect(() => () => void state.subscription?.close(), [state.subscription])
  const start = () =>
    server.client?.listen({ resourceSubscriptions: [uri] }).then(async (subscription) => {
      setState({ subscription, updates: 0 })
      for await (const notification of subscription) {
        if (notification.method === "notifications/resources/updated") setState((s) => ({ ...s, updates: s.updates + 1 }))
      }
    }, (error: unknown) => setState({ updates: 0, error: messageOf(error) }))
  return (
    <div class="row" style={{ marginTop: "8px" }}>
      {state.subscription === undefined
        ? <button type="button" data-testid="subscribe" onClick={() => void start()}>Subscribe</button>
        : <button type="button" data-testid="unsubscribe" onClick={() => {
          void state.subscription?.close()
          setState({ updates: 0 })
        }}>Unsubscribe</button>}
      {state.subscription === undefined ? null : (
        <span class="muted" data-testid="resource-updates" data-count={state.updates}>subscribed · {state.updates} updates</span>
      )}
      {state.error === undefined ? null : <span class="error-text">{state.error}</span>}
    </div>
  )
}

export const ResourcesView = ({ server }: { server: Server }) => {
  const [resources, setResources] = useState<ReadonlyArray<Resource> | undefined>(undefined)
  const [templates, setTemplates] = useState<ReadonlyArray<ResourceTemplate>>([])
  const [read, setRead] = useState<{ uri: string; result?: ReadResourceResult; error?: string } | undefined>(undefined)
  const [uri, setUri] = useState("")
  useEffect(() => {
    server.client?.listResources().then(setResources, () => setResources([]))
    server.client?.listResourceTemplates().then(setTemplates, () => setTemplates([]))
  }, [server.client])
  const open = (target: string) => {
    setRead({ uri: target })
    server.client?.readResource(target).then((result) => setRead({ uri: target, result }), (e: unknown) => setRead({ uri: target, error: messageOf(e) }))
  }
  return (
    <div class="split">
      <div class="list">
        <h2>Resources</h2>
        {(resources ?? []).map((r) => (
          <button class="list-item" data-testid="resource" data-uri={r.uri} aria-selected={read?.uri === r.uri} key={r.uri} onClick={() => open(r.uri)}>
            <div><b>{r.name}</b></div><div class="desc">{r.uri}</div>
          </button>
        ))}
        <h2>Templates</h2>
        {templates.map((t) => (
          <button class="list-item" data-testid="resource-template" key={t.uriTemplate} onClick={() => setUri(t.uriTemplate)}>
            <div><b>{t.name}</b></div><div class="desc">{t.uriTemplate}</div>
          </button>
        ))}
      </div>
      <div>
        <form class="row" onSubmit={(e) => {
          e.preventDefault()
          open(uri)
        }}>
          <input name="uri" aria-label="resource URI" placeholder="resource URI" value={uri} onInput={(e) => setUri(e.currentTarget.value)} style={{ flex: 1, width: "auto" }} />
          <button class="primary" type="submit" data-testid="read">Read</button>
        </form>
        {read === undefined ? null : (
          <div class="card" data-testid="resource-contents" style={{ marginTop: "12px" }}>
            {read.result === undefined ? null : <Contents result={read.result} />}
            {read.result === undefined || server.info?.capabilities["resources"] === undefined ? null : (
              <Subscribe server={server} uri={read.uri} key={read.uri} />
            )}
            {read.error === undefined ? null : <div class="error-text">{read.error}</div>}
            {read.result === undefined && read.error === undefined ? <span class="muted">reading…</span> : null}
          </div>
        )}
      </div>
    </div>
  )
}

export const PromptsView = ({ server }: { server: Server }) => {
  // The server's suggestions for an argument, given what the other arguments hold.
  const complete = (prompt: string): Completer | undefined =>
    server.info?.capabilities["completions"] === undefined ? undefined : async (name, value, form) => {
      const others = form === null ? {} : Object.fromEntries(Object.entries(readForm(form)).map(([k, v]) => [k, String(v)]))
      const answer = await server.client?.complete({ type: "ref/prompt", name: prompt }, { name, value }, { arguments: others })
      return answer?.completion.values ?? []
    }
  const [prompts, setPrompts] = useState<ReadonlyArray<Prompt> | undefined>(undefined)
  const [selected, setSelected] = useState<Prompt | undefined>(undefined)
  const [got, setGot] = useState<{ result?: GetPromptResult; error?: string } | undefined>(undefined)
  useEffect(() => void server.client?.listPrompts().then(setPrompts, () => setPrompts([])), [server.client])
  return (
    <div class="split">
      <div class="list">
        {(prompts ?? []).map((p) => (
          <button class="list-item" data-testid="prompt" data-name={p.name} aria-selected={selected?.name === p.name} key={p.name}
            onClick={() => {
              setSelected(p)
              setGot(undefined)
            }}>
            <div><b>{p.name}</b></div><div class="desc">{p.description}</div>
          </button>
        ))}
      </div>
      <div>
        {selected === undefined ? <div class="empty">Pick a prompt.</div> : (
          <form data-testid="prompt-form" key={selected.name} onSubmit={(e) => {
            e.preventDefault()
            const args = Object.fromEntries(Object.entries(readForm(e.currentTarget)).map(([k, v]) => [k, String(v)]))
            server.client?.getPrompt(selected.name, args).then((result) => setGot({ result }), (error: unknown) => setGot({ error: messageOf(error) }))
          }}>
            <h2>{selected.name}</h2>
            {(selected.arguments ?? []).map((a) => (
              <SchemaInput name={a.name} schema={{ type: "string", description: a.description ?? "" }} required={a.required === true}
                key={a.name} complete={complete(selected.name)} />
            ))}
            <button class="primary" type="submit" data-testid="get-prompt">Get</button>
            {got === undefined ? null : (
              <div class="card" data-testid="prompt-result" style={{ marginTop: "12px" }}>
                {got.result?.messages.map((m, i) => (
                  <div key={i}><span class="badge">{m.role}</span><pre>{m.content.type === "text" ? m.content.text : JSON.stringify(m.content, null, 2)}</pre></div>
                ))}
                {got.error === undefined ? null : <div class="error-text">{got.error}</div>}
              </div>
            )}
          </form>
        )}
      </div>
    </div>
  )
}

export const TasksView = ({ server }: { server: Server }) =>
  server.tasks.length === 0 ? <div class="empty">No task yet: a call the server runs as a task shows here, status by status.</div> : (
    <div class="cards">
      {server.tasks.map((task) => {
        const last = task.statuses.at(-1)
        return (
          <section class="card" data-testid="task" data-task-id={task.taskId} data-status={last?.status ?? "created"} key={task.taskId}>
            <div class="row" style={{ justifyContent: "space-between" }}>
              <b>{task.method || "task"}</b><span class="badge">{last?.status ?? "created"}</span>
            </div>
            <div class="muted" style={{ fontSize: "12px", overflowWrap: "anywhere" }}>{task.taskId}</div>
            {task.statuses.map((s, i) => (
              <div class="log" key={i}><span class="lvl">{s.status}</span>{new Date(s.at).toLocaleTimeString()} {s.message ?? ""}</div>
            ))}
          </section>
        )
      })}
    </div>
  )

export const SkillsView = ({ server }: { server: Server }) => {
  const [skills, setSkills] = useState<ReadonlyArray<McpSkills.Skill> | undefined>(undefined)
  const [loaded, setLoaded] = useState<{ name: string; text?: string; error?: string } | undefined>(undefined)
  useEffect(() => void server.client?.listSkills().then(setSkills, () => setSkills([])), [server.client])
  if (skills === undefined) return <div class="empty">listing skills…</div>
  if (skills.length === 0) return <div class="empty">This server offers no skill (the skills extension).</div>
  return (
    <div class="split">
      <div class="list">
        {skills.map((skill) => (
          <button class="list-item" data-testid="skill" data-name={skill.name} aria-selected={loaded?.name === skill.name} key={skill.uri}
            onClick={() => {
              setLoaded({ name: skill.name })
              server.client?.loadSkill(skill).then(
                (l) => setLoaded({ name: skill.name, text: l.instructions }),
                (e: unknown) => setLoaded({ name: skill.name, error: messageOf(e) })
              )
            }}>
            <div><b>{skill.name}</b></div><div class="desc">{skill.description}</div>
          </button>
        ))}
      </div>
      <div>
        {loaded === undefined ? <div class="empty">Pick a skill: its SKILL.md is read and checked.</div> : (
          <div class="card" data-testid="skill-content">
            {loaded.text === undefined ? null : <pre style={{ maxHeight: "none" }}>{loaded.text}</pre>}
            {loaded.error === undefined ? null : <div class="error-text">{loaded.error}</div>}
            {loaded.text === undefined && loaded.error === undefined ? <span class="muted">reading…</span> : null}
          </div>
        )}
      </div>
    </div>
  )
}

export const AuthView = () => {
  useEffect(() => onStep(changed), [])
  return steps.length === 0 ? <div class="empty">No sign-in yet: a server that asks for one shows each OAuth step here.</div> : (
    <div class="group">
      {steps.map((step) => (
        <div class="msg" style={{ gridTemplateColumns: "200px 80px 1fr 90px", cursor: "default" }} data-testid="auth-step"
          data-step={step.step} data-status={step.status} key={step.seq}>
          <b>{step.step}</b>
          <span class={step.status === "error" ? "error-text" : "muted"}>{step.status}</span>
          <span style={{ overflowWrap: "anywhere" }}>{step.url}<br /><span class="muted">{step.detail}</span></span>
          <span class="time">{new Date(step.at).toLocaleTimeString()}</span>
        </div>
      ))}
    </div>
  )
}

/** A server asking for a sign-in: the button that opens the authorization page (a window needs a click). */
export const SignIn = ({ server }: { server: Server }) => (
  <div>
    {server.pending.map((item) =>
      item.kind !== "sign-in" ? null : (
        <div class="pending" data-testid="sign-in" key={item.seq}>
          <div class="row"><span class="badge warn">sign-in</span> <b>{server.label}</b> asks you to sign in at {item.url.origin}</div>
          <div class="row" style={{ marginTop: "8px" }}>
            <button class="primary" type="button" data-testid="sign-in-open" onClick={item.open}>Sign in</button>
            <button type="button" onClick={item.cancel}>Not now</button>
          </div>
        </div>
      )
    )}
  </div>
)

export const LogsView = ({ server }: { server: Server }) =>
  server.logs.length === 0 ? <div class="empty">No log message yet (the inspector asks for level debug).</div> : (
    <div>
      {server.logs.map((log, i) => (
        <div class="log" data-testid="log" data-level={log.level} key={i}>
          <span class="lvl">{log.level}</span><span class="muted">{new Date(log.at).toLocaleTimeString()} {log.logger ?? ""}</span>{" "}
          {typeof log.data === "string" ? log.data : JSON.stringify(log.data)}
        </div>
      ))}
    </div>
  )

interface Group {
  readonly key: string
  readonly title: string
  readonly items: Array<Message>
}

const fieldOf = (message: unknown, ...path: ReadonlyArray<string>): unknown => {
  let value: unknown = message
  for (const key of path) value = typeof value === "object" && value !== null ? (value as Record<string, unknown>)[key] : undefined
  return value
}

/**
 * Messages grouped by request: a request with its answer, and what belongs to it in between (its progress
 * reports, by progress token; its cancellation, by request id). Other notifications stand alone.
 */
const groupsOf = (messages: ReadonlyArray<Message>): ReadonlyArray<Group> => {
  const groups: Array<Group> = []
  const byKey = new Map<string, Group>()
  for (const m of messages) {
    // A request is keyed by who sent it and its id; an answer goes back the other way.
    const answer = m.method === undefined
    const sender = answer ? (m.direction === "in" ? "out" : "in") : m.direction
    const progressToken = fieldOf(m.message, "params", "progressToken")
    const cancelled = fieldOf(m.message, "params", "requestId")
    const key = m.id !== undefined ? `${sender}:${String(m.id)}`
      : m.method === "notifications/progress" && progressToken !== undefined ? `progress:${String(progressToken)}`
      : m.method === "notifications/cancelled" && cancelled !== undefined ? `${m.direction}:${String(cancelled)}`
      : undefined
    const existing = key === undefined ? undefined : byKey.get(key)
    if (existing !== undefined) {
      existing.items.push(m)
      continue
    }
    const group: Group = { key: `${m.seq}`, title: m.method ?? "(answer)", items: [m] }
    groups.push(group)
    if (key !== undefined) byKey.set(key, group)
    const token = fieldOf(m.message, "params", "_meta", "progressToken")
    if (m.id !== undefined && token !== undefined) byKey.set(`progress:${String(token)}`, group)
  }
  return groups
}

export const ProtocolView = ({ server }: { server: Server }) => {
  const [open, setOpen] = useState<number | undefined>(undefined)
  const exportAll = () => {
    const blob = new Blob([server.messages.map((m) => JSON.stringify({ direction: m.direction, at: m.at, message: m.message })).join("\n")], { type: "application/x-ndjson" })
    const a = document.createElement("a")
    a.href = URL.createObjectURL(blob)
    a.download = "mcp-messages.ndjson"
    a.click()
  }
  const first = server.messages[0]?.at ?? 0
  return (
    <div>
      <div class="row" style={{ marginBottom: "10px" }}>
        <span class="muted">{server.messages.length} messages</span>
        <button data-testid="export" onClick={exportAll}>Export NDJSON</button>
      </div>
      {groupsOf(server.messages).map((group) => {
        const last = group.items[group.items.length - 1]
        const took = last === undefined || group.items.length < 2 ? undefined : Math.round(last.at - (group.items[0]?.at ?? 0))
        return (
          <div class="group" key={group.key}>
            <div class="head"><b>{group.title}</b>{took === undefined ? null : <span>{took} ms</span>}</div>
            {group.items.map((m) => (
              <div key={m.seq}>
                <div class="msg" data-testid="message" data-direction={m.direction} data-method={m.method ?? ""} role="button" tabIndex={0}
                  onClick={() => setOpen(open === m.seq ? undefined : m.seq)}
                  onKeyDown={(e) => e.key === "Enter" ? setOpen(open === m.seq ? undefined : m.seq) : undefined}>
                  <span class="dir">{m.direction === "in" ? "←" : "→"}</span>
                  <span>{m.id === undefined ? "" : `#${String(m.id)}`}</span>
                  <span>{m.method ?? ("error" in (m.message as object) ? "error" : "result")}</span>
                  <span class="time">+{Math.round(m.at - first)} ms</span>
                </div>
                {open === m.seq ? <pre style={{ margin: "0 8px 8px" }}>{JSON.stringify(m.message, null, 2)}</pre> : null}
              </div>
            ))}
          </div>
        )
      })}
    </div>
  )
}
