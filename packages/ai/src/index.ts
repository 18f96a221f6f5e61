/**
 * @since 0.1.0
 */

/**
 * MCP servers, registries and local toolkits as an `effect/ai` toolkit with its handlers.
 *
 * @since 0.1.0
 */
export * as McpToolkit from "./McpToolkit.js"
