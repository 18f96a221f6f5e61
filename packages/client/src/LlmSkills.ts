/**
 * A server's skills (or many servers') put in front of a model, the way agent hosts do it: a short catalogue
 * (name, description) for the system prompt, and two tools, `load_skill` (the verified `SKILL.md`, with the list
 * of its files) and `read_skill_file` (one listed file, verified), so the model loads a skill when it decides
 * to and reads its files on demand. Nothing is read before the model asks.
 *
 * ```ts
 * import { Effect } from "effect"
 * import { LlmBridge, LlmSkills, McpClient, ToolRegistry } from "@mcp-effect/client"
 *
 * const program = Effect.gen(function*() {
 *   const github = yield* McpClient.McpClient
 *   const skills = LlmSkills.make([{ prefix: "github", provider: LlmSkills.clientProvider(github) }])
 *   const registry = yield* ToolRegistry.make()
 *   yield* registry.register("github", LlmBridge.clientSource(github))
 *   yield* registry.register("skills", skills.source)   // skills__load_skill, skills__read_skill_file
 *   const system = yield* skills.systemPrompt            // "- github__pdf-processing: Extract, fill, ..."
 *   const tools = yield* registry.toolsForLlm()
 *   return { system, tools }
 * })
 * ```
 *
 * Names are prefixed like tools (`prefix__name`), so two servers' skills never collide; a name one server lists
 * twice (two skill paths) keeps it once and gains a hash of its URI after that. A file that fails its check is
 * an error result the model reads ("failed verification ... and was not used"); none of it reaches the model.
 * A path outside the skill's folder is refused without a request. `withTools` puts the two tools next to a
 * tool source's for a single bridge.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as internal from "./internal/llm/skills.js"
import type * as LlmBridge from "./LlmBridge.js"
import type * as McpClient from "./McpClient.js"
import type { McpClientError } from "./McpError.js"
import type * as McpSkills from "./McpSkills.js"

/**
 * The tool that loads a skill.
 *
 * @since 0.1.0
 * @category constants
 */
export const LOAD_SKILL: string = internal.LOAD_SKILL

/**
 * The tool that reads a file of a skill.
 *
 * @since 0.1.0
 * @category constants
 */
export const READ_SKILL_FILE: string = internal.READ_SKILL_FILE

/**
 * Where skills come from: a client, or anything that lists, loads and reads them.
 *
 * @since 0.1.0
 * @category models
 */
export interface Provider<E> {
  readonly list: (options?: { readonly refresh?: boolean | undefined }) => Effect.Effect<ReadonlyArray<McpSkills.Skill>, E>
  readonly load: (skill: McpSkills.Skill) => Effect.Effect<McpSkills.LoadedSkill, McpSkills.SkillsError>
  readonly read: (skill: McpSkills.Skill, uri: string) => Effect.Effect<McpSkills.SkillFile, McpSkills.SkillsError>
}

/**
 * A line of the catalogue.
 *
 * @since 0.1.0
 * @category models
 */
export interface CatalogueEntry {
  /** The name the model uses (`prefix__name` under a prefix). */
  readonly name: string
  readonly description: string
}

/**
 * The skills as the model gets them.
 *
 * @since 0.1.0
 * @category models
 */
export interface Library<E> {
  /** Every skill, by the name the model uses. */
  readonly catalogue: Effect.Effect<ReadonlyArray<CatalogueEntry>, E>
  /** The catalogue as a paragraph for the system prompt (empty when there is no skill). */
  readonly systemPrompt: Effect.Effect<string, E>
  /** `load_skill` and `read_skill_file` (none when there is no skill), for a bridge, a registry or a toolkit. */
  readonly source: LlmBridge.ToolSource<E>
}

/**
 * @since 0.1.0
 * @category models
 */
export interface LibraryOptions {
  /** The first paragraph of the system prompt, before the list (default: how to use the two tools). */
  readonly preamble?: string | undefined
}

/**
 * A client's skills, through `listSkills`, `loadSkill` and `readSkillFile`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const clientProvider = (client: McpClient.Service): Provider<McpClientError> => ({
  list: (options) => client.listSkills(options?.refresh === true ? { refresh: true } : undefined),
  load: (skill) => client.loadSkill(skill),
  read: (skill, uri) => client.readSkillFile(skill, uri)
})

/**
 * The skills of these providers, each under its prefix (`undefined`: the bare names, for one provider).
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = <E>(
  providers: ReadonlyArray<{ readonly prefix?: string | undefined; readonly provider: Provider<E> }>,
  options: LibraryOptions = {}
): Library<E> => internal.make(providers.map((p) => ({ prefix: p.prefix, provider: p.provider })), options)

/**
 * One client's skills, under their bare names (or under `prefix`).
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromClient = (
  client: McpClient.Service,
  options: LibraryOptions & { readonly prefix?: string | undefined } = {}
): Library<McpClientError> => make([{ prefix: options.prefix, provider: clientProvider(client) }], options)

/**
 * A tool source with the library's two tools after its own; a call to either goes to the library, any other
 * to `tools`. A tool of `tools` with one of those two names is left out: register both under prefixes in a
 * `ToolRegistry` to keep it.
 *
 * @since 0.1.0
 * @category combinators
 */
export const withTools = <E1, E2>(tools: LlmBridge.ToolSource<E1>, library: Library<E2>): LlmBridge.ToolSource<E1 | E2> => ({
  list: (options) =>
    Effect.zipWith(tools.list(options), library.source.list(options), (own, skills) => [
      ...own.filter((tool) => tool.name !== LOAD_SKILL && tool.name !== READ_SKILL_FILE),
      ...skills
    ]),
  invoke: (name, args, context) =>
    name === LOAD_SKILL || name === READ_SKILL_FILE
      ? library.source.invoke(name, args, context)
      : tools.invoke(name, args, context)
})
