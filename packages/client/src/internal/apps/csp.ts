/**
 * The inner frame's policy: the CSP built from the resource's declared domains (the spec's restrictive
 * default when none are declared), the `sandbox` tokens an App may have, and the permissions it was granted.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import { McpAppsError } from "./errors.js"
import type { ResourceUi } from "./resource.js"

/** The declared permissions, in the names of `_meta.ui.permissions`. @internal */
export type Permission = "camera" | "microphone" | "geolocation" | "clipboardWrite"

const PERMISSIONS: ReadonlyArray<Permission> = ["camera", "microphone", "geolocation", "clipboardWrite"]

/** The Permissions Policy feature of each permission (the iframe's `allow`). */
const FEATURE: Readonly<Record<Permission, string>> = {
  camera: "camera",
  microphone: "microphone",
  geolocation: "geolocation",
  clipboardWrite: "clipboard-write"
}

/**
 * Why a declared source is refused, or `undefined`. A source is one host source (`https://api.example.com`,
 * `wss://*.example.com:443`, `cdn.example.com/path`): `;` would end the directive and start another, quotes
 * would add a keyword (`'unsafe-eval'`), `<`/`>` would end the `<meta>` element, whitespace or `,` would add a
 * second source; a bare `*` or a bare scheme (`https:`) would allow every host, which declares no domain.
 *
 * @internal
 */
export const sourceProblem = (source: unknown): string | undefined => {
  if (typeof source !== "string") return "not a string"
  if (source.length === 0) return "empty"
  if (source.length > 512) return "longer than 512 characters"
  const bad = /[;'"<>,\s\u0000-\u001f\u007f\\]/.exec(source)
  if (bad !== null) return `it contains ${JSON.stringify(bad[0])}`
  if (!/^(?:[a-z][a-z0-9+.-]*:\/\/)?(?:\*\.)?[a-z0-9-]+(?:\.[a-z0-9-]+)*(?::(?:\d{1,5}|\*))?(?:\/[^?#]*)?$/i.test(source)) {
    return "not a host source (scheme://host[:port][/path])"
  }
  return undefined
}

const domainsOf = (
  ui: ResourceUi,
  key: "connectDomains" | "resourceDomains" | "frameDomains" | "baseUriDomains",
  subject: string
): Effect.Effect<ReadonlyArray<string>, McpAppsError> => {
  const declared: unknown = ui.csp?.[key]
  if (declared === undefined) return Effect.succeed([])
  if (!Array.isArray(declared)) {
    return Effect.fail(new McpAppsError({ reason: "invalid-csp", detail: `csp.${key} is not a list`, subject }))
  }
  for (const source of declared as ReadonlyArray<unknown>) {
    const problem = sourceProblem(source)
    if (problem !== undefined) {
      return Effect.fail(
        new McpAppsError({ reason: "invalid-csp", detail: `csp.${key} source ${JSON.stringify(source)} refused: ${problem}`, subject })
      )
    }
  }
  return Effect.succeed(declared as ReadonlyArray<string>)
}

/**
 * The Content Security Policy of the App's document. With nothing declared it is the spec's restrictive
 * default (no network at all, inline script and style only); each declared list opens only its directives,
 * and nothing undeclared is ever allowed. A source that could break out of the policy refuses the resource.
 *
 * @internal
 */
export const buildCsp = (ui: ResourceUi, subject: string): Effect.Effect<string, McpAppsError> =>
  Effect.gen(function*() {
    const connect = yield* domainsOf(ui, "connectDomains", subject)
    const resource = yield* domainsOf(ui, "resourceDomains", subject)
    const frame = yield* domainsOf(ui, "frameDomains", subject)
    const baseUri = yield* domainsOf(ui, "baseUriDomains", subject)
    const list = (base: ReadonlyArray<string>, extra: ReadonlyArray<string>, none: string) =>
      base.length + extra.length === 0 ? none : [...base, ...extra].join(" ")
    return [
      "default-src 'none'",
      `script-src ${list(["'self'", "'unsafe-inline'"], resource, "")}`,
      `style-src ${list(["'self'", "'unsafe-inline'"], resource, "")}`,
      `img-src ${list(["'self'", "data:"], resource, "")}`,
      `font-src ${list(["'self'", "data:"], resource, "")}`,
      `media-src ${list(["'self'", "data:"], resource, "")}`,
      `connect-src ${list([], connect, "'none'")}`,
      `frame-src ${list([], frame, "'none'")}`,
      `base-uri ${list([], baseUri, "'self'")}`,
      "object-src 'none'",
      "form-action 'none'"
    ].join("; ")
  })

/** The `sandbox` tokens an App may ask for besides `allow-scripts`; `allow-same-origin` is never one of them. */
const OPTIONAL_SANDBOX: ReadonlySet<string> = new Set(["allow-forms", "allow-popups", "allow-modals", "allow-downloads"])

/**
 * The inner frame's `sandbox`: `allow-scripts`, plus the tokens of the server's value that the allow-list has.
 * `allow-same-origin` (which would give the App the sandbox origin's storage and DOM) and anything unknown are
 * dropped, whatever the server asks.
 *
 * @internal
 */
export const sandboxTokens = (requested: string | undefined): string => {
  const extra = (requested ?? "").split(/\s+/).filter((token) => OPTIONAL_SANDBOX.has(token))
  return ["allow-scripts", ...new Set(extra)].join(" ")
}

/** The permissions the resource declares (the keys of `_meta.ui.permissions` the spec knows). @internal */
export const declaredPermissions = (ui: ResourceUi): ReadonlyArray<Permission> => {
  const declared: unknown = ui.permissions
  if (typeof declared !== "object" || declared === null) return []
  return PERMISSIONS.filter((permission) => permission in declared)
}

/** The frame's `allow` attribute for granted permissions (empty: none). @internal */
export const allowAttribute = (granted: ReadonlyArray<Permission>): string =>
  granted.map((permission) => FEATURE[permission]).join("; ")

/**
 * The App's document with its policy first: a CSP `<meta>` placed after the doctype, before anything of the
 * App's, so that no script of the App runs under a looser policy (a later policy can only narrow it).
 *
 * @internal
 */
export const withPolicy = (html: string, csp: string): string => {
  const meta = `<meta http-equiv="Content-Security-Policy" content="${csp}">`
  const doctype = /^\s*<!doctype[^>]*>/i.exec(html)
  return doctype === null ? `${meta}${html}` : `${doctype[0]}${meta}${html.slice(doctype[0].length)}`
}
