/**
 * `skills` (the server's Agent Skills) and `skill NAME [--out DIR]` (one skill's verified `SKILL.md`, or the
 * whole verified skill written to a folder, never outside it).
 */
import { McpSkills } from "@mcp-effect/client"
import type { McpClient } from "@mcp-effect/client"
import * as Argument from "effect/cli/Argument"
import * as Command from "effect/cli/Command"
import * as Flag from "effect/cli/Flag"
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as Option from "effect/Option"
import * as Path from "effect/Path"
import { UsageError } from "./errors.js"
import { shared } from "./options.js"
import { print, printJson, table } from "./render.js"
import { withClient } from "./session.js"

const fileCount = (skill: McpSkills.Skill) =>
  skill.resources === "dynamic" ? "dynamic" : String(skill.resources.length)

/** `skills`: every skill the server lists (no file is read). */
export const skills = Command.make("skills", shared, (options) =>
  withClient(options, (client) =>
    Effect.gen(function*() {
      const list = yield* client.listSkills()
      if (options.json) return yield* printJson(list)
      yield* print(table(
        ["NAME", "FILES", "URI", "DESCRIPTION"],
        list.map((skill) => [skill.name, fileCount(skill), skill.uri, skill.description])
      ))
    }))).pipe(Command.withDescription("the server's Agent Skills (io.modelcontextprotocol/skills): name, files, description"))

/** The skill called `name` (or whose `SKILL.md` URI it is); two of one name must be told apart by URI. */
const findSkill = (client: McpClient.Service, name: string) =>
  Effect.gen(function*() {
    const list = yield* client.listSkills()
    const matches = list.filter((skill) => skill.name === name || skill.uri === name)
    const [only, ...others] = matches
    if (only === undefined) {
      return yield* new UsageError({
        message: `no skill ${JSON.stringify(name)} (the server lists: ${list.map((s) => s.name).join(", ") || "none"})`
      })
    }
    if (others.length > 0) {
      return yield* new UsageError({
        message: `${matches.length} skills are called ${JSON.stringify(name)}: name one by its URI (${
          matches.map((s) => s.uri).join(", ")
        })`
      })
    }
    return only
  })

/** Every file of the skill, each verified: the listed ones, or a `"dynamic"` skill's folders walked. */
const readAll = (client: McpClient.Service, skill: McpSkills.Skill) =>
  Effect.gen(function*() {
    if (skill.resources !== "dynamic") {
      return yield* Effect.forEach(skill.resources, (resource) => client.readSkillFile(skill, resource.uri))
    }
    const uris = yield* dynamicFiles(client, skill)
    return yield* Effect.forEach(uris, (uri) => client.readSkillFile(skill, uri))
  })

/** A dynamic skill's files: its folders walked when the server reads folders, otherwise just `SKILL.md`. */
const dynamicFiles = (client: McpClient.Service, skill: McpSkills.Skill) =>
  Effect.gen(function*() {
    const capabilities = yield* client.serverCapabilities
    const declaration = capabilities.extensions?.[McpSkills.EXTENSION_ID]
    const directoryRead = typeof declaration === "object" && declaration !== null && "directoryRead" in declaration &&
      declaration.directoryRead === true
    if (!directoryRead) return [skill.uri]
    const files: Array<string> = []
    const pending = [McpSkills.directoryOf(skill)]
    // At most 512 files and as many folders (the extension's limit per skill).
    while (pending.length > 0 && files.length < 512) {
      const folder = pending.shift()
      if (folder === undefined) break
      for (const child of yield* client.listSkillDirectory(skill, folder)) {
        if (child.mimeType === "inode/directory") pending.push(child.uri)
        else files.push(child.uri)
      }
    }
    return files
  })

/** Write the verified files under `out`, each at its path inside the skill; a path that would leave `out` is refused. */
const writeAll = (skill: McpSkills.Skill, files: ReadonlyArray<McpSkills.SkillFile>, out: string) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const root = path.resolve(out)
    const targets = []
    for (const file of files) {
      const relative = McpSkills.relativePath(skill, file.uri)
      const target = relative === undefined ? undefined : path.resolve(root, ...relative.split("/"))
      if (target === undefined || !target.startsWith(`${root}${path.sep}`)) {
        return yield* new UsageError({ message: `refusing to write ${file.uri} outside ${root}` })
      }
      targets.push({ target, file })
    }
    yield* fs.makeDirectory(root, { recursive: true })
    const realRoot = yield* fs.realPath(root)
    const inside = (real: string) => real === realRoot || real.startsWith(`${realRoot}${path.sep}`)
    // Every target is checked before the first write: a symbolic link on the way (a folder, or the file
    // itself) must not carry a write out of the folder.
    for (const { file, target } of targets) {
      let existing = path.dirname(target)
      while (!(yield* fs.exists(existing))) existing = path.dirname(existing)
      const isLink = yield* Effect.match(fs.readLink(target), { onFailure: () => false, onSuccess: () => true })
      if (isLink || !inside(yield* fs.realPath(existing))) {
        return yield* new UsageError({ message: `refusing to write ${file.uri}: ${target} leads outside ${root}` })
      }
    }
    for (const { file, target } of targets) {
      yield* fs.makeDirectory(path.dirname(target), { recursive: true })
      yield* fs.writeFile(target, file.bytes)
    }
    return targets.map(({ target }) => path.relative(root, target))
  })

/** `skill NAME [--out DIR]`. */
export const skill = Command.make(
  "skill",
  {
    ...shared,
    name: Argument.String("name").pipe(Argument.withDescription("the skill's name (or the URI of its SKILL.md)")),
    out: Flag.String("out").pipe(
      Flag.withDescription("write the whole verified skill into this folder (nothing is written if a file fails)"),
      Flag.optional
    )
  },
  (options) =>
    withClient(options, (client) =>
      Effect.gen(function*() {
        const found = yield* findSkill(client, options.name)
        if (Option.isNone(options.out)) {
          const loaded = yield* client.loadSkill(found)
          if (options.json) return yield* printJson({ skill: found, instructions: loaded.instructions })
          return yield* print(loaded.instructions.replace(/\n$/, ""))
        }
        // Every file is read and verified before the first is written.
        const files = yield* readAll(client, found)
        const written = yield* writeAll(found, files, options.out.value)
        if (options.json) return yield* printJson({ skill: found, directory: options.out.value, files: written })
        for (const file of written) yield* print(file)
      }))
).pipe(Command.withDescription("a skill's verified SKILL.md on stdout, or with --out DIR the whole verified skill in DIR"))
