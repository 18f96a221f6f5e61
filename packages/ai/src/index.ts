/**
 * @since 0.1.0
 */

/**
 * MCP servers, registries and local toolkits as an `effect/ai` toolkit with its handlers.
 *
 * @since 0.1.0
 */
export * as McpToolkit from "./McpToolkit.js"

/**
 * A server's skills as an `effect/ai` toolkit (`load_skill`, `read_skill_file`) with its system prompt.
 *
 * @since 0.1.0
 */
export * as McpSkillsToolkit from "./McpSkillsToolkit.js"
