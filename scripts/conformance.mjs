#!/usr/bin/env node
/**
 * `npm run conformance`: the official MCP conformance suite against our client.
 *
 * 1. Bundles packages/conformance/src/client.ts (and the library, from source) into one file,
 *    packages/conformance/dist/client.mjs, so the runner's dozens of parallel start-ups stay fast.
 * 2. Runs `conformance client --requirements <revision>` for 2025-11-25 and 2026-07-28 (on this Node: 22, the
 *    root's `node` devDependency, which `npm run` puts first on PATH), with packages/conformance/expected-failures.yml
 *    as the baseline.
 *    Each run's full output goes to packages/conformance/dist/conformance-<revision>.log.
 * 3. Runs the client scenarios in neither requirement set, one `conformance client --scenario NAME` each:
 *    the authorization extensions and the 2025-03-26 back-compatibility paths (EXTENSIONS below).
 *    A scenario that fails inside a set's parallel run is run once more alone (its log:
 *    conformance-<scenario>.log) and counted by that second run; the output names every such scenario.
 * 4. Prints one line per requirement set, `<revision>: N passed, M failed`, counting the scored client
 *    scenarios outside the baseline, and `extensions: N passed, M failed`; exits non-zero if any run had a
 *    failure not in the baseline (or a baseline entry that now passes) or an extension scenario failed. The
 *    runner itself is installed on first use into conformance-harness/.
 *
 * Options: `--revision <rev>` (repeatable) runs only those sets; `--no-extensions` skips step 3;
 * `--scenario <name>` (repeatable) runs only those scenarios, one by one; `--verbose` echoes the runner's
 * output.
 */
import { spawn, spawnSync } from "node:child_process"
import { createWriteStream, existsSync, mkdirSync, readFileSync } from "node:fs"
import { createRequire } from "node:module"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..")

// The suite and the client need Node 22: started by an older `node` (not through `npm run`), run again on the
// workspace's Node 22 (the `node` devDependency).
if (Number(process.versions.node.split(".")[0]) < 22) {
  const node22 = path.join(root, "node_modules", ".bin", "node")
  if (!existsSync(node22)) {
    console.error(`conformance: Node 22 is needed (this is ${process.version}); run npm install, then npm run conformance`)
    process.exit(2)
  }
  const again = spawnSync(node22, [fileURLToPath(import.meta.url), ...process.argv.slice(2)], { stdio: "inherit" })
  process.exit(again.status ?? 1)
}
const require = createRequire(path.join(root, "package.json"))
const pkg = path.join(root, "packages/conformance")
const bundle = path.join(pkg, "dist/client.mjs")
const baseline = path.join(pkg, "expected-failures.yml")

const args = process.argv.slice(2)
const verbose = args.includes("--verbose")
const chosen = args.flatMap((arg, i) => (arg === "--revision" && args[i + 1] !== undefined ? [args[i + 1]] : []))
const revisions = chosen.length > 0 ? chosen : ["2025-11-25", "2026-07-28"]
const only = args.flatMap((arg, i) => (arg === "--scenario" && args[i + 1] !== undefined ? [args[i + 1]] : []))
const withExtensions = !args.includes("--no-extensions")

/** Client scenarios in neither requirement set, run one by one (`--scenario`). */
const EXTENSIONS = [
  "auth/client-credentials-jwt",
  "auth/client-credentials-basic",
  "auth/enterprise-managed-authorization",
  "auth/dpop",
  "auth/dpop-nonce",
  "auth/wif-jwt-bearer",
  "auth/2025-03-26-oauth-metadata-backcompat",
  "auth/2025-03-26-oauth-endpoint-fallback",
  // Skills (SEP-2640): each passes only with its check run (a skipped check counts as a failure here).
  "sep-2640-client-no-prefetch",
  "sep-2640-client-verify-digest",
  "sep-2640-client-verify-size",
  "sep-2640-client-verify-frontmatter"
]

// The runner lives in conformance-harness/, outside the workspaces (it brings its own older MCP SDK and undici).
// Installed on first use.
const harness = path.join(root, "conformance-harness")
if (!existsSync(path.join(harness, "node_modules", "@modelcontextprotocol", "conformance", "package.json"))) {
  console.log("conformance: installing the runner (npm ci --prefix conformance-harness)")
  const installed = spawnSync("npm", ["ci", "--prefix", harness, "--no-audit", "--no-fund"], { stdio: "inherit" })
  if (installed.status !== 0) {
    console.error("conformance: could not install the runner")
    process.exit(2)
  }
}
const harnessRequire = createRequire(path.join(harness, "package.json"))
const packageDir = (name) => path.dirname(harnessRequire.resolve(`${name}/package.json`))

const suiteDir = packageDir("@modelcontextprotocol/conformance")
const cli = path.join(suiteDir, "dist/index.js")
const { parse: parseYaml } = createRequire(path.join(suiteDir, "package.json"))("yaml")

const fail = (message) => {
  console.error(`conformance: ${message}`)
  process.exit(2)
}

// --- 1. the bundle ---------------------------------------------------------------------------------------

const { build } = await import("esbuild")
mkdirSync(path.dirname(bundle), { recursive: true })
await build({
  entryPoints: [path.join(pkg, "src/client.ts")],
  outfile: bundle,
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node22",
  // Workspace packages resolve to their TypeScript sources.
  conditions: ["source"],
  // CommonJS dependencies (undici) call require() for Node built-ins.
  banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
  minify: true,
  legalComments: "none",
  logLevel: "warning"
})

// --- 2. the runs -----------------------------------------------------------------------------------------

const scoredClientScenarios = (revision) => {
  const file = path.join(suiteDir, "requirements", `${revision}.yaml`)
  if (!existsSync(file)) fail(`the installed suite has no requirement set ${revision}`)
  return parseYaml(readFileSync(file, "utf8")).client ?? []
}

// Every scenario starts in parallel: on a busy machine a client can need more than the suite's default 30 s.
const clientTimeout = 90_000
const cacheDir = path.join(pkg, "dist/compile-cache")

/**
 * One run of the suite's runner with our bundled client, both on this Node (22), its output written to `dist/conformance-<logName>.log`; resolves with the exit code and the output.
 */
const runRunner = (selection, logName) =>
  new Promise((resolve) => {
    const log = createWriteStream(path.join(pkg, "dist", `conformance-${logName}.log`))
    const child = spawn(
      process.execPath,
      [cli, "client", "--command", `${process.execPath} ${bundle}`, ...selection, "--timeout", String(clientTimeout)],
      {
        cwd: root,
        stdio: ["ignore", "pipe", "pipe"],
        env: {
          ...process.env,
          NO_COLOR: "1",
          // The client gives up (and exits 1) a little before the suite would kill it.
          MCP_EFFECT_DEADLINE_MS: String(clientTimeout - 5_000),
          // V8's code cache: the bundle is compiled once, not by each of the dozens of clients.
          NODE_COMPILE_CACHE: cacheDir
        }
      }
    )
    let stdout = ""
    let output = ""
    child.stdout.on("data", (chunk) => {
      stdout += chunk
      output += chunk
      log.write(chunk)
      if (verbose) process.stdout.write(chunk)
    })
    // The runner prints a single scenario's verdict on stderr.
    child.stderr.on("data", (chunk) => {
      output += chunk
      log.write(chunk)
      if (verbose) process.stderr.write(chunk)
    })
    child.on("close", (code) => log.end(() => resolve({ code: code ?? 1, stdout, output })))
  })

/** One requirement set, against the baseline. */
const runSet = (revision) =>
  runRunner(["--requirements", revision, "--expected-failures", baseline], revision).then(({ code, stdout }) => ({
    revision,
    code,
    stdout
  }))

/**
 * One scenario on its own: passed when the runner's verdict is PASSED (for the skills scenarios, which skip
 * their check when a client never lists skills, also with no check SKIPPED).
 */
const runScenario = (name) =>
  runRunner(["--scenario", name], name.replace(/\//g, "_")).then(({ code, output }) => ({
    name,
    passed: code === 0 && /OVERALL: PASSED/u.test(plain(output)) &&
      !(name.startsWith("sep-2640-") && /\bSKIPPED\b/u.test(plain(output)))
  }))

// eslint-disable-next-line no-control-regex
const plain = (text) => text.replace(/\u001b\[[0-9;]*m/g, "")

if (only.length > 0) {
  let allPassed = true
  for (const name of only) {
    const { passed } = await runScenario(name)
    console.log(`${passed ? "✓" : "✗"} ${name}`)
    allPassed &&= passed
  }
  process.exit(allPassed ? 0 : 1)
}

// The sets run one after the other: each already runs its scenarios in parallel.
const results = []
for (const revision of revisions) results.push(await runSet(revision))
const extensionResults = withExtensions ? await Promise.all(EXTENSIONS.map(runScenario)) : []

// --- 3. the verdict --------------------------------------------------------------------------------------

const expected = new Set(parseYaml(readFileSync(baseline, "utf8")).client ?? [])

let ok = true
const lines = []
for (const { revision, code, stdout } of results) {
  const text = plain(stdout)
  const outcome = new Map()
  for (const match of text.matchAll(/^([✓✗]) (\S+): \d+ passed, \d+ failed/gmu)) outcome.set(match[2], match[1] === "✓")
  const scored = scoredClientScenarios(revision)
  const missing = scored.filter((name) => !outcome.has(name))
  const unexpected = [...text.matchAll(/^\s+✗ (\S+)$/gmu)].map((match) => match[1])
  const stale = [...text.matchAll(/^\s+✓ (\S+)$/gmu)].map((match) => match[1])
  // The runner starts every scenario of a set at once; on a loaded machine a scenario's server can drop a kept-alive
  // socket or answer too late. A scenario that failed there is run once more, alone, and reported as such.
  const recovered = []
  for (const name of unexpected) {
    if ((await runScenario(name)).passed) {
      recovered.push(name)
      outcome.set(name, true)
    }
  }
  const stillFailing = unexpected.filter((name) => !recovered.includes(name))
  // The closing counts leave out the baseline entries (none today): they say how the rest fared.
  const counted = scored.filter((name) => !expected.has(name))
  const passed = counted.filter((name) => outcome.get(name) === true).length
  const failed = counted.length - passed
  console.log(`\n== ${revision} ==`)
  for (const name of scored) console.log(`  ${outcome.get(name) === true ? "✓" : "✗"} ${name}`)
  if (stillFailing.length > 0) console.log(`  unexpected failures: ${stillFailing.join(", ")}`)
  if (recovered.length > 0) {
    console.log(`  failed in the parallel run, passed when run again alone (see its log): ${recovered.join(", ")}`)
  }
  if (stale.length > 0) console.log(`  baseline entries now passing: ${stale.join(", ")}`)
  if (missing.length > 0) console.log(`  not run: ${missing.join(", ")}`)
  const explained = unexpected.length > 0 && stillFailing.length === 0 && stale.length === 0
  if ((code !== 0 && !explained) || missing.length > 0) ok = false
  lines.push(`${revision}: ${passed} passed, ${failed} failed`)
}
if (withExtensions) {
  console.log("\n== extensions and 2025-03-26 back-compatibility ==")
  for (const { name, passed } of extensionResults) console.log(`  ${passed ? "✓" : "✗"} ${name}`)
  const passed = extensionResults.filter((result) => result.passed).length
  if (passed !== extensionResults.length) ok = false
  lines.push(`extensions: ${passed} passed, ${extensionResults.length - passed} failed`)
}
console.log("")
for (const line of lines) console.log(line)
process.exit(ok ? 0 : 1)
