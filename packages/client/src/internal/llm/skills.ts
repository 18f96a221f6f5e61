/**
 * Skills for a model: the catalogue (name, description) for the system prompt, and the `load_skill` and
 * `read_skill_file` tools, over any number of skill providers under prefixes.
 */
import * as Effect from "effect/Effect"
import type { ToolOutcome, ToolSource } from "../../LlmBridge.js"
import type { CatalogueEntry, Library, LibraryOptions, Provider } from "../../LlmSkills.js"
import type { JsonObject } from "../../McpSchema.js"
import type { Skill, SkillFile, SkillResource, SkillsError } from "../../McpSkills.js"
import * as Entry from "../skills/entry.js"
import { stableHash } from "./names.js"

/** @internal */
export const LOAD_SKILL = "load_skill"
/** @internal */
export const READ_SKILL_FILE = "read_skill_file"

const SEPARATOR = "__"

interface Named<E> {
  readonly name: string
  readonly skill: Skill
  readonly provider: Provider<E>
}

/**
 * The names the model sees: `prefix__name` under a prefix, the bare name otherwise; a name a provider lists
 * twice (two skill paths, one name) keeps it the first time and gains a hash of its URI after that.
 */
const nameAll = <E>(
  listed: ReadonlyArray<{ readonly prefix: string | undefined; readonly provider: Provider<E>; readonly skills: ReadonlyArray<Skill> }>
): ReadonlyArray<Named<E>> => {
  const taken = new Set<string>()
  const named: Array<Named<E>> = []
  for (const { prefix, provider, skills } of listed) {
    for (const skill of skills) {
      const base = prefix === undefined ? skill.name : `${prefix}${SEPARATOR}${skill.name}`
      const name = taken.has(base) ? `${base}-${stableHash(skill.uri)}` : base
      taken.add(name)
      named.push({ name, skill, provider })
    }
  }
  return named
}

const error = (content: string): ToolOutcome => ({ content, isError: true })

const describeFailure = (failure: SkillsError): string =>
  failure._tag === "McpSkillVerificationError"
    ? `The skill file ${failure.uri} failed verification (${failure.reason}) and was not used.`
    : failure.message

const loadOutcome = <E>(named: Named<E>, instructions: string): ToolOutcome => {
  const files = named.skill.resources === "dynamic"
    ? []
    : named.skill.resources.filter((r) => r.uri !== named.skill.uri)
  const root = Entry.skillRoot(named.skill.uri)
  const line = (file: SkillResource) => `- ${file.uri.slice(root.length + 1)} (${file.size} bytes)`
  const listing = files.length > 0
    ? `\n\n---\nFiles of this skill, read with ${READ_SKILL_FILE} (name "${named.name}", path):\n${
      files.map(line).join("\n")
    }`
    : named.skill.resources === "dynamic"
    ? "\n\n---\nThis skill's files are not listed: read them by path if its instructions name them."
    : ""
  return { content: `${instructions}${listing}`, isError: false }
}

/** @internal */
export const make = <E>(
  providers: ReadonlyArray<{ readonly prefix: string | undefined; readonly provider: Provider<E> }>,
  options: LibraryOptions
): Library<E> => {
  const listAll = (refresh: boolean): Effect.Effect<ReadonlyArray<Named<E>>, E> =>
    Effect.forEach(
      providers,
      ({ prefix, provider }) => Effect.map(provider.list({ refresh }), (skills) => ({ prefix, provider, skills })),
      { concurrency: "unbounded" }
    ).pipe(Effect.map(nameAll))

  const catalogue: Effect.Effect<ReadonlyArray<CatalogueEntry>, E> = Effect.map(
    listAll(false),
    (all) => all.map(({ name, skill }) => ({ name, description: skill.description }))
  )

  const systemPrompt = Effect.map(catalogue, (entries) =>
    entries.length === 0
      ? ""
      : [
        options.preamble ?? PREAMBLE,
        "",
        "Skills:",
        ...entries.map((entry) => `- ${entry.name}: ${oneLine(entry.description)}`)
      ].join("\n"))

  /**
   * The skill of that name: from the catalogue as listed now, once more after a fresh listing; the outcome to
   * answer with when there is none (an unknown name, or a listing that failed).
   */
  const find = (name: unknown): Effect.Effect<Named<E> | ToolOutcome> =>
    typeof name !== "string" ? Effect.succeed(unknown(name)) : listAll(false).pipe(
      Effect.flatMap((all) => {
        const found = all.find((n) => n.name === name)
        return found !== undefined ? Effect.succeed(found) : Effect.map(listAll(true), (fresh) => fresh.find((n) => n.name === name))
      }),
      Effect.map((found) => found ?? unknown(name)),
      Effect.catch((failure: E) => Effect.succeed(error(`The skills could not be listed: ${messageOf(failure)}`)))
    )

  const unknown = (name: unknown): ToolOutcome =>
    error(`Unknown skill ${JSON.stringify(name)}: use a name from the skills catalogue.`)

  const load = (args: JsonObject): Effect.Effect<ToolOutcome> =>
    Effect.flatMap(find(args["name"]), (named) =>
      !("skill" in named) ? Effect.succeed(named) : named.provider.load(named.skill).pipe(
        Effect.map((loaded) => loadOutcome(named, loaded.instructions)),
        Effect.catch((failure) => Effect.succeed(error(describeFailure(failure))))
      ))

  const readFile = (args: JsonObject): Effect.Effect<ToolOutcome> =>
    Effect.flatMap(find(args["name"]), (named) => {
      if (!("skill" in named)) return Effect.succeed(named)
      const path = args["path"]
      const uri = typeof path === "string" ? `${Entry.skillRoot(named.skill.uri)}/${path.replace(/^\.?\//, "")}` : undefined
      if (uri === undefined || !Entry.isInsideSkill(named.skill.uri, uri)) {
        return Effect.succeed(error(`${JSON.stringify(path)} is not a path inside the skill ${named.name}.`))
      }
      return named.provider.read(named.skill, uri).pipe(
        Effect.map((file): ToolOutcome => ({
          content: file.text ?? binaryNote(String(path), file),
          isError: false
        })),
        Effect.catch((failure) => Effect.succeed(error(describeFailure(failure))))
      )
    })

  const source: ToolSource<E> = {
    list: (listOptions) =>
      Effect.map(listAll(listOptions?.refresh === true), (all) =>
        all.length === 0 ? [] : [
          {
            name: LOAD_SKILL,
            description:
              "Load a skill: its instructions (SKILL.md) and the list of its files. Use a name from the skills catalogue.",
            inputSchema: {
              type: "object",
              properties: {
                name: { type: "string", description: "The skill's name, as the catalogue gives it", enum: all.map((n) => n.name) }
              },
              required: ["name"]
            },
            annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false }
          },
          {
            name: READ_SKILL_FILE,
            description: "Read one file of a skill (after loading it), by the path the skill lists.",
            inputSchema: {
              type: "object",
              properties: {
                name: { type: "string", description: "The skill's name", enum: all.map((n) => n.name) },
                path: { type: "string", description: "The file's path inside the skill, e.g. references/FORMS.md" }
              },
              required: ["name", "path"]
            },
            annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false }
          }
        ]),
    invoke: (name, args) =>
      name === LOAD_SKILL
        ? load(args)
        : name === READ_SKILL_FILE
        ? readFile(args)
        : Effect.succeed(error(`Unknown tool "${name}".`))
  }

  return { catalogue, systemPrompt, source }
}

const PREAMBLE = `You have skills: instructions for particular tasks. When a task matches a skill's description, call ${LOAD_SKILL} with its name before you start, and follow what it says; read the files it refers to with ${READ_SKILL_FILE} when you need them.`

const binaryNote = (path: string, file: SkillFile): string =>
  `[${path}: a binary file of ${file.bytes.byteLength} bytes${file.mimeType === undefined ? "" : ` (${file.mimeType})`}, not shown]`

const messageOf = (failure: unknown): string => failure instanceof Error ? failure.message : String(failure)

const oneLine = (text: string) => text.replace(/\s+/g, " ").trim()
