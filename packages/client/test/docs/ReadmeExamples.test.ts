/**
 * The READMEs' examples compile under the repository's compiler settings: every ```ts block of the root,
 * client and ai READMEs is written out as a module and type-checked with tsconfig.base.json (strict,
 * exactOptionalPropertyTypes, noUnused*). A block fenced ```ts fragment is a fragment and is skipped.
 * Top-level declarations are exported (so an example's unused `program` is not an unused local).
 */
import { assert, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import ts from "typescript"

const root = path.resolve(import.meta.dirname, "../../../..")
const readmes = ["README.md", "packages/client/README.md", "packages/ai/README.md"]

export const examplesOf = (markdown: string): ReadonlyArray<{ readonly line: number; readonly code: string }> => {
  const found: Array<{ line: number; code: string }> = []
  const lines = markdown.split("\n")
  for (let i = 0; i < lines.length; i++) {
    if (lines[i]?.trim() !== "```ts") continue
    const start = i + 1
    let end = start
    while (end < lines.length && lines[end]?.trim() !== "```") end++
    found.push({ line: start + 1, code: lines.slice(start, end).join("\n") })
    i = end
  }
  return found
}

const asModule = (code: string): string =>
  `${code.replace(/^(const|function|class|interface|type) /gm, "export $1 ")}\nexport {}\n`

describe("README examples", () => {
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
