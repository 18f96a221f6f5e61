/**
 * Agent Skills served over MCP (the `io.modelcontextprotocol/skills` extension, SEP-2640).
 *
 * A skill is a folder: a `SKILL.md` (YAML frontmatter, then instructions) and the files it refers to. A server
 * that declares the extension lists them with `skills/list`; each entry names its `SKILL.md` by URI, carries
 * that file's frontmatter, and lists every file with its SHA-256 digest and byte size (or says `"dynamic"`).
 * Files are read with ordinary `resources/read`.
 *
 * ```ts
 * import { Effect } from "effect"
 * import { McpClient, McpSkills } from "@mcp-effect/client"
 *
 * const program = Effect.gen(function*() {
 *   const client = yield* McpClient.McpClient
 *   const [skill] = yield* client.listSkills()      // no file is read here
 *   const loaded = yield* McpSkills.load(skill)      // SKILL.md, checked against the listing
 *   return loaded.instructions
 * })
 * ```
 *
 * Every file read is checked against the listed size and digest, and a `SKILL.md`'s frontmatter against the
 * listed one (frontmatter is flat metadata: YAML that expands aliases is refused, not expanded): a mismatch
 * fails with `McpSkillVerificationError` and none of the file reaches the caller. A
 * file outside the listed manifest (or, for a `"dynamic"` skill, outside the skill's folder) is never
 * requested. Nothing is read before the caller asks for it.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import type * as McpSkillsError from "./McpSkillsError.js"
import * as Entry from "./internal/skills/entry.js"
import * as McpClient from "./McpClient.js"
import type { McpClientError } from "./McpError.js"
import type { JsonObject, Resource } from "./McpSchema.js"

/**
 * The extension's identifier, the key under `capabilities.extensions`.
 *
 * @since 0.1.0
 * @category constants
 */
export const EXTENSION_ID: string = Entry.EXTENSION_ID

// -----------------------------------------------------------------------------
// Models
// -----------------------------------------------------------------------------

/**
 * A file of a skill as the listing describes it.
 *
 * @since 0.1.0
 * @category models
 */
export interface SkillResource {
  readonly uri: string
  /** `sha256:` and 64 lowercase hex digits, over the file's raw bytes. */
  readonly digest: string
  /** The file's length in bytes. */
  readonly size: number
}

/**
 * A skill as listed: the URI of its `SKILL.md`, its frontmatter, and its files (or `"dynamic"`: no manifest,
 * any file inside its folder may be read, unverified).
 *
 * @since 0.1.0
 * @category models
 */
export interface Skill {
  /** The URI of the skill's `SKILL.md`. */
  readonly uri: string
  /** `frontmatter.name`, which is also the name of the skill's folder. */
  readonly name: string
  readonly description: string
  readonly frontmatter: JsonObject
  readonly resources: ReadonlyArray<SkillResource> | "dynamic"
}

/**
 * A file read and checked against the skill's listing.
 *
 * @since 0.1.0
 * @category models
 */
export interface SkillFile {
  /** The URI of the skill's `SKILL.md`. */
  readonly skill: string
  readonly uri: string
  readonly mimeType?: string | undefined
  /** The text, when the server sent text (or the bytes are UTF-8 text). */
  readonly text?: string | undefined
  readonly bytes: Uint8Array
  /** Whether a digest and size were checked (false only for a `"dynamic"` skill). */
  readonly verified: boolean
}

/**
 * A loaded skill: its verified `SKILL.md`.
 *
 * @since 0.1.0
 * @category models
 */
export interface LoadedSkill {
  readonly skill: Skill
  /** The whole `SKILL.md`, frontmatter included. */
  readonly instructions: string
  /** The files the skill lists besides `SKILL.md` (empty for a `"dynamic"` skill). */
  readonly files: ReadonlyArray<SkillResource>
}

// -----------------------------------------------------------------------------
// Errors
// -----------------------------------------------------------------------------

export {
  /**
   * @since 0.1.0
   */
  McpSkillError,
  /**
   * @since 0.1.0
   */
  McpSkillVerificationError,
  /**
   * @since 0.1.0
   */
  TypeId
} from "./McpSkillsError.js"

/**
 * Everything a skill operation can fail with.
 *
 * @since 0.1.0
 * @category errors
 */
export type SkillsError = McpClientError | McpSkillsError.McpSkillError | McpSkillsError.McpSkillVerificationError

// -----------------------------------------------------------------------------
// Accessors
// -----------------------------------------------------------------------------

/**
 * Every skill the server lists (all pages, up to `maxPages`); empty when the server does not declare the
 * extension. Entries that break the extension's rules are left out (each one a diagnostic).
 *
 * @since 0.1.0
 * @category accessors
 */
export const list = (options?: McpClient.ListOptions) =>
  Effect.flatMap(McpClient.McpClient, (client) => client.listSkills(options))

/**
 * Load a skill: read its `SKILL.md` and check it (size, digest, frontmatter). Only `SKILL.md` is read.
 *
 * @since 0.1.0
 * @category accessors
 */
export const load = (skill: Skill, options?: McpClient.CallOptions) =>
  Effect.flatMap(McpClient.McpClient, (client) => client.loadSkill(skill, options))

/**
 * Read one file of a skill, checked against the listing.
 *
 * @since 0.1.0
 * @category accessors
 */
export const readFile = (skill: Skill, uri: string, options?: McpClient.CallOptions) =>
  Effect.flatMap(McpClient.McpClient, (client) => client.readSkillFile(skill, uri, options))

/**
 * The text of a verified file; `undefined` for a binary one.
 *
 * @since 0.1.0
 * @category getters
 */
export const textOf = (file: SkillFile): string | undefined => file.text

/**
 * A skill's file's path relative to the skill's folder (`references/FORMS.md`), or `undefined` for a URI
 * outside it.
 *
 * @since 0.1.0
 * @category getters
 */
export const relativePath = (skill: Skill, uri: string): string | undefined =>
  Entry.isInsideSkill(skill.uri, uri) ? uri.slice(Entry.skillRoot(skill.uri).length + 1) : undefined

/**
 * The URI of a skill's file, given its path relative to the skill's folder; `undefined` when the path leaves
 * the folder.
 *
 * @since 0.1.0
 * @category getters
 */
export const fileUri = (skill: Skill, path: string): string | undefined => {
  const uri = `${Entry.skillRoot(skill.uri)}/${path}`
  return Entry.isInsideSkill(skill.uri, uri) ? uri : undefined
}

/**
 * The URI of a skill's folder.
 *
 * @since 0.1.0
 * @category getters
 */
export const directoryOf = (skill: Skill): string => Entry.skillRoot(skill.uri)

/**
 * A child listed by `listSkillDirectory`: a file, or a folder (`mimeType: "inode/directory"`).
 *
 * @since 0.1.0
 * @category models
 */
export type DirectoryEntry = Resource
