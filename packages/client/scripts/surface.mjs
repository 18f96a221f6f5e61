// Lists the public surface of `@mcp-effect/client`: every module a user can import (the `exports` of
// package.json: "." and each file "./*" resolves to, "./internal/*" being blocked) and every name each exports,
// read from the built declarations (`dist/*.d.ts`) with the TypeScript compiler. Build first (`npm run build`).
//
//   node packages/client/scripts/surface.mjs           a summary line, then one line per module
//   node packages/client/scripts/surface.mjs --names   the same, each module followed by its names
//   node packages/client/scripts/surface.mjs --json    { modules: { specifier: [names] }, totals }
//
// It exists so that a change to the surface is a change one can count: run it before and after.
import * as Fs from "node:fs"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import ts from "typescript"

const root = Path.resolve(Path.dirname(fileURLToPath(import.meta.url)), "..")
const pkg = JSON.parse(Fs.readFileSync(Path.join(root, "package.json"), "utf8"))
const dist = Path.join(root, "dist")

const typesOf = (target) => (typeof target === "string" ? target : target?.types)

// Every specifier the `exports` map opens, with the declaration file it resolves to. A pattern "./*" opens one
// module per top-level declaration file (its subfolders are `internal/`, blocked by `"./internal/*": null`);
// "./index" is the same file as "." and is listed once, as ".".
const modules = new Map()
for (const [key, target] of Object.entries(pkg.exports)) {
  const types = typesOf(target)
  if (types === undefined || !types.endsWith(".d.ts")) continue
  if (!key.includes("*")) {
    modules.set(`${pkg.name}${key.slice(1)}`, Path.join(root, types))
    continue
  }
  const [keyHead, keyTail] = key.split("*")
  const [typesHead, typesTail] = types.split("*")
  const folder = Path.join(root, typesHead)
  for (const file of Fs.readdirSync(folder).sort()) {
    if (!file.endsWith(typesTail)) continue
    const stem = file.slice(0, -typesTail.length)
    const specifier = `${keyHead}${stem}${keyTail}`
    if (pkg.exports[specifier] === null) continue
    const path = Path.join(folder, file)
    if ([...modules.values()].includes(path)) continue
    modules.set(`${pkg.name}${specifier.slice(1)}`, path)
  }
}

if (!Fs.existsSync(dist)) {
  console.error(`no ${dist}: build first (npm run build)`)
  process.exit(1)
}

const program = ts.createProgram([...modules.values()], { noEmit: true, skipLibCheck: true, types: [] })
const checker = program.getTypeChecker()
const surface = {}
for (const [specifier, path] of modules) {
  const source = program.getSourceFile(path)
  const symbol = source === undefined ? undefined : checker.getSymbolAtLocation(source)
  surface[specifier] = symbol === undefined ? [] : checker.getExportsOfModule(symbol).map((s) => s.name).sort()
}

const totals = {
  modules: Object.keys(surface).length,
  exports: Object.values(surface).reduce((n, names) => n + names.length, 0)
}
if (process.argv.includes("--json")) {
  console.log(JSON.stringify({ totals, modules: surface }, null, 2))
} else {
  console.log(`${totals.modules} modules, ${totals.exports} exports`)
  for (const [specifier, names] of Object.entries(surface)) {
    console.log(`${specifier}  ${names.length}`)
    if (process.argv.includes("--names")) for (const name of names) console.log(`  ${name}`)
  }
}
