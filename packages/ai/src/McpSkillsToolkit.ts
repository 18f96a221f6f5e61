/**
 * A server's skills (or several servers') as an `effect/ai` toolkit: `load_skill` and `read_skill_file`, with
 * the catalogue (name, description) to put in the system prompt. The model loads a skill when it decides to
 * and reads its files on demand; every file is checked against the server's listing (size, SHA-256 digest,
 * frontmatter) before the model sees it.
 *
 * ```ts
 * import { McpSkillsToolkit } from "@mcp-effect/ai"
 * import { McpClient } from "@mcp-effect/client"
 * import { Effect } from "effect"
 * import { LanguageModel, Prompt } from "effect/ai"
 *
 * const program = Effect.gen(function*() {
 *   const client = yield* McpClient.McpClient
 *   const skills = yield* McpSkillsToolkit.fromClient(client)
 *   const prompt = Prompt.concat(
 *     Prompt.make([{ role: "system", content: skills.systemPrompt }]),
 *     Prompt.make("Fill in this PDF form")
 *   )
 *   return yield* LanguageModel.generateText({ prompt, toolkit: skills.toolkit })
 * })
 * ```
 *
 * Many servers: `fromLibrary(LlmSkills.make([{ prefix: "docs", provider }, ...]))`, whose skill names are
 * prefixed (`docs__pdf-processing`) so two servers' skills never collide. The toolkit is an `McpToolkit`
 * (`McpToolkit.fromSource` over the library's tools) and takes its options; the catalogue is read once, when
 * the toolkit is made.
 *
 * @since 0.1.0
 */
import { LlmSkills } from "@mcp-effect/client"
import type { McpClient, McpError } from "@mcp-effect/client"
import * as Effect from "effect/Effect"
import type * as Tool from "effect/ai/Tool"
import * as McpToolkit from "./McpToolkit.js"

/**
 * The skills toolkit, with the system prompt that goes with it.
 *
 * @since 0.1.0
 * @category models
 */
export interface SkillsToolkit<
  Mode extends McpToolkit.ResultMode = "text",
  Failure extends Tool.FailureMode = "return",
  Requirements = never
> extends McpToolkit.McpToolkit<Mode, Failure, Requirements> {
  /** The catalogue as a paragraph for the system prompt (empty when the server has no skill). */
  readonly systemPrompt: string
  /** The skills, by the names the model uses. */
  readonly catalogue: ReadonlyArray<LlmSkills.CatalogueEntry>
}

/**
 * The toolkit of a library of skills (one client's or several, see `LlmSkills.make`).
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromLibrary = <
  E,
  Mode extends McpToolkit.ResultMode = "text",
  Failure extends Tool.FailureMode = "return",
  Requirements = never
>(
  library: LlmSkills.Library<E>,
  options?: McpToolkit.Options<Mode, Failure, Requirements>
): Effect.Effect<SkillsToolkit<Mode, Failure, Requirements>, E> =>
  Effect.gen(function*() {
    const toolkit = yield* McpToolkit.fromSource(library.source, options)
    const catalogue = yield* library.catalogue
    const systemPrompt = yield* library.systemPrompt
    return { ...toolkit, catalogue, systemPrompt }
  })

/**
 * The toolkit of one client's skills, under their bare names (or `prefix__name` with `skillPrefix`).
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromClient = <
  Mode extends McpToolkit.ResultMode = "text",
  Failure extends Tool.FailureMode = "return",
  Requirements = never
>(
  client: McpClient.Service,
  options?: McpToolkit.Options<Mode, Failure, Requirements> & { readonly skillPrefix?: string | undefined }
): Effect.Effect<SkillsToolkit<Mode, Failure, Requirements>, McpError.McpClientError> =>
  fromLibrary(LlmSkills.fromClient(client, { prefix: options?.skillPrefix }), options)
