/**
 * The release's numbers (issue 33, item 18): every workspace package carries the release's version, every
 * dependency between them names it, and the changelog (CHANGELOG.md) and the README's install recipe speak of the
 * same number.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { assert, describe, it } from "vitest"

const repo = path.resolve(import.meta.dirname, "../../../..")

interface Manifest {
  readonly name: string
  readonly version: string
  readonly dependencies?: Record<string, string>
  readonly devDependencies?: Record<string, string>
  readonly peerDependencies?: Record<string, string>
}

const readJson = (file: string): unknown => JSON.parse(fs.readFileSync(path.join(repo, file), "utf8"))

const workspaces = (readJson("package.json") as { readonly workspaces: ReadonlyArray<string> }).workspaces
  .flatMap((pattern) =>
    pattern.endsWith("/*")
      ? fs.readdirSync(path.join(repo, pattern.slice(0, -2))).map((dir) => `${pattern.slice(0, -2)}/${dir}`)
      : [pattern]
  )
  .filter((dir) => fs.existsSync(path.join(repo, dir, "package.json")))

const manifests = workspaces.map((dir) => ({ dir, manifest: readJson(`${dir}/package.json`) as Manifest }))
const release = (readJson("packages/client/package.json") as Manifest).version
const readme = fs.readFileSync(path.join(repo, "README.md"), "utf8")
const changelog = fs.readFileSync(path.join(repo, "CHANGELOG.md"), "utf8")

describe(`release ${release}`, () => {
  it("is 0.3.0, the release that moved the Node-only imports to @mcp-effect/client/node", () => {
    assert.strictEqual(release, "0.3.0")
  })

  it("every workspace package carries it", () => {
    assert.isAtLeast(manifests.length, 6)
    assert.deepStrictEqual(
      manifests.filter(({ manifest }) => manifest.version !== release).map(({ dir, manifest }) => `${dir}: ${manifest.version}`),
      []
    )
  })

  it("every dependency between workspace packages names it", () => {
    const names = new Set(manifests.map(({ manifest }) => manifest.name))
    const stale = manifests.flatMap(({ manifest }) =>
      (["dependencies", "devDependencies", "peerDependencies"] as const).flatMap((section) =>
        Object.entries(manifest[section] ?? {})
          .filter(([name, range]) => names.has(name) && range.replace(/^[\^~]/, "") !== release)
          .map(([name, range]) => `${manifest.name} ${section} ${name}@${range}`)
      )
    )
    assert.deepStrictEqual(stale, [])
  })

  it("the lock file records it for every workspace package", () => {
    const lock = readJson("package-lock.json") as { readonly packages: Record<string, { readonly version?: string }> }
    assert.deepStrictEqual(
      workspaces.filter((dir) => lock.packages[dir]?.version !== release),
      []
    )
  })

  it("the changelog's newest heading is it, and the install recipe packs it", () => {
    const headings = [...changelog.matchAll(/^## (\S+)/gm)].map((match) => match[1])
    assert.strictEqual(headings[0], release)
    assert.notInclude(headings, "Unreleased")
    assert.include(readme, `at the same version (${release})`)
    assert.include(readme, `mcp-effect-client-${release}.tgz`)
    assert.include(readme, `mcp-effect-cli-${release}.tgz`)
  })
})
