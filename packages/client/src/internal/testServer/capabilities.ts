/** Test server, what it declares: its capabilities and server info, from the definition and the era. */
import type { JsonObject } from "../../McpSchema.js"
import type { Definition } from "../../McpTestServer.js"
import { EXTENSION_ID } from "../skills/entry.js"

/** The modern tasks extension (SEP-2663). @internal */
export const TASKS_EXTENSION = "io.modelcontextprotocol/tasks"

/** @internal */
export const capabilitiesOf = (
  definition: Definition,
  offered: { readonly tasks: boolean; readonly modernTasks: boolean }
): JsonObject => ({
  ...(offered.tasks ? { tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } } : {}),
  ...(offered.modernTasks || definition.skills !== undefined
    ? { extensions: { ...(offered.modernTasks ? { [TASKS_EXTENSION]: {} } : {}), ...skillsCapability(definition) } }
    : {}),
  ...(definition.tools !== undefined ? { tools: { listChanged: true } } : {}),
  ...(definition.resources !== undefined || definition.skills !== undefined ? { resources: { subscribe: true, listChanged: true } } : {}),
  ...(definition.prompts !== undefined ? { prompts: { listChanged: true } } : {}),
  logging: {}
})

/** @internal */
export interface ServerInfo {
  readonly name: string
  readonly version: string
}

/** @internal */
export const serverInfoOf = (definition: Definition): ServerInfo => ({
  name: definition.name ?? "test-server",
  version: definition.version ?? "1.0.0"
})

/** The extension as the server declares it, when it serves skills. @internal */
export const skillsCapability = (definition: Definition): JsonObject | undefined =>
  definition.skills === undefined
    ? undefined
    : { [EXTENSION_ID]: definition.skillsDirectoryRead === true ? { directoryRead: true } : {} }
