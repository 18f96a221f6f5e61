/**
 * Agent Skills (SEP-2640) served by servers written by others, over stdio, for the skills tests:
 *
 *   node packages/test-servers/dist/skills.js [--impl official|official-dynamic|effect] [--era both|modern|legacy]
 *
 * `official`: the official SDK's `SkillsExtension` (`@modelcontextprotocol/server/ext/skills`) on an
 * `McpServer` served by `serveStdio` (both eras). `official-dynamic`: the same SDK serving the same files from a
 * `SkillSource` of its own kind that lists every skill with `resources: "dynamic"` and reads folders
 * (`directoryRead`), so a client finds the files by walking. `effect`: Effect's own `McpServer.skill` (`effect/ai`).
 * All serve the same two skills (`SKILLS`), the first with a binary file.
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeStdio from "@effect/platform-node/NodeStdio"
import { McpServer as OfficialServer } from "@modelcontextprotocol/server"
import { memorySkillFiles, type SkillSource, SkillsExtension } from "@modelcontextprotocol/server/ext/skills"
import { serveStdio } from "@modelcontextprotocol/server/stdio"
import * as McpServer from "effect/ai/McpServer"
import * as Layer from "effect/Layer"
import { parseArgs } from "node:util"
import { protocolsOf } from "./effect-server.js"

type Era = "both" | "modern" | "legacy"

/** The skills, by folder: each folder's files by path. */
export const SKILLS: Readonly<
  Record<string, { readonly "SKILL.md": string } & Readonly<Record<string, string | Uint8Array>>>
> = {
  "pdf-processing": {
    "SKILL.md": `---
name: pdf-processing
description: Extract, fill, and assemble PDF documents
metadata:
  owner: docs-team
  tags: "pdf, forms"
---

# PDF processing

Read references/FORMS.md before filling a form.
`,
    "references/FORMS.md": "Form fields live in the AcroForm dictionary.\n",
    "assets/icon.bin": new Uint8Array([0, 1, 2, 253, 254, 255])
  },
  "release-notes": {
    "SKILL.md": `---
name: release-notes
description: "Write release notes: one line per change"
---

List every merged change, newest first.
`
  }
}

const fail = (message: string): never => {
  process.stderr.write(`${message}\nusage: skills.js [--impl official|official-dynamic|effect] [--era both|modern|legacy]\n`)
  process.exit(2)
}

const { values } = parseArgs({
  options: { impl: { type: "string", default: "official" }, era: { type: "string", default: "both" } },
  strict: true
})
const era: Era = values.era === "both" || values.era === "modern" || values.era === "legacy"
  ? values.era
  : fail(`unknown --era: ${values.era}`)

/** Every file of `SKILLS` by its path under the catalogue's root (`folder/path`). */
const flatFiles = (): Record<string, string | Uint8Array> => {
  const files: Record<string, string | Uint8Array> = {}
  for (const [folder, content] of Object.entries(SKILLS)) {
    for (const [path, data] of Object.entries(content)) files[`${folder}/${path}`] = data
  }
  return files
}

const serveOfficial = (skills: SkillsExtension) =>
  serveStdio(() => {
    const server = new OfficialServer({ name: "official-skills", version: "1.0.0" }, { capabilities: { resources: {} } })
    skills.attach(server)
    return server
  }, { legacy: era === "modern" ? "reject" : "serve", onerror: (error) => process.stderr.write(`${error.message}\n`) })

const official = async () => serveOfficial(await SkillsExtension.load(memorySkillFiles(flatFiles())))

/**
 * The entries of the SDK's own catalogue (its frontmatter parsing) listed as `"dynamic"`; files read and folders
 * listed from the same map.
 */
const officialDynamic = async () => {
  const files = flatFiles()
  const entries = (await SkillsExtension.load(memorySkillFiles(files))).entries.map((entry) => ({
    uri: entry.uri,
    frontmatter: entry.frontmatter,
    resources: "dynamic" as const
  }))
  const pathOf = (uri: string) => uri.startsWith("skill://") ? uri.slice("skill://".length).replace(/\/$/, "") : undefined
  const source: SkillSource = {
    list: () => Promise.resolve({ skills: entries }),
    get: (uri) => Promise.resolve(entries.find((entry) => entry.uri === uri)),
    read: (uri) => {
      const path = pathOf(uri)
      const data = path === undefined ? undefined : files[path]
      return Promise.resolve(
        data === undefined ? undefined : typeof data === "string" ? { text: data, mimeType: "text/markdown" } : { bytes: data }
      )
    },
    readDirectory: (uri) => {
      const folder = pathOf(uri)
      if (folder === undefined) return Promise.resolve(undefined)
      const children = new Map<string, boolean>()
      for (const path of Object.keys(files)) {
        if (!path.startsWith(`${folder}/`)) continue
        const [name, ...deeper] = path.slice(folder.length + 1).split("/")
        if (name !== undefined) children.set(name, deeper.length > 0)
      }
      if (children.size === 0) return Promise.resolve(undefined)
      return Promise.resolve({
        resources: [...children].map(([name, isFolder]) => ({
          uri: `skill://${folder}/${name}`,
          name,
          ...(isFolder ? { mimeType: "inode/directory" } : {})
        }))
      })
    }
  }
  serveOfficial(new SkillsExtension({ source }))
}

const effect = () => {
  const layers = Object.entries(SKILLS).map(([folder, files]) => McpServer.skill({ uri: `skill://${folder}/SKILL.md`, files }))
  const skills = layers.reduce((all, layer) => Layer.merge(all, layer), Layer.empty)
  // As registrations, the skills are in place before the first message is read.
  const server = McpServer.layerStdio({ name: "effect-skills", version: "1.0.0", protocols: protocolsOf(era), registrations: skills })
    .pipe(Layer.provide(NodeStdio.layer))
  NodeRuntime.runMain(Layer.launch(server))
}

if (values.impl === "official" || values.impl === "official-dynamic") {
  const start = values.impl === "official" ? official : officialDynamic
  start().catch((error: unknown) => fail(error instanceof Error ? error.message : String(error)))
} else if (values.impl === "effect") {
  effect()
} else {
  fail(`unknown --impl: ${values.impl}`)
}
