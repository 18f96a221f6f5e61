/**
 * The READMEs' examples compile under the repository's compiler settings: every ```ts block of every README of
 * the repository (found by walking it, so a new README or a moved example cannot be left out) and of
 * CHANGELOG.md is written out as a module and type-checked with tsconfig.base.json (strict,
 * exactOptionalPropertyTypes, noUnused*). A block fenced ```ts fragment is a fragment and is skipped; any other
 * TypeScript fence (```typescript, ```tsx, ```ts with other words) fails the test, so that no example escapes by
 * its spelling. Top-level declarations are exported (so an example's unused `program` is not an unused local).
 */
import { assert, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import ts from "typescript"
import { examplesOf, readmesOf, root, skipped } from "./readmes.js"

const readmes = readmesOf("")

/** Fences that look like TypeScript but are neither ```ts nor ```ts fragment: they would be skipped silently. */
export const strayFences = (markdown: string): ReadonlyArray<number> =>
  markdown.split("\n").flatMap((line, i) => {
    const info = /^\s*```\s*(\S.*)$/.exec(line)?.[1]?.trim()
    if (info === undefined || info === "ts" || info === "ts fragment") return []
    return /^(ts|typescript|tsx|mts|cts)\b/i.test(info) ? [i + 1] : []
  })

const asModule = (code: string): string =>
  `${code.replace(/^(const|function|class|interface|type) /gm, "export $1 ")}\nexport {}\n`

describe("README examples", () => {
  it("are looked for in every README and the changelog", () => {
    assert.includeMembers([...readmes], [
      "CHANGELOG.md",
      "README.md",
      "packages/ai/README.md",
      "packages/cli/README.md",
      "packages/client/README.md",
      "packages/test-servers/README.md"
    ])
  })

  it("use no TypeScript fence the check would skip", () => {
    const stray = readmes.flatMap((readme) =>
      strayFences(fs.readFileSync(path.join(root, readme), "utf8")).map((line) => `${readme}:${line}`)
    )
    assert.deepStrictEqual(stray, [])
  })

  it("type-check under the repository's compiler settings", () => {
    const dir = fs.mkdtempSync(path.join(root, ".readme-check-"))
    try {
      const files: Array<{ file: string; origin: string }> = []
      for (const readme of readmes) {
        const text = fs.readFileSync(path.join(root, readme), "utf8")
        for (const example of examplesOf(text)) {
          const file = path.join(dir, `${readme.replace(/[/.]/g, "_")}_${example.line}.ts`)
          fs.writeFileSync(file, asModule(example.code))
          files.push({ file, origin: `${readme}:${example.line}` })
        }
      }
      assert.isAbove(files.length, 2)
      const base = ts.readConfigFile(path.join(root, "tsconfig.base.json"), ts.sys.readFile)
      const parsed = ts.parseJsonConfigFileContent(
        { compilerOptions: { ...base.config.compilerOptions, composite: false, incremental: false, noEmit: true } },
        ts.sys,
        dir
      )
      fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify({ type: "module" }))
      const program = ts.createProgram(files.map((f) => f.file), parsed.options)
      const problems = ts.getPreEmitDiagnostics(program).filter((d) => d.file !== undefined && d.file.fileName.startsWith(dir))
        .map((d) => {
          const origin = files.find((f) => f.file === d.file?.fileName)?.origin ?? "?"
          const { line } = d.file?.getLineAndCharacterOfPosition(d.start ?? 0) ?? { line: 0 }
          return `${origin} (+${line}): ${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`
        })
      assert.deepStrictEqual(problems, [])
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  }, 120_000)
})

/** GitHub's anchor of a heading: lower case, punctuation (backticks, colons, brackets, quotes) dropped, spaces to `-`. */
export const anchorOf = (heading: string): string =>
  heading.trim().toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, "").replace(/\s/g, "-")

/** The anchors of a Markdown file's headings, outside fenced code; a repeated heading gets `-1`, `-2`, as on GitHub. */
export const anchorsOf = (markdown: string): ReadonlySet<string> => {
  const anchors = new Set<string>()
  let fenced = false
  for (const line of markdown.split("\n")) {
    if (/^\s*```/.test(line)) fenced = !fenced
    const heading = fenced ? undefined : /^#{1,6} (.+)$/.exec(line)?.[1]
    if (heading === undefined) continue
    const base = anchorOf(heading)
    let anchor = base
    for (let n = 1; anchors.has(anchor); n++) anchor = `${base}-${n}`
    anchors.add(anchor)
  }
  return anchors
}

/** The relative link targets of a Markdown file (`[text](target)`, images too), outside fenced and inline code. */
export const linksOf = (markdown: string): ReadonlyArray<{ readonly line: number; readonly target: string }> => {
  const links: Array<{ line: number; target: string }> = []
  let fenced = false
  markdown.split("\n").forEach((line, i) => {
    if (/^\s*```/.test(line)) fenced = !fenced
    if (fenced) return
    for (const match of line.replace(/`[^`]*`/g, "").matchAll(/\]\(([^)\s]+)\)/g)) {
      const target = match[1] ?? ""
      if (!/^[a-z][a-z0-9+.-]*:/i.test(target)) links.push({ line: i + 1, target })
    }
  })
  return links
}

describe("README links", () => {
  it("every relative link reaches a file of the repository, and every #anchor a heading of it", () => {
    const broken = readmes.flatMap((readme) =>
      linksOf(fs.readFileSync(path.join(root, readme), "utf8")).flatMap(({ line, target }) => {
        const [file = "", anchor] = target.split("#")
        const resolved = file === "" ? path.join(root, readme) : path.resolve(path.dirname(path.join(root, readme)), file)
        if (!fs.existsSync(resolved)) return [`${readme}:${line}: ${target} (no such file)`]
        if (anchor === undefined || !resolved.endsWith(".md")) return []
        return anchorsOf(fs.readFileSync(resolved, "utf8")).has(anchor) ? [] : [`${readme}:${line}: ${target} (no such heading)`]
      })
    )
    assert.deepStrictEqual(broken, [])
  })
})

/** Every file under `dir` (relative to the repository) whose name ends with `suffix`, skipping what `readmesOf` skips. */
const filesEndingWith = (dir: string, suffix: string): ReadonlyArray<string> =>
  fs.readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const relative = `${dir}/${entry.name}`
    if (entry.isDirectory()) return skipped.has(entry.name) || entry.name.startsWith(".") ? [] : filesEndingWith(relative, suffix)
    return entry.isFile() && entry.name.endsWith(suffix) ? [relative] : []
  })

/**
 * The tests that run a README example as it is written (the type-check above does not run them), and what each
 * changes to run it here: the cassette example reads a fixture instead of the reader's `session.ndjson`.
 */
const executedExamples: Record<string, ReadonlyArray<readonly [string, string]>> = {
  "McpTestServer.readme.test.ts": [],
  "McpTransport.readme.test.ts": [],
  "McpCassette.readme.test.ts": [
    ['import * as path from "node:path"\n', ""],
    ['\nconst file = path.join(import.meta.dirname, "../fixtures/cassettes/everything.ndjson")\n', ""],
    ["McpCassette.read(file)", 'McpCassette.read("session.ndjson")']
  ]
}

describe("README examples run by their own tests", () => {
  it("are the READMEs' blocks, verbatim but for the changes listed here", () => {
    const found = filesEndingWith("packages", ".readme.test.ts")
    assert.deepStrictEqual(found.map((file) => path.basename(file)).sort(), Object.keys(executedExamples).sort())
    const blocks = readmes.flatMap((readme) => examplesOf(fs.readFileSync(path.join(root, readme), "utf8")))
      .map((example) => example.code.trim())
    const differing = found.filter((file) => {
      const source = fs.readFileSync(path.join(root, file), "utf8").replace(/^\/\*\*[\s\S]*?\*\/\n/, "")
      const asWritten = (executedExamples[path.basename(file)] ?? []).reduce((code, [from, to]) => {
        assert.include(code, from, `${file} no longer has ${JSON.stringify(from)}`)
        return code.replace(from, to)
      }, source)
      return !blocks.includes(asWritten.trim())
    })
    assert.deepStrictEqual(differing, [], "a test that runs a README example no longer runs the README's text")
  })
})
