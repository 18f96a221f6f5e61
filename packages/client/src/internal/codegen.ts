/**
 * A TypeScript module generated from a server's tools: one Effect `Schema` per tool input and output (the tool's
 * JSON Schema imported as far as its keywords allow, `toolSchema.ts`), a typed facade for the Effect API
 * (`tools.search({ query })`, on the `McpClient` in context) and one for the Promise API (`promiseTools(client)`),
 * and the hash of each tool's definition at generation (`definitions`), which `changedTools` compares with what
 * the server lists now. A call whose answer no longer has the generated shape fails with `McpToolResultError`.
 *
 * Everything the server wrote (names, descriptions) reaches the source only through Effect's `Codegen` helpers:
 * string literals, property keys and doc comments, escaped; identifiers sanitised and kept apart.
 *
 * @internal
 */
import * as Codegen from "effect/Codegen"
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import * as SchemaRepresentation from "effect/SchemaRepresentation"
import type { Tool } from "../McpSchema.js"
import { canonicalJson } from "./llm/names.js"
import { MAX_DEPTH, measure } from "./outputSchema.js"
import * as toolSchema from "./toolSchema.js"

/** @internal */
export interface GenerateOptions {
  /** What the module says it was generated from (a URL, a command, a configuration entry). */
  readonly source?: string | undefined
  /**
   * The module the facade imports the client from (default `@mcp-effect/client`; `@mcp-effect/client/node` for
   * the Node entry). `changedTools` comes from its `McpCodegen` subpath.
   */
  readonly clientModule?: string | undefined
  /**
   * The client capabilities the listing was made with (`elicitation`, `sampling`, `roots`), said in the module's
   * header: a server may list other tools to a client that declares other capabilities, and `changedTools` then
   * names them. `mcp-effect types` lists with none unless asked (`--declare`), as a program without hooks does.
   */
  readonly declares?: ReadonlyArray<string> | undefined
}

/** A tool, or one of its schemas, the module could not type; the tool is then typed looser, or left out. @internal */
export interface Note {
  readonly tool: string
  readonly detail: string
}

/** @internal */
export interface Generated {
  readonly source: string
  /** Keywords a schema could not express (what the generated schema does not check), and tools left out. */
  readonly notes: ReadonlyArray<Note>
}

/** Descriptions in doc comments are cut to this many characters (a server's text may be megabytes). */
const MAX_DOC = 400

const pascal = (name: string): string => {
  const words = name.split(/[^A-Za-z0-9]+/).filter((word) => word !== "")
  const joined = words.map((word) => word[0]?.toUpperCase() + word.slice(1)).join("")
  return joined === "" ? "Tool" : /^[0-9]/.test(joined) ? `Tool${joined}` : joined
}

/**
 * What a server's text may carry that a reader of the module does not see as it acts (Trojan Source, CVE-2021-42574):
 * C0 controls but newline and tab, DEL, C1, the bidi embeddings, overrides, isolates and marks, the Arabic letter
 * mark, and the line and paragraph separators.
 */
const HIDDEN = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g

/**
 * The module with each hidden character as a `\u` escape. Server text reaches the source only inside string
 * literals (where the escape is the same character) and doc comments (where it is shown as text); identifiers
 * are made of ASCII letters and digits. So the escape changes no value and hides nothing.
 */
const escapeHidden = (source: string): string =>
  source.replace(HIDDEN, (c) => `\\u${(c.codePointAt(0) ?? 0).toString(16).padStart(4, "0")}`)

const docOf = (tool: Tool): string => {
  const text = (tool.description ?? tool.title ?? "").replace(HIDDEN, "")
  const cut = text.length > MAX_DOC ? `${text.slice(0, MAX_DOC - 1)}…` : text
  const comment = Codegen.docComment(cut === "" ? `The tool ${JSON.stringify(tool.name)}.` : cut)
  return comment.trimEnd().split("\n").map((line) => `  ${line}`).join("\n") + "\n"
}

/**
 * SHA-256 (hex) of the canonical JSON of what a typed call depends on: the tool's schemas. Schemas nested deeper
 * than `MAX_DEPTH` are not walked (they are typed looser): they hash as that mark, so such a tool counts as changed
 * only when it gets a schema that can be typed.
 */
const definitionHash = (tool: Tool): Effect.Effect<string> =>
  Effect.promise(async () => {
    const definition = { inputSchema: tool.inputSchema, outputSchema: tool.outputSchema ?? null }
    const text = measure(definition, Number.POSITIVE_INFINITY) === "too-deep"
      ? `nested deeper than ${MAX_DEPTH}`
      : canonicalJson(definition)
    const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text))
    return [...new Uint8Array(digest)].map((byte) => byte.toString(16).padStart(2, "0")).join("")
  })

/** A representation of a tool's schema, or a note saying why not (then the facade uses a looser type). */
const representationOf = (tool: Tool, which: "input" | "output", jsonSchema: unknown, notes: Array<Note>) => {
  // Inputs closed on their declared properties: a typo in an optional argument must not compile.
  const imported = toolSchema.fromJsonSchema(jsonSchema, { closed: which === "input" })
  if (Result.isFailure(imported)) {
    notes.push({ tool: tool.name, detail: `${which} schema not typed: ${imported.failure}` })
    return undefined
  }
  for (const left of imported.success.unexpressed) {
    notes.push({ tool: tool.name, detail: `${which} schema: ${left.keyword} at ${left.path} is not checked` })
  }
  return SchemaRepresentation.toRepresentation(imported.success.schema.ast)
}

interface Entry {
  readonly tool: Tool
  readonly input: Codegen.Binding | undefined
  readonly output: Codegen.Binding | undefined
  readonly hash: string
}

/** The schemas of one tool, declared in the module. */
const declareTool = (module: Codegen.Module, tool: Tool, hash: string, notes: Array<Note>): Entry => {
  const base = pascal(tool.name)
  const input = representationOf(tool, "input", tool.inputSchema, notes)
  const output = tool.outputSchema === undefined ? undefined : representationOf(tool, "output", tool.outputSchema, notes)
  const declared = (name: string, document: SchemaRepresentation.Document | undefined) =>
    document === undefined
      ? undefined
      : module.addSchemas({ [name]: document.representation }, { references: document.references }).get(name)
  return { tool, input: declared(`${base}Input`, input), output: declared(`${base}Output`, output), hash }
}

/** The Effect facade's member for one tool. */
const effectMember = (entry: Entry, client: Codegen.Binding, json: Codegen.Fragment): Codegen.Fragment => {
  const args = entry.input ?? json
  const name = Codegen.literal(entry.tool.name)
  const call = entry.output === undefined
    ? Codegen.code`${client}.callTool(${name}, args, options)`
    : Codegen.code`${client}.callTool(${name}, args, { ...options, schema: ${entry.output} })`
  return Codegen.code`${docOf(entry.tool)}  ${Codegen.propertyKey(entry.tool.name)}: (args: ${args}, options?: ${client}.CallOptions) =>
    ${call}`
}

/** The Promise facade's member for one tool. */
const promiseMember = (entry: Entry, promise: Codegen.Binding, json: Codegen.Fragment): Codegen.Fragment => {
  const args = entry.input ?? json
  const name = Codegen.literal(entry.tool.name)
  const call = entry.output === undefined
    ? Codegen.code`client.callTool(${name}, args, options)`
    : Codegen.code`client.callTool(${name}, args, { ...options, schema: ${entry.output} })`
  return Codegen.code`${docOf(entry.tool)}  ${Codegen.propertyKey(entry.tool.name)}: (args: ${args}, options?: ${promise}.PromiseCallOptions) =>
    ${call}`
}

/** What the header says of the capabilities the listing was made with. */
const declared = (declares: ReadonlyArray<string> | undefined): string =>
  declares === undefined
    ? "Listed by a client whose capabilities are not recorded."
    : declares.length === 0
    ? "Listed by a client that declares no capabilities (no elicitation, sampling or roots), as a program without hooks."
    : `Listed by a client that declares ${declares.join(", ")}.`

const header = (options: GenerateOptions) =>
  Codegen.docComment([
    `Typed tools of ${options.source ?? "an MCP server"}, generated by mcp-effect types. Do not edit: generate again.`,
    "",
    "`tools.<name>(args)` calls the tool on the `McpClient` in context and decodes its answer with the generated",
    "output schema; `promiseTools(client)` does the same on a Promise client. A server whose tool changed shape",
    "since then fails the call with `McpToolResultError`; `changedTools` lists the tools whose definitions differ.",
    "",
    "Arguments take the declared properties only: a key the tool does not declare goes in explicitly, spread from",
    "`McpCodegen.undeclared({ key: value })`.",
    "",
    `${declared(options.declares)} A server may offer a client that declares other capabilities other tools;`,
    "`changedTools` then names them."
  ])

/** @internal */
export const toolsModule = (tools: ReadonlyArray<Tool>, options: GenerateOptions = {}): Effect.Effect<Generated> =>
  Effect.gen(function*() {
    const clientModule = options.clientModule ?? "@mcp-effect/client"
    const module = new Codegen.Module()
    const client = Codegen.importNamed(clientModule, "McpClient")
    const promise = Codegen.importNamed(clientModule, "McpPromise")
    // `McpCodegen` is a subpath of the package (not in either entry): beside the entry the facade imports.
    const codegenHelpers = Codegen.importNamespace(`${clientModule.replace(/\/node$/, "")}/McpCodegen`, "McpCodegen")
    const jsonObject = Codegen.importNamed(clientModule, "McpSchema")
    const json = Codegen.code`${jsonObject}.JsonObject`
    const notes: Array<Note> = []
    const entries: Array<Entry> = []
    const seen = new Set<string>()
    for (const tool of tools) {
      // A name listed twice: the first listing is typed, as `changedTools` compares it; the module would not
      // compile with both (one property per name), and a call by that name reaches whichever the server picks.
      if (seen.has(tool.name)) {
        notes.push({ tool: tool.name, detail: "listed twice: only the first listing is typed; the others are left out" })
        continue
      }
      seen.add(tool.name)
      entries.push(declareTool(module, tool, yield* definitionHash(tool), notes))
    }
    const schemas = entries.flatMap((entry) => [entry.input, entry.output].filter((b) => b !== undefined))

    const definitions = module.declare("definitions")
    module.define(definitions, [
      Codegen.code`/** The SHA-256 of each tool's schemas when this module was generated. */
export const ${definitions}: Readonly<Record<string, string>> = {
${Codegen.join(entries.map((entry) => `  ${Codegen.propertyKey(entry.tool.name)}: ${Codegen.literal(entry.hash)}`), ",\n")}
}`
    ])
    const facade = module.declare("tools")
    module.define(facade, [
      Codegen.code`/** The tools on the \`McpClient\` in context: each decodes its answer with its output schema. */
export const ${facade} = {
${Codegen.join(entries.map((entry) => effectMember(entry, client, json)), ",\n")}
}`
    ], schemas)
    const promiseFacade = module.declare("promiseTools")
    module.define(promiseFacade, [
      Codegen.code`/** The tools on a Promise client. */
export const ${promiseFacade} = (client: ${promise}.PromiseClient) => ({
${Codegen.join(entries.map((entry) => promiseMember(entry, promise, json)), ",\n")}
})`
    ], schemas)
    const changed = module.declare("changedTools")
    module.define(changed, [
      Codegen.code`/** The tools the server lists now whose schemas differ from these (or that it no longer lists). */
export const ${changed} = ${codegenHelpers}.changedTools(${definitions})`
    ], [definitions])
    return { source: escapeHidden(`${header(options)}\n${module.print()}`), notes }
  })

/** The names in `definitions` whose tool the server lists with other schemas, or does not list. @internal */
export const changedTools = (
  definitions: Readonly<Record<string, string>>,
  tools: ReadonlyArray<Tool>
): Effect.Effect<ReadonlyArray<string>> =>
  Effect.gen(function*() {
    const now = new Map<string, string>()
    // The first listing of a name, as generation typed it.
    for (const tool of tools) {
      if (Object.hasOwn(definitions, tool.name) && !now.has(tool.name)) now.set(tool.name, yield* definitionHash(tool))
    }
    return Object.keys(definitions).filter((name) => now.get(name) !== definitions[name])
  })
