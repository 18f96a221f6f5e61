/**
 * Agent Skills (SEP-2640) served by servers written by others, over stdio, for the skills tests:
 *
 *   node packages/test-servers/dist/skills.js [--impl official|effect] [--era both|modern|legacy]
 *
 * `official`: the official SDK's `SkillsExtension` (`@modelcontextprotocol/server/ext/skills`) on an
 * `McpServer` served by `serveStdio` (both eras). `effect`: Effect's own `McpServer.skill` (`effect/ai`).
 * Both serve the same two skills (`SKILLS`), the first with a binary file.
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeStdio from "@effect/platform-node/NodeStdio"
import { McpServer as OfficialServer } from "@modelcontextprotocol/server"
import { memorySkillFiles, SkillsExtension } from "@modelcontextprotocol/server/ext/skills"
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
  process.stderr.write(`${message}\nusage: skills.js [--impl official|effect] [--era both|modern|legacy]\n`)
  process.exit(2)
}

const { values } = parseArgs({
  options: { impl: { type: "string", default: "official" }, era: { type: "string", default: "both" } },
  strict: true
})
const era: Era = values.era === "both" || values.era === "modern" || values.era === "legacy"
  ? values.era
  : fail(`unknown --era: ${values.era}`)

const official = async () => {
  const files: Record<string, string | Uint8Array> = {}
  for (const [folder, content] of Object.entries(SKILLS)) {
    for (const [path, data] of Object.entries(content)) files[`${folder}/${path}`] = data
  }
  const catalog = await SkillsExtension.load(memorySkillFiles(files))
  serveStdio(() => {
    const server = new OfficialServer({ name: "official-skills", version: "1.0.0" }, { capabilities: { resources: {} } })
    catalog.attach(server)
    return server
  }, { legacy: era === "modern" ? "reject" : "serve", onerror: (error) => process.stderr.write(`${error.message}\n`) })
}

const effect = () => {
  const layers = Object.entries(SKILLS).map(([folder, files]) => McpServer.skill({ uri: `skill://${folder}/SKILL.md`, files }))
  const skills = layers.reduce((all, layer) => Layer.merge(all, layer), Layer.empty)
  // As registrations, the skills are in place before the first message is read.
  const server = McpServer.layerStdio({ name: "effect-skills", version: "1.0.0", protocols: protocolsOf(era), registrations: skills })
    .pipe(Layer.provide(NodeStdio.layer))
  NodeRuntime.runMain(Layer.launch(server))
}

if (values.impl === "official") {
  official().catch((error: unknown) => fail(error instanceof Error ? error.message : String(error)))
} else if (values.impl === "effect") {
  effect()
} else {
  fail(`unknown --impl: ${values.impl}`)
}
