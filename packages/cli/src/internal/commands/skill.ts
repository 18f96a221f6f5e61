/**
 * `skill NAME [--out DIR] [--force]`: one skill's verified `SKILL.md`, or the whole verified skill written as a
 * folder, all or nothing, never outside it (see `skillFiles.ts` for what is refused, `files.ts` for how it is
 * written).
 */
import type { McpClient } from "@mcp-effect/client"
import * as Argument from "effect/cli/Argument"
import * as Command from "effect/cli/Command"
import * as Flag from "effect/cli/Flag"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import { UsageError } from "../errors.js"
import { type FileError, folderTarget, writeFolder } from "../files.js"
import { withClient } from "../session/connection.js"
import { shared } from "../session/options.js"
import { print, printJson } from "../terminal/print.js"
import { readSkill } from "../skillFiles.js"

/** A skill listing the client refused (an `InvalidSkill` diagnostic): the URI it names, when it names one. */
const refusedUri = (reason: string): string | undefined => /^(\S+:\/\/\S*\/SKILL\.md): /.exec(reason)?.[1]

/** Whether a refused listing was the skill called `name` (its folder's name), or the one of URI `name`. */
const refusedAs = (name: string) => (reason: string): boolean => {
  const uri = refusedUri(reason)
  return uri !== undefined && (uri === name || uri.split("/").at(-2) === name)
}

/** A refusal's reason as shown: it quotes the server, so a long one is cut. */
const shortened = (reason: string): string => (reason.length > 400 ? `${reason.slice(0, 400)}…` : reason)

/**
 * The skills the server lists, and the reasons of the listings the client refused (its `InvalidSkill`
 * diagnostics, published while the listing is checked). The collector is subscribed before the list is asked
 * (started at once, it runs up to its first wait); once the list is in, one yield lets it take what was published.
 */
const listWithRefusals = (client: McpClient.Service) =>
  Effect.scoped(Effect.gen(function*() {
    const refusals: Array<string> = []
    yield* Effect.forkScoped(
      Stream.runForEach(client.diagnostics, (diagnostic) =>
        Effect.sync(() => {
          if (diagnostic._tag === "InvalidSkill") refusals.push(diagnostic.reason)
        })),
      { startImmediately: true }
    )
    const list = yield* client.listSkills()
    yield* Effect.yieldNow
    return { list, refusals }
  }))

/** The skill called `name` (or whose `SKILL.md` URI it is); two of one name must be told apart by URI. */
const findSkill = (client: McpClient.Service, name: string) =>
  Effect.gen(function*() {
    const { list, refusals } = yield* listWithRefusals(client)
    const matches = list.filter((skill) => skill.name === name || skill.uri === name)
    const [only, ...others] = matches
    if (only === undefined) {
      const refused = refusals.find(refusedAs(name))
      if (refused !== undefined) {
        return yield* new UsageError({
          message: `the server lists a skill ${JSON.stringify(name)}, but its listing was refused as invalid: ${shortened(refused)}`
        })
      }
      const also = refusals.length === 0
        ? ""
        : `; ${refusals.length} listing(s) refused as invalid: ${refusals.slice(0, 3).map(shortened).join("; ")}${
          refusals.length > 3 ? "; …" : ""
        }`
      return yield* new UsageError({
        message: `no skill ${JSON.stringify(name)} (the server lists: ${list.map((s) => s.name).join(", ") || "none"}${also})`
      })
    }
    if (others.length > 0) {
      return yield* new UsageError({
        message: `${matches.length} skills are called ${JSON.stringify(name)}: name one by its URI (${
          matches.map((s) => s.uri).join(", ")
        })`
      })
    }
    return only
  })

/** `skill NAME [--out DIR]`. */
export const skill = Command.make(
  "skill",
  {
    ...shared,
    name: Argument.String("name").pipe(Argument.withDescription("the skill's name (or the URI of its SKILL.md)")),
    out: Flag.String("out").pipe(
      Flag.withDescription(
        "write the whole verified skill as this folder (new or empty; nothing is written if a file fails)"
      ),
      Flag.optional
    ),
    force: Flag.Boolean("force").pipe(
      Flag.withDescription("with --out: write into a folder that is not empty, replacing same-named files"),
      Flag.withDefault(false)
    )
  },
  (options) =>
    withClient(options, (client) =>
      Effect.gen(function*() {
        const found = yield* findSkill(client, options.name)
        if (Option.isNone(options.out)) {
          const loaded = yield* client.loadSkill(found)
          if (options.json) return yield* printJson({ skill: found, instructions: loaded.instructions })
          return yield* print(loaded.instructions.replace(/\n$/, ""))
        }
        const asUsage = (error: FileError) => new UsageError({ message: error.message })
        // Checked before anything is read, and again when writing.
        yield* Effect.mapError(folderTarget(options.out.value, options.force), asUsage)
        // Every file is read and verified before the first is written; then all are written, or none.
        const files = yield* readSkill(client, found)
        yield* Effect.mapError(writeFolder(options.out.value, files, options.force), asUsage)
        const written = files.map((file) => file.relative)
        if (options.json) return yield* printJson({ skill: found, directory: options.out.value, files: written })
        for (const file of written) yield* print(file)
      }))
).pipe(Command.withDescription("a skill's verified SKILL.md on stdout, or with --out DIR the whole verified skill in DIR"))
