/**
 * Command line of the scripted server, and the "profile" each `--mode` stands for.
 */
import { parseArgs } from "node:util"

export const MODERN_VERSION = "2026-07-28"
/** Legacy revisions, newest first. */
export const LEGACY_VERSIONS: ReadonlyArray<string> = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"]

export const MODES = [
  "modern",
  "legacy",
  "legacy-silent",
  "legacy-exit",
  "unsupported-version",
  "garbage",
  "not-discover"
] as const
export type Mode = (typeof MODES)[number]

/** What a legacy-era process does with `server/discover`. */
export type DiscoverInLegacy = "error" | "silent" | "exit" | "not-discover"

/** The behaviour a mode stands for; the server consults only this, never the mode name. */
export interface Profile {
  /** Era of the process until a successful `initialize` switches it to legacy. */
  readonly startEra: "modern" | "legacy"
  /** Versions accepted in modern requests' `_meta`. */
  readonly modernVersions: ReadonlyArray<string>
  /** `supportedVersions` of `server/discover` and `data.supported` of `-32022`. */
  readonly advertisedVersions: ReadonlyArray<string>
  /** Versions `initialize` can negotiate; empty means `initialize` is refused. */
  readonly legacyVersions: ReadonlyArray<string>
  /** How a modern process refuses `initialize` when `legacyVersions` is empty. */
  readonly initializeRefusal: "method-not-found" | "unsupported-version"
  readonly discoverInLegacy: DiscoverInLegacy
  /** Write junk lines before every response. */
  readonly garbage: boolean
}

export interface Options {
  readonly mode: Mode
  readonly profile: Profile
  readonly dual: boolean
  readonly legacyVersion: string | undefined
  readonly discoverErrorCode: number
  readonly supported: ReadonlyArray<string>
  readonly discoverDelayMs: number
  readonly exitAfter: number | undefined
  readonly stderrNoise: number
  readonly ignoreStdinClose: boolean
  readonly ttlMs: number
  readonly ttlScope: "public" | "private"
  readonly pageSize: number | undefined
  readonly endlessPages: boolean
  /** Filter fields the server leaves out of every listen acknowledgement. */
  readonly listenDrop: ReadonlyArray<string>
}

export const USAGE = `usage: scripted.js [--mode MODE] [options]
  --mode modern|legacy|legacy-silent|legacy-exit|unsupported-version|garbage|not-discover   (default modern)
  --dual                     modern/garbage: also accept initialize (the process then turns legacy)
  --legacy-version V         version answered to initialize, whatever the client asked for
  --discover-error CODE      legacy: error code for server/discover and pre-initialize requests (default -32601)
  --supported LIST           unsupported-version: comma-separated supported versions (default 2026-09-01)
  --discover-delay MS        delay the answer to server/discover
  --exit-after N             exit with code 3 on receiving the Nth message (it is not handled)
  --stderr-noise N           write N lines of noise to stderr at start
  --ignore-stdin-close       keep running after stdin closes, and ignore SIGTERM
  --ttl MS                   ttlMs of list results and resources/read (default 0; negative allowed)
  --ttl-scope public|private cacheScope of list results and resources/read (default public)
  --page-size N              tools/list page size (default: one page)
  --endless-pages            tools/list always returns a nextCursor
  --listen-drop LIST         comma-separated filter fields never granted by subscriptions/listen`

const fail = (message: string): never => {
  process.stderr.write(`scripted: ${message}\n${USAGE}\n`)
  process.exit(2)
}

const integer = (name: string, value: string | undefined, min: number): number | undefined => {
  if (value === undefined) return undefined
  const parsed = Number(value)
  return Number.isInteger(parsed) && parsed >= min ? parsed : fail(`invalid --${name}: ${value}`)
}

const list = (value: string): ReadonlyArray<string> =>
  value
    .split(",")
    .map((item) => item.trim())
    .filter((item) => item.length > 0)

const profileFor = (mode: Mode, dual: boolean, supported: ReadonlyArray<string>): Profile => {
  const modern: Profile = {
    startEra: "modern",
    modernVersions: [MODERN_VERSION],
    advertisedVersions: [MODERN_VERSION],
    legacyVersions: dual ? LEGACY_VERSIONS : [],
    initializeRefusal: "method-not-found",
    discoverInLegacy: "error",
    garbage: false
  }
  const legacy: Profile = { ...modern, startEra: "legacy", modernVersions: [], legacyVersions: LEGACY_VERSIONS }
  switch (mode) {
    case "modern":
      return modern
    case "garbage":
      return { ...modern, garbage: true }
    case "legacy":
      return legacy
    case "legacy-silent":
      return { ...legacy, discoverInLegacy: "silent" }
    case "legacy-exit":
      return { ...legacy, discoverInLegacy: "exit" }
    case "not-discover":
      return { ...legacy, discoverInLegacy: "not-discover" }
    case "unsupported-version":
      return {
        ...modern,
        modernVersions: supported.filter((version) => !LEGACY_VERSIONS.includes(version)),
        advertisedVersions: supported,
        legacyVersions: LEGACY_VERSIONS.filter((version) => supported.includes(version)),
        initializeRefusal: "unsupported-version"
      }
  }
}

const VALUE_OPTIONS = [
  "--mode",
  "--legacy-version",
  "--discover-error",
  "--supported",
  "--discover-delay",
  "--exit-after",
  "--stderr-noise",
  "--ttl",
  "--ttl-scope",
  "--page-size",
  "--listen-drop"
]

/** `--opt VALUE` → `--opt=VALUE`, so that negative numbers (`--discover-error -32602`) are values, not options. */
const joinValues = (argv: ReadonlyArray<string>): Array<string> => {
  const joined: Array<string> = []
  for (let index = 0; index < argv.length; index++) {
    const arg = argv[index] ?? ""
    const next = argv[index + 1]
    if (VALUE_OPTIONS.includes(arg) && next !== undefined) {
      joined.push(`${arg}=${next}`)
      index++
    } else {
      joined.push(arg)
    }
  }
  return joined
}

export const parseOptions = (argv: ReadonlyArray<string>): Options => {
  const parsed = (() => {
    try {
      return parseArgs({
        args: joinValues(argv),
        options: {
          mode: { type: "string", default: "modern" },
          dual: { type: "boolean", default: false },
          "legacy-version": { type: "string" },
          "discover-error": { type: "string", default: "-32601" },
          supported: { type: "string", default: "2026-09-01" },
          "discover-delay": { type: "string", default: "0" },
          "exit-after": { type: "string" },
          "stderr-noise": { type: "string", default: "0" },
          "ignore-stdin-close": { type: "boolean", default: false },
          ttl: { type: "string", default: "0" },
          "ttl-scope": { type: "string", default: "public" },
          "page-size": { type: "string" },
          "endless-pages": { type: "boolean", default: false },
          "listen-drop": { type: "string", default: "" },
          help: { type: "boolean", short: "h", default: false }
        },
        strict: true,
        allowPositionals: false
      }).values
    } catch (error) {
      return fail(error instanceof Error ? error.message : String(error))
    }
  })()
  if (parsed.help) {
    process.stdout.write(`${USAGE}\n`)
    process.exit(0)
  }
  const mode = MODES.find((candidate) => candidate === parsed.mode) ?? fail(`unknown --mode: ${parsed.mode}`)
  const scope = parsed["ttl-scope"]
  const ttlScope = scope === "public" || scope === "private" ? scope : fail(`invalid --ttl-scope: ${scope}`)
  const discoverErrorCode = Number(parsed["discover-error"])
  if (!Number.isInteger(discoverErrorCode)) fail(`invalid --discover-error: ${parsed["discover-error"]}`)
  const supported = list(parsed.supported)
  return {
    mode,
    profile: profileFor(mode, parsed.dual, supported),
    dual: parsed.dual,
    legacyVersion: parsed["legacy-version"],
    discoverErrorCode,
    supported,
    discoverDelayMs: integer("discover-delay", parsed["discover-delay"], 0) ?? 0,
    exitAfter: integer("exit-after", parsed["exit-after"], 1),
    stderrNoise: integer("stderr-noise", parsed["stderr-noise"], 0) ?? 0,
    ignoreStdinClose: parsed["ignore-stdin-close"],
    ttlMs: integer("ttl", parsed.ttl, Number.MIN_SAFE_INTEGER) ?? 0,
    ttlScope,
    pageSize: integer("page-size", parsed["page-size"], 1),
    endlessPages: parsed["endless-pages"],
    listenDrop: list(parsed["listen-drop"])
  }
}
