/** Test server, its catalog: the declared tools, resources and prompts, found by name and described for lists. */
import { isRecord, type JsonObject } from "../../McpSchema.js"
import type { Definition, PromptDefinition, ResourceDefinition, ToolDefinition } from "../../McpTestServer.js"
import type * as McpTransport from "../../McpTransport.js"

/** @internal */
export const findTool = (definition: Definition, name: unknown): ToolDefinition | undefined =>
  (definition.tools ?? []).find((tool) => tool.name === name)

/** @internal */
export const findResource = (definition: Definition, uri: unknown): ResourceDefinition | undefined =>
  (definition.resources ?? []).find((resource) => resource.uri === uri)

/** @internal */
export const findPrompt = (definition: Definition, name: unknown): PromptDefinition | undefined =>
  (definition.prompts ?? []).find((prompt) => prompt.name === name)

/** A handler's value as a `tools/call` result: text as text content, a record also as structured content. @internal */
export const toolResult = (value: unknown): JsonObject => {
  if (typeof value === "string") return { content: [{ type: "text", text: value }] }
  if (isRecord(value) && Array.isArray(value["content"])) return value
  const text = JSON.stringify(value) ?? "null"
  return isRecord(value)
    ? { content: [{ type: "text", text }], structuredContent: value }
    : { content: [{ type: "text", text }] }
}

const describeTool = (era: McpTransport.Era) => (tool: ToolDefinition): JsonObject => ({
  name: tool.name,
  inputSchema: tool.inputSchema ?? { type: "object", properties: {} },
  ...(tool.description === undefined ? {} : { description: tool.description }),
  ...(tool.outputSchema === undefined ? {} : { outputSchema: tool.outputSchema }),
  ...(tool.annotations === undefined ? {} : { annotations: tool.annotations }),
  ...(tool.taskSupport === undefined || era === "modern" ? {} : { execution: { taskSupport: tool.taskSupport } })
})

/** The `tools/list` result (before the era frames it). @internal */
export const listTools = (definition: Definition, era: McpTransport.Era): JsonObject => ({
  tools: (definition.tools ?? []).map(describeTool(era))
})

/** The `resources/list` result (before the era frames it). @internal */
export const listResources = (definition: Definition): JsonObject => ({
  resources: (definition.resources ?? []).map((r) => ({
    uri: r.uri,
    name: r.name ?? r.uri,
    ...(r.mimeType === undefined ? {} : { mimeType: r.mimeType })
  }))
})

/** The `prompts/list` result (before the era frames it). @internal */
export const listPrompts = (definition: Definition): JsonObject => ({
  prompts: (definition.prompts ?? []).map((p) => ({
    name: p.name,
    ...(p.description === undefined ? {} : { description: p.description }),
    ...(p.arguments === undefined ? {} : { arguments: p.arguments })
  }))
})
