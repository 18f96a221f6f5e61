/**
 * The Tools view: search, annotations, a form generated from the input schema, call with progress and
 * cancel, the result rendered (text, image, audio, resource links, embedded resources, `structuredContent`),
 * and the server's elicitation and sampling requests answered inline under the call.
 */
import type { CallToolResult, InputFulfiller, Tool } from "@mcp-effect/client"
import { useEffect, useMemo, useState } from "preact/hooks"
import type { Pending, Server } from "./connection.js"
import * as model from "./model.js"
import { settings } from "./model.js"
import { changed } from "./store.js"

type Json = null | boolean | number | string | ReadonlyArray<Json> | { readonly [key: string]: Json }
type Schema = Readonly<Record<string, unknown>>

const propertiesOf = (schema: unknown): ReadonlyArray<[string, Schema]> => {
  if (typeof schema !== "object" || schema === null) return []
  const properties = (schema as Schema)["properties"]
  return typeof properties === "object" && properties !== null ? Object.entries(properties as Record<string, Schema>) : []
}

const requiredOf = (schema: unknown): ReadonlyArray<string> => {
  const required = typeof schema === "object" && schema !== null ? (schema as Schema)["required"] : undefined
  return Array.isArray(required) ? required.filter((r): r is string => typeof r === "string") : []
}

const typeOf = (schema: Schema): string => {
  const type = schema["type"]
  if (Array.isArray(type)) return String(type.find((t) => t !== "null") ?? "string")
  return typeof type === "string" ? type : "string"
}

/** Suggestions for an argument as it is typed (`completion/complete`), when the server offers them. */
export type Completer = (name: string, value: string, form: HTMLFormElement | null) => Promise<ReadonlyArray<string>>

/** One input, named by its argument, as its schema's type asks. */
export const SchemaInput = (
  { name, schema, required, complete }: { name: string; schema: Schema; required: boolean; complete?: Completer | undefined }
) => {
  const [suggestions, setSuggestions] = useState<ReadonlyArray<string>>([])
  const type = typeOf(schema)
  const description = typeof schema["description"] === "string" ? schema["description"] : ""
  const id = `arg-${name}`
  const enumValues = Array.isArray(schema["enum"]) ? schema["enum"] : undefined
  const initial = schema["default"] === undefined ? "" : String(schema["default"])
  const input = enumValues !== undefined
    ? (
      <select id={id} name={name} data-type="string" defaultValue={initial}>
        {required ? null : <option value="">(none)</option>}
        {enumValues.map((v) => <option value={String(v)} key={String(v)}>{String(v)}</option>)}
      </select>
    )
    : type === "boolean"
    ? <input id={id} name={name} type="checkbox" data-type="boolean" defaultChecked={schema["default"] === true} style={{ width: "auto", alignSelf: "flex-start" }} />
    : type === "number" || type === "integer"
    ? <input id={id} name={name} type="number" step={type === "integer" ? 1 : "any"} data-type="number" defaultValue={initial} />
    : type === "object" || type === "array"
    ? <textarea id={id} name={name} rows={3} data-type="json" placeholder={type === "array" ? "[ ]" : "{ }"} />
    : (
      <input id={id} name={name} type="text" data-type="string" defaultValue={initial}
        list={complete === undefined ? undefined : `${id}-completions`} autoComplete="off"
        onInput={complete === undefined ? undefined : (e) => {
          const input = e.currentTarget
          complete(name, input.value, input.form).then(setSuggestions, () => setSuggestions([]))
        }} />
    )
  return (
    <div class="field">
      <label for={id}><b>{name}</b>{required ? " *" : ""} <span class="muted">{type}</span>{description ? ` · ${description}` : ""}</label>
      {input}
      {complete === undefined ? null : (
        <datalist id={`${id}-completions`} data-testid="completions" data-name={name}>
          {suggestions.map((v) => <option value={v} key={v} />)}
        </datalist>
      )}
    </div>
  )
}

/** The arguments a form holds, typed by its inputs' `data-type` (empty optional fields left out). */
export const readForm = (form: HTMLFormElement): { readonly [key: string]: Json } => {
  const args: Record<string, Json> = {}
  for (const element of Array.from(form.elements)) {
    if (!(element instanceof HTMLInputElement || element instanceof HTMLSelectElement || element instanceof HTMLTextAreaElement)) continue
    if (element.name === "") continue
    const type = element.dataset["type"]
    if (type === "boolean" && element instanceof HTMLInputElement) {
      args[element.name] = element.checked
      continue
    }
    if (element.value === "") continue
    args[element.name] = type === "number" ? Number(element.value) : type === "json" ? JSON.parse(element.value) as Json : element.value
  }
  return args
}

const Content = ({ block }: { block: Readonly<Record<string, unknown>> }) => {
  const type = block["type"]
  if (type === "text") return <pre>{String(block["text"])}</pre>
  if (type === "image") {
    return <img class="content-image" alt="image content" src={`data:${String(block["mimeType"])};base64,${String(block["data"])}`} />
  }
  if (type === "audio") return <audio controls src={`data:${String(block["mimeType"])};base64,${String(block["data"])}`} />
  if (type === "resource_link") {
    return (
      <div class="card" data-testid="resource-link" style={{ padding: "8px 10px", margin: "6px 0" }}>
        <span class="badge">resource link</span> <b>{String(block["name"] ?? "")}</b> <span class="muted">{String(block["uri"])}</span>
        {typeof block["description"] === "string" ? <div class="muted">{block["description"]}</div> : null}
      </div>
    )
  }
  if (type === "resource") {
    const resource = block["resource"] as Readonly<Record<string, unknown>> | undefined
    return (
      <div>
        <span class="badge">embedded resource</span> <span class="muted">{String(resource?.["uri"] ?? "")}</span>
        <pre>{typeof resource?.["text"] === "string" ? resource["text"] : `(${String(resource?.["mimeType"] ?? "binary")}, base64)`}</pre>
      </div>
    )
  }
  return <pre>{JSON.stringify(block, null, 2)}</pre>
}

export const Result = ({ result, hasOutputSchema }: { result: CallToolResult; hasOutputSchema: boolean }) => (
  <div>
    {(result.content as ReadonlyArray<Readonly<Record<string, unknown>>>).map((block, i) => <Content block={block} key={i} />)}
    {result.structuredContent === undefined ? null : (
      <div>
        <h2 style={{ fontSize: "12px" }} class="muted">
          structuredContent {hasOutputSchema ? <span class="badge">checked against outputSchema</span> : null}
        </h2>
        <pre data-testid="structured-content">{JSON.stringify(result.structuredContent, null, 2)}</pre>
      </div>
    )}
  </div>
)

/** An elicitation or a sampling request of the server, answered here by the person. */
/** Whether a link the server gives is one a browser may open for it: http or https only. */
const isWebLink = (url: string): boolean =>
  URL.canParse(url) && (new URL(url).protocol === "https:" || new URL(url).protocol === "http:")

/** A pinned tool whose definition changed: what changed, and the person's decision. */
const PinChange = ({ item }: { item: Extract<Pending, { kind: "pin" }> }) => (
  <div class="pending" data-testid="pin-change" data-name={item.change.name}>
    <div class="row"><span class="badge warn">quarantined</span> <b>{item.change.name}</b> changed since it was pinned</div>
    <ul>{item.change.changes.map((line) => <li key={line}>{line}</li>)}</ul>
    <details><summary>the definition the server offers now</summary><pre>{JSON.stringify(item.change.tool, null, 2)}</pre></details>
    <div class="row">
      <button class="primary" type="button" data-testid="pin-approve" onClick={() => item.answer("approve")}>Approve the new definition</button>
      <button type="button" data-testid="pin-quarantine" onClick={() => item.answer("quarantine")}>Keep it quarantined</button>
    </div>
  </div>
)

/** Ask a model (an OpenAI-compatible endpoint the person gives) for a draft of the answer. */
const ModelDraft = ({ params }: { params: InputFulfiller.CreateMessageParams }) => {
  const [status, setStatus] = useState<string>("")
  const draft = (button: HTMLButtonElement) => {
    const form = button.form
    if (form === null) return
    const value = (name: string) => (form.elements.namedItem(name) as HTMLInputElement | null)?.value ?? ""
    settings.baseUrl = value("model-base")
    settings.key = value("model-key")
    settings.model = value("model-id")
    setStatus("asking the model…")
    model.ask(params).then((text) => {
      const answer = form.elements.namedItem("text") as HTMLTextAreaElement | null
      const name = form.elements.namedItem("model") as HTMLInputElement | null
      if (answer !== null) answer.value = text
      if (name !== null) name.value = settings.model
      setStatus("the model's draft is below: edit it, then Send")
    }, (error: unknown) => setStatus(error instanceof Error ? error.message : String(error)))
  }
  return (
    <details>
      <summary>Draft the answer with a model</summary>
      <div class="row" style={{ flexWrap: "nowrap", marginTop: "6px" }}>
        <input name="model-base" aria-label="OpenAI-compatible endpoint" defaultValue={settings.baseUrl} />
        <input name="model-id" aria-label="model" defaultValue={settings.model} style={{ maxWidth: "160px" }} />
        <input name="model-key" type="password" aria-label="API key (kept in this page's memory only)" placeholder="API key"
          defaultValue={settings.key} autoComplete="off" style={{ maxWidth: "200px" }} />
        <button type="button" data-testid="sample-model" onClick={(e) => draft(e.currentTarget)}>Ask</button>
      </div>
      <div class="muted" data-testid="model-status">{status}</div>
    </details>
  )
}

export const PendingRequest = ({ item }: { item: Pending }) => {
  if (item.kind === "pin") return <PinChange item={item} />
  // A sign-in is shown with its server, above every view.
  if (item.kind === "sign-in") return null
  if (item.kind === "elicitation") {
    const params = item.params as unknown as Readonly<Record<string, unknown>>
    const url = typeof params["url"] === "string" ? params["url"] : undefined
    const schema = params["requestedSchema"]
    return (
      <form class="pending" data-testid="elicitation" data-mode={url === undefined ? "form" : "url"} onSubmit={(e) => {
        e.preventDefault()
        if (url === undefined) return item.answer({ action: "accept", content: readForm(e.currentTarget) as Record<string, string> })
        // URL mode: accepting is agreeing to open the link (from this click), and no content goes back. Only an
        // http(s) link is ever opened (a `javascript:` or `data:` one would run in a page of ours).
        if (!isWebLink(url)) return item.answer({ action: "decline" })
        window.open(url, "_blank", "noopener,noreferrer")
        item.answer({ action: "accept" })
      }}>
        <div class="row"><span class="badge warn">elicitation{url === undefined ? "" : " · URL"}</span> {String(params["message"] ?? "")}</div>
        {url === undefined ? null : (
          <p>The server asks you to open <b data-testid="elicitation-site">{URL.canParse(url) ? new URL(url).host : url}</b>:{" "}
            <code style={{ overflowWrap: "anywhere" }}>{url}</code>.{" "}
            {isWebLink(url) ? "Accept opens it in a new tab." : <b class="error-text">It is not an http(s) link: it is never opened.</b>}</p>
        )}
        {propertiesOf(schema).map(([name, s]) => <SchemaInput name={name} schema={s} required={requiredOf(schema).includes(name)} key={name} />)}
        <div class="row">
          <button class="primary" type="submit" data-testid="accept">Accept</button>
          <button type="button" data-testid="decline" onClick={() => item.answer({ action: "decline" })}>Decline</button>
          <button type="button" onClick={() => item.answer({ action: "cancel" })}>Cancel</button>
        </div>
      </form>
    )
  }
  const params = item.params as unknown as Readonly<Record<string, unknown>>
  return (
    <form class="pending" data-testid="sampling" onSubmit={(e) => {
      e.preventDefault()
      const data = new FormData(e.currentTarget)
      item.answer({
        role: "assistant",
        model: String(data.get("model") ?? "inspector"),
        content: { type: "text", text: String(data.get("text") ?? "") },
        stopReason: "endTurn"
      })
    }}>
      <div class="row"><span class="badge warn">sampling</span> the server asks for a model's answer</div>
      <pre>{JSON.stringify(params["messages"], null, 2)}</pre>
      <ModelDraft params={item.params} />
      <div class="field"><label for="sampling-text">Answer</label><textarea id="sampling-text" name="text" rows={3} /></div>
      <div class="field"><label for="sampling-model">Model name</label><input id="sampling-model" name="model" defaultValue="inspector (by hand)" /></div>
      <div class="row">
        <button class="primary" type="submit" data-testid="send">Send</button>
        <button type="button" data-testid="reject" onClick={() => item.answer(undefined)}>Reject</button>
      </div>
    </form>
  )
}

interface Run {
  status: "running" | "ok" | "error" | "cancelled"
  result?: CallToolResult
  error?: string
  started: number
  ms?: number
  abort: AbortController
}

const annotationBadges = (tool: Tool) => {
  const a = tool.annotations
  if (a === undefined) return null
  return (
    <span>
      {a.readOnlyHint === true ? <span class="badge">read-only</span> : null}
      {a.destructiveHint === true ? <span class="badge warn">destructive</span> : null}
      {a.idempotentHint === true ? <span class="badge">idempotent</span> : null}
      {a.openWorldHint === true ? <span class="badge">open world</span> : null}
    </span>
  )
}

const ToolPanel = ({ server, tool }: { server: Server; tool: Tool }) => {
  const [run, setRun] = useState<Run | undefined>(undefined)
  const [, redraw] = useState(0)
  useEffect(() => setRun(undefined), [tool.name])
  const call = (form: HTMLFormElement) => {
    const client = server.client
    if (client === undefined) return
    let args
    try {
      args = readForm(form)
    } catch (error) {
      return setRun({ status: "error", error: `an argument is not JSON: ${String(error)}`, started: 0, abort: new AbortController() })
    }
    const next: Run = { status: "running", started: performance.now(), abort: new AbortController() }
    server.progress = undefined
    setRun(next)
    client.callTool(tool.name, args, { signal: next.abort.signal }).then((result) => {
      next.status = result.isError === true ? "error" : "ok"
      next.result = result
    }, (error: unknown) => {
      next.status = next.abort.signal.aborted ? "cancelled" : "error"
      next.error = typeof error === "object" && error !== null && "message" in error ? String(error.message) : String(error)
    }).finally(() => {
      next.ms = Math.round(performance.now() - next.started)
      redraw((n) => n + 1)
      changed()
    })
  }
  const progress = run?.status === "running" ? server.progress : undefined
  return (
    <div>
      <h2 style={{ margin: "0 0 4px" }}>{tool.title ?? tool.name} {annotationBadges(tool)}</h2>
      <p class="muted" style={{ marginTop: 0, whiteSpace: "pre-wrap" }}>{tool.description}</p>
      <form data-testid="tool-form" key={tool.name} onSubmit={(e) => {
        e.preventDefault()
        call(e.currentTarget)
      }}>
        {propertiesOf(tool.inputSchema).map(([name, s]) => (
          <SchemaInput name={name} schema={s} required={requiredOf(tool.inputSchema).includes(name)} key={name} />
        ))}
        <div class="row">
          <button class="primary" type="submit" data-testid="call" disabled={run?.status === "running"}>Call</button>
          {run?.status === "running"
            ? <button type="button" class="danger" data-testid="cancel" onClick={() => run.abort.abort()}>Cancel</button>
            : null}
        </div>
      </form>
      {run === undefined ? null : (
        <div class="card result" data-testid="tool-result" data-status={run.status} style={{ marginTop: "12px" }}>
          <div class="row" style={{ justifyContent: "space-between" }}>
            <span class="badge">{run.status}</span>
            {run.ms === undefined ? null : <span class="muted">{run.ms} ms</span>}
          </div>
          {run.status === "running" ? (
            <div>
              <progress data-testid="progress" max={progress?.total ?? 1} value={progress === undefined ? undefined : progress.progress} />
              <div class="muted">
                {progress === undefined ? "waiting for the server…" : `${progress.progress}${progress.total === undefined ? "" : ` / ${progress.total}`} ${progress.message ?? ""}`}
              </div>
            </div>
          ) : null}
          {server.pending.filter((item) => item.kind === "elicitation" || item.kind === "sampling").map((item) => <PendingRequest item={item} key={item.seq} />)}
          {run.result === undefined ? null : <Result result={run.result} hasOutputSchema={tool.outputSchema !== undefined} />}
          {run.error === undefined ? null : <div class="error-text">{run.error}</div>}
        </div>
      )}
      {run === undefined ? server.pending.filter((item) => item.kind === "elicitation" || item.kind === "sampling").map((item) => <PendingRequest item={item} key={item.seq} />) : null}
    </div>
  )
}

export const ToolsView = ({ server }: { server: Server }) => {
  const [tools, setTools] = useState<ReadonlyArray<Tool> | undefined>(undefined)
  const [error, setError] = useState<string | undefined>(undefined)
  const [query, setQuery] = useState("")
  const [selected, setSelected] = useState<string | undefined>(undefined)
  const [refreshed, setRefreshed] = useState(0)
  useEffect(() => {
    setTools(undefined)
    server.client?.listTools({ refresh: refreshed > 0 }).then(setTools, (e: unknown) => setError(String(e)))
  }, [server.client, refreshed])
  const pins = server.pending.filter((item) => item.kind === "pin").map((item) => <PendingRequest item={item} key={item.seq} />)
  const shown = useMemo(
    () => (tools ?? []).filter((t) => `${t.name} ${t.title ?? ""} ${t.description ?? ""}`.toLowerCase().includes(query.toLowerCase())),
    [tools, query]
  )
  const tool = tools?.find((t) => t.name === selected)
  if (error !== undefined) return <div class="error-text">{error}</div>
  if (tools === undefined) return <div>{pins}<div class="empty">listing tools…</div></div>
  return (
    <div class="split">
      <div class="list">
        {pins}
        <div class="row" style={{ flexWrap: "nowrap" }}>
          <button type="button" data-testid="refresh-tools" title="list the tools again (and check them against their pins)"
            onClick={() => setRefreshed((n) => n + 1)}>Refresh</button>
        </div>
        <input type="search" placeholder={`Search ${tools.length} tools`} aria-label="search tools" value={query}
          onInput={(e) => setQuery(e.currentTarget.value)} data-testid="tool-search" />
        {shown.map((t) => (
          <button class="list-item" data-testid="tool" data-name={t.name} aria-selected={t.name === selected} key={t.name}
            onClick={() => setSelected(t.name)}>
            <div><b>{t.name}</b> {annotationBadges(t)}</div>
            <div class="desc">{t.description}</div>
          </button>
        ))}
      </div>
      <div>{tool === undefined ? <div class="empty">Pick a tool.</div> : <ToolPanel server={server} tool={tool} />}</div>
    </div>
  )
}
