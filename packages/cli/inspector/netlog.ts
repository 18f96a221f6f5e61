/**
 * The Auth view's record: each OAuth step the page's client takes, seen on the wire. The page's `fetch` is
 * wrapped (this module is evaluated first) and only records: Protected Resource Metadata, authorization server
 * metadata (whose endpoints name the later steps), registration, token and refresh, and each 401 challenge;
 * `authorize` is the sign-in window, recorded by the page. A step that failed says why: the HTTP status and the
 * server's `error` and `error_description`. Nothing secret is kept: no body, no header value but the challenge.
 */

export type StepStatus = "running" | "ok" | "error" | "skipped"

export interface AuthStep {
  readonly seq: number
  readonly step: string
  readonly url: string
  status: StepStatus
  detail: string
  readonly at: number
}

export const steps: Array<AuthStep> = []
const listeners = new Set<() => void>()
export const onStep = (listener: () => void): void => void listeners.add(listener)
const notify = () => listeners.forEach((listener) => listener())

let seq = 0
const MAX_STEPS = 500
const endpoints = { registration: new Set<string>(), token: new Set<string>() }

export const addStep = (step: string, url: string, status: StepStatus, detail = ""): AuthStep => {
  const entry: AuthStep = { seq: ++seq, step, url, status, detail, at: Date.now() }
  steps.push(entry)
  if (steps.length > MAX_STEPS) steps.splice(0, steps.length - MAX_STEPS)
  notify()
  return entry
}

export const settle = (entry: AuthStep, status: StepStatus, detail: string): void => {
  entry.status = status
  entry.detail = detail
  notify()
}

const stepOf = (url: URL, method: string, body: unknown): string | undefined => {
  if (url.pathname.startsWith("/.well-known/oauth-protected-resource")) return "resource-metadata"
  if (url.pathname.includes("/.well-known/oauth-authorization-server") || url.pathname.includes("/.well-known/openid-configuration")) {
    return "authorization-server-metadata"
  }
  const bare = `${url.origin}${url.pathname}`
  if (method === "POST" && endpoints.registration.has(bare)) return "registration"
  if (method === "POST" && endpoints.token.has(bare)) {
    const text = body instanceof URLSearchParams ? body.toString() : typeof body === "string" ? body : ""
    return /(?:^|&)grant_type=refresh_token/.test(text) ? "refresh" : "token"
  }
  return undefined
}

/** Why a step failed, from its answer: the status and the OAuth error fields, bounded. */
const reasonOf = async (response: Response): Promise<string> => {
  const text = await response.text().catch(() => "")
  let fields = ""
  try {
    const value: unknown = JSON.parse(text)
    if (typeof value === "object" && value !== null) {
      const record = value as Record<string, unknown>
      fields = [record["error"], record["error_description"]].filter((v) => typeof v === "string").join(": ")
    }
  } catch {
    // Not JSON: the status says it.
  }
  return `HTTP ${response.status}${fields === "" ? "" : ` (${fields.slice(0, 300)})`}`
}

const learn = async (response: Response) => {
  const value: unknown = await response.json().catch(() => undefined)
  if (typeof value !== "object" || value === null) return
  const record = value as Record<string, unknown>
  if (typeof record["registration_endpoint"] === "string") endpoints.registration.add(record["registration_endpoint"])
  if (typeof record["token_endpoint"] === "string") endpoints.token.add(record["token_endpoint"])
}

const original = globalThis.fetch.bind(globalThis)

globalThis.fetch = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
  const request = new Request(input, init)
  const url = new URL(request.url)
  const step = url.origin === location.origin ? undefined : stepOf(url, request.method, init?.body)
  const dpop = request.headers.has("dpop") ? " · DPoP" : ""
  const entry = step === undefined ? undefined : addStep(step, `${url.origin}${url.pathname}`, "running")
  try {
    const response = await original(input, init)
    if (entry !== undefined) {
      if (response.ok) {
        settle(entry, "ok", `HTTP ${response.status}${dpop}`)
        if (step === "authorization-server-metadata") void learn(response.clone())
      } else {
        // A metadata document not at this address is looked for at the next one.
        const skipped = response.status === 404 && step?.endsWith("metadata") === true
        settle(entry, skipped ? "skipped" : "error", `${await reasonOf(response.clone())}${dpop}`)
      }
    } else if (response.status === 401 && url.origin !== location.origin) {
      addStep("challenge", `${url.origin}${url.pathname}`, "ok", response.headers.get("www-authenticate")?.slice(0, 300) ?? "401")
    }
    return response
  } catch (error) {
    if (entry !== undefined) settle(entry, "error", `not reached: ${error instanceof Error ? error.message : String(error)}`)
    throw error
  }
}
