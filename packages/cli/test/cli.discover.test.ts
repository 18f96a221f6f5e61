/**
 * Configuration people already have: with no --config, the editors' and desktop apps' files are found (VS Code's
 * `servers` shape included) and the command says which one it used; `import` copies their servers into
 * ./.mcp.json.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { official, run } from "./fixtures/run.js"

/** A fresh folder with these JSON files (paths may have folders). */
const directory = (files: Readonly<Record<string, unknown>>) => {
  const dir = mkdtempSync(path.join(tmpdir(), "mcp-effect-discover-"))
  for (const [name, content] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, name)), { recursive: true })
    writeFileSync(path.join(dir, name), JSON.stringify(content))
  }
  return dir
}

const json = (text: string): unknown => JSON.parse(text)
const vscode = { servers: { demo: { type: "stdio", command: process.execPath, args: [official] } } }

describe("configuration files people already have", () => {
  it.live("VS Code's .vscode/mcp.json in the project, then Claude Desktop's in the home folder; the file used is named", () =>
    Effect.gen(function*() {
      const home = directory({})
      const project = directory({ ".vscode/mcp.json": vscode })
      const tools = yield* run(["tools", "--json"], { cwd: project, env: { HOME: home, XDG_CONFIG_HOME: "" } })
      assert.strictEqual(tools.code, 0, tools.stderr)
      assert.include((json(tools.stdout) as ReadonlyArray<{ name: string }>).map((t) => t.name), "echo")
      assert.strictEqual(tools.stderr, "mcp-effect: using .vscode/mcp.json (VS Code (workspace))\n")

      const desktop = directory({
        ".config/Claude/claude_desktop_config.json": { mcpServers: { claude: { command: process.execPath, args: [official] } } }
      })
      const elsewhere = directory({})
      const servers = yield* run(["servers", "--json"], { cwd: elsewhere, env: { HOME: desktop } })
      assert.strictEqual(servers.code, 0, servers.stderr)
      assert.deepStrictEqual((json(servers.stdout) as ReadonlyArray<{ name: string; ok: boolean }>).map((r) => [r.name, r.ok]), [["claude", true]])
      assert.strictEqual(
        servers.stderr,
        `mcp-effect: using ${path.join(desktop, ".config/Claude/claude_desktop_config.json")} (Claude Desktop)\n`
      )
    }))

  it.live("VS Code's inputs: without a terminal nothing is asked, and an entry that needs one names it", () =>
    Effect.gen(function*() {
      const project = directory({
        ".vscode/mcp.json": {
          inputs: [{ type: "promptString", id: "token", description: "API token", password: true }],
          servers: { ...vscode.servers, secret: { type: "stdio", command: process.execPath, args: [official], env: { TOKEN: "${input:token}" } } }
        }
      })
      const servers = yield* run(["servers", "--json"], { cwd: project, env: { HOME: directory({}) } })
      assert.strictEqual(servers.code, 1)
      const rows = json(servers.stdout) as ReadonlyArray<{ name: string; ok: boolean; error?: string }>
      assert.deepStrictEqual(rows.map((r) => [r.name, r.ok]), [["demo", true], ["secret", false]])
      assert.include(rows[1]?.error, "input token has no value")
    }))

  it.live("import copies the servers into ./.mcp.json, keeping the entries already there", () =>
    Effect.gen(function*() {
      const project = directory({
        ".vscode/mcp.json": { servers: { ...vscode.servers, kept: { command: "other" } } },
        ".mcp.json": { mcpServers: { kept: { command: "mine" } } }
      })
      const imported = yield* run(["import"], { cwd: project, env: { HOME: directory({}) } })
      assert.strictEqual(imported.code, 0, imported.stderr)
      assert.strictEqual(imported.stdout, `imported 1 from ${path.join(project, ".vscode/mcp.json")} into .mcp.json: demo\n`)
      assert.strictEqual(imported.stderr, "mcp-effect: kept the entries already in .mcp.json: kept\n")
      assert.deepStrictEqual(json(readFileSync(path.join(project, ".mcp.json"), "utf8")), {
        mcpServers: { kept: { command: "mine" }, demo: vscode.servers.demo }
      })
      // The imported entry is usable at once (./.mcp.json, now with two entries: --server).
      const call = yield* run(["call", "echo", "text=hi", "--server", "demo"], { cwd: project })
      assert.strictEqual(call.stdout, "hi\n")
    }))
  it.live("import writes VS Code's ${input:ID} as an environment reference, and says which variable to set", () =>
    Effect.gen(function*() {
      const project = directory({
        ".vscode/mcp.json": {
          inputs: [{ type: "promptString", id: "demo-era", description: "Which era" }],
          servers: {
            eras: { type: "stdio", command: process.execPath, args: [official, "--era", "${input:demo-era}"], env: { KEPT: "$${input:kept}" } },
            ...vscode.servers
          }
        }
      })
      const imported = yield* run(["import"], { cwd: project, env: { HOME: directory({}) } })
      assert.strictEqual(imported.code, 0, imported.stderr)
      assert.strictEqual(imported.stdout, `imported 2 from ${path.join(project, ".vscode/mcp.json")} into .mcp.json: eras, demo\n`)
      assert.strictEqual(
        imported.stderr,
        "mcp-effect: eras uses VS Code's input demo-era, which .mcp.json cannot ask for: written as ${DEMO_ERA}; " +
          "set DEMO_ERA in the environment to use it\n"
      )
      assert.deepStrictEqual(json(readFileSync(path.join(project, ".mcp.json"), "utf8")), {
        mcpServers: {
          eras: { type: "stdio", command: process.execPath, args: [official, "--era", "${DEMO_ERA}"], env: { KEPT: "$${input:kept}" } },
          demo: vscode.servers.demo
        }
      })
      // With the variable set, the imported entry reads and connects.
      const checked = yield* run(["servers", "--json"], { cwd: project, env: { DEMO_ERA: "legacy" } })
      const rows = json(checked.stdout) as ReadonlyArray<{ name: string; ok: boolean; era?: string }>
      assert.deepStrictEqual(rows.map((r) => [r.name, r.ok, r.era]), [["eras", true, "legacy"], ["demo", true, "modern"]], checked.stdout)
    }))
})
