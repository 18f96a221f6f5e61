/**
 * The whole command, `mcp-effect`, with its subcommands: info, tools, call, resources, templates, read, prompts,
 * prompt, complete, servers, import, auth, skills, skill, types, pins, card, record, replay, verify, inspect (one file
 * each in this folder).
 */
import * as Command from "effect/cli/Command"
import { auth } from "./auth.js"
import { call } from "./call.js"
import { card } from "./card.js"
import { EVERYTHING } from "./examples.js"
import { complete } from "./complete.js"
import { importServers } from "./import.js"
import { info } from "./info.js"
import { inspect } from "./inspect.js"
import { prompt } from "./prompt.js"
import { prompts } from "./prompts.js"
import { read } from "./read.js"
import { record } from "./record.js"
import { replay } from "./replay.js"
import { resources } from "./resources.js"
import { servers } from "./servers.js"
import { skill } from "./skill.js"
import { skills } from "./skills.js"
import { templates } from "./templates.js"
import { pins } from "./pins.js"
import { tools } from "./tools.js"
import { types } from "./types.js"
import { verify } from "./verify.js"

/** The whole command. */
export const command = Command.make("mcp-effect").pipe(
  Command.withDescription("Try any MCP server from the terminal."),
  Command.withExamples([
    { command: `mcp-effect tools -- ${EVERYTHING}`, description: "a server's tools: its command after a bare --" },
    { command: `mcp-effect tools --stdio "${EVERYTHING}"`, description: "the same, the command as one quoted string" },
    { command: `mcp-effect call get-sum a=1 b=2 -- ${EVERYTHING}`, description: "call a tool, its arguments as name=value" },
    { command: "mcp-effect tools --url https://example.com/mcp", description: "a Streamable HTTP server (sign-in if it asks)" },
    { command: "mcp-effect servers", description: "every server of ./.mcp.json, checked; then -s NAME picks one" },
    { command: `mcp-effect inspect -- ${EVERYTHING}`, description: "a web inspector for the server, in the browser" }
  ]),
  Command.withSubcommands([
    info, tools, call, resources, templates, read, prompts, prompt, complete, servers, importServers, auth,
    skills, skill, types, pins, card, record, replay, verify, inspect
  ])
)
