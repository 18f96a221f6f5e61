/**
 * What `skill NAME --out DIR` reads of a skill, within the extension's limits per skill (512 files, as many
 * folders, 16 MiB), and the paths it will write, each checked before the first file is read: no `.git` on the
 * way (git refuses such paths itself), no NUL byte, no name longer than a file system takes, no path that is
 * both a file and a folder.
 */
import { McpSkills } from "@mcp-effect/client"
import type { McpClient } from "@mcp-effect/client"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import type { FolderFile } from "./files.js"
import { sizeText } from "./files.js"

/** The extension's limits per skill: files, folders (a dynamic skill's folder reads too), bytes in all. */
export const MAX_FILES = 512
export const MAX_FOLDERS = 512
export const MAX_BYTES = 16 * 1024 * 1024

/** The longest file name most file systems take, in bytes. */
const MAX_NAME_BYTES = 255

/** A skill whose files cannot be written as they are: the skill's URI and why. */
export class SkillRefusedError extends Data.TaggedError("SkillRefusedError")<{
  readonly skill: string
  readonly reason: string
}> {
  override get message(): string {
    return `refusing to write the skill ${this.skill}: ${this.reason}`
  }
}

/** Characters HFS+ ignores in names (so `.g\u200Cit` is `.git` there), as git's `is_hfs_dotgit` does. */
const HFS_IGNORED = /[\u200C-\u200F\u202A-\u202E\u206A-\u206F\uFEFF]/g

const decoded = (segment: string): string => {
  try {
    return decodeURIComponent(segment)
  } catch {
    return segment
  }
}

/**
 * Whether a name is `.git` to some file system: in any case, with HFS+'s ignored characters, with NTFS's
 * trailing dots and spaces or its alternate stream (`.git::$INDEX_ALLOCATION`), or NTFS's short name `git~1`.
 */
export const isGitName = (segment: string): boolean =>
  [segment, decoded(segment)].some((name) => {
    const folded = name.replace(HFS_IGNORED, "").toLowerCase().replace(/[. ]+$/, "")
    return folded === ".git" || folded === "git~1" || folded.startsWith(".git:")
  })

/** Why a path inside the skill cannot be written, or `undefined` when it can. */
export const unwritable = (relative: string): string | undefined => {
  for (const segment of relative.split("/")) {
    if (segment.includes("\0")) return `${JSON.stringify(relative)} holds a NUL byte`
    if (Buffer.byteLength(segment) > MAX_NAME_BYTES) {
      return `${JSON.stringify(relative)} has a name longer than ${MAX_NAME_BYTES} bytes`
    }
    if (isGitName(segment)) return `${JSON.stringify(relative)} goes through .git (git refuses such paths too)`
  }
  return undefined
}

/** The folders a set of paths needs (every proper prefix). */
const foldersOf = (paths: ReadonlyArray<string>): ReadonlySet<string> => {
  const folders = new Set<string>()
  for (const relative of paths) {
    const segments = relative.split("/")
    for (let end = 1; end < segments.length; end++) folders.add(segments.slice(0, end).join("/"))
  }
  return folders
}

/** The plan's paths checked: each writable, within the limits, none both a file and a folder. */
const checkPaths = (skill: McpSkills.Skill, paths: ReadonlyArray<string>): Effect.Effect<void, SkillRefusedError> => {
  const refuse = (reason: string) => Effect.fail(new SkillRefusedError({ skill: skill.uri, reason }))
  if (paths.length > MAX_FILES) return refuse(`it has more than ${MAX_FILES} files (the extension's limit per skill)`)
  for (const relative of paths) {
    const why = unwritable(relative)
    if (why !== undefined) return refuse(why)
  }
  const folders = foldersOf(paths)
  if (folders.size > MAX_FOLDERS) return refuse(`it has more than ${MAX_FOLDERS} folders (the extension's limit per skill)`)
  const clash = paths.find((relative) => folders.has(relative))
  if (clash !== undefined) return refuse(`${JSON.stringify(clash)} is both a file and a folder`)
  return Effect.void
}

/** The path of a file inside the skill's folder; a URI outside it is refused. */
const relativeOf = (skill: McpSkills.Skill, uri: string): Effect.Effect<string, SkillRefusedError> => {
  const relative = McpSkills.relativePath(skill, uri)
  return relative === undefined
    ? Effect.fail(new SkillRefusedError({ skill: skill.uri, reason: `${uri} is outside the skill's folder` }))
    : Effect.succeed(relative)
}

const tooLarge = (skill: McpSkills.Skill) =>
  new SkillRefusedError({ skill: skill.uri, reason: `its files come to more than ${sizeText(MAX_BYTES)} (the extension's limit per skill)` })

/** A file to read: its URI, its path inside the skill. */
interface Planned {
  readonly uri: string
  readonly relative: string
}

/**
 * A dynamic skill's files, found by walking its folders: at most 512 folders inside the skill's (so 513 folder
 * reads with its own) and 512 files, each path checked as it comes.
 */
const walk = (client: McpClient.Service, skill: McpSkills.Skill) =>
  Effect.gen(function*() {
    const files: Array<Planned> = []
    const pending = [McpSkills.directoryOf(skill)]
    let declared = 0
    const tooMany = new SkillRefusedError({
      skill: skill.uri,
      reason: `it has more than ${MAX_FOLDERS} folders (the extension's limit per skill)`
    })
    // The folders found inside the skill's (read, or still to read): past the limit, no more is asked.
    let found = 0
    for (let folder = pending.shift(); folder !== undefined; folder = pending.shift()) {
      for (const child of yield* client.listSkillDirectory(skill, folder)) {
        if (child.mimeType === "inode/directory") {
          if (++found > MAX_FOLDERS) return yield* tooMany
          pending.push(child.uri)
          continue
        }
        const relative = yield* relativeOf(skill, child.uri)
        files.push({ uri: child.uri, relative })
        declared += child.size ?? 0
        if (declared > MAX_BYTES) return yield* tooLarge(skill)
        yield* checkPaths(skill, files.map((file) => file.relative))
      }
    }
    return files
  })

/** The files to read: the listed ones (their declared sizes within the limit), or a dynamic skill's walked. */
const plan = (client: McpClient.Service, skill: McpSkills.Skill) =>
  Effect.gen(function*() {
    if (skill.resources === "dynamic") {
      const capabilities = yield* client.serverCapabilities
      const declaration = capabilities.extensions?.[McpSkills.EXTENSION_ID]
      const directoryRead = typeof declaration === "object" && declaration !== null && "directoryRead" in declaration &&
        declaration.directoryRead === true
      return directoryRead ? yield* walk(client, skill) : [{ uri: skill.uri, relative: "SKILL.md" }]
    }
    const files: Array<Planned> = []
    for (const resource of skill.resources) files.push({ uri: resource.uri, relative: yield* relativeOf(skill, resource.uri) })
    yield* checkPaths(skill, files.map((file) => file.relative))
    const declared = skill.resources.reduce((sum, resource) => sum + resource.size, 0)
    if (declared > MAX_BYTES) return yield* tooLarge(skill)
    return files
  })

/**
 * Every file of the skill, read and verified, within the limits: the plan is checked before the first read,
 * and reading stops once the bytes read pass 16 MiB.
 */
export const readSkill = (
  client: McpClient.Service,
  skill: McpSkills.Skill
): Effect.Effect<ReadonlyArray<FolderFile & { readonly relative: string }>, McpSkills.SkillsError | SkillRefusedError> =>
  Effect.gen(function*() {
    const planned = yield* plan(client, skill)
    const files: Array<FolderFile & { readonly relative: string }> = []
    let total = 0
    for (const { relative, uri } of planned) {
      const file = yield* client.readSkillFile(skill, uri)
      total += file.bytes.byteLength
      if (total > MAX_BYTES) return yield* tooLarge(skill)
      files.push({ relative, segments: relative.split("/"), bytes: file.bytes })
    }
    return files
  })
