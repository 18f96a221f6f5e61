/** The READMEs of the repository and their ```ts blocks, for the tests that check and run the examples. */
import * as fs from "node:fs"
import * as path from "node:path"

export const root = path.resolve(import.meta.dirname, "../../../..")
/** Folders never walked: dependencies, build output, and hidden ones (git's, the check's own temporary folder). */
export const skipped = new Set(["node_modules", "dist"])

/** Every README*.md (any case) and CHANGELOG.md under the repository, as paths relative to it. */
export const readmesOf = (dir: string): ReadonlyArray<string> =>
  fs.readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const relative = dir === "" ? entry.name : `${dir}/${entry.name}`
    if (entry.isDirectory()) return skipped.has(entry.name) || entry.name.startsWith(".") ? [] : readmesOf(relative)
    return entry.isFile() && /^(readme.*|changelog)\.md$/i.test(entry.name) ? [relative] : []
  })

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

