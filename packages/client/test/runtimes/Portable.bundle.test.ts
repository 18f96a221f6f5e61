/**
 * The portable core (issue 26, item 1), checked on every build: the main entry bundles for a browser and for a
 * Worker with no externals, shims or polyfills (esbuild follows lazy `import()`s too, so none may reach a `node:`
 * module or a Node-only package), and no module of the package imports itself back (import cycles).
 * The real runtimes run the bundle in `test/runtimes/`.
 */
import * as esbuild from "esbuild"
import * as fs from "node:fs"
import * as path from "node:path"
import { assert, describe, it } from "vitest"

const dist = path.resolve(import.meta.dirname, "../../dist")

const bundle = (platform: "browser" | "neutral", conditions: ReadonlyArray<string>) =>
  esbuild.build({
    entryPoints: [path.join(dist, "index.js")],
    bundle: true,
    platform,
    format: "esm",
    conditions: [...conditions],
    mainFields: ["browser", "module", "main"],
    write: false,
    splitting: true,
    outdir: path.join(dist, ".bundle-check"),
    metafile: true,
    logLevel: "silent"
  }).then(
    (result) => ({ errors: [] as ReadonlyArray<string>, inputs: Object.keys(result.metafile.inputs) }),
    (error: { readonly errors?: ReadonlyArray<{ readonly text: string }> }) => ({
      errors: (error.errors ?? []).map((e) => e.text),
      inputs: [] as ReadonlyArray<string>
    })
  )

/** Runtime import edges between the package's own built modules. */
const importGraph = () => {
  const graph = new Map<string, ReadonlyArray<string>>()
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const file = path.join(dir, entry.name)
      if (entry.isDirectory() && !entry.name.startsWith(".")) walk(file)
      else if (file.endsWith(".js")) {
        const source = fs.readFileSync(file, "utf8")
        const imports = [...source.matchAll(/^(?:import|export)\s[^;]*?from\s+"(\.[^"]+)"/gm)]
        graph.set(file, imports.map((match) => path.resolve(path.dirname(file), match[1] ?? "")))
      }
    }
  }
  walk(dist)
  return graph
}

describe("the main entry is portable", () => {
  for (const target of [
    { platform: "browser", conditions: ["browser"], name: "a browser page" },
    { platform: "neutral", conditions: ["workerd", "worker", "browser"], name: "a Cloudflare Worker" }
  ] as const) {
    it(`bundles for ${target.name} with no externals: no node: module, no Node-only package, no Node wing`, async () => {
      const { errors, inputs } = await bundle(target.platform, target.conditions)
      assert.deepStrictEqual(errors, [])
      const nodeOnly = inputs.filter((input) =>
        input.startsWith("node:") || /node_modules\/(undici|@effect\/platform-node|redis|@redis)\//.test(input) ||
        /\/dist\/(internal\/node\/|Node[A-Z])/.test(input)
      )
      assert.deepStrictEqual(nodeOnly, [])
      assert.isTrue(inputs.some((input) => input.endsWith("internal/transport/http.js")))
    }, 60_000)
  }

  it("McpToolSchema and McpCodegen are in the index, and a page that uses neither carries none of their code", async () => {
    // The built entry, as a package user gets it (vitest would resolve `@mcp-effect/client` to the sources).
    const index: typeof import("@mcp-effect/client") = await import(path.join(dist, "index.js"))
    assert.strictEqual(typeof index.McpToolSchema.fromJsonSchema, "function")
    assert.strictEqual(typeof index.McpCodegen.toolsModule, "function")
    const result = await esbuild.build({
      stdin: {
        contents: `import { connectHttp } from ${JSON.stringify(path.join(dist, "index.js"))}\nconsole.log(connectHttp)\n`,
        resolveDir: dist
      },
      bundle: true,
      minify: true,
      platform: "browser",
      format: "esm",
      write: false,
      metafile: true,
      logLevel: "silent"
    })
    const carried = Object.values(result.metafile.outputs).flatMap((output) =>
      Object.entries(output.inputs).filter(([input, { bytesInOutput }]) =>
        bytesInOutput > 0 && /(McpToolSchema|McpCodegen|internal\/toolSchema|internal\/codegen)\.js$/.test(input)
      ).map(([input]) => input)
    )
    assert.deepStrictEqual(carried, [])
    assert.isTrue(Object.keys(result.metafile.inputs).some((input) => input.endsWith("internal/transport/http.js")))
  }, 60_000)

  it("no import cycle among the package's modules", () => {
    const graph = importGraph()
    const cycles: Array<string> = []
    const state = new Map<string, "open" | "done">()
    const stack: Array<string> = []
    const visit = (file: string) => {
      state.set(file, "open")
      stack.push(file)
      for (const next of graph.get(file) ?? []) {
        if (state.get(next) === "open") {
          cycles.push(stack.slice(stack.indexOf(next)).map((f) => path.relative(dist, f)).join(" -> "))
        } else if (!state.has(next)) visit(next)
      }
      stack.pop()
      state.set(file, "done")
    }
    for (const file of graph.keys()) if (!state.has(file)) visit(file)
    assert.deepStrictEqual(cycles, [])
  })
})
