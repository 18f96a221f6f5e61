/**
 * The subcommands: info, tools, call, resources, templates, read, prompts, prompt, complete, servers, auth,
 * skills, skill.
 */
import type { McpClient } from "@mcp-effect/client"
import type { CompletionReference } from "@mcp-effect/client/McpSchema"
import * as Argument from "effect/cli/Argument"
import * as Command from "effect/cli/Command"
import * as Flag from "effect/cli/Flag"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import { pairs, toolArguments } from "./coerce.js"
import { ToolReturnedError, UsageError } from "./errors.js"
import { annotationFlags, blockText, contentsText, indented, print, printJson, table } from "./render.js"
import { distinctBlocks, parameterLine, saveFirst, whenCapable } from "./output.js"
import { type SessionOptions, withClient } from "./session.js"
import { shared } from "./options.js"
import { bounded, visible } from "./sanitize.js"
import type { StatusLine } from "./status.js"
import { servers } from "./servers.js"
import { authCommand } from "./authCommand.js"
import { importCommand } from "./importCommand.js"
import { skill, skills } from "./skillsCommand.js"

/** `key=value...` positional arguments. */
const keyValues = (description: string) =>
  Argument.String("key=value").pipe(Argument.withDescription(description), Argument.variadic())

const capabilityList = (capabilities: Readonly<Record<string, unknown>>) =>
  Object.entries(capabilities).map(([name, value]) => {
    const flags = typeof value === "object" && value !== null
      ? Object.entries(value).filter(([, on]) => on === true).map(([flag]) => flag)
      : []
    return flags.length === 0 ? name : `${name} (${flags.join(", ")})`
  }).join(", ")

const info = Command.make("info", shared, (options) =>
  withClient(options, (client, _status, startedAt) =>
    Effect.gen(function*() {
      const details = yield* client.info
      const connectMs = Date.now() - startedAt
      if (options.json) return yield* printJson({ ...details, connectMs })
      const server = details.serverInfo === undefined
        ? "(unnamed)"
        : `${details.serverInfo.name} ${details.serverInfo.version}`
      yield* print([
        `server:        ${server}`,
        `era:           ${details.era} (protocol ${details.protocolVersion})`,
        `capabilities:  ${capabilityList(details.capabilities) || "(none)"}`,
        `instructions:  ${(details.instructions ?? "(none)").trim().split("\n").join("\n               ")}`,
        `connected in:  ${connectMs} ms`
      ].join("\n"))
    }))).pipe(Command.withDescription("the server: era, protocol version, name, capabilities, instructions"))

/**
 * The server's tools. A tool the library left out of the listing (malformed: an `inputSchema` that is not an
 * object) is named on stderr with the reason, so that a missing tool is not a mystery.
 */
const listTools = (client: McpClient.Service, status: StatusLine) =>
  client.diagnostics.pipe(
    Stream.runForEach((diagnostic) =>
      Effect.sync(() => {
        if (diagnostic._tag === "InvalidTool") status.line(`mcp-effect: tool ${visible(diagnostic.name)} left out: ${visible(diagnostic.reason)}`)
      })
    ),
    // Subscribed before the listing is asked for, for the listing only.
    Effect.forkScoped({ startImmediately: true }),
    Effect.andThen(client.listTools()),
    Effect.scoped
  )

/** The server every example starts (the MCP reference server, run with npx). */
const EVERYTHING = "npx -y @modelcontextprotocol/server-everything"

/** `--wide` of the commands that print a table. */
const wide = Flag.Boolean("wide").pipe(
  Flag.withDescription("every cell whole on one line (by default the table fits the terminal: columns shrink, cells wrap)"),
  Flag.withDefault(false)
)

const tools = Command.make(
  "tools",
  {
    ...shared,
    wide,
    schema: Flag.Boolean("schema").pipe(Flag.withDescription("show input and output schemas"), Flag.withDefault(false))
  },
  (options) =>
    withClient(options, (client, status) =>
      Effect.gen(function*() {
        const list = yield* whenCapable(client, "tools", [], listTools(client, status))
        if (options.json) return yield* printJson(list)
        yield* print(table(
          ["NAME", "PARAMETERS", "ANNOTATIONS", "DESCRIPTION"],
          // The schema to a bounded depth: walks over a schema nested without end would overflow the stack.
          list.map((tool) => [tool.name, parameterLine(bounded(tool.inputSchema)), annotationFlags(tool.annotations), tool.description ?? ""]),
          { wide: options.wide }
        ))
        if (!options.schema) return
        for (const tool of list) {
          yield* print(`\n${tool.name}\n${indented("input", tool.inputSchema)}`)
          if (tool.outputSchema !== undefined) yield* print(indented("output", tool.outputSchema))
        }
      }))
).pipe(
  Command.withDescription("the server's tools (with --schema: their schemas)"),
  Command.withExamples([
    { command: `mcp-effect tools -- ${EVERYTHING}`, description: "the tools of a server started over stdio" },
    { command: `mcp-effect tools --schema --stdio "${EVERYTHING}"`, description: "with their input and output schemas" },
    { command: `mcp-effect tools --wide -s everything`, description: "an entry of ./.mcp.json, every cell whole" }
  ])
)

const call = Command.make(
  "call",
  {
    ...shared,
    args: Flag.String("args").pipe(Flag.withDescription("the whole arguments object as JSON"), Flag.optional),
    out: Flag.String("out").pipe(Flag.withDescription("save the result's first image, audio or blob (else its text) to this file"), Flag.optional),
    tool: Argument.String("tool").pipe(Argument.withDescription("the name of the tool to call")),
    values: keyValues("the tool's arguments as name=value, each value coerced by the tool's input schema")
  },
  (options) =>
    withClient(options, (client, status) =>
      Effect.gen(function*() {
        const catalogue = yield* listTools(client, status)
        const tool = catalogue.find((t) => t.name === options.tool)
        if (tool === undefined) {
          return yield* new UsageError({
            message: `no tool ${JSON.stringify(options.tool)} (tools: ${catalogue.map((t) => t.name).join(", ")})`
          })
        }
        const args = yield* toolArguments(bounded(tool.inputSchema), options.values, Option.getOrUndefined(options.args))
        const result = yield* client.callTool(tool.name, args).pipe(Effect.ensuring(Effect.sync(status.clear)))
        if (Option.isSome(options.out)) {
          yield* saveFirst(options.out.value, result.content)
        } else if (options.json) {
          yield* printJson(result)
        } else {
          // Compared and shown to a bounded depth: a result nested without end is cut, not a stack overflow.
          const structured = bounded(result.structuredContent)
          for (const block of distinctBlocks(result.content, structured)) yield* print(blockText(block))
          if (structured !== undefined) yield* print(indented("structured", structured))
        }
        if (result.isError === true) return yield* new ToolReturnedError({ tool: tool.name })
      }), { progress: true })
).pipe(
  Command.withDescription("call a tool: values coerced by its input schema (--args JSON for the whole object)"),
  Command.withExamples([
    { command: `mcp-effect call get-sum a=1 b=2 -- ${EVERYTHING}`, description: "the arguments as name=value" },
    {
      command: `mcp-effect call get-sum --args '{"a": 1, "b": 2}' --stdio "${EVERYTHING}"`,
      description: "the whole arguments object as JSON"
    },
    { command: `mcp-effect call echo message=hi --json --url https://example.com/mcp`, description: "a Streamable HTTP server, JSON out" }
  ])
)

const resources = Command.make("resources", { ...shared, wide }, (options) =>
  withClient(options, (client) =>
    Effect.gen(function*() {
      const list = yield* whenCapable(client, "resources", [], client.listResources())
      if (options.json) return yield* printJson(list)
      yield* print(table(
        ["URI", "NAME", "MIME", "DESCRIPTION"],
        list.map((r) => [r.uri, r.name, r.mimeType ?? "", r.description ?? ""]),
        { wide: options.wide }
      ))
    }))).pipe(Command.withDescription("the server's resources"))

const templates = Command.make("templates", { ...shared, wide }, (options) =>
  withClient(options, (client) =>
    Effect.gen(function*() {
      const list = yield* whenCapable(client, "resources", [], client.listResourceTemplates())
      if (options.json) return yield* printJson(list)
      yield* print(table(
        ["URI TEMPLATE", "NAME", "MIME", "DESCRIPTION"],
        list.map((r) => [r.uriTemplate, r.name, r.mimeType ?? "", r.description ?? ""]),
        { wide: options.wide }
      ))
    }))).pipe(Command.withDescription("the server's resource templates"))

const read = Command.make("read", {
  ...shared,
  out: Flag.String("out").pipe(Flag.withDescription("save the resource (its first blob, else its text) to this file"), Flag.optional),
  uri: Argument.String("uri").pipe(Argument.withDescription("the URI of the resource"))
}, (options) =>
  withClient(options, (client) =>
    Effect.gen(function*() {
      const result = yield* client.readResource(options.uri)
      if (Option.isSome(options.out)) return yield* saveFirst(options.out.value, result.contents)
      if (options.json) return yield* printJson(result)
      for (const contents of result.contents) yield* print(contentsText(contents))
    }))).pipe(Command.withDescription("read a resource"))

const prompts = Command.make("prompts", { ...shared, wide }, (options) =>
  withClient(options, (client) =>
    Effect.gen(function*() {
      const list = yield* whenCapable(client, "prompts", [], client.listPrompts())
      if (options.json) return yield* printJson(list)
      yield* print(table(
        ["NAME", "ARGUMENTS", "DESCRIPTION"],
        list.map((p) => [
          p.name,
          (p.arguments ?? []).map((a) => `${a.name}${a.required === true ? "" : "?"}`).join(" "),
          p.description ?? ""
        ]),
        { wide: options.wide }
      ))
    }))).pipe(Command.withDescription("the server's prompts"))

const prompt = Command.make("prompt", {
  ...shared,
  name: Argument.String("name").pipe(Argument.withDescription("the name of the prompt")),
  values: keyValues("the prompt's arguments as name=value")
}, (options) =>
  withClient(options, (client) =>
    Effect.gen(function*() {
      const args = Object.fromEntries(yield* pairs(options.values))
      const result = yield* client.getPrompt(options.name, args)
      if (options.json) return yield* printJson(result)
      if (result.description !== undefined) yield* print(`# ${result.description}`)
      for (const message of result.messages) yield* print(`${message.role}: ${blockText(message.content)}`)
    }))).pipe(Command.withDescription("get a prompt with its arguments"))

const referenceOf = (ref: string): CompletionReference =>
  ref.includes("://") || ref.includes("{")
    ? { type: "ref/resource", uri: ref }
    : { type: "ref/prompt", name: ref }

const complete = Command.make(
  "complete",
  {
    ...shared,
    ref: Argument.String("prompt-or-uri-template").pipe(
      Argument.withDescription("the prompt's name, or the resource template's URI template")
    ),
    values: keyValues("the argument to complete as name=partial-value, then other arguments as name=value")
  },
  (options) =>
    withClient(options, (client) =>
      Effect.gen(function*() {
        const [argument, ...context] = yield* pairs(options.values)
        if (argument === undefined) {
          return yield* new UsageError({ message: "complete needs the argument to complete, as name=partial-value" })
        }
        const result = yield* client.complete(
          referenceOf(options.ref),
          { name: argument[0], value: argument[1] },
          context.length === 0 ? undefined : { arguments: Object.fromEntries(context) }
        )
        if (options.json) return yield* printJson(result)
        for (const value of result.completion.values) yield* print(value)
        if (result.completion.hasMore === true) yield* print(`(more: ${result.completion.total ?? "?"} in all)`)
      }))
).pipe(Command.withDescription("complete an argument of a prompt or resource template: NAME arg=partial [other=value...]"))

/** The whole command. */
export const command = Command.make("mcp-effect").pipe(
  Command.withDescription("Try any MCP server from the terminal."),
  Command.withExamples([
    { command: `mcp-effect tools -- ${EVERYTHING}`, description: "a server's tools: its command after a bare --" },
    { command: `mcp-effect tools --stdio "${EVERYTHING}"`, description: "the same, the command as one quoted string" },
    { command: `mcp-effect call get-sum a=1 b=2 -- ${EVERYTHING}`, description: "call a tool, its arguments as name=value" },
    { command: "mcp-effect tools --url https://example.com/mcp", description: "a Streamable HTTP server (sign-in if it asks)" },
    { command: "mcp-effect servers", description: "every server of ./.mcp.json, checked; then -s NAME picks one" }
  ]),
  Command.withSubcommands([
    info, tools, call, resources, templates, read, prompts, prompt, complete, servers, importCommand, authCommand,
    skills, skill
  ])
)

export type { SessionOptions }
