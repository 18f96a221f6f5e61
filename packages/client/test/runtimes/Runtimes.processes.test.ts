/**
 * The packed client in Bun, Deno and Node 24 (besides the repo's Node 22), each against the official demo
 * server in both eras: the Effect API on the runtime's `fetch` (`McpTransport.layerHttp` + `FetchHttpClient`),
 * the Promise API's `connectHttp` from the portable main entry, and `connectStdio` from the Node entry. Each
 * script runs once per runtime × era × API and reports every capability; the tests below read that report,
 * one test per capability, named runtime × era × capability (API).
 */
import { afterAll, beforeAll, describe } from "vitest"
import { capabilityTests } from "./fixtures/capabilities.js"
import {
  node22,
  officialHttp,
  officialServer,
  once,
  packedProject,
  runScript,
  runtimes,
  limit,
} from "./fixtures/project.js"
import type { Era, PackedProject, RunningServer, ScriptRun } from "./fixtures/project.js"

let project: PackedProject | undefined
const servers = new Map<Era, RunningServer>()

beforeAll(async () => {
  project = packedProject()
  const [modern, legacy] = await Promise.all([officialHttp("modern"), officialHttp("legacy")])
  servers.set("modern", modern)
  servers.set("legacy", legacy)
}, 240_000)

afterAll(async () => {
  await Promise.all([...servers.values()].map((server) => server.stop()))
  project?.remove()
})

const ready = () => {
  if (project === undefined) throw new Error("the packed project is not installed")
  return project
}

const urlOf = (era: Era) => {
  const server = servers.get(era)
  if (server === undefined) throw new Error(`no ${era} server`)
  return server.url
}

/** How each runtime starts a script of the packed project. */
const commands = {
  Bun: (script: string) => [runtimes.bun.command, ...runtimes.bun.args, script],
  Deno: (script: string) => [runtimes.deno.command, ...runtimes.deno.args, script],
  "Node 24": (script: string) => [ready().node24, script]
} as const

/** The three ways in: the script and its arguments for an era. */
const apis = {
  "Effect API, fetch": { script: "effect-http.mjs", args: (era: Era) => [urlOf(era)], cancelledBy: "interruption" },
  "Promise connectHttp": { script: "promise-http.mjs", args: (era: Era) => [urlOf(era)], cancelledBy: "reason" },
  "stdio connectStdio": {
    script: "stdio.mjs",
    args: (era: Era) => [node22, officialServer, era],
    cancelledBy: "reason"
  }
} as const

// Deno must not look for updates (CI has the npm registry only).
const runtimeEnv = { DENO_NO_UPDATE_CHECK: "1", DENO_NO_PROMPT: "1" }

const eras: ReadonlyArray<Era> = ["modern", "legacy"]

/** Three scripts at a time: each mostly waits on its servers, so this shortens the file without starving CI. */
const slot = limit(3)
/** Every run, started as soon as the project and servers are ready (the tests then read their reports). */
const runs: Array<() => Promise<ScriptRun>> = []

beforeAll(() => {
  // A run that fails is reported by the tests that await it (the same memoized promise), not here.
  for (const run of runs) run().catch(() => undefined)
})

for (const [runtime, command] of Object.entries(commands)) {
  for (const [api, { args, cancelledBy, script }] of Object.entries(apis)) {
    for (const era of eras) {
      describe(`${runtime} × ${era} × ${api}`, () => {
        const run = once(() =>
          slot((): Promise<ScriptRun> => {
            const [bin, ...rest] = command(script)
            if (bin === undefined) throw new Error("no command")
            return runScript(bin, [...rest, ...args(era)], ready().dir, runtimeEnv)
          })
        )
        runs.push(run)

        capabilityTests({ runtime, era, api, run, cancelledBy, timeout: 90_000 })
      })
    }
  }
}
