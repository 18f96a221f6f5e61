#!/usr/bin/env node
/**
 * Bundles the `mcp-effect` command (packages/cli/src/main.ts, with the library, effect and every other
 * dependency, from source) into packages/cli/dist/bundle/: `mcp-effect.js`, the entry, and `chunks/*.js`, the
 * parts a command loads only when it needs them (the client, the HTTP transport, sign-in). The published
 * package is that folder and bin/mcp-effect.js, and nothing else: no dependency to install, and start-up is
 * not module resolution. Source maps are kept (`*.js.map`, with the sources) so that a stack trace names our
 * files (the bin turns them on).
 *
 * The inspector's page (`mcp-effect inspect`, packages/cli/inspector/, preact through esbuild's JSX) is bundled
 * first, for the browser, into one script that the CLI bundle carries as a string (the `inspector:page` module):
 * nothing is downloaded at run time, and a command other than `inspect` never loads it.
 *
 * The chunk that carries the page's script gets no source map: its map would only repeat the page (already
 * minified, some 840 KB) as the source of a string, naming nothing a stack trace needs, in every install.
 *
 * Run by `npm run build` after tsc; `node scripts/bundle-cli.mjs` alone rebuilds the bundle.
 */
import { readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..")
const pkg = path.join(root, "packages/cli")
const outdir = path.join(pkg, "dist/bundle")

const { build } = await import("esbuild")
rmSync(outdir, { recursive: true, force: true })

const inspector = await build({
  entryPoints: [path.join(pkg, "inspector/main.tsx")],
  bundle: true,
  write: false,
  platform: "browser",
  format: "esm",
  target: "chrome120",
  jsx: "automatic",
  jsxImportSource: "preact",
  conditions: ["source"],
  minify: true,
  legalComments: "none",
  logLevel: "warning"
})
const pageScript = inspector.outputFiles[0]?.text ?? ""

/** `import script from "inspector:page"`: the page's script, as a string. */
const inspectorPage = {
  name: "inspector-page",
  setup(build) {
    build.onResolve({ filter: /^inspector:page$/ }, () => ({ path: "inspector:page", namespace: "inspector-page" }))
    build.onLoad({ filter: /.*/, namespace: "inspector-page" }, () => ({
      contents: `export default ${JSON.stringify(pageScript)}`,
      loader: "js"
    }))
  }
}

await build({
  plugins: [inspectorPage],
  entryPoints: { "mcp-effect": path.join(pkg, "src/main.ts") },
  outdir,
  bundle: true,
  splitting: true,
  chunkNames: "chunks/[name]-[hash]",
  platform: "node",
  format: "esm",
  target: "node22",
  // Workspace packages resolve to their TypeScript sources.
  conditions: ["source"],
  // CommonJS dependencies (undici) call require() for Node built-ins.
  banner: {
    js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);"
  },
  minify: true,
  sourcemap: true,
  legalComments: "none",
  logLevel: "warning"
})

/** Drops the map of every chunk whose sources include the page's script, and the chunk's link to it. */
const chunks = path.join(outdir, "chunks")
for (const name of readdirSync(chunks).filter((file) => file.endsWith(".js.map"))) {
  const map = path.join(chunks, name)
  const { sources } = JSON.parse(readFileSync(map, "utf8"))
  if (!sources.some((source) => source.startsWith("inspector-page:"))) continue
  const script = map.slice(0, -".map".length)
  const code = readFileSync(script, "utf8").replace(`\n//# sourceMappingURL=${name}\n`, "\n")
  writeFileSync(script, code)
  rmSync(map)
}
