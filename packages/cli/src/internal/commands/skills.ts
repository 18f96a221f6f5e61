/**
 * `skills`: the server's Agent Skills (the `io.modelcontextprotocol/skills` extension) as a table; no file is read.
 */
import type { McpSkills } from "@mcp-effect/client"
import * as Command from "effect/cli/Command"
import * as Effect from "effect/Effect"
import { withClient } from "../session/connection.js"
import { shared } from "../session/options.js"
import { print, printJson, table } from "../terminal/print.js"

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
