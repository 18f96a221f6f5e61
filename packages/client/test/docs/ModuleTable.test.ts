/**
 * The module table of packages/client/README.md cannot drift from the package (issue 38): it lists every module
 * that `package.json`'s `exports` makes importable, and nothing else, and its Entry column says truly where each
 * one is reachable: `client` (a namespace of the portable entry, `src/index.ts`), `node` (a namespace of the Node
 * entry, `src/node.ts`, only) or `subpath` (`@mcp-effect/client/<Module>` only).
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { assert, describe, it } from "vitest"

const pkg = path.resolve(import.meta.dirname, "../..")
const src = path.join(pkg, "src")

/** The entry points: `.` is `src/index.ts`, and `src/node.ts` is the Node entry (both re-export modules). */
const entries = new Set(["index", "node"])

type Exports = Record<string, unknown>

/** A target's source path: the `source` condition of an export (every export of this package has one). */
const sourceOf = (target: unknown): string | undefined => {
  if (typeof target === "string") return target
  if (typeof target === "object" && target !== null && "source" in target && typeof target.source === "string") {
    return target.source
  }
  return undefined
}

/** `./internal/*` → /^\.\/internal\/(.*)$/: a subpath pattern of `exports` as a regular expression. */
const patternOf = (key: string): RegExp =>
  new RegExp(`^${key.split("*").map((part) => part.replace(/[.+?^${}()|[\]\\/]/g, "\\$&")).join("(.*)")}$`)

/** Every file under `dir`, as paths relative to the package with a leading `./`. */
const filesUnder = (dir: string): ReadonlyArray<string> =>
  fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name)
    return entry.isDirectory() ? filesUnder(full) : [`./${path.relative(pkg, full).split(path.sep).join("/")}`]
  })

/**
 * The modules `exports` makes importable: for each pattern export (`./*`), the source files its target matches,
 * as the subpath a user writes, minus what an export mapped to `null` (`./internal/*`) takes back.
 */
export const importableModules = (exports: Exports): ReadonlyArray<string> => {
  const blocked = Object.entries(exports).filter(([, target]) => target === null).map(([key]) => patternOf(key))
  const files = filesUnder(src)
  const subpaths = Object.entries(exports).flatMap(([key, target]) => {
    const source = sourceOf(target)
    if (!key.includes("*") || source === undefined) return []
    const match = patternOf(source)
    return files.flatMap((file) => {
      const star = match.exec(file)?.[1]
      return star === undefined || star.endsWith(".d") ? [] : [key.replace("*", star)]
    })
  })
  return [...new Set(subpaths)]
    .filter((subpath) => !blocked.some((pattern) => pattern.test(subpath)))
    .map((subpath) => subpath.slice(2))
    .filter((name) => !entries.has(name))
    .sort()
}

/** The rows of the README's module table: `| \`Name\` | \`entry\` | what |` under `## Modules`. */
export const tableOf = (readme: string): ReadonlyArray<{ readonly name: string; readonly entry: string }> => {
  const start = readme.indexOf("\n## Modules\n")
  assert.isAtLeast(start, 0, "packages/client/README.md has a '## Modules' section")
  const end = readme.indexOf("\n## ", start + 1)
  const section = readme.slice(start, end === -1 ? undefined : end)
  return [...section.matchAll(/^\| `([^`]+)` \| `([^`]+)` \|/gm)].map((row) => ({ name: row[1] ?? "", entry: row[2] ?? "" }))
}

/** The modules an entry file re-exports as namespaces: `export * as Name from "./Name.js"`. */
const namespacesOf = (file: string): ReadonlySet<string> =>
  new Set(
    [...fs.readFileSync(path.join(src, file), "utf8").matchAll(/^export \* as (\w+) from "\.\/(\w+)\.js"/gm)]
      .filter((match) => match[1] === match[2])
      .map((match) => match[1] ?? "")
  )

const exports = (JSON.parse(fs.readFileSync(path.join(pkg, "package.json"), "utf8")) as { readonly exports: Exports })
  .exports
const modules = importableModules(exports)
const table = tableOf(fs.readFileSync(path.join(pkg, "README.md"), "utf8"))

describe("packages/client/README.md's module table", () => {
  it("the package has modules to list, and both entry points exist", () => {
    assert.isAbove(modules.length, 30)
    assert.include(modules, "McpClient")
    assert.notInclude(modules, "internal/peer")
    for (const entry of entries) assert.isTrue(fs.existsSync(path.join(src, `${entry}.ts`)), entry)
  })

  it("lists every importable module once, and nothing that is not one", () => {
    const listed = table.map((row) => row.name)
    assert.deepStrictEqual(modules.filter((name) => !listed.includes(name)), [], "importable but not in the table")
    assert.deepStrictEqual(listed.filter((name) => !modules.includes(name)), [], "in the table but not importable")
    assert.deepStrictEqual(listed.filter((name, i) => listed.indexOf(name) !== i), [], "listed twice")
  })

  it("says truly which entry each module is reachable from", () => {
    const portable = namespacesOf("index.ts")
    const node = namespacesOf("node.ts")
    const actual = (name: string) => portable.has(name) ? "client" : node.has(name) ? "node" : "subpath"
    assert.deepStrictEqual(
      table.filter((row) => row.entry !== actual(row.name)).map((row) => `${row.name}: says ${row.entry}, is ${actual(row.name)}`),
      []
    )
  })
})
